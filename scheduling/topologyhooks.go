package scheduling

import (
	"github.com/nodeplan/nodeplan/requirements"
)

// topologyHooks connects the solver to spread and pod-affinity accounting.
type topologyHooks interface {
	startRound(queue []*podInfo)
}

type noTopology struct{}

func (noTopology) startRound([]*podInfo) {}

func newTopologyHooks(in Input, s *solver) topologyHooks { return noTopology{} }

// topologyRequirements returns reqs narrowed so that placing p on the node keeps every spread
// and affinity rule, or a rejection.
func (s *solver) topologyRequirements(p *podInfo, reqs requirements.Requirements, nodeName string, explain bool) (requirements.Requirements, rejection) {
	return reqs, ok
}

// recordTopology counts p in the domains of the node it was placed on.
func (s *solver) recordTopology(p *podInfo, nodeName string, reqs requirements.Requirements) {}
