package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

func TestDaemonPodsANewNodeBringsAreCounted(t *testing.T) {
	web := map[string]string{"app": "web"}
	tr, rules := topology.NewTracker(nil), topology.NewRules()
	spread, err := tr.Terms(tb.Pod("web").Label("app", "web").SpreadSelecting(zone, 1, corev1.DoNotSchedule, web).Obj())
	require.NoError(t, err)
	counted := &daemonset.Template{Name: "default/web-agent", Pod: tb.Pod("agent").Label("app", "web").Obj()}
	other := &daemonset.Template{Name: "default/logs", Pod: tb.Pod("logs").Label("app", "logs").Obj()}

	daemons := topology.CountedDaemons([]*daemonset.Template{other, counted}, tr.Groups())
	require.Len(t, daemons, 1, "only the daemon the spread selects is counted")
	require.Equal(t, counted, daemons[0].Template)
	require.Equal(t, []string{zone}, topology.DaemonKeys(daemons))

	breaks, count := rules.DaemonsBreak(daemons, zone, "a")
	require.False(t, breaks, "no declaring pod placed yet")
	require.Zero(t, count)

	inA := requirements.Requirements{}
	inA.Add(requirements.New(zone, corev1.NodeSelectorOpIn, "a"))
	require.True(t, rules.RecordDaemons(daemons, inA, "n0", 0))
	require.Equal(t, 1, spread[0].Group.Count("a"))
	_, count = rules.DaemonsBreak(daemons, zone, "a")
	require.Equal(t, 1, count)

	require.False(t, rules.RecordDaemons(daemons, requirements.Requirements{}, "n1", 1), "zone still open: counted in no domain")
	require.Equal(t, 1, spread[0].Group.Total())
}
