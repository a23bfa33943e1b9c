package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// explainYAML explains one pod of manifests given as text, planned on the us-west-2 catalog.
func explainYAML(t *testing.T, pod string, docs ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")), 0o644))
	_, text, err := ExplainPlan(Config{Paths: []string{path}, Region: "us-west-2"}, emptyOptions, pod)
	require.NoError(t, err)
	return text
}

// solverSteps returns the numbered steps of an explanation, without their numbers.
func solverSteps(text string) []string {
	_, after, _ := strings.Cut(text, "  Solver steps:\n")
	var steps []string
	for _, line := range strings.Split(strings.TrimRight(after, "\n"), "\n") {
		_, step, _ := strings.Cut(strings.TrimSpace(line), ". ")
		steps = append(steps, step)
	}
	return steps
}

// inflate is a Deployment of two one-cpu pods whose pod spec adds podSpec's lines.
func inflate(podSpec string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate}
spec:
  replicas: 2
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec:
` + podSpec + `
      containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]`
}

var pinnedT4g = inflate(`      nodeSelector: {node.kubernetes.io/instance-type: t4g.2xlarge}`)

// A round retried without progress fails the same way: the explanation says so once instead
// of repeating its steps, and a requirement the Provisioner's defaults added says it is one.
func TestExplainFoldsRepeatedRounds(t *testing.T) {
	text := explainYAML(t, "inflate-0", `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec: {}`, `apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {karpenter.sh/provisioner-name: default, karpenter.sh/initialized: "true", node.kubernetes.io/instance-type: m5.large,
    kubernetes.io/arch: amd64, topology.kubernetes.io/zone: us-west-2a, karpenter.sh/capacity-type: on-demand}
status:
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}`, pinnedT4g)
	steps := solverSteps(text)
	require.Len(t, steps, 3, text)
	require.Equal(t, "existing node n1: node n1 does not match the pod's node selector or affinity", steps[0])
	require.Contains(t, steps[1], "kubernetes.io/arch In [amd64] (v1alpha5 default: the Provisioner does not name kubernetes.io/arch) rules out")
	require.Equal(t, "tried again in a later round: the same steps, the same result", steps[2])

	// With both architectures allowed the pod gets its t4g; the NodePool line marks the
	// requirements the Provisioner did not write.
	text = explainYAML(t, "inflate-0", `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64, arm64]}]`, pinnedT4g)
	require.Contains(t, text, "NodePool:    default requires kubernetes.io/arch In [amd64 arm64], kubernetes.io/os In [linux] (v1alpha5 default), karpenter.sh/capacity-type In [on-demand] (v1alpha5 default)\n")
}

// A pod that may start its own affinity group only once a round placed nothing: the steps
// say what changed between the failures and the placement.
func TestExplainFollowsThePathThatPlaced(t *testing.T) {
	text := explainYAML(t, "inflate-0", `apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {karpenter.sh/nodepool: default, karpenter.sh/initialized: "true", node.kubernetes.io/instance-type: m5.xlarge,
    kubernetes.io/arch: amd64, kubernetes.io/hostname: n1, topology.kubernetes.io/zone: us-west-2a, karpenter.sh/capacity-type: on-demand}
status:
  allocatable: {cpu: 3920m, memory: 14Gi, pods: "58"}`, inflate(`      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: inflate}}}`))
	steps := solverSteps(text)
	require.Len(t, steps, 4, text)
	require.Contains(t, steps[0], "no allowed domain on n1")
	require.Contains(t, steps[1], "no allowed domain on a new node")
	require.Equal(t, "nothing could be placed in a whole round: a pod may now start the first domain of a group that requires affinity to its own pods", steps[2])
	require.Equal(t, "placed on existing node n1", steps[3])
}
