package topology

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/nodeplan/nodeplan/requirements"
)

// Kind is the sort of rule a group enforces.
type Kind int

const (
	// Spread is a topology spread constraint: counts may differ by at most MaxSkew.
	Spread Kind = iota
	// Affinity requires a domain that already holds a matching pod.
	Affinity
	// AntiAffinity requires a domain that holds no matching pod.
	AntiAffinity
)

func (k Kind) String() string {
	switch k {
	case Spread:
		return "topology spread"
	case Affinity:
		return "pod affinity"
	}
	return "pod anti-affinity"
}

// Group is one distinct rule shared by every pod that declares it: which pods it counts
// (selector and namespaces), over which label key, and the counts per domain.
type Group struct {
	Kind       Kind
	Key        string
	MaxSkew    int32
	MinDomains int32
	// HonorNodeAffinity and HonorTaints are the spread policies: only domains the pod's node
	// affinity allows, and only nodes whose taints it tolerates, count as eligible.
	HonorNodeAffinity bool
	HonorTaints       bool

	id       string
	selector labels.Selector
	// nodeFilter, for a spread honouring node affinity, is the declaring pod's node selector
	// and required affinity: only pods on nodes it matches are counted (nil: every node).
	nodeFilter []requirements.Requirements
	namespaces map[string]bool // nil with nsSelector nil: the owner's namespace only
	allNS      bool
	nsSelector labels.Selector
	tracker    *Tracker

	counts map[string]int // domain → matching pods
	owners map[string]int // domain → pods declaring this rule as required
	total  int
}

// ID identifies the group: two pods declaring the same rule share it.
func (g *Group) ID() string { return g.id }

// Count is the number of matching pods recorded in a domain.
func (g *Group) Count(domain string) int { return g.counts[domain] }

// Total is the number of matching pods recorded in any domain.
func (g *Group) Total() int { return g.total }

// Owners is the number of pods in a domain that declare this group's rule as required
// (anti-affinity or DoNotSchedule spread): the pods whose rule later pods must keep true.
func (g *Group) Owners(domain string) int { return g.owners[domain] }

// Matches reports whether the group counts pod: its namespace is selected and its labels match.
func (g *Group) Matches(pod *corev1.Pod) bool {
	if !g.namespaceMatches(namespaceOf(pod)) {
		return false
	}
	return g.selector.Matches(labels.Set(pod.Labels))
}

func (g *Group) namespaceMatches(ns string) bool {
	if g.allNS || g.namespaces[ns] {
		return true
	}
	if g.nsSelector != nil {
		return g.nsSelector.Matches(labels.Set(g.tracker.namespaceLabels[ns]))
	}
	return false
}

// MinCount is the smallest count over the eligible domains, or 0 when there are fewer than
// MinDomains of them (kube-scheduler's rule: missing domains count as empty).
func (g *Group) MinCount(eligible []string) int {
	if len(eligible) == 0 || int32(len(eligible)) < max(g.MinDomains, 1) {
		return 0
	}
	least := -1
	for _, d := range eligible {
		if c := g.counts[d]; least < 0 || c < least {
			least = c
		}
	}
	return least
}

// Allowed reports whether a pod may go to domain under this group's rule. selfMatch says the
// pod is counted by the group itself; minCount is MinCount of the pod's eligible domains
// (spread only).
func (g *Group) Allowed(domain string, selfMatch bool, minCount int) bool {
	switch g.Kind {
	case Spread:
		self := 0
		if selfMatch {
			self = 1
		}
		return g.counts[domain]+self-minCount <= int(g.MaxSkew)
	case Affinity:
		if g.total == 0 && selfMatch {
			return true // the first pod of a self-affine set seeds the domain
		}
		return g.counts[domain] > 0
	default:
		return g.counts[domain] == 0
	}
}

// Describe says what the group is, for explanations.
func (g *Group) Describe() string {
	s := fmt.Sprintf("%s on %s for pods matching %q", g.Kind, g.Key, g.selector.String())
	if g.Kind == Spread {
		s += fmt.Sprintf(" (maxSkew %d", g.MaxSkew)
		if g.MinDomains > 0 {
			s += fmt.Sprintf(", minDomains %d", g.MinDomains)
		}
		s += ")"
	}
	return s
}

