// Package suite holds the conformance tests: plans of the examples, of Karpenter's diverse
// workload and of randomized clusters, each proved valid by package check with
// kube-scheduler's own plugins. It has no code of its own; run it with go test.
package suite
