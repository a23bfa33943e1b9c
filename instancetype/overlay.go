package instancetype

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	resvec "github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// Overlay is a Karpenter NodeOverlay (karpenter.sh/v1alpha1): it changes the prices of the
// offerings and adds extended resources to the capacity of the instance types its
// requirements select, as Karpenter does before it plans or consolidates. Requirements match
// the types' labels, the offerings' zones and capacity types, and the NodePool's name and
// template labels; no requirement selects every type.
type Overlay struct {
	Name string
	// Weight orders overlays: where two set the price of the same offering (or the same
	// extended resource of a type), the higher weight wins; at equal weights they conflict.
	Weight       int32
	Requirements []corev1.NodeSelectorRequirement
	// Price replaces an offering's price ("5.00"); PriceAdjustment changes it by an amount
	// ("+0.5", "-0.25") or a percentage ("+10%", "-15%"), never below zero. At most one is
	// set; "" means not set.
	Price, PriceAdjustment string
	// Capacity adds extended resources (nvidia.com/gpu, hugepages-2Mi…) to the types'
	// capacity, replacing the type's own amount of the same resource.
	Capacity corev1.ResourceList
}

var (
	overlayPriceRE      = regexp.MustCompile(`^\d+(\.\d+)?$`)
	overlayAdjustmentRE = regexp.MustCompile(`^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$`)
)

// standardResources are those an overlay's capacity may not change.
var standardResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods}

// Validate checks the overlay as Karpenter's API does; the error names the field.
func (o *Overlay) Validate() error {
	if o.Price != "" && o.PriceAdjustment != "" {
		return fmt.Errorf("spec: price and priceAdjustment cannot both be set")
	}
	if o.Price != "" && !overlayPriceRE.MatchString(o.Price) {
		return fmt.Errorf("spec.price: %q is not a price (a non-negative number such as \"0.25\")", o.Price)
	}
	if o.PriceAdjustment != "" && !overlayAdjustmentRE.MatchString(o.PriceAdjustment) {
		return fmt.Errorf("spec.priceAdjustment: %q is not an adjustment (\"+0.5\", \"-0.25\", \"+10%%\" or \"-15%%\", at most -100%%)", o.PriceAdjustment)
	}
	for i, r := range o.Requirements {
		if err := requirements.ValidateNodeSelectorRequirement(r); err != nil {
			return fmt.Errorf("spec.requirements[%d]: %w", i, err)
		}
	}
	for _, name := range sortedResourceNames(o.Capacity) {
		if slices.Contains(standardResources, name) {
			return fmt.Errorf("spec.capacity.%s: an overlay adds extended resources only, not cpu, memory, ephemeral-storage or pods", name)
		}
		if q := o.Capacity[name]; q.Sign() < 0 {
			return fmt.Errorf("spec.capacity.%s: must not be negative, got %s", name, q.String())
		}
	}
	if name, err := resvec.CheckList(o.Capacity); err != nil {
		return fmt.Errorf("spec.capacity.%s: %w", name, err)
	}
	return nil
}

// AdjustPrice applies a price or price adjustment (as in Overlay) to price.
func AdjustPrice(price float64, change string) float64 {
	if change == "" {
		return price
	}
	if !strings.HasPrefix(change, "+") && !strings.HasPrefix(change, "-") {
		v, err := strconv.ParseFloat(change, 64)
		if err != nil {
			return price
		}
		return v
	}
	var adjusted float64
	if pct, ok := strings.CutSuffix(change, "%"); ok {
		v, err := strconv.ParseFloat(pct, 64)
		if err != nil {
			return price
		}
		adjusted = price * (1 + v/100)
	} else {
		v, err := strconv.ParseFloat(change, 64)
		if err != nil {
			return price
		}
		adjusted = price + v
	}
	return max(adjusted, 0)
}

// OverlayTarget is what overlays apply to: one NodePool's instance types and the labels its
// nodes carry (karpenter.sh/nodepool and the NodePool's template labels). A catalog on its own
// is a target without labels.
type OverlayTarget struct {
	Labels        map[string]string
	InstanceTypes []*InstanceType
}

