package requirements

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Realistic sets: what a NodePool asks for, what one instance type offers, what a pod asks
// for. The solver checks pods against NodePools and NodePools against instance types many
// times per pod, so these are the hot paths.

func benchNodePool() Requirements {
	return reqs(
		nsr(LabelArch, opIn, ArchAMD64, ArchARM64),
		nsr(LabelOS, opIn, OSLinux),
		nsr(LabelCapacityType, opIn, CapacityTypeSpot, CapacityTypeOnDemand),
		nsr("karpenter.k8s.aws/instance-category", opIn, "c", "m", "r"),
		nsr("karpenter.k8s.aws/instance-generation", opGt, "5"),
		nsr("team-name", opIn, "search"),
	)
}

func benchInstanceType() Requirements {
	rs := FromLabels(map[string]string{
		LabelInstanceType:                              "m7g.xlarge",
		LabelArch:                                      ArchARM64,
		LabelOS:                                        OSLinux,
		LabelTopologyRegion:                            "us-west-2",
		"karpenter.k8s.aws/instance-family":            "m7g",
		"karpenter.k8s.aws/instance-category":          "m",
		"karpenter.k8s.aws/instance-generation":        "7",
		"karpenter.k8s.aws/instance-size":              "xlarge",
		"karpenter.k8s.aws/instance-cpu":               "4",
		"karpenter.k8s.aws/instance-memory":            "16384",
		"karpenter.k8s.aws/instance-hypervisor":        "nitro",
		"karpenter.k8s.aws/instance-network-bandwidth": "1876",
	})
	rs.Add(
		New(LabelTopologyZone, opIn, "us-west-2a", "us-west-2b", "us-west-2c"),
		New(LabelCapacityType, opIn, CapacityTypeOnDemand, CapacityTypeSpot),
	)
	return rs
}

func benchPod() Requirements {
	return reqs(
		nsr(LabelTopologyZone, opIn, "us-west-2a", "us-west-2b"),
		nsr(LabelArch, opIn, ArchARM64),
		nsr("team-name", opIn, "search"),
	)
}

func TestBenchmarkSetsAreCompatible(t *testing.T) {
	nodePool, instanceType, pod := benchNodePool(), benchInstanceType(), benchPod()
	require.Len(t, nodePool, 6)
	require.Len(t, instanceType, 14)
	require.NoError(t, nodePool.Intersects(instanceType))
	require.NoError(t, nodePool.Compatible(pod, nil))
	require.NoError(t, instanceType.Intersects(pod))
}

// TestHotPathsDoNotAllocate holds the allocation budget of the checks the solver runs per
// pod, NodePool and instance type: zero on success.
func TestHotPathsDoNotAllocate(t *testing.T) {
	nodePool, instanceType, pod := benchNodePool(), benchInstanceType(), benchPod()
	bounded := k(opGt, "3").Intersection(k(opLt, "100")).Intersection(k(opNotIn, "7", "x"))
	mixed, notIn := k(opIn, "x", "2", "8"), k(opNotIn, "5", "six")
	labels := map[string]string{LabelTopologyZone: "us-west-2a", LabelArch: ArchARM64, "team-name": "search"}
	flat := pod.Flat()
	checks := map[string]func(){
		"Requirements.Conflict":                func() { _ = nodePool.Conflict(instanceType) },
		"Requirements.Intersects":              func() { _ = nodePool.Intersects(instanceType) },
		"Requirements.IsCompatible":            func() { _ = nodePool.IsCompatible(pod, nil) },
		"Requirements.Compatible":              func() { _ = nodePool.Compatible(pod, nil) },
		"Requirements.Matches":                 func() { _ = pod.Matches(labels) },
		"Flat.Matches":                         func() { _ = flat.Matches(labels) },
		"Requirement.Intersects":               func() { _ = nodePool[LabelArch].Intersects(instanceType[LabelArch]) },
		"Requirement.Intersects/In-bounded":    func() { _ = mixed.Intersects(bounded) },
		"Requirement.Intersects/bounded-NotIn": func() { _ = bounded.Intersects(notIn) },
		"Requirement.Has":                      func() { _ = bounded.Has("not a number") },
	}
	for name, check := range checks {
		t.Run(name, func(t *testing.T) {
			require.Zero(t, testing.AllocsPerRun(100, check))
		})
	}
}

func BenchmarkRequirementsIntersects(b *testing.B) {
	nodePool, instanceType, pod := benchNodePool(), benchInstanceType(), benchPod()
	b.Run("nodepool-instancetype", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := nodePool.Intersects(instanceType); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("instancetype-pod", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := instanceType.Intersects(pod); err != nil {
				b.Fatal(err)
			}
		}
	})
	conflicting := reqs(nsr(LabelArch, opIn, "s390x"))
	b.Run("conflict-error", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := instanceType.Intersects(conflicting); err == nil {
				b.Fatal("want a conflict")
			}
		}
	})
}

func BenchmarkRequirementsConflict(b *testing.B) {
	nodePool, instanceType := benchNodePool(), benchInstanceType()
	b.ReportAllocs()
	for b.Loop() {
		if key := nodePool.Conflict(instanceType); key != "" {
			b.Fatal(key)
		}
	}
}

func BenchmarkRequirementsIsCompatible(b *testing.B) {
	nodePool, pod := benchNodePool(), benchPod()
	b.ReportAllocs()
	for b.Loop() {
		if !nodePool.IsCompatible(pod, nil) {
			b.Fatal("want compatible")
		}
	}
}

func BenchmarkRequirementsCompatible(b *testing.B) {
	nodePool, pod := benchNodePool(), benchPod()
	b.ReportAllocs()
	for b.Loop() {
		if err := nodePool.Compatible(pod, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRequirementsAdd narrows a copy of a NodePool's set by a pod's, as the solver
// does when it opens a node for the pod.
func BenchmarkRequirementsAdd(b *testing.B) {
	nodePool, pod := benchNodePool(), benchPod()
	b.ReportAllocs()
	for b.Loop() {
		rs := nodePool.Copy()
		rs.AddAll(pod)
	}
}

func BenchmarkRequirementIntersects(b *testing.B) {
	zones := New(LabelTopologyZone, opIn, "us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d")
	wanted := New(LabelTopologyZone, opIn, "us-west-2c")
	b.ReportAllocs()
	for b.Loop() {
		if !zones.Intersects(wanted) {
			b.Fatal("want overlap")
		}
	}
}

func BenchmarkRequirementIntersection(b *testing.B) {
	zones := New(LabelTopologyZone, opIn, "us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d")
	wanted := New(LabelTopologyZone, opNotIn, "us-west-2c")
	b.ReportAllocs()
	for b.Loop() {
		_ = zones.Intersection(wanted)
	}
}

// BenchmarkMatches matches a pod's requirements against a node's labels, as the solver does
// for every existing node it tries: as the set (a map) and as its Flat list.
func BenchmarkMatches(b *testing.B) {
	pod := benchPod()
	labels := map[string]string{LabelTopologyZone: "us-west-2a", LabelArch: ArchARM64, "team-name": "search"}
	flat := pod.Flat()
	b.Run("Requirements", func(b *testing.B) {
		for b.Loop() {
			_ = pod.Matches(labels)
		}
	})
	b.Run("Flat", func(b *testing.B) {
		for b.Loop() {
			_ = flat.Matches(labels)
		}
	})
}
