package aws_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
)

func int32p(v int32) *int32 { return &v }

func qp(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

// configured applies nc to one type of the us-west-2 catalog.
func configured(t *testing.T, nc *aws.NodeClass, name string) *instancetype.InstanceType {
	t.Helper()
	out := nc.InstanceTypes([]*instancetype.InstanceType{find(t, catalog(t, "us-west-2"), name)})
	require.Len(t, out, 1)
	return out[0]
}

func requireQuantity(t *testing.T, want string, got resource.Quantity, what string) {
	t.Helper()
	w := resource.MustParse(want)
	require.Zerof(t, w.Cmp(got), "%s: want %s, got %s", what, want, got.String())
}

// An m5.large on the default class: ENI-limited 29 pods; kube-reserved 70m cpu, 11×29+255 =
// 574Mi memory and 1Gi disk; eviction 100Mi memory and 10% of the 20Gi root volume.
func TestNodeClassDefaults(t *testing.T) {
	it := configured(t, &aws.NodeClass{}, "m5.large")
	requireQuantity(t, "29", it.Capacity[corev1.ResourcePods], "pods")
	requireQuantity(t, "20Gi", it.Capacity[corev1.ResourceEphemeralStorage], "ephemeral-storage")
	alloc := it.Allocatable()
	requireQuantity(t, "1930m", alloc[corev1.ResourceCPU], "cpu")
	requireQuantity(t, "6903Mi", alloc[corev1.ResourceMemory], "memory") // 7577 − 574 − 100
	requireQuantity(t, "17Gi", alloc[corev1.ResourceEphemeralStorage], "ephemeral-storage")
	// The catalog's own overhead agrees on cpu and memory.
	catalogAlloc := find(t, catalog(t, "us-west-2"), "m5.large").Allocatable()
	require.Zero(t, catalogAlloc.Cpu().Cmp(*alloc.Cpu()))
	require.Zero(t, catalogAlloc.Memory().Cmp(*alloc.Memory()))
}

// maxPods 110 raises pods; on Amazon Linux kube-reserved memory still counts the 29
// ENI-limited pods (the EKS bootstrap's rule, which Karpenter follows), on Bottlerocket the
// 110 pods kubelet runs.
func TestNodeClassMaxPods(t *testing.T) {
	k := aws.Kubelet{MaxPods: int32p(110)}
	al := configured(t, &aws.NodeClass{AMIFamily: aws.AMIFamilyAL2023, Kubelet: k}, "m5.large")
	requireQuantity(t, "110", al.Allocatable()[corev1.ResourcePods], "AL2023 pods")
	requireQuantity(t, "6903Mi", al.Allocatable()[corev1.ResourceMemory], "AL2023 memory")

	br := configured(t, &aws.NodeClass{AMIFamily: aws.AMIFamilyBottlerocket, Kubelet: k}, "m5.large")
	requireQuantity(t, "110", br.Allocatable()[corev1.ResourcePods], "Bottlerocket pods")
	requireQuantity(t, "1465Mi", br.Overhead.KubeReserved[corev1.ResourceMemory], "Bottlerocket kube-reserved")
	requireQuantity(t, "6012Mi", br.Allocatable()[corev1.ResourceMemory], "Bottlerocket memory") // 7577 − 1465 − 100
}

// podsPerCore caps pods at podsPerCore × vCPUs, below maxPods; Bottlerocket ignores it.
func TestNodeClassPodsPerCore(t *testing.T) {
	k := aws.Kubelet{MaxPods: int32p(110), PodsPerCore: int32p(10)}
	requireQuantity(t, "20", configured(t, &aws.NodeClass{Kubelet: k}, "m5.large").Capacity[corev1.ResourcePods], "AL2023")
	requireQuantity(t, "110", configured(t, &aws.NodeClass{AMIFamily: aws.AMIFamilyBottlerocket, Kubelet: k}, "m5.large").Capacity[corev1.ResourcePods], "Bottlerocket")
}

// kubeReserved and systemReserved replace what they name; evictionHard percentages are of
// capacity; evictionSoft does not change allocatable.
func TestNodeClassReservedAndEviction(t *testing.T) {
	nc := &aws.NodeClass{Kubelet: aws.Kubelet{
		KubeReserved:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")},
		SystemReserved: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("300Mi")},
		EvictionHard:   map[string]string{aws.SignalMemoryAvailable: "5%", aws.SignalNodeFSAvailable: "15%"},
		EvictionSoft:   map[string]string{aws.SignalMemoryAvailable: "50%"},
	}}
	it := configured(t, nc, "m5.large")
	requireQuantity(t, "200m", it.Overhead.KubeReserved[corev1.ResourceCPU], "kube-reserved cpu")
	requireQuantity(t, "574Mi", it.Overhead.KubeReserved[corev1.ResourceMemory], "kube-reserved memory")
	requireQuantity(t, "397253018", it.Overhead.EvictionThreshold[corev1.ResourceMemory], "eviction memory") // ⌈7577Mi × 5%⌉
	requireQuantity(t, "3221225472", it.Overhead.EvictionThreshold[corev1.ResourceEphemeralStorage], "eviction nodefs")
	alloc := it.Allocatable()
	requireQuantity(t, "1800m", alloc[corev1.ResourceCPU], "cpu")
	want := resource.MustParse("7577Mi")
	want.Sub(resource.MustParse("574Mi"))
	want.Sub(resource.MustParse("300Mi"))
	want.Sub(resource.MustParse("397253018"))
	requireQuantity(t, want.String(), alloc[corev1.ResourceMemory], "memory")
}

