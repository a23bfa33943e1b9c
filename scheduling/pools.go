package scheduling

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
)

// Pools are NodePools prepared once (their instance types indexed, their DaemonSet overhead
// counted) for callers that prepare many Inputs over the same NodePools, such as a replay
// deciding every few seconds. Give them as Input.Pools. A Pools is never modified and may be
// shared by goroutines.
type Pools struct {
	nodePools  []*NodePool
	daemonSets []*appsv1.DaemonSet
	dims       *resources.Dims
	daemons    []*daemonset.Template
	pools      []*poolState
	// launchable is launchableDomains(pools), which every plan over them reports.
	launchable map[string][]string
	// named marks the dimensions the NodePools and DaemonSets name (fitsWithoutCollecting).
	named []bool
}

// PreparePools prepares the NodePools of in with its DaemonSets; the resources they know are
// those of in's NodePools, DaemonSets, pods and nodes. Its error is the one Prepare would
// return for the NodePools.
func PreparePools(in Input) (*Pools, error) {
	dims := collectDims(in)
	daemons := daemonset.Templates(in.DaemonSets, dims)
	pools, err := newPools(in.NodePools, dims, daemons)
	if err != nil {
		return nil, err
	}
	return &Pools{nodePools: slices.Clone(in.NodePools), daemonSets: slices.Clone(in.DaemonSets), dims: dims, daemons: daemons, pools: pools,
		launchable: launchableDomains(pools), named: namedByPools(in.NodePools, in.DaemonSets, dims)}, nil
}

// fits reports whether p is what preparing in's NodePools would give: the same NodePool and
// DaemonSet objects in the same order (Input objects are never modified, so the same object
// means the same content) and the same resources. Anything else is prepared anew.
func (p *Pools) fits(in Input, dims *resources.Dims) bool {
	if p == nil || !slices.Equal(p.nodePools, in.NodePools) || !slices.Equal(p.daemonSets, in.DaemonSets) {
		return false
	}
	if p.dims.Len() != dims.Len() {
		return false
	}
	for i := range dims.Len() {
		if p.dims.Name(i) != dims.Name(i) {
			return false
		}
	}
	return true
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
