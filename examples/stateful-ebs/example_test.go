// Package statefulebs checks the stateful-ebs example: an app sharing one single-AZ EBS
// volume, through provisioning, a replaced pod, scale to zero and back.
package statefulebs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

const nodeName = "ip-10-0-2-17.us-west-2.compute.internal"

// plan runs "nodeplan plan -f dir" as the CLI does.
func plan(t *testing.T, dir string) scheduling.Plan {
	t.Helper()
	res, err := app.Plan(app.Config{Paths: []string{dir}}, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, res.Bundle.Warnings)
	require.Equal(t, "us-west-2", res.Catalog.Region)
	return res.Plan
}

// Step 1: the class only allows us-west-2b and the claim is ReadWriteOnce, so the three
// replicas share one new node there (left alone, the solver would pick us-west-2a, the first
// of equally priced zones).
func TestProvision(t *testing.T) {
	p := plan(t, ".")
	require.Empty(t, p.Unschedulable)
	require.Len(t, p.NodeClaims, 1)
	node := p.NodeClaims[0]
	require.Equal(t, "us-west-2b", node.Zone)
	require.Equal(t, "on-demand", node.CapacityType)
	require.Equal(t, []string{"shop/catalog-0", "shop/catalog-1", "shop/catalog-2"}, node.Pods)
	require.Equal(t, "us-west-2b", node.Labels["topology.kubernetes.io/zone"])
}

// Step 2: one replica was replaced while the claim, now bound to a volume in us-west-2b, is
// mounted on the running node: the replacement joins the others there.
func TestPodReplaced(t *testing.T) {
	p := plan(t, ".steps/2-pod-replaced")
	require.Empty(t, p.Unschedulable)
	require.Empty(t, p.NodeClaims)
	require.Equal(t, []scheduling.ExistingPlacement{{Name: nodeName, Pods: []string{"shop/catalog-0"}}}, p.ExistingNodes)
}

// Step 3: scaled to zero, the node holds only a DaemonSet pod: emptiness deletes it.
func TestScaledToZero(t *testing.T) {
	res, err := app.Consolidate(app.Config{Paths: []string{".steps/3-scaled-to-zero"}}, time.Date(2026, 1, 12, 10, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	d := res.Decisions
	require.Len(t, d.Commands, 1)
	cmd := d.Commands[0]
	require.Equal(t, disruption.MethodEmptiness, cmd.Method)
	require.Equal(t, disruption.ActionDelete, cmd.Action)
	require.Equal(t, []disruption.Candidate{{Node: nodeName, NodePool: "default", InstanceType: "c6g.large", Zone: "us-west-2b", CapacityType: "on-demand", Price: 0.068}}, cmd.Candidates)
	require.Empty(t, cmd.Evictions)
	require.Empty(t, cmd.Replacements)
	require.InDelta(t, 0.068, cmd.Savings, 1e-9)
	require.Equal(t, disruption.Summary{Nodes: 1, NodesAfter: 0, HourlyCostBefore: 0.068, HourlyCostAfter: 0,
		// Only the kube-proxy DaemonSet pod is left to pay for the empty node; after, nothing.
		CostByWorkloadBefore: []workloadcost.Cost{{Namespace: "kube-system", Kind: "DaemonSet", Name: "kube-proxy", Pods: 1, HourlyCost: 0.068}},
		CostByWorkloadAfter:  []workloadcost.Cost{}}, d.Summary)

	// Nothing is pending, so there is nothing to plan either.
	p := plan(t, ".steps/3-scaled-to-zero")
	require.Zero(t, p.Summary.Pods)
	require.Empty(t, p.NodeClaims)
}

// Step 4: scaled back to 3 with no node left, the bound volume brings the new node back to
// us-west-2b.
func TestScaledUp(t *testing.T) {
	p := plan(t, ".steps/4-scaled-up")
	require.Empty(t, p.Unschedulable)
	require.Len(t, p.NodeClaims, 1)
	require.Equal(t, "us-west-2b", p.NodeClaims[0].Zone)
	require.Len(t, p.NodeClaims[0].Pods, 3)
}
