package volume_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/volume"
)

// The EBS story of issue 5, as the volume package sees each solve: the class pins one zone;
// once provisioned, the claim follows its volume's zone, whether the pod is replaced while
// the old one still runs or the workload scales to zero and back.
func TestEBSStory(t *testing.T) {
	gp3 := class("gp3").zones("us-west-2a")
	db := pod("db-0").claim("data", "data-db-0")

	// First solve: the claim is unbound, the class allows only us-west-2a.
	first := world{claims: claims(claim("data-db-0").class("gp3")), classes: classes(gp3)}
	vols, err := first.index().ForPod(db.obj())
	require.NoError(t, err)
	require.Equal(t, []string{zoneIs("us-west-2a")}, alternatives(vols.Alternatives))

	// The volume was provisioned in the node's zone with the EBS driver's topology key.
	bound := claims(claim("data-db-0").class("gp3").bound("pvc-1234"))
	volumes := pvs(pv("pvc-1234").csi(ebs).class("gp3").term("topology.ebs.csi.aws.com/zone", "us-west-2a"))

	// Second solve: the old pod still runs on its node while its replacement is pending.
	second := world{claims: bound, pvs: volumes, classes: classes(gp3),
		bound: []*corev1.Pod{pod("db-0-old").claim("data", "data-db-0").node("ip-10-0-1-7").obj()}}
	vols, err = second.index().ForPod(db.obj())
	require.NoError(t, err)
	require.Equal(t, []string{zoneIs("us-west-2a")}, alternatives(vols.Alternatives))
	require.Equal(t, []volume.Claim{{Key: "default/data-db-0", Driver: ebs, ReadWriteOnce: true, InUseOn: "ip-10-0-1-7"}}, vols.Claims)

	// Third solve: scaled to zero (no pod runs) and back to one.
	third := world{claims: bound, pvs: volumes, classes: classes(gp3)}
	vols, err = third.index().ForPod(db.obj())
	require.NoError(t, err)
	require.Equal(t, []string{zoneIs("us-west-2a")}, alternatives(vols.Alternatives))
	require.Equal(t, []volume.Claim{rwo("default/data-db-0", ebs)}, vols.Claims)
}

// A StatefulSet of 20 replicas whose claims were provisioned in us-west-2b: every replica is
// pinned to that zone and brings its own claim.
func TestStatefulSetClaimsAllPinOneZone(t *testing.T) {
	w := world{classes: classes(class("gp3"))}
	var pending []*corev1.Pod
	for i := range 20 {
		name := fmt.Sprintf("data-web-%d", i)
		w.claims = append(w.claims, claim(name).class("gp3").bound("pv-"+name).obj())
		w.pvs = append(w.pvs, pv("pv-"+name).csi(ebs).term(zoneKey, "us-west-2b").obj())
		pending = append(pending, pod(fmt.Sprintf("web-%d", i)).claim("data", name).obj())
	}
	ix := w.index()
	seen := map[string]bool{}
	for _, p := range pending {
		vols, err := ix.ForPod(p)
		require.NoError(t, err)
		require.Equal(t, []string{zoneIs("us-west-2b")}, alternatives(vols.Alternatives))
		require.Len(t, vols.Claims, 1)
		require.False(t, seen[vols.Claims[0].Key])
		seen[vols.Claims[0].Key] = true
	}
	require.Empty(t, ix.ReadWriteOncePodConflicts(pending))
}
