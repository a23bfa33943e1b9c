package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Tracker owns the groups of one solve and their counts.
type Tracker struct {
	groups          map[string]*Group
	ordered         []*Group
	namespaceLabels map[string]map[string]string
}

// NewTracker starts a tracker; namespaces give the labels namespaceSelectors match.
func NewTracker(namespaces []*corev1.Namespace) *Tracker {
	t := &Tracker{groups: map[string]*Group{}, namespaceLabels: map[string]map[string]string{}}
	for _, ns := range namespaces {
		if ns != nil {
			t.namespaceLabels[ns.Name] = ns.Labels
		}
	}
	return t
}

// Groups returns every group, in the order they were first declared.
func (t *Tracker) Groups() []*Group { return t.ordered }

// Term is one rule a pod declares.
type Term struct {
	Group *Group
	// Required is false for preferred affinity terms and ScheduleAnyway spread, which the
	// solver honours until it has to relax them.
	Required bool
	// Weight orders preferred terms (heaviest relaxed first); ScheduleAnyway spread has 0.
	Weight int32
}

// Terms returns the rules a pod declares, required ones first, then preferred ones heaviest
// first. An invalid selector is an error naming the term.
func (t *Tracker) Terms(pod *corev1.Pod) ([]Term, error) {
	return t.internTerms(declaredTerms(pod, nil))
}

