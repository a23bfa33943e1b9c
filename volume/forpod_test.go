package volume_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/volume"
)

// world is the cluster's volume objects for one test.
type world struct {
	claims  []*corev1.PersistentVolumeClaim
	pvs     []*corev1.PersistentVolume
	classes []*storagev1.StorageClass
	bound   []*corev1.Pod
}

func (w world) index() *volume.Index {
	return volume.NewIndex(w.claims, w.pvs, w.classes, w.bound)
}

func claims(cs ...*claimBuilder) []*corev1.PersistentVolumeClaim {
	out := make([]*corev1.PersistentVolumeClaim, len(cs))
	for i, c := range cs {
		out[i] = c.obj()
	}
	return out
}

func pvs(vs ...*pvBuilder) []*corev1.PersistentVolume {
	out := make([]*corev1.PersistentVolume, len(vs))
	for i, v := range vs {
		out[i] = v.obj()
	}
	return out
}

func classes(cs ...*classBuilder) []*storagev1.StorageClass {
	out := make([]*storagev1.StorageClass, len(cs))
	for i, c := range cs {
		out[i] = c.obj()
	}
	return out
}

func alternatives(alts []requirements.Requirements) []string {
	if alts == nil {
		return nil
	}
	out := make([]string, len(alts))
	for i, a := range alts {
		out[i] = a.String()
	}
	return out
}

func zoneIs(zones ...string) string {
	return requirements.NewRequirements(requirements.New(zoneKey, corev1.NodeSelectorOpIn, zones...)).String()
}

func rwo(key, driver string) volume.Claim {
	return volume.Claim{Key: key, Driver: driver, ReadWriteOnce: true}
}

