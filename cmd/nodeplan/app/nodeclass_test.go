package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/scheduling"
)

// planYAML plans manifests given as text on the embedded us-west-2 catalog.
func planYAML(t *testing.T, docs ...string) *Planned {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")), 0o644))
	res, err := Plan(Config{Paths: []string{path}, Region: "us-west-2"}, emptyOptions)
	require.NoError(t, err)
	return res
}

const m5NodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}`

// ec2NodeClass is the class "default" with subnets in us-west-2a/b/c (one named only by its
// zone ID) and extra spec lines.
func ec2NodeClass(spec ...string) string {
	return `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole-demo
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
` + strings.Join(spec, "\n") + `
status:
  subnets:
  - {id: subnet-0a, zone: us-west-2a, zoneID: usw2-az1}
  - {id: subnet-0b, zone: us-west-2b, zoneID: usw2-az2}
  - {id: subnet-0c, zoneID: usw2-az3}`
}

// Four replicas that must each have a node of their own and would rather spread over zones.
const spreadWeb = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}]`

func zonesOf(p scheduling.Plan) map[string]int {
	zones := map[string]int{}
	for _, nc := range p.NodeClaims {
		zones[nc.Zone]++
	}
	return zones
}

// The subnets' zones are the only zones: a ScheduleAnyway spread that would use us-west-2d
// without the class keeps to us-west-2a/b/c with it.
func TestNodeClassZones(t *testing.T) {
	without := planYAML(t, m5NodePool, spreadWeb)
	require.Len(t, without.Plan.NodeClaims, 4)
	require.Equal(t, 1, zonesOf(without.Plan)["us-west-2d"], "without subnets, the spread uses all four zones")

	with := planYAML(t, m5NodePool, ec2NodeClass(), spreadWeb)
	require.Empty(t, with.Bundle.Warnings)
	require.Len(t, with.Plan.NodeClaims, 4)
	zones := zonesOf(with.Plan)
	require.Zero(t, zones["us-west-2d"], "no subnet in us-west-2d")
	require.Equal(t, 4, zones["us-west-2a"]+zones["us-west-2b"]+zones["us-west-2c"])
	require.Equal(t, map[string][]string{"topology.kubernetes.io/zone": {"us-west-2a", "us-west-2b", "us-west-2c"}}, with.Plan.TopologyDomains)
}

// tinyPods is a Deployment of n pods small enough that pods per node is the limit.
func tinyPods(n int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: tiny}
spec:
  replicas: %d
  selector: {matchLabels: {app: tiny}}
  template:
    metadata: {labels: {app: tiny}}
    spec:
      containers: [{name: tiny, image: pause, resources: {requests: {cpu: 10m, memory: 16Mi}}}]`, n)
}

func quantity(t *testing.T, l corev1.ResourceList, name corev1.ResourceName) string {
	t.Helper()
	q, ok := l[name]
	require.True(t, ok, "no %s", name)
	return q.String()
}

// kubelet maxPods 110 on the class: an m5.large takes 110 pods instead of its ENI-limited 29,
// with the same kube-reserved memory (AL2023 counts the ENI-limited pods), and the root volume
// of blockDeviceMappings is the node's ephemeral storage.
func TestNodeClassKubeletAndVolume(t *testing.T) {
	def := planYAML(t, m5NodePool, tinyPods(100))
	require.Len(t, def.Plan.NodeClaims, 4, "29 pods per m5.large")
	require.Equal(t, "29", quantity(t, def.Plan.NodeClaims[0].Allocatable, corev1.ResourcePods))

	res := planYAML(t, m5NodePool, tinyPods(100), ec2NodeClass(`  kubelet: {maxPods: 110}
  blockDeviceMappings:
  - {deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi, volumeType: gp3}}`))
	require.Empty(t, res.Bundle.Warnings)
	require.Len(t, res.Plan.NodeClaims, 1, "110 pods per m5.large")
	nc := res.Plan.NodeClaims[0]
	require.Len(t, nc.Pods, 100)
	require.Equal(t, "110", quantity(t, nc.Capacity, corev1.ResourcePods))
	require.Equal(t, "6903Mi", quantity(t, nc.Allocatable, corev1.ResourceMemory))
	require.Equal(t, "100Gi", quantity(t, nc.Capacity, corev1.ResourceEphemeralStorage))
	// 100Gi − 1Gi kube-reserved − 10% eviction threshold.
	want := resource.MustParse("89Gi")
	got := nc.Allocatable[corev1.ResourceEphemeralStorage]
	require.Zero(t, want.Cmp(got), "ephemeral-storage allocatable %s", got.String())
}

// v1beta1 NodePools and v1alpha5 Provisioners carry kubelet settings themselves.
func TestKubeletOnOlderAPIs(t *testing.T) {
	beta := planYAML(t, `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: beta}
