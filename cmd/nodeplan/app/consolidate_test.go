package app

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
)

// consolidateNow is when the snapshot tests decide.
var consolidateNow = time.Date(2026, 1, 12, 12, 0, 0, 0, time.UTC)

// commandLines renders commands one per line: method action [candidates] -> [replacements].
func commandLines(d disruption.Decisions) []string {
	out := []string{}
	for _, c := range d.Commands {
		line := c.Method + " " + c.Action + " ["
		for i, x := range c.Candidates {
			if i > 0 {
				line += " "
			}
			line += x.Node
		}
		line += "] -> ["
		for i, r := range c.Replacements {
			if i > 0 {
				line += " "
			}
			line += r.CapacityType + "/" + r.InstanceType
		}
		out = append(out, line+"]")
	}
	return out
}

func blockedReason(d disruption.Decisions, node string) string {
	for _, b := range d.Blocked {
		if b.Node == node {
			return b.Reason
		}
	}
	return ""
}

// TestConsolidateSnapshots decides snapshots as "nodeplan consolidate -f" reads them.
func TestConsolidateSnapshots(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		commands []string
		blocked  map[string]string
		warnings []string
	}{{
		name:     "a pending pod's node is nominated, not deleted by Emptiness",
		file:     "testdata/consolidate/pending-pod.yaml",
		commands: []string{},
		blocked:  map[string]string{"ip-10-0-0-1": "nominated for pending pod ns/x"},
	}, {
		name:     "a NodeClaim's Drifted=True condition drives Drift",
		file:     "testdata/consolidate/drifted-nodeclaim.yaml",
		commands: []string{"Drift replace [ip-10-0-0-1] -> [on-demand/m5.large]"},
	}, {
		name:     "the NodeClaim's own expireAfter expires the node",
		file:     "testdata/consolidate/claim-expired.yaml",
		commands: []string{"Expiration replace [ip-10-0-0-1] -> [on-demand/m5.large]"},
	}, {
		name:     "a NodePool's expireAfter changed after launch is drift",
		file:     "testdata/consolidate/pool-expiry-changed.yaml",
		commands: []string{"Drift replace [ip-10-0-0-1] -> [on-demand/m5.large]"},
	}, {
		name:     "a node of an unknown instance type is drifted and its price is said to be unknown",
		file:     "testdata/consolidate/unknown-type.yaml",
		commands: []string{"Drift replace [ip-10-0-0-9] -> [spot/t3.small]"},
		warnings: []string{"node ip-10-0-0-9: its price is unknown: instance type m99.mega is not among the NodePools' instance types; it counts as $0/h and is not consolidated"},
	}, {
		name:     "an expiring capacity block's node is replaced forcefully",
		file:     "testdata/consolidate/reservations.yaml",
		commands: []string{"Expiration delete [reserved-block] -> []"},
		warnings: []string{"node reserved-ended: its capacity reservation \"cr-0ended\" is not in its EC2NodeClass's status.capacityReservations: the reservation ended or released the instance, which now runs on-demand (Karpenter relabels it); priced and consolidated as on-demand"},
	}, {
		name:     "a node whose reservation ended runs on-demand: consolidation moves it onto reserved capacity",
		file:     "testdata/consolidate/reservations-ended.yaml",
		commands: []string{"SingleNodeConsolidation delete [reserved-ended] -> []"},
		warnings: []string{"node reserved-ended: its capacity reservation \"cr-0ended\" is not in its EC2NodeClass's status.capacityReservations: the reservation ended or released the instance, which now runs on-demand (Karpenter relabels it); priced and consolidated as on-demand"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Consolidate(Config{Paths: []string{tt.file}}, consolidateNow)
			require.NoError(t, err)
			assert.Equal(t, tt.commands, commandLines(res.Decisions))
			assert.Equal(t, tt.warnings, res.Decisions.Warnings)
			for node, phrase := range tt.blocked {
				assert.Contains(t, blockedReason(res.Decisions, node), phrase, "node %s", node)
			}
		})
	}
}

// TestPlanAndConsolidateAgreeOnPendingPods: plan puts the pending pod on the empty node that
// consolidate keeps for it.
func TestPlanAndConsolidateAgreeOnPendingPods(t *testing.T) {
	res, err := Plan(Config{Paths: []string{"testdata/consolidate/pending-pod.yaml"}}, emptyOptions)
	require.NoError(t, err)
	require.Len(t, res.Plan.ExistingNodes, 1)
	assert.Equal(t, "ip-10-0-0-1", res.Plan.ExistingNodes[0].Name)
	assert.Equal(t, []string{"ns/x"}, res.Plan.ExistingNodes[0].Pods)
}
