package manifest_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

func load(t *testing.T, paths ...string) *manifest.Bundle {
	t.Helper()
	for i, p := range paths {
		if p != manifest.StdinPath {
			paths[i] = filepath.Join("testdata", p)
		}
	}
	b, err := manifest.Load(paths, nil)
	require.NoError(t, err)
	return b
}

func parse(t *testing.T, source, content string) *manifest.Bundle {
	t.Helper()
	b, err := manifest.Parse([]byte(content), source)
	require.NoError(t, err)
	return b
}

// names returns namespace/name of each pod, in order.
func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}

func pod(t *testing.T, pods []*corev1.Pod, name string) *corev1.Pod {
	t.Helper()
	for _, p := range pods {
		if p.Namespace+"/"+p.Name == name {
			return p
		}
	}
	t.Fatalf("no pod %s in %v", name, names(pods))
	return nil
}

func claim(t *testing.T, b *manifest.Bundle, name string) *corev1.PersistentVolumeClaim {
	t.Helper()
	for _, c := range b.PersistentVolumeClaims {
		if c.Namespace+"/"+c.Name == name {
			return c
		}
	}
	t.Fatalf("no PersistentVolumeClaim %s", name)
	return nil
}

func nodePool(t *testing.T, b *manifest.Bundle, name string) *scheduling.NodePool {
	t.Helper()
	for _, np := range b.NodePools {
		if np.Name == name {
			return np
		}
	}
	t.Fatalf("no NodePool %s", name)
	return nil
}

func dur(d time.Duration) *time.Duration { return &d }

func qty(s string) resource.Quantity { return resource.MustParse(s) }

func TestMultiDocumentYAML(t *testing.T) {
	b := load(t, "multidoc.yaml")
	assert.Equal(t, []string{"default/first", "team-a/second"}, names(b.Pods))
	assert.Equal(t, []string{
		"testdata/multidoc.yaml: document 2 (Service web): kind Service (v1) is not used by nodeplan, skipped",
	}, b.Warnings)
	require.Len(t, b.NodeClasses, 1)
	assert.Equal(t, aws.AMIFamilyAL2023, b.NodeClasses[0].AMIFamily, "the family of the alias al2023@latest")
}

func TestSeparatorsInsideDocuments(t *testing.T) {
	// "---" only separates at the start of a line; a block scalar may contain it indented.
	b := parse(t, "inline.yaml", `--- 
apiVersion: v1
kind: Pod
metadata:
  name: a
  annotations:
    note: |
      ---
      not a separator
spec: {containers: [{name: app, image: pause}]}
---	# tab then comment
--- {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {containers: [{name: app, image: pause}]}}
`)
	require.Equal(t, []string{"default/a", "default/b"}, names(b.Pods))
	assert.Equal(t, "---\nnot a separator\n", b.Pods[0].Annotations["note"])
}

func TestKubectlList(t *testing.T) {
	b := load(t, "list.yaml", "list.json")
	require.Len(t, b.Nodes, 1)
	assert.Equal(t, "ip-10-0-1-7", b.Nodes[0].Name)
	assert.Equal(t, []string{"default/running"}, names(b.BoundPods))
	assert.Equal(t, []string{"default/json-a"}, names(b.Pods))
	assert.Equal(t, []string{
		"testdata/list.yaml: document 1, item 3 (ConfigMap settings): kind ConfigMap (v1) is not used by nodeplan, skipped",
	}, b.Warnings)
}

func TestUnknownFieldsWarn(t *testing.T) {
	b := parse(t, "typo.yaml", `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelecter: {disk: ssd}
  NodeName: ""
  containers: [{name: app, image: pause, resource: {}}]
`)
	assert.Equal(t, []string{
		`typo.yaml: document 1 (Pod default/p): unknown field "spec.NodeName" (field names are case-sensitive: "nodeName"), ignored`,
		`typo.yaml: document 1 (Pod default/p): unknown field "spec.containers[0].resource" (did you mean "resources"?), ignored`,
		`typo.yaml: document 1 (Pod default/p): unknown field "spec.nodeSelecter" (did you mean "nodeSelector"?), ignored`,
	}, b.Warnings)
}

// A field spelt with other capitals is unknown to the API server, and ignored here too (Go's
// JSON decoder would take it).
func TestMiscasedFieldIsIgnored(t *testing.T) {
	b := parse(t, "case.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  NodeName: ip-1\n  containers: [{name: app, image: pause}]\n")
	require.Len(t, b.Pods, 1, "still pending: spec.NodeName is not spec.nodeName")
	assert.Empty(t, b.Pods[0].Spec.NodeName)
	assert.Equal(t, []string{`case.yaml: document 1 (Pod default/p): unknown field "spec.NodeName" (field names are case-sensitive: "nodeName"), ignored`}, b.Warnings)
}

