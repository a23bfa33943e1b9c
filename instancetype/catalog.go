package instancetype

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	resvec "github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// Catalog is a set of instance types, usually those of one region.
type Catalog struct {
	Region        string
	Source        string
	InstanceTypes []*InstanceType
}

// Catalog file schema (nodeplan/v1 InstanceTypeCatalog), see DESIGN.md.
type catalogFile struct {
	APIVersion    string             `json:"apiVersion"`
	Kind          string             `json:"kind"`
	Region        string             `json:"region,omitempty"`
	Source        string             `json:"source,omitempty"`
	InstanceTypes []instanceTypeFile `json:"instanceTypes"`
}

type instanceTypeFile struct {
	Name               string              `json:"name"`
	Labels             map[string]string   `json:"labels,omitempty"`
	Capacity           corev1.ResourceList `json:"capacity"`
	Overhead           overheadFile        `json:"overhead,omitzero"`
	VolumeAttachLimits map[string]int      `json:"volumeAttachLimits,omitempty"`
	Offerings          []offeringFile      `json:"offerings"`
}

type overheadFile struct {
	KubeReserved      corev1.ResourceList `json:"kubeReserved,omitempty"`
	SystemReserved    corev1.ResourceList `json:"systemReserved,omitempty"`
	EvictionThreshold corev1.ResourceList `json:"evictionThreshold,omitempty"`
}

type offeringFile struct {
	Zone                string   `json:"zone"`
	CapacityType        string   `json:"capacityType"`
	Price               *float64 `json:"price"`
	Available           *bool    `json:"available,omitempty"`
	ReservationID       string   `json:"reservationID,omitempty"`
	ReservationCapacity int      `json:"reservationCapacity,omitempty"`
}

const (
	CatalogAPIVersion = "nodeplan/v1"
	CatalogKind       = "InstanceTypeCatalog"
)

// LoadCatalogFile reads a catalog file (YAML or JSON).
func LoadCatalogFile(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading instance-type catalog: %w", err)
	}
	return ParseCatalog(data, path)
}

// ParseCatalog parses and validates a catalog document (YAML or JSON). source names the
// document in error messages (usually its file name).
func ParseCatalog(data []byte, source string) (*Catalog, error) {
	var f catalogFile
	if err := decodeStrict(data, &f); err != nil {
		if located, ok := locateDecodeError(data, err); ok {
			return nil, fmt.Errorf("%s: %w", source, located)
		}
		return nil, fmt.Errorf("%s: not a valid instance-type catalog: %w", source, decodeCause(err))
	}
	if f.APIVersion != CatalogAPIVersion || f.Kind != CatalogKind {
		return nil, fmt.Errorf("%s: apiVersion/kind is %q/%q, want %s/%s", source, f.APIVersion, f.Kind, CatalogAPIVersion, CatalogKind)
	}
	if len(f.InstanceTypes) == 0 {
		return nil, fmt.Errorf("%s: instanceTypes is empty: a catalog needs at least one instance type", source)
	}
	c := &Catalog{Region: f.Region, Source: f.Source}
	seen := map[string]int{}
	validLabels := map[[2]string]bool{} // labels already validated: types share most of them
	for i, itf := range f.InstanceTypes {
		it, err := itf.convert(validLabels)
		if err != nil {
			name := itf.Name
			if name == "" {
				name = fmt.Sprintf("#%d", i)
			}
			return nil, fmt.Errorf("%s: instanceTypes[%d] (%s): %w", source, i, name, err)
		}
		if j, dup := seen[it.Name]; dup {
			return nil, fmt.Errorf("%s: instanceTypes[%d] (%s): name: %q is already used by instanceTypes[%d]", source, i, it.Name, it.Name, j)
		}
		seen[it.Name] = i
		c.InstanceTypes = append(c.InstanceTypes, it)
	}
	sort.Slice(c.InstanceTypes, func(i, j int) bool { return c.InstanceTypes[i].Name < c.InstanceTypes[j].Name })
	return c, nil
}