// ApplyOverlays returns, for each target, its instance types with the overlays applied, as
// Karpenter's NodeOverlay controller does: overlays are taken by weight (highest first; at
// equal weights, names in reverse alphabetical order); the first to set an offering's price or
// a type's extended resource keeps it; an overlay that would set one already set at its own
// weight conflicts and is left out everywhere. Types no overlay changes are shared with the
// input; the others are copies. The second result names the overlays left out, sorted.
func ApplyOverlays(overlays []*Overlay, targets []OverlayTarget) ([][]*InstanceType, []string) {
	ordered := slices.Clone(overlays)
	slices.SortStableFunc(ordered, func(a, b *Overlay) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), strings.Compare(b.Name, a.Name))
	})
	st := overlayStore{}
	var conflicts []string
	for _, o := range ordered {
		reqs := requirements.FromNodeSelectorRequirements(o.Requirements...)
		if st.conflicts(o, reqs, targets) {
			conflicts = append(conflicts, o.Name)
			continue
		}
		st.store(o, reqs, targets)
	}
	slices.Sort(conflicts)

	out := make([][]*InstanceType, len(targets))
	for ti, t := range targets {
		out[ti] = make([]*InstanceType, len(t.InstanceTypes))
		for i, it := range t.InstanceTypes {
			u := st[overlayKey{ti, i}]
			if u == nil {
				out[ti][i] = it
				continue
			}
			c := *it
			if len(u.capacity) > 0 {
				c.Capacity = maps.Clone(it.Capacity)
				if c.Capacity == nil {
					c.Capacity = corev1.ResourceList{}
				}
				for name, q := range u.capacity {
					c.Capacity[name] = q.DeepCopy()
				}
			}
			if len(u.prices) > 0 {
				c.Offerings = slices.Clone(it.Offerings)
				for j := range c.Offerings {
					if p, ok := u.prices[offeringID(c.Offerings[j])]; ok {
						c.Offerings[j].Price = AdjustPrice(c.Offerings[j].Price, p.change)
					}
				}
				SortOfferings(c.Offerings)
			}
			out[ti][i] = &c
		}
	}
	return out, conflicts
}

type overlayKey struct{ target, instanceType int }

type offeringKey struct{ zone, capacityType, reservationID string }

func offeringID(o Offering) offeringKey { return offeringKey{o.Zone, o.CapacityType, o.ReservationID} }

type priceUpdate struct {
	change       string
	lowestWeight int32
}

type overlayUpdate struct {
	prices map[offeringKey]*priceUpdate
	// capacity merged so far; lowestCapacity and capacityWeight are the last overlay's.
	capacity       corev1.ResourceList
	lowestCapacity corev1.ResourceList
	capacityWeight int32
	hasCapacity    bool
}

// overlayStore holds the updates of the overlays taken so far, per target and type.
type overlayStore map[overlayKey]*overlayUpdate

// matches returns the offerings of a type an overlay selects (nil: the type is not selected).
func matches(reqs requirements.Requirements, labels map[string]string, it *InstanceType) []Offering {
	// Unavailable offerings are selected too: their zones and capacity types count.
	typeReqs := requirements.FromLabels(it.Labels)
	for k, v := range labels {
		typeReqs.Add(requirements.New(k, corev1.NodeSelectorOpIn, v))
	}
	typeReqs.Add(requirements.New(requirements.LabelInstanceType, corev1.NodeSelectorOpIn, it.Name))
	zones := make([]string, 0, len(it.Offerings))
	capacityTypes := make([]string, 0, 3)
	for _, o := range it.Offerings {
		zones = append(zones, o.Zone)
		capacityTypes = append(capacityTypes, o.CapacityType)
	}
	typeReqs.Add(requirements.New(requirements.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...))
	typeReqs.Add(requirements.New(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, capacityTypes...))
	if typeReqs.Compatible(reqs, func(string) bool { return false }) != nil {
		return nil
	}
	var out []Offering
	for _, o := range it.Offerings {
		if OfferingAllowed(o, reqs) {
			out = append(out, o)
		}
	}
	return out
}

func (st overlayStore) conflicts(o *Overlay, reqs requirements.Requirements, targets []OverlayTarget) bool {
	change := cmp.Or(o.Price, o.PriceAdjustment)
	for ti, t := range targets {
		for i, it := range t.InstanceTypes {
			offerings := matches(reqs, t.Labels, it)
			u := st[overlayKey{ti, i}]
			if len(offerings) == 0 || u == nil {
				continue
			}
			if change != "" {
				for _, of := range offerings {
					if p, ok := u.prices[offeringID(of)]; ok && p.lowestWeight == o.Weight {
						return true
					}
				}
			}
			if len(o.Capacity) > 0 && u.hasCapacity && u.capacityWeight == o.Weight {
				for name := range o.Capacity {
					if _, ok := u.lowestCapacity[name]; ok {
						return true
					}
				}
			}
		}
	}
	return false
}

func (st overlayStore) store(o *Overlay, reqs requirements.Requirements, targets []OverlayTarget) {
	change := cmp.Or(o.Price, o.PriceAdjustment)
	for ti, t := range targets {
		for i, it := range t.InstanceTypes {
			offerings := matches(reqs, t.Labels, it)
			if len(offerings) == 0 || (change == "" && len(o.Capacity) == 0) {
				continue
			}
			key := overlayKey{ti, i}
			u := st[key]
			if u == nil {
				u = &overlayUpdate{prices: map[offeringKey]*priceUpdate{}, capacity: corev1.ResourceList{}}
				st[key] = u
			}
			if change != "" {
				for _, of := range offerings {
					if p, ok := u.prices[offeringID(of)]; ok {
						p.lowestWeight = o.Weight // a heavier overlay already set it
						continue
					}
					u.prices[offeringID(of)] = &priceUpdate{change: change, lowestWeight: o.Weight}
				}
			}
			if len(o.Capacity) > 0 {
				for name, q := range o.Capacity {
					if _, ok := u.capacity[name]; !ok {
						u.capacity[name] = q
					}
				}
				u.lowestCapacity, u.capacityWeight, u.hasCapacity = o.Capacity, o.Weight, true
			}
		}
	}
}