func TestForPod(t *testing.T) {
	gp3a := func() *classBuilder { return class("gp3-a").zones("us-west-2a") }
	gp3 := func() *classBuilder { return class("gp3") }
	tests := []struct {
		name   string
		w      world
		pod    *podBuilder
		alts   []string
		claims []volume.Claim
		err    string
	}{
		{
			name: "no volumes",
			pod:  pod("web-0"),
		},
		{
			name: "emptyDir only",
			pod:  pod("web-0").emptyDir("cache"),
		},
		{
			name:   "WaitForFirstConsumer class with allowedTopologies zone a",
			w:      world{claims: claims(claim("data-0").class("gp3-a")), classes: classes(gp3a())},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2a")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name:   "WaitForFirstConsumer class without allowedTopologies: anywhere",
			w:      world{claims: claims(claim("data-0").class("gp3")), classes: classes(gp3())},
			pod:    pod("web-0").claim("data", "data-0"),
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name:   "allowedTopologies terms on one key fold into one alternative",
			w:      world{claims: claims(claim("data-0").class("ab")), classes: classes(class("ab").zones("us-west-2a").zones("us-west-2b"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2a", "us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "allowedTopologies terms on several keys stay alternatives",
			w: world{claims: claims(claim("data-0").class("mixed")), classes: classes(class("mixed").
				topology(zoneKey, "us-west-2a", "disk", "ssd").topology(zoneKey, "us-west-2b"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{"disk In [ssd], " + zoneIs("us-west-2a"), zoneIs("us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name:   "deprecated keys in allowedTopologies are normalised",
			w:      world{claims: claims(claim("data-0").class("old")), classes: classes(class("old").topology("failure-domain.beta.kubernetes.io/zone", "us-west-2c"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2c")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "bound PV with zone b",
			w: world{claims: claims(claim("data-0").class("gp3-a").bound("pv-1")), classes: classes(gp3a()),
				pvs: pvs(pv("pv-1").csi(ebs).term(zoneKey, "us-west-2b"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "bound PV needs no StorageClass",
			w: world{claims: claims(claim("data-0").class("gone").bound("pv-1")),
				pvs: pvs(pv("pv-1").csi(ebs).term(zoneKey, "us-west-2b"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "bound PV without node affinity: anywhere",
			w: world{claims: claims(claim("data-0").bound("pv-1").modes(corev1.ReadWriteMany)),
				pvs: pvs(pv("pv-1").csi("efs.csi.aws.com"))},
			pod:    pod("web-0").claim("data", "data-0"),
			claims: []volume.Claim{{Key: "default/data-0", Driver: "efs.csi.aws.com"}},
		},
		{
			name: "bound PV with the EBS driver's deprecated zone key",
			w: world{claims: claims(claim("data-0").bound("pv-1")),
				pvs: pvs(pv("pv-1").csi(ebs).term("topology.ebs.csi.aws.com/zone", "us-west-2a"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2a")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "bound PV with several terms: each one an alternative",
			w: world{claims: claims(claim("data-0").bound("pv-1")),
				pvs: pvs(pv("pv-1").csi("x.csi").
					termExprs(in(zoneKey, "us-west-2a"), in("rack", "r1")).
					termExprs(in(zoneKey, "us-west-2b"), in("rack", "r2")))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{"rack In [r1], " + zoneIs("us-west-2a"), "rack In [r2], " + zoneIs("us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", "x.csi")},
		},
		{
			name: "in-tree EBS volume: zone labels (several with __) and the migrated driver",
			w: world{claims: claims(claim("data-0").bound("pv-1")),
				pvs: pvs(pv("pv-1").inTreeEBS().label("failure-domain.beta.kubernetes.io/zone", "us-west-2a__us-west-2b"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2a", "us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "zone labels narrow node affinity terms",
			w: world{claims: claims(claim("data-0").bound("pv-1")),
				pvs: pvs(pv("pv-1").csi(ebs).term(zoneKey, "us-west-2a", "us-west-2b").label(zoneKey, "us-west-2b"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "local PV keeps its hostname: that existing node only",
			w: world{claims: claims(claim("data-0").bound("local-1")),
				pvs: pvs(pv("local-1").local("node-1"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{"kubernetes.io/hostname In [node-1]"},
			claims: []volume.Claim{rwo("default/data-0", "")},
		},
		{
			name: "hostPath PV keeps its hostname",
			w: world{claims: claims(claim("data-0").bound("hp-1")),
				pvs: pvs(pv("hp-1").hostPath("node-2"))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{"kubernetes.io/hostname In [node-2]"},
			claims: []volume.Claim{rwo("default/data-0", "")},
		},
		{
			name: "matchFields metadata.name becomes a hostname requirement",
			w: world{claims: claims(claim("data-0").bound("pv-1")),
				pvs: pvs(pv("pv-1").csi("x.csi").rawTerm(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
					{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-7"}}}}))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{"kubernetes.io/hostname In [node-7]"},
			claims: []volume.Claim{rwo("default/data-0", "x.csi")},
		},
		{
			name: "two claims in one zone",
			w: world{claims: claims(claim("data-0").class("ab"), claim("logs-0").bound("pv-1")),
				classes: classes(class("ab").zones("us-west-2a", "us-west-2b")),
				pvs:     pvs(pv("pv-1").csi(ebs).term(zoneKey, "us-west-2b"))},
			pod:    pod("web-0").claim("data", "data-0").claim("logs", "logs-0"),
			alts:   []string{zoneIs("us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", ebs), rwo("default/logs-0", ebs)},
		},
		{
			name: "two claims in different zones",
			w: world{claims: claims(claim("data-0").bound("pv-a"), claim("logs-0").bound("pv-b")),
				pvs: pvs(pv("pv-a").csi(ebs).term(zoneKey, "us-west-2a"), pv("pv-b").csi(ebs).term(zoneKey, "us-west-2b"))},
			pod: pod("web-0").claim("data", "data-0").claim("logs", "logs-0"),
			err: "PVCs data-0 (us-west-2a) and logs-0 (us-west-2b) cannot be attached in one zone",
		},
		{
			name: "the pair that conflicts is named, not every claim",
			w: world{claims: claims(claim("any-0").class("gp3"), claim("data-0").bound("pv-a"), claim("cfg-0").class("ab"), claim("logs-0").bound("pv-b")),
				classes: classes(gp3(), class("ab").zones("us-west-2a", "us-west-2b")),
				pvs:     pvs(pv("pv-a").csi(ebs).term(zoneKey, "us-west-2a"), pv("pv-b").csi(ebs).term(zoneKey, "us-west-2b"))},
			pod: pod("web-0").claim("any", "any-0").claim("data", "data-0").claim("cfg", "cfg-0").claim("logs", "logs-0"),
			err: "PVCs data-0 (us-west-2a) and logs-0 (us-west-2b) cannot be attached in one zone",
		},
		{
			name: "three claims pairwise compatible but not together",
			w: world{claims: claims(claim("a-0").class("ab"), claim("b-0").class("bc"), claim("c-0").class("ac")),
				classes: classes(class("ab").zones("z1", "z2"), class("bc").zones("z2", "z3"), class("ac").zones("z1", "z3"))},
			pod: pod("web-0").claim("a", "a-0").claim("b", "b-0").claim("c", "c-0"),
			err: "PVCs a-0 (z1, z2), b-0 (z2, z3) and c-0 (z1, z3) cannot be attached in one zone",
		},
		{
			name: "two local volumes on different nodes",
			w: world{claims: claims(claim("data-0").bound("l1"), claim("logs-0").bound("l2")),
				pvs: pvs(pv("l1").local("node-1"), pv("l2").local("node-2"))},
			pod: pod("web-0").claim("data", "data-0").claim("logs", "logs-0"),
			err: "PVCs data-0 (node-1) and logs-0 (node-2) cannot be attached on one node",
		},
		{
			name:   "one claim in two volumes counts once",
			w:      world{claims: claims(claim("data-0").class("gp3-a")), classes: classes(gp3a())},
			pod:    pod("web-0").claim("data", "data-0").claim("again", "data-0"),
			alts:   []string{zoneIs("us-west-2a")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name:   "claims are sorted by key",
			w:      world{claims: claims(claim("b"), claim("a")), classes: classes(gp3().isDefault())},
			pod:    pod("web-0").claim("x", "b").claim("y", "a"),
			claims: []volume.Claim{rwo("default/a", ebs), rwo("default/b", ebs)},
		},
		{
			name:   "generic ephemeral volume before its claim exists: read from the template",
			w:      world{classes: classes(gp3a())},
			pod:    pod("web-0").ephemeral("scratch", "gp3-a"),
			alts:   []string{zoneIs("us-west-2a")},
			claims: []volume.Claim{rwo("default/web-0-scratch", ebs)},
		},
		{
			name: "generic ephemeral volume whose claim the pod controls is bound",
			w: world{claims: claims(claim("web-0-scratch").class("gp3-a").bound("pv-1").controlledBy("web-0")),
				classes: classes(gp3a()), pvs: pvs(pv("pv-1").csi(ebs).term(zoneKey, "us-west-2c"))},
			pod:    pod("web-0").ephemeral("scratch", "gp3-a"),
			alts:   []string{zoneIs("us-west-2c")},
			claims: []volume.Claim{rwo("default/web-0-scratch", ebs)},
		},
		{
			name: "generic ephemeral volume of a bound pod: a rescheduled pod gets a new claim",
			w: world{claims: claims(claim("web-0-scratch").class("gp3-a").bound("pv-1").controlledBy("web-0")),
				classes: classes(gp3a()), pvs: pvs(pv("pv-1").csi(ebs).term(zoneKey, "us-west-2c"))},
			pod:    pod("web-0").ephemeral("scratch", "gp3-a").node("node-1"),
			alts:   []string{zoneIs("us-west-2a")},
			claims: []volume.Claim{rwo("default/web-0-scratch", ebs)},
		},
		{
			name: "generic ephemeral volume whose claim someone else made",
			w:    world{claims: claims(claim("web-0-scratch").class("gp3-a")), classes: classes(gp3a())},
			pod:  pod("web-0").ephemeral("scratch", "gp3-a"),
			err:  `persistentvolumeclaim default/web-0-scratch exists but was not created for pod default/web-0 (the pod is not its controller), so the generic ephemeral volume "scratch" cannot use it`,
		},
		{
			name: "missing PVC",
			pod:  pod("web-0").claim("data", "data-0"),
			err:  "persistentvolumeclaim default/data-0 not found",
		},
		{
			name: "missing PV",
			w:    world{claims: claims(claim("data-0").bound("pv-1"))},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  "persistentvolume pv-1 (bound to persistentvolumeclaim default/data-0) not found",
		},
		{
			name: "PV being deleted",
			w:    world{claims: claims(claim("data-0").bound("pv-1")), pvs: pvs(pv("pv-1").csi(ebs).deleting())},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  "persistentvolume pv-1 (bound to persistentvolumeclaim default/data-0) is being deleted",
		},
		{
			name: "PV whose required node affinity has no terms",
			w:    world{claims: claims(claim("data-0").bound("pv-1")), pvs: pvs(pv("pv-1").csi(ebs).noTerms())},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  "persistentvolume pv-1 has a required node affinity without terms, so no node can use it",
		},
		{
			name: "missing StorageClass",
			w:    world{claims: claims(claim("data-0").class("fast"))},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  "storageclass fast (of persistentvolumeclaim default/data-0) not found",
		},
		{
			name: "unbound claim of an Immediate class: the pod waits",
			w:    world{claims: claims(claim("data-0").class("gp2")), classes: classes(class("gp2").immediate())},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  "persistentvolumeclaim default/data-0 is not bound yet and storageclass gp2 binds immediately (volumeBindingMode Immediate), so the pod waits until its volume is provisioned",
		},
		{
			name: "a class without volumeBindingMode binds immediately",
			w:    world{claims: claims(claim("data-0").class("gp2")), classes: classes(class("gp2").noBindingMode())},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  "persistentvolumeclaim default/data-0 is not bound yet and storageclass gp2 binds immediately (volumeBindingMode Immediate), so the pod waits until its volume is provisioned",
		},
		{
			name: "PVC being deleted",
			w:    world{claims: claims(claim("data-0").class("gp3").deleting()), classes: classes(gp3())},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  "persistentvolumeclaim default/data-0 is being deleted",
		},
		{
			name: "PVC Lost",
			w:    world{claims: claims(claim("data-0").bound("pv-1").lost())},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  `persistentvolumeclaim default/data-0 is Lost: its persistentvolume "pv-1" no longer exists`,
		},
		{
			name: "claim without class gets the default class",
			w: world{claims: claims(claim("data-0")),
				classes: classes(class("plain"), class("zonal").zones("us-west-2b").isDefault())},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2b")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "several default classes: the newest wins",
			w: world{claims: claims(claim("data-0")),
				classes: classes(class("a-old").zones("z-old").isDefault().created(1), class("b-new").zones("z-new").isDefault().created(2))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("z-new")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "several default classes created together: the first by name wins",
			w: world{claims: claims(claim("data-0")),
				classes: classes(class("b").zones("z-b").isDefault().created(1), class("a").zones("z-a").isDefault().created(1))},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("z-a")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "claim without class and no default class",
			w:    world{claims: claims(claim("data-0")), classes: classes(gp3())},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  `persistentvolumeclaim default/data-0 is not bound yet, names no StorageClass and no StorageClass is marked default (storageclass.kubernetes.io/is-default-class: "true"), so it waits for a volume`,
		},
		{
			name: `claim with storageClassName "" is not given the default class`,
			w:    world{claims: claims(claim("data-0").class("")), classes: classes(class("gp3").isDefault())},
			pod:  pod("web-0").claim("data", "data-0"),
			err:  `persistentvolumeclaim default/data-0 is not bound yet and has no StorageClass (storageClassName ""), so it waits for an administrator to bind a volume`,
		},
		{
			name: "the beta storage-class annotation wins over spec.storageClassName",
			w: world{claims: claims(claim("data-0").class("gp3").annotation("volume.beta.kubernetes.io/storage-class", "gp3-a")),
				classes: classes(gp3(), gp3a())},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2a")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name:   "in-tree provisioner maps to its CSI driver",
			w:      world{claims: claims(claim("data-0").class("gp2")), classes: classes(class("gp2").provisioner("kubernetes.io/aws-ebs"))},
			pod:    pod("web-0").claim("data", "data-0"),
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "no-provisioner class: the nodes of matching unbound local volumes",
			w: world{claims: claims(claim("data-0").class("local")),
				classes: classes(class("local").provisioner("kubernetes.io/no-provisioner")),
				pvs: pvs(
					pv("l1").local("node-1").class("local"),
					pv("l2").local("node-2").class("local").phase(corev1.VolumeAvailable),
					pv("l3").local("node-3").class("local").phase(corev1.VolumeBound),
					pv("l4").local("node-4").class("local").capacity("1Gi"),
					pv("l5").local("node-5").class("other"),
				)},
			pod:    pod("web-0").claim("data", "data-0"),
			alts:   []string{"kubernetes.io/hostname In [node-1 node-2]"},
			claims: []volume.Claim{rwo("default/data-0", "")},
		},
		{
			name: "no-provisioner class without a matching volume",
			w: world{claims: claims(claim("data-0").class("local").request("100Gi")),
				classes: classes(class("local").provisioner("kubernetes.io/no-provisioner")),
				pvs:     pvs(pv("l1").local("node-1").class("local"))},
			pod: pod("web-0").claim("data", "data-0"),
			err: "persistentvolumeclaim default/data-0 is not bound yet and no available persistentvolume of storageclass local matches it (the class has no provisioner, so only an existing volume can be bound)",
		},
		{
			name: "access modes",
			w: world{claims: claims(claim("a").modes(corev1.ReadWriteOncePod), claim("b").modes(corev1.ReadWriteOnce, corev1.ReadOnlyMany), claim("c").modes(corev1.ReadWriteMany)),
				classes: classes(gp3().isDefault())},
			pod: pod("web-0").claim("a", "a").claim("b", "b").claim("c", "c"),
			claims: []volume.Claim{
				{Key: "default/a", Driver: ebs, ReadWriteOncePod: true},
				{Key: "default/b", Driver: ebs},
				{Key: "default/c", Driver: ebs},
			},
		},
		{
			name: "a claim used by a running pod is in use on its node",
			w: world{claims: claims(claim("data-0").class("gp3")), classes: classes(gp3()),
				bound: []*corev1.Pod{
					pod("old-done").claim("data", "data-0").node("node-0").phase(corev1.PodSucceeded).obj(),
					pod("old").claim("data", "data-0").node("node-9").obj(),
					pod("older").claim("data", "data-0").node("node-3").obj(),
				}},
			pod:    pod("web-0").claim("data", "data-0"),
			claims: []volume.Claim{{Key: "default/data-0", Driver: ebs, ReadWriteOnce: true, InUseOn: "node-3"}},
		},
		{
			name: "an empty namespace means default",
			w: world{claims: []*corev1.PersistentVolumeClaim{func() *corev1.PersistentVolumeClaim {
				c := claim("data-0").class("gp3-a").obj()
				c.Namespace = ""
				return c
			}()}, classes: classes(gp3a())},
			pod:    pod("web-0").namespace("").claim("data", "data-0"),
			alts:   []string{zoneIs("us-west-2a")},
			claims: []volume.Claim{rwo("default/data-0", ebs)},
		},
		{
			name: "claims are looked up in the pod's namespace",
			w:    world{claims: claims(claim("data-0").class("gp3")), classes: classes(gp3())},
			pod:  pod("web-0").namespace("prod").claim("data", "data-0"),
			err:  "persistentvolumeclaim prod/data-0 not found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.w.index().ForPod(tt.pod.obj())
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				var verr *volume.Error
				require.True(t, errors.As(err, &verr))
				ns := tt.pod.obj().Namespace
				if ns == "" {
					ns = "default"
				}
				require.Equal(t, ns+"/web-0", verr.Pod)
				require.NotEmpty(t, verr.Claims)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.alts, alternatives(got.Alternatives))
			require.Equal(t, tt.claims, got.Claims)
		})
	}
}

func in(key string, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
}

func TestForPodErrorNamesPodAndClaims(t *testing.T) {
	w := world{claims: claims(claim("data-0").bound("pv-a"), claim("logs-0").bound("pv-b")),
		pvs: pvs(pv("pv-a").csi(ebs).term(zoneKey, "us-west-2a"), pv("pv-b").csi(ebs).term(zoneKey, "us-west-2b"))}
	_, err := w.index().ForPod(pod("web-0").namespace("shop").claim("data", "data-0").claim("logs", "logs-0").obj())
	require.Error(t, err)
	// The claims are in the pod's namespace, shop, which has neither.
	require.Equal(t, &volume.Error{Pod: "shop/web-0", Claims: []string{"shop/data-0"}, Reason: "persistentvolumeclaim shop/data-0 not found"}, err)

	_, err = w.index().ForPod(pod("web-0").claim("data", "data-0").claim("logs", "logs-0").obj())
	require.Equal(t, &volume.Error{
		Pod:    "default/web-0",
		Claims: []string{"default/data-0", "default/logs-0"},
		Reason: "PVCs data-0 (us-west-2a) and logs-0 (us-west-2b) cannot be attached in one zone",
	}, err)
}

func TestForPodBoundsTheCrossProduct(t *testing.T) {
	// Each class allows two (disk, zone) combinations that cannot fold into one requirement;
	// seven claims make 128 combinations.
	var w world
	p := pod("web-0")
	for i := range 7 {
		name := fmt.Sprintf("c%d", i)
		key := fmt.Sprintf("disk%d", i)
		w.classes = append(w.classes, class(name).topology(key, "x", zoneKey, "z").topology(key, "y", zoneKey, "z").obj())
		w.claims = append(w.claims, claim(name).class(name).obj())
		p.claim(name, name)
	}
	_, err := w.index().ForPod(p.obj())
	require.EqualError(t, err, "the volumes c0, c1, c2, c3, c4, c5 and c6 allow more than 64 combinations of node requirements; nodeplan does not try them all")

	// Six claims make 64: allowed.
	p.obj().Spec.Volumes = p.obj().Spec.Volumes[:6]
	got, err := w.index().ForPod(p.obj())
	require.NoError(t, err)
	require.Len(t, got.Alternatives, 64)
}

func TestForPodAlternativesBelongToTheCaller(t *testing.T) {
	w := world{claims: claims(claim("data-0").class("gp3-a")), classes: classes(class("gp3-a").zones("us-west-2a"))}
	ix := w.index()
	p := pod("web-0").claim("data", "data-0").obj()
	first, err := ix.ForPod(p)
	require.NoError(t, err)
	first.Alternatives[0].Add(requirements.New(zoneKey, corev1.NodeSelectorOpIn, "us-west-2b"))
	second, err := ix.ForPod(p)
	require.NoError(t, err)
	require.Equal(t, []string{zoneIs("us-west-2a")}, alternatives(second.Alternatives))
}

func TestForPodNilPod(t *testing.T) {
	got, err := world{}.index().ForPod(nil)
	require.NoError(t, err)
	require.Equal(t, volume.PodVolumes{}, got)
}

func TestIndexSkipsNilObjects(t *testing.T) {
	ix := volume.NewIndex([]*corev1.PersistentVolumeClaim{nil}, []*corev1.PersistentVolume{nil}, []*storagev1.StorageClass{nil}, []*corev1.Pod{nil})
	_, err := ix.ForPod(pod("web-0").claim("data", "data-0").obj())
	require.EqualError(t, err, "persistentvolumeclaim default/data-0 not found")
	require.Empty(t, ix.ReadWriteOncePodConflicts([]*corev1.Pod{nil}))
}

// ForPod only reads the index, so the solver may ask about pods from several goroutines.
func TestForPodConcurrent(t *testing.T) {
	w := world{claims: claims(claim("data-0").class("gp3-a"), claim("logs-0").bound("pv-1")),
		classes: classes(class("gp3-a").zones("us-west-2a", "us-west-2b")),
		pvs:     pvs(pv("pv-1").csi(ebs).term(zoneKey, "us-west-2b"))}
	ix := w.index()
	p := pod("web-0").claim("data", "data-0").claim("logs", "logs-0").ephemeral("tmp", "gp3-a").obj()
	done := make(chan []string)
	for range 4 {
		go func() {
			var last []string
			for range 100 {
				got, err := ix.ForPod(p)
				if err != nil {
					last = []string{err.Error()}
					break
				}
				last = alternatives(got.Alternatives)
			}
			done <- last
		}()
	}
	for range 4 {
		require.Equal(t, []string{zoneIs("us-west-2b")}, <-done)
	}
}