spec:
  template:
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}
      kubelet: {maxPods: 110}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}`, tinyPods(100))
	require.Len(t, beta.Plan.NodeClaims, 1)
	require.Equal(t, "110", quantity(t, beta.Plan.NodeClaims[0].Allocatable, corev1.ResourcePods))

	alpha := planYAML(t, `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: alpha}
spec:
  providerRef: {name: default}
  kubeletConfiguration: {maxPods: 110}
  requirements:
  - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}`, tinyPods(100))
	require.Len(t, alpha.Plan.NodeClaims, 1)
	require.Equal(t, "110", quantity(t, alpha.Plan.NodeClaims[0].Allocatable, corev1.ResourcePods))
}

// A bare v1alpha5 Provisioner launches what every version's webhook allowed: on-demand amd64
// Linux nodes — not the cheaper t4g spot nodes an unconstrained v1 NodePool would get. The
// category and generation defaults of v0.19–v0.27 are not implied, so the cheapest amd64 type
// may be a t3a.
func TestProvisionerDefaultsInPlan(t *testing.T) {
	res := planYAML(t, `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  providerRef: {name: default}`, tinyPods(20), spreadWeb)
	require.NotEmpty(t, res.Plan.NodeClaims)
	categories := map[string]bool{}
	for _, nc := range res.Plan.NodeClaims {
		require.Equal(t, "on-demand", nc.CapacityType, nc.Name)
		require.Equal(t, "amd64", nc.Labels["kubernetes.io/arch"], nc.Name)
		require.Equal(t, "linux", nc.Labels["kubernetes.io/os"], nc.Name)
		categories[nc.Labels["karpenter.k8s.aws/instance-category"]] = true
	}
	require.True(t, categories["t"], "%v", categories)
}

// DaemonSet pods standing in for their absent DaemonSets take room on new nodes: an m5.large
// holds 29 pods, so with aws-node and kube-proxy beside them 27 workload pods per node.
func TestDaemonSetPodsTakeRoom(t *testing.T) {
	daemonPod := func(ds, pod string) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: kube-system
  labels: {k8s-app: %s, controller-revision-hash: 6b7c}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: %s, uid: u-%s, controller: true}]
spec:
  nodeName: ip-10-0-1-7.us-west-2.compute.internal
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [ip-10-0-1-7.us-west-2.compute.internal]}]}]
  tolerations: [{operator: Exists}]
  containers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
status: {phase: Running}`, pod, ds, ds, ds)
	}
	without := planYAML(t, m5NodePool, tinyPods(58))
	require.Len(t, without.Plan.NodeClaims, 2)

	with := planYAML(t, m5NodePool, tinyPods(58), daemonPod("aws-node", "aws-node-x1"), daemonPod("kube-proxy", "kube-proxy-y2"))
	require.Len(t, with.Bundle.DaemonSets, 2)
	require.Contains(t, with.Bundle.Warnings, "2 DaemonSet(s) not in the input, each taken from one of its pods for the overhead on new nodes: kube-system/aws-node (from pod aws-node-x1), kube-system/kube-proxy (from pod kube-proxy-y2)")
	require.Len(t, with.Plan.NodeClaims, 3)
	for _, nc := range with.Plan.NodeClaims {
		require.LessOrEqual(t, len(nc.Pods), 27, nc.Name)
	}
}

const m7iOverlay = `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: m7i-savings-plan}
spec:
  weight: 10
  requirements:
  - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i]}
  priceAdjustment: "-30%"`

// A NodeOverlay's price is the one planning and consolidation see: m7i.large at $0.1008 − 30%
// beats m6i.large at $0.096, and a running m7i node is priced the same way.
func TestNodeOverlayPrices(t *testing.T) {
	pool := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m6i, m7i]}
      - {key: karpenter.k8s.aws/instance-size, operator: In, values: [large]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}`
	before := planYAML(t, pool, tinyPods(5))
	require.Equal(t, "m6i.large", before.Plan.NodeClaims[0].InstanceType)

	res := planYAML(t, pool, m7iOverlay, tinyPods(5))
	require.Empty(t, res.Bundle.Warnings)
	require.Len(t, res.Plan.NodeClaims, 1)
	require.Equal(t, "m7i.large", res.Plan.NodeClaims[0].InstanceType)
	require.InDelta(t, 0.07056, res.Plan.NodeClaims[0].Price, 1e-6)

	b := parse(t, pool+"\n---\n"+m7iOverlay+`
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-7.us-west-2.compute.internal
  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: m7i.large, topology.kubernetes.io/zone: us-west-2a, karpenter.sh/capacity-type: on-demand}
status:
  allocatable: {cpu: 1930m, memory: 6.7Gi, pods: "29"}`)
	cat, err := LoadCatalog("aws", "us-west-2")
	require.NoError(t, err)
	in, _ := b.DisruptionInput(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), cat.InstanceTypes)
	require.Len(t, in.Nodes, 1)
	require.InDelta(t, 0.07056, in.Nodes[0].Price, 1e-6)
}
