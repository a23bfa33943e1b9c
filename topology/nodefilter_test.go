package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

func TestSettleFilterFixesWhetherANewNodeCounts(t *testing.T) {
	const arch = "kubernetes.io/arch"
	web := map[string]string{"app": "web"}
	tr := topology.NewTracker(nil)
	// The spread honours node affinity (the default): it counts only pods on arm64 nodes.
	terms, err := tr.Terms(tb.Pod("web").Label("app", "web").NodeSelector(arch, "arm64").SpreadSelecting(zone, 1, corev1.DoNotSchedule, web).Obj())
	require.NoError(t, err)
	g := terms[0].Group
	anyArch := requirements.Requirements{}
	anyArch.Add(requirements.New(zone, corev1.NodeSelectorOpIn, "a"))
	launchable := func(requirements.Requirements) bool { return true }

	counting := g.SettleFilter(anyArch, launchable, func() bool { return true })
	require.True(t, g.CountsOnNew(counting), "cheapest option is arm64: the node is pinned to it and counts")
	require.Equal(t, "arm64", counting[arch].Values()[0])

	excluded := g.SettleFilter(anyArch, launchable, func() bool { return false })
	require.False(t, g.CountsOnNew(excluded), "cheapest option is not arm64: the node excludes arm64 and never counts")
	require.False(t, excluded[arch].Has("arm64"))

	onlyArm := func(r requirements.Requirements) bool { x, ok := r[arch]; return ok && x.Has("arm64") }
	require.True(t, g.CountsOnNew(g.SettleFilter(anyArch, onlyArm, func() bool { return false })),
		"every option is arm64: excluding it would leave nothing to launch")

	none := func(requirements.Requirements) bool { return false }
	require.Equal(t, anyArch, g.SettleFilter(anyArch, none, func() bool { return true }), "nothing can match the filter: left open")
	require.Empty(t, anyArch[arch], "the input is not changed")
}
