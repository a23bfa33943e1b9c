package volume_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/volume"
)

func ebsClaim(key string) volume.Claim { return rwo(key, ebs) }

func TestAttachCounterCanAdd(t *testing.T) {
	limits := map[string]int{ebs: 2}
	tests := []struct {
		name     string
		attached []volume.Claim
		adding   []volume.Claim
		limits   map[string]int
		driver   string
		ok       bool
	}{
		{name: "room left", attached: []volume.Claim{ebsClaim("ns/a")}, adding: []volume.Claim{ebsClaim("ns/b")}, limits: limits, ok: true},
		{name: "full", attached: []volume.Claim{ebsClaim("ns/a"), ebsClaim("ns/b")}, adding: []volume.Claim{ebsClaim("ns/c")}, limits: limits, driver: ebs},
		{name: "a claim the node uses already counts once", attached: []volume.Claim{ebsClaim("ns/a"), ebsClaim("ns/b")}, adding: []volume.Claim{ebsClaim("ns/b")}, limits: limits, ok: true},
		{name: "a claim listed twice counts once", attached: []volume.Claim{ebsClaim("ns/a")}, adding: []volume.Claim{ebsClaim("ns/c"), ebsClaim("ns/c")}, limits: limits, ok: true},
		{name: "two new claims over the limit", attached: []volume.Claim{ebsClaim("ns/a")}, adding: []volume.Claim{ebsClaim("ns/b"), ebsClaim("ns/c")}, limits: limits, driver: ebs},
		{name: "claims without a driver never count", attached: []volume.Claim{ebsClaim("ns/a"), ebsClaim("ns/b")}, adding: []volume.Claim{rwo("ns/local", "")}, limits: limits, ok: true},
		{name: "a driver without a limit is unlimited", attached: []volume.Claim{ebsClaim("ns/a"), ebsClaim("ns/b")}, adding: []volume.Claim{rwo("ns/efs", "efs.csi.aws.com")}, limits: limits, ok: true},
		{name: "no limits at all", attached: []volume.Claim{ebsClaim("ns/a"), ebsClaim("ns/b")}, adding: []volume.Claim{ebsClaim("ns/c")}, ok: true},
		{name: "limits are per driver", attached: []volume.Claim{ebsClaim("ns/a"), rwo("ns/p", "pd")}, adding: []volume.Claim{ebsClaim("ns/b"), rwo("ns/q", "pd")}, limits: map[string]int{ebs: 2, "pd": 1}, driver: "pd"},
		{name: "a zero limit refuses any claim of the driver", adding: []volume.Claim{ebsClaim("ns/a")}, limits: map[string]int{ebs: 0}, driver: ebs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := volume.NewAttachCounter()
			c.Add(tt.attached)
			driver, ok := c.CanAdd(tt.adding, tt.limits)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.driver, driver)
			if ok {
				require.NoError(t, c.Check(tt.adding, tt.limits))
			} else {
				require.Error(t, c.Check(tt.adding, tt.limits))
			}
		})
	}
}

func TestAttachCounterCheckSaysWhy(t *testing.T) {
	c := volume.NewAttachCounter()
	c.Add([]volume.Claim{ebsClaim("ns/a"), ebsClaim("ns/b")})
	err := c.Check([]volume.Claim{ebsClaim("ns/b"), ebsClaim("ns/c"), ebsClaim("ns/d")}, map[string]int{ebs: 3})
	require.Equal(t, &volume.AttachLimitError{Driver: ebs, Attached: 2, Adding: 2, Limit: 3}, err)
	require.EqualError(t, err, "node can attach at most 3 ebs.csi.aws.com volumes and already uses 2; the pod needs 2 more")
}

func TestAttachCounterZeroValueCloneAndCount(t *testing.T) {
	var zero volume.AttachCounter
	_, ok := zero.CanAdd([]volume.Claim{ebsClaim("ns/a")}, map[string]int{ebs: 1})
	require.True(t, ok)
	zero.Add([]volume.Claim{ebsClaim("ns/a"), ebsClaim("ns/a")})
	require.Equal(t, 1, zero.Count(ebs))

	clone := zero.Clone()
	clone.Add([]volume.Claim{ebsClaim("ns/b")})
	require.Equal(t, 1, zero.Count(ebs))
	require.Equal(t, 2, clone.Count(ebs))

	var none *volume.AttachCounter
	require.Equal(t, 0, none.Count(ebs))
	require.Equal(t, 0, none.Clone().Count(ebs))
}

