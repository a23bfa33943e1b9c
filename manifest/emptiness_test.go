package manifest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node of a v1alpha5 Provisioner carries its karpenter.sh/emptiness-timestamp into the
// disruption input; an unreadable one is a warning and counts as not marked.
func TestV1alpha5EmptinessTimestampRead(t *testing.T) {
	b := parse(t, "legacy.yaml", `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec: {ttlSecondsAfterEmpty: 30}
---
apiVersion: v1
kind: Node
metadata:
  name: marked
  annotations: {karpenter.sh/emptiness-timestamp: "2026-01-12T10:00:00Z"}
  labels: {karpenter.sh/provisioner-name: default, karpenter.sh/initialized: "true", node.kubernetes.io/instance-type: m5.large}
---
apiVersion: v1
kind: Node
metadata:
  name: garbled
  annotations: {karpenter.sh/emptiness-timestamp: "yesterday"}
  labels: {karpenter.sh/provisioner-name: default, karpenter.sh/initialized: "true", node.kubernetes.io/instance-type: m5.large}
---
apiVersion: v1
kind: Node
metadata:
  name: v1-node
  labels: {karpenter.sh/nodepool: default, karpenter.sh/initialized: "true", node.kubernetes.io/instance-type: m5.large}
`)
	in, warnings := b.DisruptionInput(time.Date(2026, 1, 12, 11, 0, 0, 0, time.UTC), nil)
	require.Len(t, in.Nodes, 3)
	byName := map[string]int{}
	for i, n := range in.Nodes {
		byName[n.Node.Name] = i
	}
	marked, garbled, v1 := in.Nodes[byName["marked"]], in.Nodes[byName["garbled"]], in.Nodes[byName["v1-node"]]
	assert.True(t, marked.V1alpha5)
	assert.Equal(t, time.Date(2026, 1, 12, 10, 0, 0, 0, time.UTC), marked.EmptinessTimestamp.UTC())
	assert.True(t, garbled.V1alpha5)
	assert.True(t, garbled.EmptinessTimestamp.IsZero())
	assert.Contains(t, warnings, `node garbled: annotation karpenter.sh/emptiness-timestamp "yesterday" is not an RFC 3339 time; the node is taken as not marked empty yet`)
	assert.False(t, v1.V1alpha5)
}
