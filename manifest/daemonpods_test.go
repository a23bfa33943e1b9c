package manifest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two nodes' worth of `kubectl get pods -A -o yaml`: DaemonSet pods without their DaemonSets.
const daemonPodsSnapshot = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: aws-node-7xk2p
    namespace: kube-system
    labels: {k8s-app: aws-node, controller-revision-hash: 5d4c8b7f9, pod-template-generation: "3"}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: aws-node, uid: 0b1c, controller: true, blockOwnerDeletion: true}]
  spec:
    nodeName: ip-10-0-1-7.us-west-2.compute.internal
    priorityClassName: system-node-critical
    hostNetwork: true
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchFields: [{key: metadata.name, operator: In, values: [ip-10-0-1-7.us-west-2.compute.internal]}]
    tolerations: [{operator: Exists}]
    containers:
    - {name: aws-node, image: amazon-k8s-cni:v1.19.0, resources: {requests: {cpu: 25m}}}
    - {name: aws-eks-nodeagent, image: aws-network-policy-agent:v1.1.5, resources: {requests: {cpu: 25m}}}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata:
    name: aws-node-q9zt4
    namespace: kube-system
    labels: {k8s-app: aws-node, controller-revision-hash: 5d4c8b7f9, pod-template-generation: "3"}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: aws-node, uid: 0b1c, controller: true, blockOwnerDeletion: true}]
  spec:
    nodeName: ip-10-0-2-9.us-west-2.compute.internal
    containers:
    - {name: aws-node, image: amazon-k8s-cni:v1.19.0, resources: {requests: {cpu: 25m}}}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata:
    name: ebs-csi-node-4hxxl
    namespace: kube-system
    labels: {app: ebs-csi-node, controller-revision-hash: 7c9d6f5b4}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ebs-csi-node, uid: 1c2d, controller: true}]
  spec:
    nodeName: ip-10-0-1-7.us-west-2.compute.internal
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: eks.amazonaws.com/compute-type, operator: NotIn, values: [fargate]}]
            matchFields: [{key: metadata.name, operator: In, values: [ip-10-0-1-7.us-west-2.compute.internal]}]
    containers:
    - {name: ebs-plugin, image: aws-ebs-csi-driver:v1.37.0, resources: {requests: {cpu: 10m, memory: 40Mi}}}
  status: {phase: Running}
`

// Each absent DaemonSet is rebuilt from its first pod, unpinned from that pod's node, with
// one warning.
func TestDaemonSetsFromPods(t *testing.T) {
	b := parse(t, "pods.yaml", daemonPodsSnapshot)
	require.Len(t, b.DaemonSets, 2)
	awsNode, ebs := b.DaemonSets[0], b.DaemonSets[1]
	assert.Equal(t, "kube-system/aws-node", awsNode.Namespace+"/"+awsNode.Name)
	assert.Equal(t, map[string]string{"k8s-app": "aws-node"}, awsNode.Spec.Template.Labels, "revision labels dropped")
	spec := awsNode.Spec.Template.Spec
	assert.Empty(t, spec.NodeName)
	assert.Nil(t, spec.Affinity, "only the controller's metadata.name pin was there")
	assert.Len(t, spec.Containers, 2, "the first pod in input order is the template")
	assert.Equal(t, "system-node-critical", spec.PriorityClassName)

	terms := ebs.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	require.Len(t, terms, 1)
	assert.Empty(t, terms[0].MatchFields)
	assert.Equal(t, "eks.amazonaws.com/compute-type", terms[0].MatchExpressions[0].Key, "the template's own terms stay")

	assert.Equal(t, []string{"2 DaemonSet(s) not in the input, each taken from one of its pods for the overhead on new nodes: kube-system/aws-node (from pod aws-node-7xk2p), kube-system/ebs-csi-node (from pod ebs-csi-node-4hxxl)",
		"node ip-10-0-1-7.us-west-2.compute.internal is not in the input: its 2 bound pod(s) are not on any existing node",
		"node ip-10-0-2-9.us-west-2.compute.internal is not in the input: its 1 bound pod(s) are not on any existing node"}, b.Warnings)
}

// A DaemonSet in the input is not doubled by its pods.
func TestDaemonSetPresentIsNotRebuilt(t *testing.T) {
	b := parse(t, "pods.yaml", daemonPodsSnapshot+`- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: aws-node, namespace: kube-system}
  spec:
    selector: {matchLabels: {k8s-app: aws-node}}
    template:
      metadata: {labels: {k8s-app: aws-node}}
      spec:
        containers: [{name: aws-node, image: amazon-k8s-cni:v1.19.0, resources: {requests: {cpu: 50m}}}]
`)
	require.Len(t, b.DaemonSets, 2)
	assert.Equal(t, "aws-node", b.DaemonSets[0].Name)
	assert.Equal(t, "50m", b.DaemonSets[0].Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().String())
}
