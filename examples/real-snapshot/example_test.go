// Package realsnapshot checks the real-snapshot example: a `kubectl get -o yaml` snapshot
// whose EC2NodeClass, DaemonSet pods and NodeOverlay shape the plan.
package realsnapshot

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

// c7iLargeOnDemand is c7i.large's on-demand price in the embedded us-west-2 catalog; the
// NodeOverlay takes 25% off.
const c7iLargeOnDemand = 0.08925

func plan(t *testing.T) *app.Planned {
	t.Helper()
	res, err := app.Plan(app.Config{Paths: []string{"."}}, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, "us-west-2", res.Catalog.Region, "the subnets' zones name the region")
	require.Equal(t, []string{"3 DaemonSet(s) not in the input, each taken from one of its pods for the overhead on new nodes: " +
		"kube-system/aws-node (from pod aws-node-m7x2q), kube-system/kube-proxy (from pod kube-proxy-8kq4v), kube-system/ebs-csi-node (from pod ebs-csi-node-x9w2l)"},
		res.Bundle.Warnings)
	return res
}

// New nodes only go where the EC2NodeClass has subnets, although the storefront's zone spread
// would rather use all four zones of us-west-2.
func TestZonesFromSubnets(t *testing.T) {
	p := plan(t).Plan
	require.Empty(t, p.Unschedulable)
	require.Equal(t, 126, p.Summary.Placed)
	require.Equal(t, map[string][]string{"topology.kubernetes.io/zone": {"us-west-2a", "us-west-2b", "us-west-2c"}}, p.TopologyDomains)
	zones := map[string]bool{}
	for _, nc := range p.NodeClaims {
		zones[nc.Zone] = true
	}
	require.Equal(t, map[string]bool{"us-west-2a": true, "us-west-2b": true, "us-west-2c": true}, zones, "the storefront spreads over the three subnet zones, never us-west-2d")
}

// kubelet maxPods 110 lets a c7i.large take far more than its 29 ENI-limited pods, beside the
// three DaemonSets rebuilt from their pods; the 50Gi root volume is its ephemeral storage.
func TestPodsPerNode(t *testing.T) {
	res := plan(t)
	require.Len(t, res.Bundle.DaemonSets, 3)
	most := 0
	for _, nc := range res.Plan.NodeClaims {
		pods := nc.Capacity[corev1.ResourcePods]
		require.Equal(t, "110", pods.String(), nc.Name)
		storage := nc.Capacity[corev1.ResourceEphemeralStorage]
		require.Equal(t, "50Gi", storage.String(), nc.Name)
		require.LessOrEqual(t, len(nc.Pods)+3, 110, nc.Name)
		most = max(most, len(nc.Pods))
	}
	require.Greater(t, most, 29, "more pods on one node than the ENI limit allows without maxPods")
}

// The NodeOverlay's savings plan makes c7i the cheapest family the NodePool allows.
func TestOverlayPrice(t *testing.T) {
	p := plan(t).Plan
	require.Len(t, p.NodeClaims, 3)
	for _, nc := range p.NodeClaims {
		require.Equal(t, "c7i.large", nc.InstanceType, nc.Name)
		require.InDelta(t, c7iLargeOnDemand*0.75, nc.Price, 1e-6, nc.Name)
	}
	require.InDelta(t, 3*c7iLargeOnDemand*0.75, p.Summary.HourlyCost, 1e-5)
}

