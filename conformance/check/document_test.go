package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/conformance/check"
)

// Another tool's plan in nodeplan's shape: extra fields are ignored, a missing summary is said.
func TestReadDocumentOfAnotherTool(t *testing.T) {
	doc, err := check.ReadDocument([]byte(`
apiVersion: nodeplan/v1
kind: Plan
generator: karpenter v1.14.1
nodeClaims:
- name: karpenter-abc12
  nodePool: default
  instanceType: fake-it-3
  zone: test-zone-1
  capacityType: spot
  price: 0.48
  capacity: {cpu: "4", memory: 8Gi, pods: "40"}
  pods: [default/web-0, default/web-1]
`))
	require.NoError(t, err)
	require.Equal(t, check.KindPlan, doc.Kind)
	require.False(t, doc.HasSummary)
	require.Len(t, doc.Plan.NodeClaims, 1)
	require.Equal(t, []string{"default/web-0", "default/web-1"}, doc.Plan.NodeClaims[0].Pods)
	require.Equal(t, "4", doc.Plan.NodeClaims[0].Capacity.Cpu().String())

	doc, err = check.ReadDocument([]byte(`{"apiVersion": "nodeplan/v1", "kind": "Decisions", "commands": [{"method": "Emptiness", "candidates": [{"node": "n1"}]}]}`))
	require.NoError(t, err)
	require.Equal(t, "n1", doc.Decisions.Commands[0].Candidates[0].Node)

	for doc, want := range map[string]string{
		"apiVersion: v1\nkind: Plan\n":                         `apiVersion is "v1"`,
		"apiVersion: nodeplan/v1\nkind: Replay":                `kind is "Replay"`,
		"apiVersion: nodeplan/v1\nkind: Plan\nnodeClaims: 3\n": "kind Plan",
	} {
		_, err := check.ReadDocument([]byte(doc))
		require.ErrorContains(t, err, want)
	}
}
