// Package legacyprovisioner checks the legacy-provisioner example: a Karpenter v0.13
// Provisioner gets only the defaults v0.13 gave it, so pods pinning Graviton types launch
// them, and its nodes are deleted ttlSecondsAfterEmpty after Karpenter marked them empty.
package legacyprovisioner

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Step 1: the pinned t4g.2xlarge and r6gd.xlarge are launched, on-demand (the webhook's
// capacity-type default), though neither is of category c, m or r.
func TestPinnedTypesLaunch(t *testing.T) {
	res, err := app.Plan(app.Config{Paths: []string{"."}}, scheduling.Options{})
	require.NoError(t, err)
	p := res.Plan
	require.Empty(t, p.Unschedulable)
	got := map[string][]string{}
	for _, n := range p.NodeClaims {
		require.Equal(t, "on-demand", n.CapacityType)
		got[n.InstanceType] = append(got[n.InstanceType], n.Pods...)
	}
	require.Equal(t, map[string][]string{
		"t4g.2xlarge": {"default/inflate-0", "default/inflate-1", "default/inflate-2"},
		"r6gd.xlarge": {"default/cache-0"},
	}, got)
}

// Without its arch requirement the Provisioner gets v0.13's amd64 default, which rules the
// Graviton pins out as it did in Karpenter, and the reason says the requirement is a default.
func TestArchDefaultNamed(t *testing.T) {
	dir := t.TempDir()
	writeWithoutArch(t, dir)
	res, err := app.Plan(app.Config{Paths: []string{dir}}, scheduling.Options{})
	require.NoError(t, err)
	require.Len(t, res.Plan.Unschedulable, 4)
	require.Contains(t, res.Plan.Unschedulable[0].Reason, "kubernetes.io/arch In [amd64] (v1alpha5 default: the Provisioner does not name kubernetes.io/arch)")
	require.NotContains(t, res.Plan.Unschedulable[0].Reason, "instance-category")
}

// Step 2: inflate scaled to zero. The node Karpenter marked empty at 10:00:00 goes 30s later;
// the one not marked yet is being marked now; the r6gd node still runs the cache. No node is
// drifted: the Provisioner has no category requirement the t4g nodes could miss.
func TestEmptyNodesAfterTheirTimestamp(t *testing.T) {
	res, err := app.Consolidate(app.Config{Paths: []string{".steps/2-scaled-to-zero"}}, time.Date(2026, 1, 12, 10, 1, 0, 0, time.UTC))
	require.NoError(t, err)
	d := res.Decisions
	require.Len(t, d.Commands, 1)
	require.Equal(t, disruption.MethodEmptiness, d.Commands[0].Method)
	require.Equal(t, []disruption.Candidate{{Node: "ip-10-0-1-20.us-west-2.compute.internal", NodePool: "default", InstanceType: "t4g.2xlarge", Zone: "us-west-2a", CapacityType: "on-demand", Price: 0.2688}}, d.Commands[0].Candidates)
	reasons := map[string]string{}
	for _, b := range d.Blocked {
		reasons[b.Node] = b.Reason
		require.NotContains(t, b.Reason, "drifted")
	}
	require.Contains(t, reasons["ip-10-0-1-21.us-west-2.compute.internal"], "no karpenter.sh/emptiness-timestamp yet: Karpenter marks it now")
	require.Contains(t, reasons["ip-10-0-1-22.us-west-2.compute.internal"], "consolidates only empty nodes")

	// 20 seconds after the mark, the TTL of 30 seconds has not passed.
	res, err = app.Consolidate(app.Config{Paths: []string{".steps/2-scaled-to-zero"}}, time.Date(2026, 1, 12, 10, 0, 20, 0, time.UTC))
	require.NoError(t, err)
	require.Empty(t, res.Decisions.Commands)
	require.Contains(t, res.Decisions.Blocked[0].Reason, "ttlSecondsAfterEmpty (30s) has not passed since Karpenter marked the node empty (karpenter.sh/emptiness-timestamp 2026-01-12T10:00:00Z, 20s ago)")
}

// writeWithoutArch copies the example into dir with the Provisioner's arch requirement removed.
func writeWithoutArch(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"provisioner.yaml", "app.yaml"} {
		text := readFile(t, name)
		if name == "provisioner.yaml" {
			text = strings.Replace(text, "  requirements:\n  - key: kubernetes.io/arch\n    operator: In\n    values: [amd64, arm64]\n", "", 1)
			require.NotContains(t, text, "kubernetes.io/arch")
		}
		writeFile(t, dir, name, text)
	}
}
