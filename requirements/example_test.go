package requirements_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

func Example() {
	// A NodePool's spec.template.spec.requirements, and its template labels.
	nodePool := requirements.FromNodeSelectorRequirements(
		corev1.NodeSelectorRequirement{Key: requirements.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
		corev1.NodeSelectorRequirement{Key: requirements.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}},
		corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-cpu", Operator: requirements.OpGte, Values: []string{"4"}},
	)
	nodePool.AddAll(requirements.FromLabels(map[string]string{"team-name": "search"}))

	// A pod that wants arm64 in one zone, for the search team.
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		NodeSelector: map[string]string{"team-name": "search"},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: requirements.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}},
					{Key: requirements.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-west-2a"}},
				},
			}}},
		}},
	}}
	alternatives, err := requirements.PodAlternatives(pod)
	if err != nil {
		panic(err)
	}
	podReqs := alternatives[0]

	// The zone is well-known (it comes from the offering), so the NodePool need not list it.
	fmt.Println("compatible:", nodePool.Compatible(podReqs, nil) == nil)

	// The node the pod narrows the NodePool to.
	node := nodePool.Copy()
	node.AddAll(podReqs)
	fmt.Println(node)

	// A typo in a custom label is caught, with a hint.
	typo := requirements.FromNodeSelector(map[string]string{"team-nmae": "search"})
	fmt.Println(nodePool.Compatible(typo, nil))

	// Output:
	// compatible: true
	// karpenter.k8s.aws/instance-cpu Gt 3, karpenter.sh/capacity-type In [spot], kubernetes.io/arch In [arm64], team-name In [search], topology.kubernetes.io/zone In [us-west-2a]
	// label "team-nmae" is not defined by the nodepool (add it to the NodePool's labels or requirements); did you mean "team-name"?
}
