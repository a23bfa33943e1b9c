package scheduling

import (
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
)

// Pools are NodePools prepared once (their instance types indexed, their DaemonSet overhead
// counted) for callers that prepare many Inputs over the same NodePools, such as a replay
// deciding every few seconds. Give them as Input.Pools. A Pools is never modified and may be
// shared by goroutines.
type Pools struct {
	set *nodetemplate.Set
	// pools are the set's templates as solves take them (ownPools).
	pools []*poolState
}

// PreparePools prepares the NodePools of in with its DaemonSets; the resources they know are
// those of in's NodePools, DaemonSets, pods and nodes. Its error is the one Prepare would
// return for the NodePools.
func PreparePools(in Input) (*Pools, error) {
	set, err := nodetemplate.NewSet(in.NodePools, in.DaemonSets, collectDims(in))
	if err != nil {
		return nil, err
	}
	return &Pools{set: set, pools: newPoolStates(set.Templates)}, nil
}

// fits reports whether p is what preparing in's NodePools would give: the same NodePool and
// DaemonSet objects in the same order and the same resources. Anything else is prepared anew.
func (p *Pools) fits(in Input, dims *resources.Dims) bool {
	return p != nil && p.set.Of(in.NodePools, in.DaemonSets) && p.set.SameDims(dims)
}

// fitsWithoutCollecting is fits(in, collectDims(in)) without collecting: a replay prepares
// its whole cluster every few seconds over the same Pools, and collecting the resources of
// every instance type, node and pod again costs more than checking those of the nodes and
// pods (the NodePools and DaemonSets being Pools' own, their resources are known). The nodes
// prev converted under the Pools' dimensions are not read again: they name none beyond
// them. Should one be the only one to name a dimension, this reports false, and preparing
// collects the dimensions, which then fit.
func (p *Pools) fitsWithoutCollecting(in Input, prev *prepared) bool {
	if p == nil || !p.set.Of(in.NodePools, in.DaemonSets) {
		return false
	}
	if prev != nil && prev.dims != p.set.Dims {
		prev = nil
	}
	names := p.set.Names()
	for _, en := range in.ExistingNodes {
		if prev != nil && prev.existing[en] != nil {
			continue
		}
		if en != nil && en.Node != nil {
			names.Visit(en.Node.Status.Allocatable)
			names.Visit(en.Node.Status.Capacity)
		}
	}
	for _, pod := range in.Pods {
		if pod != nil {
			resources.VisitPodSpec(&pod.Spec, names.Visit)
		}
	}
	return names.All()
}

// ownPools copies prepared pools with memos of their own (a memo's content never changes a
// plan), sharing everything solves only read.
func ownPools(pools []*poolState) []*poolState {
	out := make([]*poolState, len(pools))
	for i, p := range pools {
		cp := *p
		cp.compatible = map[string][]*nodetemplate.Option{}
		out[i] = &cp
	}
	return out
}
