package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// manyNodes is a plan input of a few hundred new nodes, with labels and names that JSON
// escapes.
func manyNodes() string {
	var b strings.Builder
	b.WriteString(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: odd}
spec:
  template:
    metadata:
      labels: {team: "a-b_c.d", example.com/html: "x"}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5, r6g, m7g]}
`)
	for i := range 12 {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: "web-%d", namespace: "ns-%d"}
spec:
  replicas: %d
  selector: {matchLabels: {app: web-%d}}
  template:
    metadata: {labels: {app: web-%d}}
    spec:
      containers: [{name: app, image: pause, resources: {requests: {cpu: %dm, memory: %dMi}}}]
      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web-%d}}}]
`, i, i%3, 60+i*20, i, i, 200+i*150, 256+i*300, i)
	}
	return b.String()
}

// WriteJSON gives json.MarshalIndent's bytes, whatever the number of CPUs.
func TestWriteJSONIsMarshalIndent(t *testing.T) {
	res, err := Plan(Config{Paths: []string{"-"}, Stdin: strings.NewReader(manyNodes())}, scheduling.Options{})
	require.NoError(t, err)
	require.Greater(t, len(res.Plan.NodeClaims), 256, "enough new nodes for several windows of batches")
	// Some nodes encoding/json writes itself: the first, one in the first batch and one later.
	timed := NewPlanDocument(res.Plan)
	timed.NodeClaims = slices.Clone(timed.NodeClaims)
	for _, i := range []int{0, 5, 200} {
		timed.NodeClaims[i].StartupTaints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: time.Unix(1e9, 0).UTC()}}}
	}
	for _, doc := range []PlanDocument{NewPlanDocument(res.Plan), timed} {
		want, err := json.MarshalIndent(doc, "", "  ")
		require.NoError(t, err)
		want = append(want, '\n')
		for _, procs := range []int{1, 2, 3, 8} {
			prev := runtime.GOMAXPROCS(procs)
			var buf bytes.Buffer
			err := WriteJSON(&buf, doc)
			runtime.GOMAXPROCS(prev)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, buf.Bytes()), "GOMAXPROCS=%d: WriteJSON differs from json.MarshalIndent", procs)
		}
	}
	for _, v := range []any{NewPlanDocument(scheduling.Plan{}), map[string]any{"a": []any{}, "b": map[string]any{}, "c": "q\"\\<>&\u2028", "d": []int{1, 2}}} {
		want, err := json.MarshalIndent(v, "", "  ")
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, WriteJSON(&buf, v))
		require.Equal(t, string(want)+"\n", buf.String())
	}
}

// BenchmarkWriteJSON is the "-o json" rendering of a plan of a few hundred new nodes, the
// phase after the solve.
func BenchmarkWriteJSON(b *testing.B) {
	res, err := Plan(Config{Paths: []string{"-"}, Stdin: strings.NewReader(manyNodes())}, scheduling.Options{})
	require.NoError(b, err)
	doc := NewPlanDocument(res.Plan)
	var size int
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteJSON(&buf, doc); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.SetBytes(int64(size))
}