// declaredTerms returns the terms a pod declares, in the order it declares them, with groups
// of their own that are not yet the tracker's. It reads the pod alone, so that many pods'
// terms can be derived at once. After an invalid term, the terms before it and the error.
func declaredTerms(pod *corev1.Pod, memo selectorMemo) ([]Term, error) {
	var out []Term
	for i, c := range pod.Spec.TopologySpreadConstraints {
		g, err := spreadGroup(pod, c, memo)
		if err != nil {
			return out, fmt.Errorf("topologySpreadConstraints[%d]: %w", i, err)
		}
		out = append(out, Term{Group: g, Required: c.WhenUnsatisfiable != corev1.ScheduleAnyway})
	}
	if aff := pod.Spec.Affinity; aff != nil {
		var err error
		if pa := aff.PodAffinity; pa != nil {
			if out, err = affinityTerms(out, pod, Affinity, "podAffinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, memo); err != nil {
				return out, err
			}
		}
		if pa := aff.PodAntiAffinity; pa != nil {
			if out, err = affinityTerms(out, pod, AntiAffinity, "podAntiAffinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, memo); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// internTerms gives declared terms (declaredTerms' result) the tracker's groups, in the order
// they were declared, which is the order of Groups, terms before an error included. Without
// the error, the terms are sorted: required first, then preferred by weight.
func (t *Tracker) internTerms(out []Term, err error) ([]Term, error) {
	for i := range out {
		out[i].Group = t.intern(out[i].Group)
	}
	if err != nil {
		return nil, err
	}
	// Required first; preferred affinity terms by weight, heaviest first; ScheduleAnyway
	// spread (weight 0, kind Spread) last, as they are relaxed after pod (anti-)affinity.
	slices.SortStableFunc(out, func(a, b Term) int {
		if a.Required != b.Required {
			return boolOrder(a.Required)
		}
		if aSpread, bSpread := a.Group.Kind == Spread, b.Group.Kind == Spread; aSpread != bSpread {
			return boolOrder(bSpread)
		}
		return cmp.Compare(b.Weight, a.Weight)
	})
	return out, nil
}

// boolOrder is -1 for a first, 1 for b first.
func boolOrder(aFirst bool) int {
	if aFirst {
		return -1
	}
	return 1
}

// affinityTerms appends the terms of a pod's podAffinity or podAntiAffinity (field names the
// block in errors), with groups of their own; after an invalid term, those before it.
func affinityTerms(out []Term, pod *corev1.Pod, kind Kind, field string, required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, memo selectorMemo) ([]Term, error) {
	for i, term := range required {
		g, err := affinityGroup(pod, kind, term, memo)
		if err != nil {
			return out, fmt.Errorf("%s required term %d: %w", field, i, err)
		}
		out = append(out, Term{Group: g, Required: true})
	}
	for i, wt := range preferred {
		g, err := affinityGroup(pod, kind, wt.PodAffinityTerm, memo)
		if err != nil {
			return out, fmt.Errorf("%s preferred term %d: %w", field, i, err)
		}
		out = append(out, Term{Group: g, Weight: wt.Weight})
	}
	return out, nil
}

func spreadGroup(pod *corev1.Pod, c corev1.TopologySpreadConstraint, memo selectorMemo) (*Group, error) {
	if c.TopologyKey == "" {
		return nil, fmt.Errorf("topologyKey is empty")
	}
	if c.MaxSkew < 1 {
		return nil, fmt.Errorf("maxSkew must be at least 1, got %d", c.MaxSkew)
	}
	sel, err := selectorWithKeys(c.LabelSelector, pod, c.MatchLabelKeys, nil, memo)
	if err != nil {
		return nil, fmt.Errorf("labelSelector: %w", err)
	}
	g := &Group{
		Kind:              Spread,
		Key:               normalizeKey(c.TopologyKey),
		MaxSkew:           c.MaxSkew,
		HonorNodeAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
		HonorTaints:       c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor,
		selector:          sel,
		namespaces:        map[string]bool{namespaceOf(pod): true},
	}
	if c.MinDomains != nil {
		g.MinDomains = *c.MinDomains
	}
	filter := ""
	if g.HonorNodeAffinity {
		// kube-scheduler counts only pods on nodes the declaring pod's node affinity matches.
		if alts, err := requirements.PodAlternatives(pod); err == nil && !(len(alts) == 1 && len(alts[0]) == 0) {
			g.nodeFilter = alts
			parts := make([]string, len(alts))
			for i, alt := range alts {
				parts[i] = alt.String()
			}
			filter = strings.Join(parts, " | ")
		}
	}
	g.id = fmt.Sprintf("spread|%s|%s|%s|%d|%d|%t|%t|%s", g.Key, sel.String(), namespaceOf(pod), g.MaxSkew, g.MinDomains, g.HonorNodeAffinity, g.HonorTaints, filter)
	return g, nil
}

func affinityGroup(pod *corev1.Pod, kind Kind, term corev1.PodAffinityTerm, memo selectorMemo) (*Group, error) {
	if term.TopologyKey == "" {
		return nil, fmt.Errorf("topologyKey is empty")
	}
	sel, err := selectorWithKeys(term.LabelSelector, pod, term.MatchLabelKeys, term.MismatchLabelKeys, memo)
	if err != nil {
		return nil, fmt.Errorf("labelSelector: %w", err)
	}
	g := &Group{Kind: kind, Key: normalizeKey(term.TopologyKey), selector: sel}
	var nsID string
	switch {
	case term.NamespaceSelector != nil && len(term.NamespaceSelector.MatchLabels) == 0 && len(term.NamespaceSelector.MatchExpressions) == 0:
		g.allNS = true // an empty namespaceSelector selects every namespace
		nsID = "*"
	default:
		g.namespaces = map[string]bool{}
		for _, ns := range term.Namespaces {
			g.namespaces[ns] = true
		}
		if term.NamespaceSelector != nil {
			s, err := memo.convert(term.NamespaceSelector)
			if err != nil {
				return nil, fmt.Errorf("namespaceSelector: %w", err)
			}
			g.nsSelector = s
			nsID = "sel:" + s.String()
		}
		if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
			g.namespaces[namespaceOf(pod)] = true
		}
		nsID += "|" + strings.Join(sortedSet(g.namespaces), ",")
	}
	g.id = fmt.Sprintf("%d|%s|%s|%s", kind, g.Key, sel.String(), nsID)
	return g, nil
}

// intern returns the tracker's group equal to g, g itself for a new one.
func (t *Tracker) intern(g *Group) *Group {
	if existing, ok := t.groups[g.id]; ok {
		return existing
	}
	g.tracker = t
	g.counts = map[string]int{}
	g.owners = map[string]int{}
	t.groups[g.id] = g
	t.ordered = append(t.ordered, g)
	return g
}

// Record counts a pod in the domains of its node: in every group that matches it, and as an
// owner of its required anti-affinity terms. domain returns the node's value for a key; a
// key the node has no single value for is counted in none (callers narrow first).
func (t *Tracker) Record(pod *corev1.Pod, terms []Term, domain func(key string) (string, bool)) {
	t.record(pod, terms, domain, func(*Group) bool { return true })
}

// RecordOnNode is Record for a pod running on a node with these labels: groups whose node
// filter the node does not match do not count it.
func (t *Tracker) RecordOnNode(pod *corev1.Pod, terms []Term, nodeLabels map[string]string) {
	domain := func(key string) (string, bool) {
		v, ok := nodeLabels[key]
		return v, ok
	}
	t.record(pod, terms, domain, func(g *Group) bool { return g.CountsOn(nodeLabels) })
}

func (t *Tracker) record(pod *corev1.Pod, terms []Term, domain func(key string) (string, bool), countsHere func(*Group) bool) {
	for _, g := range t.ordered {
		matched := g.Matches(pod) && countsHere(g)
		owner := false
		if g.Kind == AntiAffinity {
			for _, term := range terms {
				if term.Group == g && term.Required {
					owner = true
				}
			}
		}
		if !matched && !owner {
			continue
		}
		if d, ok := domain(g.Key); ok {
			g.record(d, matched, owner)
		}
	}
}

// RecordIn counts a pod in one group only (used when the solver tracks per-pod matches).
func (g *Group) RecordIn(domain string, matched, owner bool) { g.record(domain, matched, owner) }

// AntiAffinityTerms returns only a pod's required anti-affinity terms: the part of a running
// pod's rules that constrains pods placed after it (kube-scheduler's inverse check).
func (t *Tracker) AntiAffinityTerms(pod *corev1.Pod) []Term {
	aff := pod.Spec.Affinity
	if aff == nil || aff.PodAntiAffinity == nil {
		return nil
	}
	var out []Term
	for _, term := range aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if g, err := affinityGroup(pod, AntiAffinity, term, nil); err == nil {
			out = append(out, Term{Group: t.intern(g), Required: true})
		}
	}
	return out
}