// DescribeCounts lists the counts per domain, sorted, for explanations.
func (g *Group) DescribeCounts(domains []string) string {
	parts := make([]string, 0, len(domains))
	for _, d := range domains {
		parts = append(parts, fmt.Sprintf("%s=%d", d, g.counts[d]))
	}
	return strings.Join(parts, ", ")
}

func (g *Group) record(domain string, matched, owner bool) {
	if matched {
		g.counts[domain]++
		g.total++
	}
	if owner {
		g.owners[domain]++
	}
}

func namespaceOf(pod *corev1.Pod) string {
	if pod.Namespace == "" {
		return corev1.NamespaceDefault
	}
	return pod.Namespace
}

// selectorWithKeys builds a label selector and adds one requirement per matchLabelKeys key
// (the pod's own value) and mismatchLabelKeys key (any other value).
func selectorWithKeys(sel *metav1.LabelSelector, pod *corev1.Pod, matchKeys, mismatchKeys []string, memo selectorMemo) (labels.Selector, error) {
	if sel == nil {
		// A nil selector selects nothing (kube-scheduler).
		return labels.Nothing(), nil
	}
	s, err := memo.convert(sel)
	if err != nil {
		return nil, err
	}
	for _, k := range matchKeys {
		if v, ok := pod.Labels[k]; ok {
			r, err := labels.NewRequirement(k, selection.Equals, []string{v})
			if err != nil {
				return nil, err
			}
			s = s.Add(*r)
		}
	}
	for _, k := range mismatchKeys {
		if v, ok := pod.Labels[k]; ok {
			r, err := labels.NewRequirement(k, selection.NotEquals, []string{v})
			if err != nil {
				return nil, err
			}
			s = s.Add(*r)
		}
	}
	return s, nil
}

// selectorMemo holds label selectors converted (metav1.LabelSelectorAsSelector) by content,
// for one goroutine deriving many pods' terms: the pods of a workload repeat their selectors.
// A selector, once made, is only read. A nil memo converts every selector anew.
type selectorMemo map[string]labels.Selector

func (m selectorMemo) convert(sel *metav1.LabelSelector) (labels.Selector, error) {
	if m == nil || sel == nil {
		return metav1.LabelSelectorAsSelector(sel)
	}
	// The content, every string after its length, so that no two selectors share a key.
	var key []byte
	add := func(s string) { key = append(append(strconv.AppendInt(key, int64(len(s)), 10), ':'), s...) }
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		add(k)
		add(sel.MatchLabels[k])
	}
	key = append(key, '|')
	for _, e := range sel.MatchExpressions {
		add(e.Key)
		add(string(e.Operator))
		key = append(strconv.AppendInt(key, int64(len(e.Values)), 10), '#')
		for _, v := range e.Values {
			add(v)
		}
	}
	if s, ok := m[string(key)]; ok {
		return s, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err == nil {
		m[string(key)] = s
	}
	return s, err
}

func normalizeKey(key string) string { return requirements.NormalizeKey(key) }

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CountsOn reports whether pods on a node with these labels count for the group.
func (g *Group) CountsOn(nodeLabels map[string]string) bool {
	if g.nodeFilter == nil {
		return true
	}
	for _, alt := range g.nodeFilter {
		if alt.Matches(nodeLabels) {
			return true
		}
	}
	return false
}

// NodeFilter returns the alternatives a node must match for the group to count pods on it
// (the declaring pod's node selector and required affinity, under nodeAffinityPolicy Honor),
// or nil when every node counts.
func (g *Group) NodeFilter() []requirements.Requirements { return g.nodeFilter }

// CountsOnNew reports whether pods on a planned node described by reqs count for the group:
// the node's requirements must already imply one of the filter's alternatives (each key
// constrained to values the alternative allows), since its remaining labels are not known.
func (g *Group) CountsOnNew(reqs requirements.Requirements) bool {
	if g.nodeFilter == nil {
		return true
	}
	for _, alt := range g.nodeFilter {
		if implies(reqs, alt) {
			return true
		}
	}
	return false
}

func implies(reqs, alt requirements.Requirements) bool {
	for key, want := range alt {
		have, ok := reqs[key]
		if !ok {
			switch want.Operator() {
			case corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpDoesNotExist:
				continue // met by a node without the label
			}
			return false // In, Exists, Gt and Lt need the label
		}
		if have.IsComplement() {
			if !want.IsComplement() {
				return false
			}
			continue
		}
		for _, v := range have.Values() {
			if !want.Has(v) {
				return false
			}
		}
	}
	return true
}
