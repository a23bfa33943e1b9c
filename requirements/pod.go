package requirements

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// FromNodeSelector converts a pod's spec.nodeSelector.
func FromNodeSelector(selector map[string]string) Requirements {
	return FromLabels(selector)
}

// FromNodeSelectorTerm converts one required or preferred node affinity term. matchFields is
// rejected because a node that does not exist yet has no name to match.
func FromNodeSelectorTerm(term corev1.NodeSelectorTerm) (Requirements, error) {
	if len(term.MatchFields) > 0 {
		return nil, fmt.Errorf("node affinity matchFields (%s) is not supported: a new node's fields are not known before it exists; use matchExpressions on labels", term.MatchFields[0].Key)
	}
	for i, r := range term.MatchExpressions {
		if r.Operator == OpGte || r.Operator == OpLte {
			return nil, fmt.Errorf("matchExpressions[%d]: key %q: operator %s is only valid in a NodePool's requirements; a pod uses Gt or Lt", i, r.Key, r.Operator)
		}
		if err := ValidateNodeSelectorRequirement(r); err != nil {
			return nil, fmt.Errorf("matchExpressions[%d]: %w", i, err)
		}
	}
	return FromNodeSelectorRequirements(term.MatchExpressions...), nil
}

// PodAlternatives returns the requirement sets a pod accepts: its nodeSelector combined with
// each OR'ed term of its required node affinity (one set when there is none). Alternatives
// that contradict themselves are dropped; if none is left the pod can run nowhere and the
// error says so.
func PodAlternatives(pod *corev1.Pod) ([]Requirements, error) {
	base := FromNodeSelector(pod.Spec.NodeSelector)
	for _, k := range sortedMapKeys(pod.Spec.NodeSelector) {
		if err := ValidateNodeSelectorRequirement(corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{pod.Spec.NodeSelector[k]}}); err != nil {
			return nil, fmt.Errorf("nodeSelector: %w", err)
		}
	}
	aff := pod.Spec.Affinity
	if aff == nil || aff.NodeAffinity == nil || aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return []Requirements{base}, nil
	}
	terms := aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		// kube-scheduler: an empty term list matches no node.
		return nil, fmt.Errorf("required node affinity has no nodeSelectorTerms, so no node can match")
	}
	var out []Requirements
	var conflicts []string
	for i, term := range terms {
		reqs, err := FromNodeSelectorTerm(term)
		if err != nil {
			return nil, fmt.Errorf("required node affinity term %d: %w", i, err)
		}
		if len(term.MatchExpressions) == 0 {
			continue // an empty term matches nothing in kube-scheduler
		}
		alt := base.Copy()
		if err := alt.Intersects(reqs); err != nil {
			conflicts = append(conflicts, fmt.Sprintf("term %d: %v", i, err))
			continue
		}
		alt.AddAll(reqs)
		out = append(out, alt)
	}
	if len(out) > 0 {
		return out, nil
	}
	if len(conflicts) == 0 {
		return nil, fmt.Errorf("every required node affinity term is empty, so no node can match")
	}
	return nil, fmt.Errorf("no required node affinity term is compatible with the pod's nodeSelector (%s)", strings.Join(conflicts, "; "))
}

// PreferredTerm is one preferred node affinity term, as requirements.
type PreferredTerm struct {
	Weight       int32
	Requirements Requirements
}

// PodPreferences returns the pod's preferred node affinity terms, heaviest first (stable for
// equal weights), skipping terms that cannot be converted.
func PodPreferences(pod *corev1.Pod) []PreferredTerm {
	aff := pod.Spec.Affinity
	if aff == nil || aff.NodeAffinity == nil {
		return nil
	}
	var out []PreferredTerm
	for _, t := range aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		reqs, err := FromNodeSelectorTerm(t.Preference)
		if err != nil || len(reqs) == 0 {
			continue
		}
		out = append(out, PreferredTerm{Weight: t.Weight, Requirements: reqs})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Weight > out[j].Weight })
	return out
}

func sortedMapKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
