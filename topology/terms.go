package topology

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// What a pod's terms and matched groups say about the keys of a node, independent of counts.

// RuleKeys lists, sorted and once each, the keys of a pod's active terms and of the groups
// counting it: the keys whose domain a node must settle before the pod joins it.
func RuleKeys(active []Term, matched []*Group) []string {
	var keys []string
	add := func(k string) {
		for _, x := range keys {
			if x == k {
				return
			}
		}
		keys = append(keys, k)
	}
	for _, t := range active {
		add(t.Group.Key)
	}
	for _, g := range matched {
		add(g.Key)
	}
	sort.Strings(keys)
	return keys
}

// FirstOn returns the group of the first active term on key, or nil.
func FirstOn(active []Term, key string) *Group {
	for _, t := range active {
		if t.Group.Key == key {
			return t.Group
		}
	}
	return nil
}

// RequiresKey reports whether a node must carry key for the active terms: spread and affinity
// need a domain, anti-affinity is met by a node outside every domain.
func RequiresKey(active []Term, key string) bool {
	for _, t := range active {
		if t.Group.Key == key && t.Group.Kind != AntiAffinity {
			return true
		}
	}
	return false
}

// RequiredOnly drops preferred terms (Terms lists them after the required ones).
func RequiredOnly(terms []Term) []Term {
	for i, t := range terms {
		if !t.Required {
			return terms[:i]
		}
	}
	return terms
}

// HasRequiredAntiAffinity reports whether the pod declares required pod anti-affinity.
func HasRequiredAntiAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// RankDomains returns a copy of allowed, the values key may take for a pod on a new node, in
// the order to try them: for spread the least-populated domain first, for affinity the
// most-populated, otherwise as given. The spread or affinity is the pod's first active term on
// key, else the first spread group on key counting the pod.
func RankDomains(active []Term, matched []*Group, key string, allowed []string) []string {
	ranked := append([]string(nil), allowed...)
	var spread, affinity *Group
	for _, t := range active {
		if t.Group.Key != key {
			continue
		}
		switch t.Group.Kind {
		case Spread:
			if spread == nil {
				spread = t.Group
			}
		case Affinity:
			if affinity == nil {
				affinity = t.Group
			}
		}
	}
	if spread == nil && affinity == nil {
		for _, g := range matched {
			if g.Key == key && g.Kind == Spread {
				spread = g
				break
			}
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		switch {
		case spread != nil:
			return spread.Count(ranked[i]) < spread.Count(ranked[j])
		case affinity != nil:
			return affinity.Count(ranked[i]) > affinity.Count(ranked[j])
		}
		return false
	})
	return ranked
}
