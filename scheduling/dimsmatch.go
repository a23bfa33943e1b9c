package scheduling

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// fitsWithoutCollecting is fits(in, collectDims(in)) without collecting: a replay prepares
// its whole cluster every few seconds over the same Pools, and collecting the resources of
// every instance type, node and pod again costs more than checking those of the nodes and
// pods (the NodePools and DaemonSets being Pools' own, their resources are known).
func (p *Pools) fitsWithoutCollecting(in Input) bool {
	if p == nil || !slices.Equal(p.nodePools, in.NodePools) || !slices.Equal(p.daemonSets, in.DaemonSets) {
		return false
	}
	named := slices.Clone(p.named)
	known := true
	visit := func(l corev1.ResourceList) {
		for name := range l {
			if name == "nodes" {
				continue
			}
			i, ok := p.dims.Index(name)
			if !ok {
				known = false
				return
			}
			named[i] = true
		}
	}
	for _, en := range in.ExistingNodes {
		if en != nil && en.Node != nil {
			visit(en.Node.Status.Allocatable)
			visit(en.Node.Status.Capacity)
		}
	}
	for _, pod := range in.Pods {
		if pod != nil {
			resources.VisitPodSpec(&pod.Spec, visit)
		}
	}
	return known && p.dims.NamesAll(named)
}

// namedByPools marks the dimensions the NodePools (their limits and instance types) and the
// DaemonSets name, as collectDims collects them.
func namedByPools(nodePools []*NodePool, daemonSets []*appsv1.DaemonSet, dims *resources.Dims) []bool {
	named := make([]bool, dims.Len())
	visit := func(l corev1.ResourceList) {
		for name := range l {
			if i, ok := dims.Index(name); ok {
				named[i] = true
			}
		}
	}
	for _, np := range nodePools {
		if np == nil {
			continue
		}
		visit(np.Limits)
		for _, it := range np.InstanceTypes {
			if it != nil {
				visit(it.Capacity)
			}
		}
	}
	for _, ds := range daemonSets {
		if ds != nil {
			resources.VisitPodSpec(&ds.Spec.Template.Spec, visit)
		}
	}
	return named
}
