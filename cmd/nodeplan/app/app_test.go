package app

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

var emptyOptions = scheduling.Options{}

func parse(t *testing.T, yaml string) *manifest.Bundle {
	t.Helper()
	b, err := manifest.Parse([]byte(yaml), "test.yaml")
	require.NoError(t, err)
	return b
}

func node(labels string) string {
	return "apiVersion: v1\nkind: Node\nmetadata: {name: node-a, labels: {" + labels + "}}"
}

func TestInferRegion(t *testing.T) {
	tests := []struct {
		name, yaml, want, wantErr string
	}{
		{"nothing named", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: web, image: nginx}]}", "", ""},
		{"node label", node("topology.kubernetes.io/zone: eu-west-2b"), "eu-west-2", ""},
		{"deprecated node label", node("failure-domain.beta.kubernetes.io/zone: us-east-1c"), "us-east-1", ""},
		{"region label", node("topology.kubernetes.io/region: eu-west-1"), "eu-west-1", ""},
		{"not an AWS zone", node("topology.kubernetes.io/zone: test-zone-a"), "", ""},
		{"NodePool requirement", `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}]`, "us-east-1", ""},
		{"pod affinity term", `
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [eu-west-1c]}]}]
  containers: [{name: web, image: nginx}]`, "eu-west-1", ""},
		{"PV affinity with the EBS key", `
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: topology.ebs.csi.aws.com/zone, operator: In, values: [eu-west-2a]}]}]`, "eu-west-2", ""},
		{"PV zone label listing zones", `
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv, labels: {topology.kubernetes.io/zone: us-east-1a__us-east-1b}}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /x}}`, "us-east-1", ""},
		{"StorageClass topology", `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sc}
provisioner: ebs.csi.aws.com
allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [us-east-1d]}]}]`, "us-east-1", ""},
		{"two regions", `
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {topology.kubernetes.io/zone: eu-west-1a}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {topology.kubernetes.io/zone: us-west-2a}}`, "", "the input names zones of several regions: eu-west-1 (Node node-a), us-west-2 (Node node-b); choose one with --region"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InferRegion(parse(t, tt.yaml))
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

const cluster = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
---
apiVersion: v1
kind: Node
metadata:
  name: ip-1
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {karpenter.sh/nodepool: general, karpenter.sh/initialized: "true", node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-west-2a, karpenter.sh/capacity-type: spot}
status:
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}
---
apiVersion: v1
kind: Node
metadata:
  name: ip-2
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {karpenter.sh/nodepool: general}
spec:
  providerID: aws:///us-west-2c/i-2
  taints: [{key: karpenter.sh/disrupted, effect: NoSchedule}]
status:
  allocatable: {cpu: "4", memory: 15Gi, pods: "58"}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: general-abc
  creationTimestamp: "2025-12-31T23:59:00Z"
  labels: {karpenter.sh/nodepool: general, node.kubernetes.io/instance-type: c5.xlarge, topology.kubernetes.io/zone: us-west-2c, karpenter.sh/capacity-type: on-demand}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements: []
status:
  providerID: aws:///us-west-2c/i-2
  lastPodEventTime: "2026-01-02T05:00:00Z"
  conditions:
  - {type: Initialized, status: "True", reason: Initialized, message: "", lastTransitionTime: "2026-01-01T00:01:00Z"}
  - {type: Consolidatable, status: "False", reason: PodEvent, message: "", lastTransitionTime: "2026-01-02T05:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, creationTimestamp: "2026-01-01T10:00:00Z"}
spec:
  nodeName: ip-1
  containers: [{name: web, image: nginx}]
status:
  startTime: "2026-01-01T10:00:30Z"
`

func TestDisruptionInput(t *testing.T) {
	b := parse(t, cluster)
	cat, err := LoadCatalog("aws", "us-west-2")
	require.NoError(t, err)
	now := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
	in, _ := b.DisruptionInput(now, cat.InstanceTypes)
	require.Equal(t, now, in.Now)
	require.Len(t, in.NodePools, 1)
	require.Equal(t, cat.InstanceTypes, in.NodePools[0].InstanceTypes)
	require.Len(t, in.Nodes, 2)

	// From labels; price of the spot m5.large offering in us-west-2a; last pod event when web-1
	// started.
	n := in.Nodes[0]
	require.Equal(t, "ip-1", n.Node.Name)
	require.Equal(t, []string{"general", "m5.large", "us-west-2a", "spot"}, []string{n.NodePool, n.InstanceType, n.Zone, n.CapacityType})
	require.InDelta(t, 0.0399, n.Price, 0.0001)
	require.True(t, n.Initialized)
	require.Nil(t, n.Consolidatable)
	require.False(t, n.Disrupting)
	require.Equal(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), n.Created.UTC())
	require.Equal(t, time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC), n.LastPodEvent.UTC())

	// From the NodeClaim matched by provider ID: type, zone, capacity type, creation, the
	// Consolidatable condition, lastPodEventTime; disrupting by the karpenter.sh/disrupted taint.
	n = in.Nodes[1]
	require.Equal(t, "ip-2", n.Node.Name)
	require.Equal(t, []string{"general", "c5.xlarge", "us-west-2c", "on-demand"}, []string{n.NodePool, n.InstanceType, n.Zone, n.CapacityType})
	require.InDelta(t, 0.17, n.Price, 0.0001)
	require.True(t, n.Initialized)
	require.NotNil(t, n.Consolidatable)
	require.False(t, *n.Consolidatable)
	require.True(t, n.Disrupting)
	require.Equal(t, time.Date(2025, 12, 31, 23, 59, 0, 0, time.UTC), n.Created.UTC())
	require.Equal(t, time.Date(2026, 1, 2, 5, 0, 0, 0, time.UTC), n.LastPodEvent.UTC())
}

func TestConsolidateNeedsTime(t *testing.T) {
	_, err := Consolidate(Config{Paths: []string{"-"}, Stdin: strings.NewReader(cluster)}, time.Time{})
	require.Error(t, err)
}

func TestEncodeKeepsFieldOrder(t *testing.T) {
	res, err := Plan(Config{Paths: []string{"-"}, Stdin: strings.NewReader(cluster)}, emptyOptions)
	require.NoError(t, err)
	for _, format := range []string{"json", "yaml"} {
		data, err := Encode(NewPlanDocument(res.Plan), format)
		require.NoError(t, err)
		out := string(data)
		var last int
		for _, field := range []string{"apiVersion", "kind", "nodeClaims", "existingNodes", "unschedulable", "summary"} {
			i := strings.Index(out, field)
			require.Greater(t, i, last-1, "%s: %s out of order", format, field)
			last = i
		}
	}
	_, err = Encode(NewPlanDocument(res.Plan), "xml")
	require.Error(t, err)
}
