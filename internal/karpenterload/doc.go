// Package karpenterload builds the workloads of Karpenter's own scheduling benchmark
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go)
// as plain Kubernetes objects, so that the root module's benchmarks plan exactly what
// conformance/karpentercmp hands to Karpenter: makeDiversePods, makePreferencePods and the 400
// instance types of Karpenter's fake cloud provider. conformance/karpentercmp builds the same
// pods with Karpenter's own test.Pod and checks, field by field, that they are these.
//
// Every draw comes from a generator seeded with the given seed, in the order karpentercmp draws,
// so the same seed gives the same pods on both sides.
//
//	g := karpenterload.New(1)
//	in := scheduling.Input{
//		Pods:      g.Diverse(5000),
//		NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: karpenterload.FakeCatalog(400)}},
//	}
package karpenterload