func (f instanceTypeFile) convert(validLabels map[[2]string]bool) (*InstanceType, error) {
	if f.Name == "" {
		return nil, fmt.Errorf("name: must be set")
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		q, ok := f.Capacity[r]
		if !ok || q.Sign() <= 0 {
			return nil, fmt.Errorf("capacity.%s: must be set and positive", r)
		}
	}
	for _, part := range []struct {
		name string
		list corev1.ResourceList
	}{{"capacity", f.Capacity}, {"overhead.kubeReserved", f.Overhead.KubeReserved}, {"overhead.systemReserved", f.Overhead.SystemReserved}, {"overhead.evictionThreshold", f.Overhead.EvictionThreshold}} {
		for _, name := range sortedResourceNames(part.list) {
			if q := part.list[name]; q.Sign() < 0 {
				return nil, fmt.Errorf("%s.%s: must not be negative, got %s", part.name, name, q.String())
			}
		}
		if name, err := resvec.CheckList(part.list); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", part.name, name, err)
		}
	}
	for _, k := range sortedKeys(f.Labels) {
		if label := [2]string{k, f.Labels[k]}; !validLabels[label] {
			if err := requirements.ValidateNodeSelectorRequirement(corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{f.Labels[k]}}); err != nil {
				return nil, fmt.Errorf("labels: %w", err)
			}
			validLabels[label] = true
		}
		switch requirements.NormalizeKey(k) {
		case requirements.LabelTopologyZone, requirements.LabelCapacityType:
			return nil, fmt.Errorf("labels.%s: must not be set: each offering gives its own zone and capacity type", k)
		case requirements.LabelInstanceType:
			if f.Labels[k] != f.Name {
				return nil, fmt.Errorf("labels.%s: is %q but the type is named %q (the label is implied by name; leave it out)", k, f.Labels[k], f.Name)
			}
		}
	}
	for _, driver := range sortedIntKeys(f.VolumeAttachLimits) {
		if n := f.VolumeAttachLimits[driver]; n < 0 {
			return nil, fmt.Errorf("volumeAttachLimits.%s: must not be negative, got %d", driver, n)
		}
	}
	if len(f.Offerings) == 0 {
		return nil, fmt.Errorf("offerings: needs at least one offering (zone, capacityType, price)")
	}
	it := &InstanceType{
		Name:               f.Name,
		Labels:             f.Labels,
		Capacity:           f.Capacity,
		Overhead:           Overhead{KubeReserved: f.Overhead.KubeReserved, SystemReserved: f.Overhead.SystemReserved, EvictionThreshold: f.Overhead.EvictionThreshold},
		VolumeAttachLimits: f.VolumeAttachLimits,
	}
	type offeringKey struct{ zone, capacityType, reservationID string }
	seen := map[offeringKey]int{}
	for i, o := range f.Offerings {
		key := offeringKey{o.Zone, o.CapacityType, o.ReservationID}
		if j, dup := seen[key]; dup {
			return nil, fmt.Errorf("offerings[%d]: zone %s, capacityType %s is already offered by offerings[%d]", i, o.Zone, o.CapacityType, j)
		}
		seen[key] = i
		switch {
		case o.Zone == "":
			return nil, fmt.Errorf("offerings[%d].zone: must be set", i)
		case o.CapacityType != requirements.CapacityTypeOnDemand && o.CapacityType != requirements.CapacityTypeSpot && o.CapacityType != requirements.CapacityTypeReserved:
			return nil, fmt.Errorf("offerings[%d].capacityType: %q is not one of on-demand, spot, reserved", i, o.CapacityType)
		case o.Price == nil:
			return nil, fmt.Errorf("offerings[%d].price: must be set (USD per hour)", i)
		case math.IsNaN(*o.Price) || math.IsInf(*o.Price, 0):
			return nil, fmt.Errorf("offerings[%d].price: must be a finite number, got %v", i, *o.Price)
		case *o.Price < 0:
			return nil, fmt.Errorf("offerings[%d].price: must not be negative, got %v", i, *o.Price)
		case o.ReservationCapacity < 0:
			return nil, fmt.Errorf("offerings[%d].reservationCapacity: must not be negative, got %d", i, o.ReservationCapacity)
		}
		available := o.Available == nil || *o.Available
		it.Offerings = append(it.Offerings, Offering{Zone: o.Zone, CapacityType: o.CapacityType, Price: *o.Price, Available: available, ReservationID: o.ReservationID, ReservationCapacity: o.ReservationCapacity})
	}
	SortOfferings(it.Offerings)
	return it, nil
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func sortedIntKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// decodeStrict decodes a catalog document, rejecting unknown fields. JSON (the embedded
// catalogs, EncodeCatalog's output) goes straight to encoding/json, many times faster than
// through the YAML-to-JSON converter; YAML, and anything JSON cannot read, takes that path.
func decodeStrict(data []byte, v any) error {
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		err := dec.Decode(v)
		var syntax *json.SyntaxError
		if err == nil {
			if _, err := dec.Token(); err != io.EOF {
				return errors.New("unexpected content after the JSON document")
			}
			return nil
		}
		if !errors.As(err, &syntax) {
			return err
		}
		// Not JSON after all: a YAML flow mapping, perhaps.
		reflect.ValueOf(v).Elem().SetZero()
	}
	return yaml.UnmarshalStrict(data, v)
}