func TestWorkloadsExpand(t *testing.T) {
	b := load(t, "workloads.yaml")
	assert.Equal(t, []string{
		"default/inflate-0",                // Deployment, replicas unset → 1
		"team-a/cache-0", "team-a/cache-1", // ReplicaSet
		"default/legacy-0", "default/legacy-1", // ReplicationController
		"default/batch-0", "default/batch-1", // Job: min(parallelism 3, completions 2)
		// Job "paused": parallelism 0 → none
		"default/queue-0", "default/queue-1", // Job without completions: parallelism
		"default/once-0",         // Job with neither: 1
		"data/db-0", "data/db-1", // StatefulSet
	}, names(b.Pods))

	inflate := pod(t, b.Pods, "default/inflate-0")
	assert.Equal(t, map[string]string{"app": "inflate"}, inflate.Labels)
	assert.Equal(t, map[string]string{"karpenter.sh/do-not-disrupt": "true"}, inflate.Annotations)
	require.Len(t, inflate.OwnerReferences, 1)
	ref := inflate.OwnerReferences[0]
	assert.Equal(t, []string{"apps/v1", "Deployment", "inflate"}, []string{ref.APIVersion, ref.Kind, ref.Name})
	assert.True(t, *ref.Controller)
	assert.Equal(t, corev1.PodPending, inflate.Status.Phase)
	assert.Empty(t, inflate.Spec.NodeName)
	assert.Equal(t, qty("1"), inflate.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU])

	assert.Equal(t, "ReplicationController", pod(t, b.Pods, "default/legacy-1").OwnerReferences[0].Kind)
	batch := pod(t, b.Pods, "default/batch-0")
	assert.Equal(t, "Job", batch.OwnerReferences[0].Kind)
	assert.Equal(t, "batch", batch.Labels["batch.kubernetes.io/job-name"])

	require.Len(t, b.DaemonSets, 1)
	ds := b.DaemonSets[0].Spec.Template.Spec.Containers[0].Resources
	assert.Equal(t, qty("100m"), ds.Requests[corev1.ResourceCPU], "DaemonSet template requests default to limits")
	assert.Empty(t, b.Warnings)
}

func TestStatefulSetClaims(t *testing.T) {
	b := load(t, "workloads.yaml")
	db1 := pod(t, b.Pods, "data/db-1")
	assert.Equal(t, map[string]string{
		"app":                                "db",
		"statefulset.kubernetes.io/pod-name": "db-1",
		"apps.kubernetes.io/pod-index":       "1",
	}, db1.Labels)
	assert.Equal(t, "db-1", db1.Spec.Hostname)
	assert.Equal(t, "db", db1.Spec.Subdomain)
	require.Len(t, db1.Spec.Volumes, 1, "the template's same-named volume is replaced by the claim")
	assert.Equal(t, "data-db-1", db1.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)

	pvc := claim(t, b, "data/data-db-1")
	assert.Equal(t, map[string]string{"tier": "storage", "app": "db"}, pvc.Labels)
	assert.Equal(t, qty("10Gi"), pvc.Spec.Resources.Requests[corev1.ResourceStorage])
	assert.Equal(t, corev1.ClaimPending, pvc.Status.Phase)
	assert.Nil(t, pvc.Spec.StorageClassName, "no default StorageClass in the input")
	assert.Len(t, b.PersistentVolumeClaims, 2)
}

func TestSnapshotCountsExistingPods(t *testing.T) {
	b := load(t, "snapshot.yaml")
	assert.Equal(t, []string{
		"default/inflate-0",          // 3 replicas: aaaaa and bbbbb exist, ccccc failed
		"default/inflate-6b9f-bbbbb", // pending, taken as it is; its ReplicaSet is not expanded
		"default/web-0",              // 2 replicas: yyyyy runs, zzzzz is being deleted
		"default/db-1", "default/db-2",
	}, names(b.Pods))
	assert.Equal(t, []string{
		"default/inflate-6b9f-aaaaa", "default/web-5d8c-zzzzz", "default/web-5d8c-yyyyy", "default/db-0",
	}, names(b.BoundPods))
	assert.NotNil(t, pod(t, b.BoundPods, "default/web-5d8c-zzzzz").DeletionTimestamp)

	// data-db-1 is given (bound, with its class): kept; data-db-2 is created.
	assert.Equal(t, "pv-db-1", claim(t, b, "default/data-db-1").Spec.VolumeName)
	assert.Equal(t, corev1.ClaimPending, claim(t, b, "default/data-db-2").Status.Phase)
	assert.Len(t, b.PersistentVolumeClaims, 2)

	assert.Equal(t, []string{
		"ignored 1 finished pod(s) (phase Succeeded or Failed): default/inflate-6b9f-ccccc",
		"ignored 1 pending DaemonSet pod(s): a DaemonSet's pods are per-node overhead, not pods to provision for: kube-system/fluent-bit-x",
		"1 DaemonSet(s) not in the input, each taken from one of its pods for the overhead on new nodes: kube-system/fluent-bit (from pod fluent-bit-x)",
		"node ip-10-0-1-7 is not in the input: its 4 bound pod(s) are not on any existing node",
	}, b.Warnings)
}

