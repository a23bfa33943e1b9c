package manifest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

func int32p(v int32) *int32 { return &v }

// What `kubectl get nodepools,ec2nodeclasses -o yaml` gives for a typical v1 setup.
const ec2NodeClassSnapshot = `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: general}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
- apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata:
    name: default
    annotations: {karpenter.k8s.aws/ec2nodeclass-hash: "6187523587376325435"}
  spec:
    amiSelectorTerms: [{alias: bottlerocket@latest}]
    role: KarpenterNodeRole-demo
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
    kubelet:
      maxPods: 110
      podsPerCore: 20
      systemReserved: {cpu: 100m, memory: 100Mi, ephemeral-storage: 1Gi, pid: "1000"}
      kubeReserved: {cpu: 200m}
      evictionHard: {memory.available: 5%, nodefs.available: 10%}
      evictionSoft: {memory.available: 10%}
      evictionSoftGracePeriod: {memory.available: 1m}
      imageGCHighThresholdPercent: 85
    blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs: {volumeSize: 4Gi, volumeType: gp3, encrypted: true}
    - deviceName: /dev/xvdb
      rootVolume: true
      ebs: {volumeSize: 100Gi, volumeType: gp3, encrypted: true, deleteOnTermination: true}
    metadataOptions: {httpEndpoint: enabled, httpTokens: required, httpPutResponseHopLimit: 1}
  status:
    subnets:
    - {id: subnet-0a1, zone: us-west-2a, zoneID: usw2-az1}
    - {id: subnet-0b2, zone: us-west-2b, zoneID: usw2-az2}
    - {id: subnet-0c3, zoneID: usw2-az3}
    securityGroups: [{id: sg-01, name: demo}]
    amis: [{id: ami-0123, name: bottlerocket-aws-k8s-1.31, requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]}]
    instanceProfile: demo_123
    conditions: [{type: Ready, status: "True", reason: Ready, lastTransitionTime: "2025-01-01T00:00:00Z", message: ""}]
`

// An EC2NodeClass's subnets narrow its NodePools' zones; its kubelet settings and volumes go
// with the NodePool (NodeClassOf).
func TestEC2NodeClass(t *testing.T) {
	b := parse(t, "snapshot.yaml", ec2NodeClassSnapshot)
	assert.Empty(t, b.Warnings)
	require.Len(t, b.NodeClasses, 1)
	nc := b.NodeClassOf["general"]
	require.NotNil(t, nc)
	assert.Equal(t, "default", nc.Name)
	assert.Equal(t, aws.AMIFamilyBottlerocket, nc.AMIFamily)
	assert.Equal(t, []string{"us-west-2a", "us-west-2b", "us-west-2c"}, nc.Zones, "usw2-az3 is us-west-2c")
	assert.Equal(t, int32p(110), nc.Kubelet.MaxPods)
	assert.Equal(t, int32p(20), nc.Kubelet.PodsPerCore)
	assert.Equal(t, corev1.ResourceList{"cpu": qty("100m"), "memory": qty("100Mi"), "ephemeral-storage": qty("1Gi")}, nc.Kubelet.SystemReserved, "pid is not a resource nodeplan counts")
	assert.Equal(t, corev1.ResourceList{"cpu": qty("200m")}, nc.Kubelet.KubeReserved)
	assert.Equal(t, map[string]string{"memory.available": "5%", "nodefs.available": "10%"}, nc.Kubelet.EvictionHard)
	require.Len(t, nc.BlockDeviceMappings, 2)
	assert.True(t, nc.BlockDeviceMappings[1].RootVolume)
	assert.Equal(t, "100Gi", nc.BlockDeviceMappings[1].VolumeSize.String())

	np := nodePool(t, b, "general")
	assert.Equal(t, scheduling.NodeSelectorRequirementWithMinValues{NodeSelectorRequirement: corev1.NodeSelectorRequirement{
		Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"us-west-2a", "us-west-2b", "us-west-2c"},
	}}, np.Requirements[len(np.Requirements)-1], "the subnets' zones are the only zones the NodePool can launch in")
}

// A NodePool naming a class the input lacks is warned about when the input has node classes;
// manifests with no node class at all plan with the catalog's defaults, silently.
func TestMissingNodeClass(t *testing.T) {
	b := parse(t, "snapshot.yaml", ec2NodeClassSnapshot+`- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: gpu}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
        requirements: []
`)
	assert.Equal(t, []string{"EC2NodeClass gpu is not in the input (named by NodePool gpu): its nodes get the catalog's defaults (any zone, default kubelet and volumes)"}, b.Warnings)
	assert.Nil(t, b.NodeClassOf["gpu"])
	assert.Len(t, nodePool(t, b, "gpu").Requirements, 0, "no zones narrowed")

	b = load(t, "nodepool-v1.yaml")
	assert.Empty(t, b.Warnings)
}