// locateDecodeError improves a strict-decoding error (unknown field, wrong type, bad
// quantity) by naming the instance type, and the offering or resource within it, where
// decoding fails: the decoder itself names at most the field, and in a catalog of hundreds of
// types that is not enough to find it. It reports whether it found the place.
func locateDecodeError(data []byte, err error) (error, bool) {
	var doc struct {
		InstanceTypes []json.RawMessage `json:"instanceTypes"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return decodeCause(err), false
	}
	for i, raw := range doc.InstanceTypes {
		var it instanceTypeFile
		itErr := yaml.UnmarshalStrict(raw, &it)
		if itErr == nil {
			continue
		}
		var parts struct {
			Name      string                     `json:"name"`
			Capacity  map[string]json.RawMessage `json:"capacity"`
			Overhead  map[string]json.RawMessage `json:"overhead"`
			Offerings []json.RawMessage          `json:"offerings"`
		}
		_ = yaml.Unmarshal(raw, &parts)
		name := parts.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i)
		}
		where := fmt.Sprintf("instanceTypes[%d] (%s)", i, name)
		if field, qErr := badQuantity("capacity", parts.Capacity); qErr != nil {
			return fmt.Errorf("%s: %s: %w", where, field, qErr), true
		}
		for _, part := range []string{"kubeReserved", "systemReserved", "evictionThreshold"} {
			var list map[string]json.RawMessage
			if json.Unmarshal(parts.Overhead[part], &list) != nil {
				continue
			}
			if field, qErr := badQuantity("overhead."+part, list); qErr != nil {
				return fmt.Errorf("%s: %s: %w", where, field, qErr), true
			}
		}
		for j, rawOffering := range parts.Offerings {
			var o offeringFile
			if oErr := yaml.UnmarshalStrict(rawOffering, &o); oErr != nil {
				return fmt.Errorf("%s: offerings[%d]: %w", where, j, decodeCause(oErr)), true
			}
		}
		return fmt.Errorf("%s: %w", where, decodeCause(itErr)), true
	}
	return decodeCause(err), false
}

// badQuantity returns the first entry (by name) of a resource list that is not a quantity.
func badQuantity(field string, list map[string]json.RawMessage) (string, error) {
	keys := make([]string, 0, len(list))
	for k := range list {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var q resource.Quantity
		if err := json.Unmarshal(list[k], &q); err != nil {
			return field + "." + k, err
		}
	}
	return "", nil
}

// decodeCause strips sigs.k8s.io/yaml's generic wrapping from a decoding error, leaving the
// decoder's own message.
func decodeCause(err error) error {
	for {
		msg := err.Error()
		if !strings.HasPrefix(msg, "error unmarshaling JSON: ") && !strings.HasPrefix(msg, "while decoding JSON: ") {
			return err
		}
		inner := errors.Unwrap(err)
		if inner == nil {
			return err
		}
		err = inner
	}
}
