package scheduling_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

const ebs = "ebs.csi.aws.com"

func ebsPools(attachLimit int) []*scheduling.NodePool {
	mk := func(name, cpu, mem string, pods int64, price float64) *tb.TypeBuilder {
		return zonePricedType(name, cpu, mem, pods, price).AttachLimit(ebs, attachLimit)
	}
	return []*scheduling.NodePool{tb.NodePool("default", mk("m5.large", "2", "8Gi", 29, 0.096).Obj(), mk("m5.2xlarge", "8", "32Gi", 58, 0.384).Obj()).Obj()}
}

func gp3(zone string) *storagev1.StorageClass {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "gp3"}, Provisioner: ebs, VolumeBindingMode: &wffc}
	if zone != "" {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "topology.ebs.csi.aws.com/zone", Values: []string{zone}}}}}
	}
	return sc
}

func claim(name, class, volume string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &class,
			VolumeName:       volume,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
	}
}

func ebsVolume(name, zone, claimName string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			StorageClassName:       "gp3",
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			ClaimRef:               &corev1.ObjectReference{Namespace: "default", Name: claimName},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: ebs, VolumeHandle: "vol-" + name}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{tb.In("topology.ebs.csi.aws.com/zone", zone)}}}}},
		},
	}
}

func zonesOf(plan scheduling.Plan) []string {
	var out []string
	for _, nc := range plan.NodeClaims {
		out = append(out, nc.Zone)
	}
	return out
}

// TestVolumeEBSStory follows a stateful app through its life: first placement in the class's
// zone, a replacement pod once the claim is bound there, and a scale up from zero.
func TestVolumeEBSStory(t *testing.T) {
	pools := ebsPools(26)
	pods := tb.Pod("db").CPU("500m").PVC("data", "data").Replicas(3)

	// First placement: the claim is unbound; the class allows only us-west-2b (not the
	// cheapest zone), and ReadWriteOnce keeps all three pods on one node.
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: pools,
		PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{claim("data", "gp3", "")},
		StorageClasses:         []*storagev1.StorageClass{gp3("us-west-2b")}})
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	require.Equal(t, []string{"us-west-2b"}, zonesOf(plan))
	require.Len(t, plan.NodeClaims[0].Pods, 3)

	// The claim is now bound to a volume in us-west-2b; a replacement pod (and, after a scale
	// to zero, a new replica set) lands there again, whatever the class says.
	bound := scheduling.Input{Pods: tb.Pod("db-new").CPU("500m").PVC("data", "data").Replicas(2), NodePools: pools,
		PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{claim("data", "gp3", "pv-data")},
		PersistentVolumes:      []*corev1.PersistentVolume{ebsVolume("pv-data", "us-west-2b", "data")},
		StorageClasses:         []*storagev1.StorageClass{gp3("")}}
	plan, err = scheduling.Solve(bound)
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	require.Equal(t, []string{"us-west-2b"}, zonesOf(plan))
}

func TestVolumeRules(t *testing.T) {
	tests := []struct {
		name  string
		in    scheduling.Input
		check func(t *testing.T, plan scheduling.Plan)
	}{
		{
			name: "20 StatefulSet pods with per-pod claims and a zone affinity all land in that zone",
			in: func() scheduling.Input {
				var pods []*corev1.Pod
				var claims []*corev1.PersistentVolumeClaim
				for i := 0; i < 20; i++ {
					name := fmt.Sprintf("data-web-%d", i)
					pods = append(pods, tb.Pod(fmt.Sprintf("web-%d", i)).CPU("500m").PVC("data", name).
						RequiredTerm(tb.In("topology.kubernetes.io/zone", "us-west-2c")).Obj())
					claims = append(claims, claim(name, "gp3", ""))
				}
				return scheduling.Input{Pods: pods, PersistentVolumeClaims: claims, StorageClasses: []*storagev1.StorageClass{gp3("")}}
			}(),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Empty(t, plan.Unschedulable)
				for _, z := range zonesOf(plan) {
					require.Equal(t, "us-west-2c", z)
				}
			},
		},
		{
			name: "attach limits force a second node",
			in: func() scheduling.Input {
				var pods []*corev1.Pod
				var claims []*corev1.PersistentVolumeClaim
				for i := 0; i < 3; i++ {
					name := fmt.Sprintf("data-%d", i)
					pods = append(pods, tb.Pod(fmt.Sprintf("app-%d", i)).CPU("100m").PVC("data", name).Obj())
					claims = append(claims, claim(name, "gp3", ""))
				}
				return scheduling.Input{Pods: pods, NodePools: ebsPools(2), PersistentVolumeClaims: claims, StorageClasses: []*storagev1.StorageClass{gp3("")}}
			}(),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Empty(t, plan.Unschedulable)
				require.Len(t, plan.NodeClaims, 2)
			},
		},
		{
			name: "claims bound in different zones are named in the reason",
			in: scheduling.Input{
				Pods:                   []*corev1.Pod{tb.Pod("both").CPU("100m").PVC("a", "data-0").PVC("b", "logs-0").Obj()},
				PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{claim("data-0", "gp3", "pv-a"), claim("logs-0", "gp3", "pv-b")},
				PersistentVolumes:      []*corev1.PersistentVolume{ebsVolume("pv-a", "us-west-2a", "data-0"), ebsVolume("pv-b", "us-west-2b", "logs-0")},
				StorageClasses:         []*storagev1.StorageClass{gp3("")},
			},
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Len(t, plan.Unschedulable, 1)
				require.Equal(t, scheduling.ConstraintVolume, plan.Unschedulable[0].Constraint)
				require.Contains(t, plan.Unschedulable[0].Reason, "data-0 (us-west-2a)")
				require.Contains(t, plan.Unschedulable[0].Reason, "logs-0 (us-west-2b)")
			},
		},
		{
			name: "a missing claim makes only its pod unschedulable",
			in: scheduling.Input{
				Pods: []*corev1.Pod{tb.Pod("lost").CPU("100m").PVC("a", "nothere").Obj(), tb.Pod("fine").CPU("100m").Obj()},
			},
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Len(t, plan.Unschedulable, 1)
				require.Equal(t, "default/lost", plan.Unschedulable[0].Pod)
				require.Equal(t, scheduling.ConstraintVolume, plan.Unschedulable[0].Constraint)
				require.Equal(t, 1, plan.Summary.Placed)
			},
		},
		{
			name: "a ReadWriteOnce claim in use on an existing node pins new users there",
			in: scheduling.Input{
				Pods: []*corev1.Pod{tb.Pod("second").CPU("100m").PVC("a", "shared").Obj()},
				ExistingNodes: []*scheduling.ExistingNode{
					tb.Node("busy", "4", "16Gi", 20).Zone("us-west-2a").Pods(tb.Pod("first").CPU("100m").PVC("a", "shared").Obj()).Obj(),
					tb.Node("idle", "4", "16Gi", 20).Zone("us-west-2a").Obj(),
				},
				PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{claim("shared", "gp3", "pv-s")},
				PersistentVolumes:      []*corev1.PersistentVolume{ebsVolume("pv-s", "us-west-2a", "shared")},
				StorageClasses:         []*storagev1.StorageClass{gp3("")},
			},
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Equal(t, []scheduling.ExistingPlacement{{Name: "busy", Pods: []string{"default/second"}}}, plan.ExistingNodes)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in.NodePools == nil {
				tt.in.NodePools = ebsPools(26)
			}
			plan, err := scheduling.Solve(tt.in)
			require.NoError(t, err)
			tt.check(t, plan)
		})
	}
}
