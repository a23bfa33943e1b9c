package scheduling

import (
	"strings"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/taints"
	"github.com/nodeplan/nodeplan/limits"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// poolState is a NodePool prepared for launching (its Template, shared by every solve) with
// what one solve keeps of it: what its limits leave and its buffers.
type poolState struct {
	*nodetemplate.Template
	// limits is what the NodePool's limits still allow in one solve.
	limits    limits.Left
	nodeCount int
	// scratch is a per-type flag buffer, all false between uses.
	scratch []bool
	// filters holds the buffers of the solve's type filters.
	filters typeindex.Scratch
	// compatible memoises compatibleTypes, for explanations; shared by the solves of a
	// prepared Cluster.
	compatible map[string][]*nodetemplate.Option
}

// newPools validates NodePools and prepares them (nodetemplate.Prepare). What depends on the
// existing nodes (limits left, startup taints) is done by bindPools.
func newPools(nps []*NodePool, dims *resources.Dims, daemons []*daemonset.Template) ([]*poolState, error) {
	templates, err := nodetemplate.Prepare(nps, dims, daemons)
	if err != nil {
		return nil, err
	}
	return newPoolStates(templates), nil
}

// newPoolStates gives prepared templates the state solves keep of them.
func newPoolStates(templates []*nodetemplate.Template) []*poolState {
	states := make([]poolState, len(templates))
	out := make([]*poolState, len(templates))
	for i, t := range templates {
		states[i] = poolState{Template: t, limits: t.Limits, compatible: map[string][]*nodetemplate.Option{}}
		out[i] = &states[i]
	}
	return out
}

// bindPools gives one solve its own copy of prepared pools, with the limits left after the
// existing nodes; the types and their memos stay shared. Existing nodes still starting lose
// their pool's startup taints (they do not keep pods off) and hold their daemons' room.
func bindPools(prepared []*poolState, existing []*existingNode, daemons []*daemonset.Template, dims *resources.Dims) []*poolState {
	out := make([]*poolState, len(prepared))
	for i, prep := range prepared {
		p := *prep
		p.scratch = make([]bool, len(p.Types))
		p.filters = typeindex.Scratch{} // buffers of its own: solves may run at once
		if prep.limits.Set() {
			p.limits = prep.limits.Clone()
			for _, n := range existing {
				if n.nodePool == p.NodePool.Name {
					p.limits.Take(n.capacity)
				}
			}
		}
		if len(p.NodePool.StartupTaints) > 0 {
			for _, n := range existing {
				if n.nodePool == p.NodePool.Name && !n.initialized {
					n.taints = taints.Without(n.taints, p.NodePool.StartupTaints)
				}
			}
		}
		out[i] = &p
	}
	reserveStartingDaemons(existing, daemons)
	return out
}

// compatibleTypes returns the pool's types that can meet reqs (the hostname aside), memoised:
// the pods that fail for want of room often share their requirements.
func (p *poolState) compatibleTypes(reqs requirements.Requirements) []*nodetemplate.Option {
	var key strings.Builder
	for _, k := range reqs.Keys() {
		if k != requirements.LabelHostname {
			key.WriteString(reqs[k].String())
			key.WriteByte(0)
		}
	}
	if out, ok := p.compatible[key.String()]; ok {
		return out
	}
	out := p.Allowing(reqs, &p.filters)
	p.compatible[key.String()] = out
	return out
}

// reserveStartingDaemons holds room on nodes still starting for the DaemonSet pods that will
// run there but are not bound yet, as Karpenter does for in-flight nodes. It runs once the
// NodePools have dropped their startup taints from those nodes.
func reserveStartingDaemons(existing []*existingNode, daemons []*daemonset.Template) {
	for _, n := range existing {
		if n.initialized {
			continue
		}
		for _, d := range daemons {
			if n.daemonSets[d.Name] || !d.RunsOnNode(n.taints, n.labels) {
				continue
			}
			n.ownUsed().Add(d.Requests)
			n.ports = append(n.ports, d.Ports...)
		}
	}
}

// template is the i-th pool's Template, for nodetemplate's functions over all of them.
func (s *solver) template(i int) *nodetemplate.Template { return s.pools[i].Template }

// launchableDomains is nodetemplate.LaunchableDomains of the prepared pools.
func launchableDomains(pools []*poolState) map[string][]string {
	return nodetemplate.LaunchableDomains(len(pools), func(i int) *nodetemplate.Template { return pools[i].Template })
}
