// Package requirements is the label requirement algebra of Karpenter's scheduler: sets of
// In, NotIn, Exists, DoesNotExist, Gt, Lt (and a NodePool's Gte, Lte and minValues) per label
// key, which intersect, and which tell whether a pod could run on a node a NodePool or an
// instance type would launch. It also converts a pod's nodeSelector and node affinity into
// such sets, and validates user input with errors that say what is wrong.
//
//	nodePool := requirements.FromNodeSelectorRequirements(
//		corev1.NodeSelectorRequirement{Key: requirements.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}},
//	)
//	alternatives, err := requirements.PodAlternatives(pod) // one set per OR'ed affinity term
//	if err != nil {
//		return err
//	}
//	if err := nodePool.Compatible(alternatives[0], nil); err != nil {
//		fmt.Println(err) // e.g. kubernetes.io/arch In [arm64] does not allow kubernetes.io/arch In [amd64]
//	}
package requirements
