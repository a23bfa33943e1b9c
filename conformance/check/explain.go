package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// maxDomainsListed bounds the domains a spread explanation lists one by one.
const maxDomainsListed = 6

// explainSpread says, for a pod PodTopologySpread rejected, how its DoNotSchedule constraints
// count the matching pods per domain with the pod left out. It only explains: the verdict is
// the plugin's. It follows the plugin's rules (nodes must carry every constraint's key;
// nodeAffinityPolicy and nodeTaintsPolicy; same namespace; matchLabelKeys; minDomains).
func explainSpread(pod *corev1.Pod, node *corev1.Node, nodes []*corev1.Node, podsOn func(string) []*corev1.Pod) string {
	var constraints []corev1.TopologySpreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.DoNotSchedule {
			constraints = append(constraints, c)
		}
	}
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	var parts []string
	for _, c := range constraints {
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			continue
		}
		for _, k := range c.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				r, err := labels.NewRequirement(k, selection.Equals, []string{v})
				if err == nil {
					sel = sel.Add(*r)
				}
			}
		}
		counts := map[string]int{}
		for _, n := range nodes {
			if !hasKeys(n, constraints) || !included(c, pod, n, required) {
				continue
			}
			domain := n.Labels[c.TopologyKey]
			counts[domain] += 0
			for _, p := range podsOn(n.Name) {
				if p.Namespace == pod.Namespace && p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) {
					counts[domain]++
				}
			}
		}
		minimum, minDomain := -1, ""
		for _, d := range slices.Sorted(maps.Keys(counts)) {
			if minimum < 0 || counts[d] < minimum {
				minimum, minDomain = counts[d], d
			}
		}
		if c.MinDomains != nil && len(counts) < int(*c.MinDomains) {
			minimum, minDomain = 0, fmt.Sprintf("fewer than minDomains %d domains", *c.MinDomains)
		}
		self := 0
		if sel.Matches(labels.Set(pod.Labels)) {
			self = 1
		}
		domain := node.Labels[c.TopologyKey]
		var spread string
		if len(counts) <= maxDomainsListed {
			var ds []string
			for _, d := range slices.Sorted(maps.Keys(counts)) {
				ds = append(ds, fmt.Sprintf("%s=%d", d, counts[d]))
			}
			spread = strings.Join(ds, " ")
		} else {
			spread = fmt.Sprintf("%d domains, minimum in %s", len(counts), minDomain)
		}
		parts = append(parts, fmt.Sprintf("%s maxSkew %d selector %s: %s has %d+%d, minimum %d (%s)",
			c.TopologyKey, c.MaxSkew, sel, domain, counts[domain], self, minimum, spread))
	}
	return strings.Join(parts, "; ")
}

func hasKeys(n *corev1.Node, constraints []corev1.TopologySpreadConstraint) bool {
	for _, c := range constraints {
		if _, ok := n.Labels[c.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// included applies a constraint's node inclusion policies to a node.
func included(c corev1.TopologySpreadConstraint, pod *corev1.Pod, n *corev1.Node, required nodeaffinity.RequiredNodeAffinity) bool {
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		if ok, _ := required.Match(n); !ok {
			return false
		}
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		hard := func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}
		if _, bad := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, pod.Spec.Tolerations, hard, true); bad {
			return false
		}
	}
	return true
}