// The root volume's size is the node's ephemeral storage: the mapping marked rootVolume, else
// the AMI family's data device, else 20Gi (50Gi for Windows).
func TestNodeClassEphemeralStorage(t *testing.T) {
	for _, tc := range []struct {
		name string
		nc   aws.NodeClass
		want string
	}{
		{"default", aws.NodeClass{}, "20Gi"},
		{"rootVolume", aws.NodeClass{BlockDeviceMappings: []aws.BlockDeviceMapping{{DeviceName: "/dev/xvdb", VolumeSize: qp("50Gi")}, {DeviceName: "/dev/sdz", RootVolume: true, VolumeSize: qp("120Gi")}}}, "120Gi"},
		{"AL2023 xvda", aws.NodeClass{AMIFamily: aws.AMIFamilyAL2023, BlockDeviceMappings: []aws.BlockDeviceMapping{{DeviceName: "/dev/xvda", VolumeSize: qp("100Gi")}}}, "100Gi"},
		{"Bottlerocket xvdb", aws.NodeClass{AMIFamily: aws.AMIFamilyBottlerocket, BlockDeviceMappings: []aws.BlockDeviceMapping{{DeviceName: "/dev/xvda", VolumeSize: qp("4Gi")}, {DeviceName: "/dev/xvdb", VolumeSize: qp("80Gi")}}}, "80Gi"},
		{"other device", aws.NodeClass{AMIFamily: aws.AMIFamilyAL2, BlockDeviceMappings: []aws.BlockDeviceMapping{{DeviceName: "/dev/xvdf", VolumeSize: qp("500Gi")}}}, "20Gi"},
		{"Custom: last", aws.NodeClass{AMIFamily: aws.AMIFamilyCustom, BlockDeviceMappings: []aws.BlockDeviceMapping{{DeviceName: "/dev/xvda", VolumeSize: qp("10Gi")}, {DeviceName: "/dev/xvdf", VolumeSize: qp("60Gi")}}}, "60Gi"},
		{"Windows", aws.NodeClass{AMIFamily: aws.AMIFamilyWindows2022}, "50Gi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireQuantity(t, tc.want, configured(t, &tc.nc, "m5.large").Capacity[corev1.ResourceEphemeralStorage], "ephemeral-storage")
		})
	}
	// RAID0 uses the instance-store NVMe disks (m5d.large: 75 GB).
	raid := configured(t, &aws.NodeClass{InstanceStorePolicy: aws.InstanceStorePolicyRAID0}, "m5d.large")
	requireQuantity(t, "75G", raid.Capacity[corev1.ResourceEphemeralStorage], "RAID0")
}

// Offerings outside the class's zones are dropped, and types left without any with them.
func TestNodeClassZones(t *testing.T) {
	c := catalog(t, "us-west-2")
	nc := &aws.NodeClass{Zones: []string{"us-west-2a", "us-west-2b", "us-west-2c"}}
	types := nc.InstanceTypes(c.InstanceTypes)
	require.NotEmpty(t, types)
	for _, it := range types {
		for _, o := range it.Offerings {
			require.NotEqual(t, "us-west-2d", o.Zone, it.Name)
		}
	}
	only := nc.InstanceTypes([]*instancetype.InstanceType{{Name: "x", Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourcePods: resource.MustParse("4")},
		Offerings: []instancetype.Offering{{Zone: "us-west-2d", CapacityType: "on-demand", Price: 1, Available: true}}}})
	require.Empty(t, only)
	// The input is left alone.
	require.Len(t, find(t, c, "m5.large").Offerings, 8)
}

func TestZoneName(t *testing.T) {
	for id, want := range map[string]string{
		"usw2-az1": "us-west-2a",
		"usw2-az4": "us-west-2d",
		"use1-az6": "us-east-1f",
		"euc1-az2": "eu-central-1b",
		"euw2-az3": "eu-west-2c",
	} {
		got, ok := aws.ZoneName(id)
		require.True(t, ok, id)
		require.Equal(t, want, got, id)
	}
	for _, bad := range []string{"usw2-lax1-az1", "usw2-az0", "apse1-az1", "us-west-2a", ""} {
		_, ok := aws.ZoneName(bad)
		require.False(t, ok, bad)
	}
}
