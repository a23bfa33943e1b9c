package manifest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nodeplan/nodeplan/manifest"
)

// snapshot returns a kubectl-style List of n bound pods over n/20 nodes, plus n/10
// Deployments of 10 replicas each with no pods yet.
func snapshot(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range n / 20 {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Node\n  metadata: {name: node-%d, labels: {karpenter.sh/nodepool: default}}\n  status: {allocatable: {cpu: \"16\", memory: 64Gi, pods: \"110\"}}\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata:
    name: pod-%d
    namespace: default
    labels: {app: app-%d}
  spec:
    nodeName: node-%d
    containers:
    - name: app
      image: registry.k8s.io/pause
      resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {memory: 256Mi}}
  status: {phase: Running}
`, i, i%50, i%(n/20))
	}
	for i := range n / 10 {
		fmt.Fprintf(&b, `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: deploy-%d, namespace: default}
  spec:
    replicas: 10
    selector: {matchLabels: {app: deploy-%d}}
    template:
      metadata: {labels: {app: deploy-%d}}
      spec: {containers: [{name: app, image: pause, resources: {requests: {cpu: 250m}}}]}
`, i, i, i)
	}
	return []byte(b.String())
}

func BenchmarkParseSnapshot(b *testing.B) {
	data := snapshot(2000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		bundle, err := manifest.Parse(data, "snapshot.yaml")
		if err != nil {
			b.Fatal(err)
		}
		if len(bundle.Pods) != 2000 || len(bundle.BoundPods) != 2000 {
			b.Fatalf("pods %d, bound %d", len(bundle.Pods), len(bundle.BoundPods))
		}
	}
	b.ReportMetric(float64(b.N*4000)/b.Elapsed().Seconds(), "pods/s")
}