// v1beta1 NodePools keep kubelet in the NodePool (today `maxPods: 110` there must not be lost),
// and a v1beta1 EC2NodeClass defaults to AL2.
func TestNodePoolV1beta1Kubelet(t *testing.T) {
	b := load(t, "nodepool-v1beta1.yaml")
	nc := b.NodeClassOf["legacy-beta"]
	require.NotNil(t, nc, "the NodePool's own kubelet settings apply even without its class")
	assert.Equal(t, int32p(110), nc.Kubelet.MaxPods)

	b = parse(t, "beta.yaml", `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: beta}
spec:
  template:
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: beta}
      kubelet: {maxPods: 58, kubeReserved: {memory: 1Gi}}
      requirements: []
---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: beta}
spec:
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  role: KarpenterNodeRole-demo
  blockDeviceMappings:
  - deviceName: /dev/xvda
    ebs: {volumeSize: 80Gi, volumeType: gp3}
status:
  subnets: [{id: subnet-1, zone: eu-west-1a}, {id: subnet-2, zone: eu-west-1b}]
`)
	assert.Empty(t, b.Warnings)
	nc = b.NodeClassOf["beta"]
	require.NotNil(t, nc)
	assert.Equal(t, aws.AMIFamilyAL2, nc.AMIFamily)
	assert.Equal(t, int32p(58), nc.Kubelet.MaxPods)
	assert.Equal(t, corev1.ResourceList{"memory": qty("1Gi")}, nc.Kubelet.KubeReserved)
	assert.Equal(t, []string{"eu-west-1a", "eu-west-1b"}, nc.Zones)
	assert.Equal(t, "80Gi", nc.BlockDeviceMappings[0].VolumeSize.String())
}

// A Provisioner's kubeletConfiguration and its AWSNodeTemplate (providerRef) apply the same way.
func TestProvisionerKubeletAndAWSNodeTemplate(t *testing.T) {
	b := parse(t, "alpha.yaml", `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  providerRef: {name: default}
  kubeletConfiguration:
    maxPods: 110
    evictionHard: {memory.available: 500Mi}
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: default}
spec:
  subnetSelector: {karpenter.sh/discovery: demo}
  securityGroupSelector: {karpenter.sh/discovery: demo}
  amiFamily: Bottlerocket
  blockDeviceMappings:
  - deviceName: /dev/xvdb
    ebs: {volumeSize: 60Gi, volumeType: gp3}
status:
  subnets: [{id: subnet-1, zone: us-east-1a}, {id: subnet-2, zone: us-east-1b}]
  securityGroups: [{id: sg-1}]
---
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: inline}
spec:
  provider:
    subnetSelector: {karpenter.sh/discovery: demo}
    blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs: {volumeSize: 50Gi}
`)
	assert.Empty(t, b.Warnings)
	nc := b.NodeClassOf["default"]
	require.NotNil(t, nc)
	assert.Equal(t, "AWSNodeTemplate", nc.Kind)
	assert.Equal(t, aws.AMIFamilyBottlerocket, nc.AMIFamily)
	assert.Equal(t, int32p(110), nc.Kubelet.MaxPods)
	assert.Equal(t, map[string]string{"memory.available": "500Mi"}, nc.Kubelet.EvictionHard)
	assert.Equal(t, []string{"us-east-1a", "us-east-1b"}, nc.Zones)

	inline := b.NodeClassOf["inline"]
	require.NotNil(t, inline, "an inline spec.provider is the Provisioner's node class")
	assert.Equal(t, aws.AMIFamilyAL2, inline.AMIFamily)
	assert.Equal(t, "50Gi", inline.BlockDeviceMappings[0].VolumeSize.String())
	assert.Empty(t, inline.Zones)
}

func TestBadNodeClasses(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"quantity", `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: bad}
spec:
  kubelet: {kubeReserved: {memory: lots}}
`, `bad.yaml: document 1 (EC2NodeClass bad): spec.kubelet.kubeReserved.memory: "lots" is not a non-negative quantity`},
		{"signal", `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: bad}
spec:
  kubelet: {evictionHard: {memory.free: 5%}}
`, `bad.yaml: document 1 (EC2NodeClass bad): spec.kubelet.evictionHard[memory.free]: unknown eviction signal`},
		{"zoneID", `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: bad}
spec: {}
status:
  subnets: [{id: subnet-1, zoneID: apse9-az1}]
`, `bad.yaml: document 1 (EC2NodeClass bad): status.subnets[0].zoneID: "apse9-az1" is not a zone ID`},
		{"family", `apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: bad}
spec: {amiFamily: Ubuntu2}
`, `spec.amiFamily: unknown AMI family "Ubuntu2"`},
		{"maxPods", `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: bad}
spec:
  template:
    spec:
      kubelet: {maxPods: -1}
      requirements: []
`, `bad.yaml: document 1 (NodePool bad): spec.template.spec.kubelet.maxPods: must not be negative, got -1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Parse([]byte(tc.doc), "bad.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