// Step 2: a capacity reservation for one c7i.large in us-west-2a, and a static NodePool keeping
// two ingress nodes. The reservation's instance is used first, at next to nothing; the static
// NodePool's two nodes are planned and hold the ingress replicas, and it launches no more.
func TestStaticAndReserved(t *testing.T) {
	res, err := app.Plan(app.Config{Paths: []string{".steps/2-static-and-reserved"}}, scheduling.Options{})
	require.NoError(t, err)
	p := res.Plan
	require.Empty(t, p.Unschedulable)
	var reserved, ingress int
	for _, nc := range p.NodeClaims {
		switch {
		case nc.NodePool == "ingress":
			ingress++
			require.Equal(t, "m7i.large", nc.InstanceType)
			require.Len(t, nc.Pods, 1, "one ingress replica per node (hostname spread)")
		case nc.CapacityType == "reserved":
			reserved++
			require.Equal(t, "us-west-2a", nc.Zone)
			require.Equal(t, "c7i.large", nc.InstanceType)
			require.Equal(t, "cr-0b2c4d6e8f0a1b3c5", nc.Labels["karpenter.k8s.aws/capacity-reservation-id"])
			require.Less(t, nc.Price, 1e-6)
		default:
			require.Equal(t, "on-demand", nc.CapacityType, nc.Name)
		}
	}
	require.Equal(t, 2, ingress, "the static NodePool keeps its two nodes")
	require.Equal(t, 1, reserved, "the reservation takes one more instance")
	for _, w := range res.Bundle.Warnings {
		require.NotContains(t, w, "capacity reservation", "reservations.json gives the count")
	}
	require.Greater(t, p.Summary.LowerBound, 0.0, "reservations are few: the bound still counts paid nodes")
}

// Step 3: the class's status.amis moved to a new AL2023 image. The nodes launched from the
// old one have AMI drift, the one whose NodeClaim carries an older class hash has class-hash
// drift, and the NodePool's budget (one node at a time) lets Drift replace one per decision.
func TestAMIUpgrade(t *testing.T) {
	res, err := app.Consolidate(app.Config{Paths: []string{".steps/3-ami-upgrade"}}, time.Date(2026, 2, 16, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	d := res.Decisions
	require.Len(t, d.Commands, 1, "the budget allows one node at a time")
	cmd := d.Commands[0]
	require.Equal(t, disruption.MethodDrift, cmd.Method)
	require.Equal(t, disruption.ActionReplace, cmd.Action)
	require.Equal(t, "ip-10-0-1-41.us-west-2.compute.internal", cmd.Candidates[0].Node)
	require.Equal(t, "drifted: its node class changed: AMIDrift: NodeClaim default-q1w1e runs image ami-0f1e2d3c4b5a69788, which is not among EC2NodeClass default's status.amis (ami-0c4d5e6f7a8b9c012)", cmd.Notes[0])
	require.Len(t, cmd.Replacements, 1)
	require.Equal(t, "us-west-2a", cmd.Replacements[0].Zone)

	blocked := map[string]string{}
	for _, b := range d.Blocked {
		blocked[b.Node] = b.Reason
	}
	require.Contains(t, blocked["ip-10-0-2-42.us-west-2.compute.internal"], "AMIDrift: NodeClaim default-q2w2e runs image ami-0f1e2d3c4b5a69788")
	require.Contains(t, blocked["ip-10-0-2-42.us-west-2.compute.internal"], `budget nodes: "1"`)
	require.Contains(t, blocked["ip-10-0-3-43.us-west-2.compute.internal"], "NodeClassDrift: EC2NodeClass default's karpenter.k8s.aws/ec2nodeclass-hash is 6187523587376325435, its NodeClaim default-q3w3e was launched with 17771626012218447040")
}

// The same snapshot replayed: the drift read from the node class replaces the three nodes, one
// at a time as the budget allows, with nothing else happening.
func TestAMIUpgradeReplayed(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.yaml")
	require.NoError(t, os.WriteFile(events, []byte("kind: Events\nstart: \"2026-02-16T12:00:00Z\"\nevents: []\n"), 0o600))
	res, err := app.Replay(app.Config{Paths: []string{".steps/3-ami-upgrade"}}, events, time.Time{}, replay.Options{})
	require.NoError(t, err)
	r := res.Result
	require.Equal(t, 3, r.Summary.Terminated["drift"], "every drifted node is replaced")
	var drifted []string
	for _, d := range r.Decisions {
		if d.Kind == replay.DecisionDisrupt {
			require.Equal(t, disruption.MethodDrift, d.Method)
			drifted = append(drifted, d.Nodes...)
		}
	}
	require.ElementsMatch(t, []string{"ip-10-0-1-41.us-west-2.compute.internal", "ip-10-0-2-42.us-west-2.compute.internal", "ip-10-0-3-43.us-west-2.compute.internal"}, drifted)
}
