package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// fitsWithoutCollecting is fits(in, collectDims(in)) without collecting: a replay prepares
// its whole cluster every few seconds over the same Pools, and collecting the resources of
// every pod and node again costs more than checking them.
func (p *Pools) fitsWithoutCollecting(in Input) bool {
	return p != nil && slices.Equal(p.nodePools, in.NodePools) && slices.Equal(p.daemonSets, in.DaemonSets) && namesDims(in, p.dims)
}

// namesDims reports whether collectDims(in) would have dims' names: NewDims always has its
// fixed dimensions and then the other names sorted, so it is enough that every resource in
// names (but "nodes", which collectDims drops) is a dimension and every other dimension is
// named by in.
func namesDims(in Input, dims *resources.Dims) bool {
	named := make([]bool, dims.Len())
	known := true
	visit := func(l corev1.ResourceList) {
		for name := range l {
			if name == "nodes" {
				continue
			}
			i, ok := dims.Index(name)
			if !ok {
				known = false
				return
			}
			named[i] = true
		}
	}
	visitSpec := func(spec *corev1.PodSpec) {
		for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
			for i := range cs {
				visit(cs[i].Resources.Requests)
				visit(cs[i].Resources.Limits)
			}
		}
		visit(spec.Overhead)
		if spec.Resources != nil {
			visit(spec.Resources.Requests)
		}
	}
	for _, np := range in.NodePools {
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
	for _, en := range in.ExistingNodes {
		if en != nil && en.Node != nil {
			visit(en.Node.Status.Allocatable)
			visit(en.Node.Status.Capacity)
		}
	}
	for _, p := range in.Pods {
		if p != nil {
			visitSpec(&p.Spec)
		}
	}
	for _, ds := range in.DaemonSets {
		if ds != nil {
			visitSpec(&ds.Spec.Template.Spec)
		}
	}
	if !known {
		return false
	}
	fixed := resources.NewDims()
	for i, was := range named {
		if _, always := fixed.Index(dims.Name(i)); !was && !always {
			return false // a resource in does not have
		}
	}
	return true
}
