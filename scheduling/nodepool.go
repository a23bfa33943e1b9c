package scheduling

import "github.com/nodeplan/nodeplan/nodepool"

// The NodePool API lives in package nodepool, below scheduling and disruption; these names
// keep it at hand for callers of Solve.
type (
	// NodePool is nodepool.NodePool.
	NodePool = nodepool.NodePool
	// NodeSelectorRequirementWithMinValues is nodepool.NodeSelectorRequirementWithMinValues.
	NodeSelectorRequirementWithMinValues = nodepool.NodeSelectorRequirementWithMinValues
	// Disruption is nodepool.Disruption.
	Disruption = nodepool.Disruption
	// Budget is nodepool.Budget.
	Budget = nodepool.Budget
)

// Consolidation policies and disruption reasons, as in package nodepool.
const (
	ConsolidationWhenEmpty                = nodepool.ConsolidationWhenEmpty
	ConsolidationWhenEmptyOrUnderutilized = nodepool.ConsolidationWhenEmptyOrUnderutilized
	ReasonEmpty                           = nodepool.ReasonEmpty
	ReasonUnderutilized                   = nodepool.ReasonUnderutilized
	ReasonDrifted                         = nodepool.ReasonDrifted
	ReasonExpired                         = nodepool.ReasonExpired
)