// Pods with one claim each fill a node whose EBS limit is 2: the third needs a second node.
func TestAttachLimitForcesASecondNode(t *testing.T) {
	w := world{classes: classes(class("gp3").isDefault())}
	var pending []*corev1.Pod
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		w.claims = append(w.claims, claim("data-"+name).obj())
		pending = append(pending, pod(name).claim("data", "data-"+name).obj())
	}
	ix := w.index()
	limits := map[string]int{ebs: 2}
	nodes := []*volume.AttachCounter{volume.NewAttachCounter()}
	placed := map[string]int{}
	for _, p := range pending {
		vols, err := ix.ForPod(p)
		require.NoError(t, err)
		for i := 0; ; i++ {
			if i == len(nodes) {
				nodes = append(nodes, volume.NewAttachCounter())
			}
			if _, ok := nodes[i].CanAdd(vols.Claims, limits); ok {
				nodes[i].Add(vols.Claims)
				placed[p.Name] = i
				break
			}
		}
	}
	require.Equal(t, map[string]int{"db-0": 0, "db-1": 0, "db-2": 1}, placed)
}

func TestAttachedOnCountsTheClaimsOfRunningPods(t *testing.T) {
	w := world{
		claims: claims(
			claim("a").bound("pv-a"),
			claim("b").class("gp3"),
			claim("shared").class("gp3").modes(corev1.ReadWriteMany),
			claim("local").bound("pv-local"),
			claim("x-scratch").class("gp3").controlledBy("x"),
		),
		pvs:     pvs(pv("pv-a").csi(ebs).term(zoneKey, "us-west-2a"), pv("pv-local").local("node-1")),
		classes: classes(class("gp3")),
		bound: []*corev1.Pod{
			pod("p1").claim("a", "a").claim("shared", "shared").claim("local", "local").node("node-1").obj(),
			pod("p2").claim("b", "b").claim("shared", "shared").node("node-1").obj(),
			pod("p3").claim("missing", "missing").node("node-1").obj(),
			pod("x").ephemeral("scratch", "gp3").node("node-1").obj(),
			pod("y").ephemeral("tmp", "gp3").node("node-1").obj(), // its claim is not in the input: read from the template
			pod("done").claim("old", "old").node("node-1").phase(corev1.PodFailed).obj(),
			pod("p4").claim("a", "a").node("node-2").obj(),
		},
	}
	ix := w.index()
	// a, b, shared, x-scratch, y-tmp; local has no driver, missing is unknown.
	require.Equal(t, 5, ix.AttachedOn("node-1").Count(ebs))
	require.Equal(t, 1, ix.AttachedOn("node-2").Count(ebs))
	require.Equal(t, 0, ix.AttachedOn("node-3").Count(ebs))

	driver, ok := ix.AttachedOn("node-1").CanAdd([]volume.Claim{ebsClaim("default/new")}, map[string]int{ebs: 5})
	require.False(t, ok)
	require.Equal(t, ebs, driver)
	_, ok = ix.AttachedOn("node-1").CanAdd([]volume.Claim{ebsClaim("default/shared")}, map[string]int{ebs: 5})
	require.True(t, ok, "a claim the node already attaches costs nothing")
}

func TestExistingNodeLimits(t *testing.T) {
	require.Nil(t, volume.ExistingNodeLimits(nil))
	csiNode := &storagev1.CSINode{
		ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: ebs, NodeID: "i-1", Allocatable: &storagev1.VolumeNodeResources{Count: int32Ptr(25)}},
			{Name: "efs.csi.aws.com", NodeID: "i-1"},
			{Name: "pd", NodeID: "i-1", Allocatable: &storagev1.VolumeNodeResources{}},
		}},
	}
	require.Equal(t, map[string]int{ebs: 25}, volume.ExistingNodeLimits(csiNode))
	require.Nil(t, volume.ExistingNodeLimits(&storagev1.CSINode{}))
}

func int32Ptr(v int32) *int32 { return &v }