func TestSnapshotOwnerUIDMustMatch(t *testing.T) {
	// A pod owned by an older Deployment of the same name (another UID) does not count.
	b := parse(t, "uid.yaml", `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: api, uid: new}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: app, image: pause}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: api-old
  labels: {app: api}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: api, uid: old, controller: true}]
spec: {containers: [{name: app, image: pause}]}
`)
	assert.Equal(t, []string{"default/api-0", "default/api-old"}, names(b.Pods))
}

func TestDefaultStorageClass(t *testing.T) {
	b := load(t, "storage.yaml")
	class := func(name string) *string { return claim(t, b, name).Spec.StorageClassName }
	assert.Equal(t, "gp3", *class("default/no-class"))
	assert.Equal(t, "", *class("default/explicit-none"), `an explicit "" means no class`)
	assert.Equal(t, "io2", *class("default/fast"))
	assert.Nil(t, class("default/bound-long-ago"), "a bound claim was admitted long ago")
	// The pod's generic ephemeral volume creates <pod>-<volume>, which gets the default class.
	assert.Equal(t, "gp3", *class("default/scratch-cache"))
	assert.Equal(t, "scratch", claim(t, b, "default/scratch-cache").OwnerReferences[0].Name)
	assert.Len(t, b.PersistentVolumes, 1)
	assert.Len(t, b.StorageClasses, 2)
}

func TestDefaultStorageClassOnlyWhenGiven(t *testing.T) {
	b := parse(t, "pvc.yaml", `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`)
	assert.Nil(t, b.PersistentVolumeClaims[0].Spec.StorageClassName)
}

func TestRequestsDefaultToLimits(t *testing.T) {
	b := load(t, "requests.yaml")
	p := pod(t, b.Pods, "default/limited")
	assert.Equal(t, corev1.ResourceList{"cpu": qty("2"), "memory": qty("1Gi")}, p.Spec.InitContainers[0].Resources.Requests)
	assert.Equal(t, corev1.ResourceList{"cpu": qty("500m"), "memory": qty("512Mi"), "nvidia.com/gpu": qty("1")}, p.Spec.Containers[0].Resources.Requests)
	assert.Nil(t, p.Spec.Containers[1].Resources.Requests, "no limits, nothing to default")
}

func TestNodePoolV1(t *testing.T) {
	b := load(t, "nodepool-v1.yaml")
	np := nodePool(t, b, "general")
	two := 2
	want := &scheduling.NodePool{
		Name:          "general",
		Weight:        10,
		Labels:        map[string]string{"team": "web"},
		Annotations:   map[string]string{"example.com/owner": "platform"},
		Taints:        []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}},
		StartupTaints: []corev1.Taint{{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoExecute}},
		Requirements: []scheduling.NodeSelectorRequirementWithMinValues{
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot", "on-demand"}}},
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "m6i.large", "c5.large"}}, MinValues: &two},
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-cpu", Operator: corev1.NodeSelectorOpGt, Values: []string{"1"}}},
		},
		Limits:                 corev1.ResourceList{"cpu": qty("1000"), "memory": qty("1000Gi")},
		ExpireAfter:            nil, // Never
		TerminationGracePeriod: dur(48 * time.Hour),
		Disruption: scheduling.Disruption{
			ConsolidationPolicy: scheduling.ConsolidationWhenEmpty,
			ConsolidateAfter:    dur(30 * time.Second),
			Budgets: []scheduling.Budget{
				{Nodes: "20%", Reasons: []string{"Empty", "Drifted"}},
				{Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: dur(8 * time.Hour)},
			},
		},
	}
	assert.Equal(t, want, np)
	assert.Empty(t, b.Warnings)
}

func TestNodePoolV1Defaults(t *testing.T) {
	b := load(t, "nodepool-v1.yaml")
	assert.Equal(t, &scheduling.NodePool{
		Name:        "defaults",
		ExpireAfter: dur(720 * time.Hour),
		Disruption: scheduling.Disruption{
			ConsolidationPolicy: scheduling.ConsolidationWhenEmptyOrUnderutilized,
			ConsolidateAfter:    dur(0),
			Budgets:             []scheduling.Budget{{Nodes: "10%"}},
		},
	}, nodePool(t, b, "defaults"))
	// The NodePool used when the input has none has the same defaults.
	def := *nodePool(t, b, "defaults")
	def.Name = "default"
	assert.Equal(t, &def, manifest.DefaultNodePool())
}
