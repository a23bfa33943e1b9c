package manifest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

func TestNodePoolV1beta1(t *testing.T) {
	b := load(t, "nodepool-v1beta1.yaml")
	np := nodePool(t, b, "legacy-beta")
	assert.Equal(t, map[string]string{"tier": "batch"}, np.Labels)
	assert.Equal(t, dur(168*time.Hour), np.ExpireAfter, "v1beta1 keeps expireAfter in spec.disruption")
	assert.Equal(t, scheduling.ConsolidationWhenEmptyOrUnderutilized, np.Disruption.ConsolidationPolicy, "WhenUnderutilized is v1's WhenEmptyOrUnderutilized")
	assert.Equal(t, dur(0), np.Disruption.ConsolidateAfter)
	assert.Equal(t, []scheduling.Budget{{Nodes: "10%"}}, np.Disruption.Budgets)
	assert.Equal(t, corev1.ResourceList{"cpu": qty("100")}, np.Limits)
	assert.Equal(t, "kubernetes.io/arch", np.Requirements[0].Key)
	assert.Empty(t, b.Warnings, "kubelet and nodeClassRef are known v1beta1 fields")
}

func TestProvisionerV1alpha5(t *testing.T) {
	b := load(t, "provisioner.yaml")
	require.Equal(t, []string{"consolidating", "empty-ttl", "plain"}, []string{b.NodePools[0].Name, b.NodePools[1].Name, b.NodePools[2].Name})

	ttl := nodePool(t, b, "empty-ttl")
	assert.Equal(t, &scheduling.NodePool{
		Name:   "empty-ttl",
		Weight: 50,
		Labels: map[string]string{"team": "data"},
		Taints: []corev1.Taint{{Key: "data", Effect: corev1.TaintEffectNoSchedule}},
		Requirements: []scheduling.NodeSelectorRequirementWithMinValues{
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}}},
			// The v1alpha5 defaulting webhook's additions.
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "kubernetes.io/os", Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}}},
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}},
		},
		DefaultedKeys: []string{"kubernetes.io/os", "kubernetes.io/arch"},
		Limits:        corev1.ResourceList{"cpu": qty("64"), "memory": qty("256Gi")},
		ExpireAfter:   dur(720 * time.Hour), // ttlSecondsUntilExpired: 2592000
		Disruption: scheduling.Disruption{
			ConsolidationPolicy: scheduling.ConsolidationWhenEmpty,
			ConsolidateAfter:    dur(30 * time.Second),
			Budgets:             []scheduling.Budget{{Nodes: "10%"}},
		},
	}, ttl)

	consolidating := nodePool(t, b, "consolidating")
	assert.Equal(t, scheduling.ConsolidationWhenEmptyOrUnderutilized, consolidating.Disruption.ConsolidationPolicy)
	assert.Equal(t, dur(0), consolidating.Disruption.ConsolidateAfter)
	assert.Nil(t, consolidating.ExpireAfter, "a Provisioner without ttlSecondsUntilExpired never expires its nodes")

	plain := nodePool(t, b, "plain")
	assert.Equal(t, scheduling.ConsolidationWhenEmpty, plain.Disruption.ConsolidationPolicy)
	assert.Nil(t, plain.Disruption.ConsolidateAfter, "neither ttlSecondsAfterEmpty nor consolidation: never consolidated")
	assert.Empty(t, b.Warnings)
}

// A Provisioner gets the defaults every version of the v1alpha5 webhook wrote (os, arch,
// capacity type) only for the keys its requirements and labels do not name, and never the
// instance category and generation defaults that only v0.19 to v0.27 persisted.
func TestProvisionerDefaults(t *testing.T) {
	plain := parse(t, "plain.yaml", `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: plain}
spec:
  labels: {karpenter.sh/capacity-type: spot}
`).NodePools[0]
	var got []string
	for _, r := range plain.Requirements {
		got = append(got, r.Key+" "+string(r.Operator)+" "+strings.Join(r.Values, ","))
	}
	assert.Equal(t, []string{"kubernetes.io/os In linux", "kubernetes.io/arch In amd64"}, got, "a label names the capacity type; no category or generation default")
	assert.Equal(t, []string{"kubernetes.io/os", "kubernetes.io/arch"}, plain.DefaultedKeys)

	b := parse(t, "p.yaml", `apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: graviton}
spec:
  requirements:
  - {key: beta.kubernetes.io/arch, operator: In, values: [arm64]}
  - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
  - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m7g, c7g]}
`)
	var keys []string
	for _, r := range b.NodePools[0].Requirements {
		keys = append(keys, r.Key)
	}
	assert.Equal(t, []string{"beta.kubernetes.io/arch", "karpenter.sh/capacity-type", "karpenter.k8s.aws/instance-family", "kubernetes.io/os"}, keys)
}

func TestDurationNever(t *testing.T) {
	b := parse(t, "never.yaml", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: forever}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
      expireAfter: Never
  disruption:
    consolidateAfter: Never
`)
	np := b.NodePools[0]
	assert.Nil(t, np.ExpireAfter)
	assert.Nil(t, np.Disruption.ConsolidateAfter)
}

// spec.template.spec.terminationGracePeriod reaches the NodePool; unset, drains are unbounded.
func TestTerminationGracePeriod(t *testing.T) {
	b := parse(t, "tgp.yaml", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: bounded}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
      terminationGracePeriod: 48h
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: unbounded}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
`)
	require.Len(t, b.NodePools, 2)
	assert.Equal(t, dur(48*time.Hour), b.NodePools[0].TerminationGracePeriod)
	assert.Nil(t, b.NodePools[1].TerminationGracePeriod)
}

func TestNoNodePoolMeansDefault(t *testing.T) {
	b := load(t, "workloads.yaml")
	assert.Empty(t, b.NodePools)
	pools := b.NodePoolsOrDefault()
	require.Len(t, pools, 1)
	assert.Equal(t, "default", pools[0].Name)
	assert.Empty(t, pools[0].Requirements)
	assert.Equal(t, pools, b.SchedulingInput().NodePools)

	withPool := load(t, "nodepool-v1.yaml")
	assert.Equal(t, withPool.NodePools, withPool.NodePoolsOrDefault())
}

// Every malformed file is refused with a message naming the file, the document, the object
// and the field.
func TestMalformedFiles(t *testing.T) {
	cases := map[string]string{
		"quantity.yaml": `quantity.yaml: document 2 (Deployment default/inflate): spec.template.spec.containers[0].resources.requests.cpu: ` +
			`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
		"type.yaml":               `type.yaml: document 1 (Deployment shop/web): spec.replicas: got a string, want an integer`,
		"list-item.yaml":          `list-item.yaml: document 1, item 2 (Pod default/bad-port): spec.containers[0].ports[0].containerPort: got a string, want an integer`,
		"no-containers.yaml":      `no-containers.yaml: document 1 (Pod default/empty): spec.containers: a pod needs at least one container`,
		"request-over-limit.yaml": `request-over-limit.yaml: document 1 (Job default/greedy): spec.template.spec.containers[0].resources.requests.memory: request 2Gi is more than the limit 1Gi`,
		"syntax.yaml":             `syntax.yaml: document 2 (starting at line 8): invalid YAML: line 12: mapping values are not allowed in this context`,
		"syntax.json":             `syntax.json: document 1: invalid JSON at line 4: invalid character '}' looking for beginning of object key string`,
		"nodepool-requirement.yaml": `nodepool-requirement.yaml: document 1 (NodePool general): spec.template.spec.requirements[1]: ` +
			`key "karpenter.k8s.aws/instance-cpu": unknown operator "Within" (use In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte)`,
		"nodepool-label.yaml": `nodepool-label.yaml: document 1 (NodePool general): spec.template.metadata.labels[kubernetes.io/hostname]: ` +
			`label "kubernetes.io/hostname" is restricted: it is set on each node by Karpenter, remove it from the NodePool`,
		"nodepool-duration.yaml": `nodepool-duration.yaml: document 1 (NodePool general): spec.template.spec.expireAfter: "30 days" is not a duration: want e.g. "720h", "30m", "45s" or "Never"`,
		"nodepool-policy.yaml":   `nodepool-policy.yaml: document 1 (NodePool general): spec.disruption.consolidationPolicy: unknown consolidation policy "Sometimes" (use WhenEmpty or WhenEmptyOrUnderutilized)`,
		"nodepool-budget.yaml":   `nodepool-budget.yaml: document 1 (NodePool general): spec.disruption.budgets[1]: schedule and duration must be set together`,
		"nodepool-taint.yaml":    `nodepool-taint.yaml: document 1 (NodePool general): spec.template.spec.taints[0].effect: unknown taint effect "NoScheduled" (use NoSchedule, PreferNoSchedule or NoExecute)`,
		"provisioner-conflict.yaml": `provisioner-conflict.yaml: document 1 (Provisioner default): spec.consolidation.enabled: ` +
			`cannot be true together with spec.ttlSecondsAfterEmpty (a Provisioner uses one or the other)`,
		"replicas.yaml":          `replicas.yaml: document 1 (StatefulSet default/huge): spec.replicas: 1000000000 is more pods than nodeplan plans for one workload (at most 100000)`,
		"duplicate.yaml":         `duplicate.yaml: document 2 (NodePool default): NodePool default is already defined in duplicate.yaml: document 1 (Provisioner default)`,
		"nodepool-replicas.yaml": `nodepool-replicas.yaml: document 1 (NodePool static): spec.replicas: must not be negative, got -1`,
		"quantity-huge-cpu.yaml": `quantity-huge-cpu.yaml: document 1 (Pod default/huge): spec.containers[0].resources.requests.cpu: 1e+30 is too large (at most 4e15)`,
		"quantity-huge-memory.yaml": `quantity-huge-memory.yaml: document 1 (Deployment default/hog): spec.template.spec.containers[0].resources.limits.memory: ` +
			`9223372036854775807 is too large (at most 4e15)`,
		"quantity-wrapping-sum.yaml": `quantity-wrapping-sum.yaml: document 1 (Pod default/twins): spec.containers: the containers' cpu requests add up to more than 4e15`,
		"quantity-huge-limit.yaml":   `quantity-huge-limit.yaml: document 1 (NodePool general): spec.limits.cpu: 1e+30 is too large (at most 4e15)`,
		"quantity-huge-node.yaml":    `quantity-huge-node.yaml: document 1 (Node ip-10-0-0-1): status.capacity.cpu: 9223372036854776 is too large (at most 4e15)`,
		// Refused before the API machinery parses them, which would take hours; an environment
		// variable with the same text is not a quantity, and neither is a digest.
		"quantity-huge-exponent.yaml": `quantity-huge-exponent.yaml: document 1 (Pod default/slow): spec.containers[0].resources.requests.cpu: 1e111011010110 has a decimal exponent past 1000`,
		"quantity-tiny-exponent.yaml": `quantity-tiny-exponent.yaml: document 1 (NodePool general): spec.limits.memory: 1e-33330000 has a decimal exponent past 1000`,
		"nodepool-contradiction.yaml": `nodepool-contradiction.yaml: document 1 (NodePool general): spec.template.spec.requirements: ` +
			`the requirements on "kubernetes.io/arch" (spec.template.spec.requirements[0] and [2]) contradict each other: no value satisfies all of them`,
		"nodepool-contradiction-label.yaml": `nodepool-contradiction-label.yaml: document 1 (NodePool general): spec.template.spec.requirements: ` +
			`the requirements on "team" (spec.template.spec.requirements[0] and spec.template.metadata.labels.team) contradict each other: no value satisfies all of them`,
		"provisioner-contradiction.yaml": `provisioner-contradiction.yaml: document 1 (Provisioner default): spec.requirements: ` +
			`the requirements on "karpenter.k8s.aws/instance-cpu" (spec.requirements[0] and [1]) contradict each other: no value satisfies all of them`,
		"pdb-max-unavailable.yaml": `pdb-max-unavailable.yaml: document 1 (PodDisruptionBudget shop/web): spec.maxUnavailable: "one" is neither an integer nor a percentage (e.g. 1 or "25%")`,
		"pdb-min-available.yaml":   `pdb-min-available.yaml: document 1 (PodDisruptionBudget default/db): spec.minAvailable: 150% is more than 100%`,
		"pdb-both.yaml":            `pdb-both.yaml: document 1 (PodDisruptionBudget default/db): spec.maxUnavailable: cannot be set together with spec.minAvailable`,
		"pdb-negative.yaml":        `pdb-negative.yaml: document 1 (PodDisruptionBudget default/db): spec.maxUnavailable: must not be negative, got -1`,
		// Values the API server refuses.
		"spread-when-unsatisfiable.yaml": `spread-when-unsatisfiable.yaml: document 1 (Pod default/web): spec.topologySpreadConstraints[0].whenUnsatisfiable: ` +
			`unknown action "Sometimes" (use DoNotSchedule or ScheduleAnyway)`,
		"spread-min-domains.yaml": `spread-min-domains.yaml: document 1 (Pod default/web): spec.topologySpreadConstraints[0].minDomains: must be greater than zero, got 0`,
		"toleration-effect.yaml": `toleration-effect.yaml: document 1 (Pod default/web): spec.tolerations[0].effect: ` +
			`unknown taint effect "Sometimes" (use NoSchedule, PreferNoSchedule, NoExecute, or leave it empty for all)`,
		"label-key.yaml": `label-key.yaml: document 1 (Pod default/web): metadata.labels[a b c]: "a b c" is not a valid label key: ` +
			`name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
			`(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		"label-value.yaml": `label-value.yaml: document 1 (Pod default/web): metadata.labels.app: "we\nb" is not a valid label value: ` +
			`a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
			`(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		"name-too-long.yaml": `name-too-long.yaml: document 1 (Pod default/` + strings.Repeat("a", 56) + `…): metadata.name: "` + strings.Repeat("a", 64) + `…" ` +
			`is not a valid name (a DNS subdomain): must be no more than 253 characters`,
		"namespace.yaml": `namespace.yaml: document 1 (Deployment Default_NS/web): metadata.namespace: "Default_NS" is not a valid namespace name (a DNS label): ` +
			`a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character ` +
			`(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		"node-negative-allocatable.yaml": `node-negative-allocatable.yaml: document 1 (Node ip-10-0-0-1): status.allocatable.cpu: must not be negative, got -4`,
		"claim-template-storage.yaml": `claim-template-storage.yaml: document 1 (StatefulSet default/db): spec.volumeClaimTemplates[0].spec.resources.requests.storage: ` +
			`must be greater than zero, got -1Gi`,
		"api-version.yaml": `api-version.yaml: document 1 (Deployment default/web): apiVersion: unknown version "apps/v9" of Deployment ` +
			`(known versions: apps/v1, apps/v1beta2, apps/v1beta1)`,
		"nodepool-schedule.yaml": `nodepool-schedule.yaml: document 1 (NodePool general): spec.disruption.budgets[0].schedule: schedule "61 25 * * *": minute: 61 is outside 0-59`,
	}
	// Every file of testdata/bad is a case here (nodepool-minvalues.yaml has a test of its own).
	files, err := os.ReadDir(filepath.Join("testdata", "bad"))
	require.NoError(t, err)
	for _, f := range files {
		if _, ok := cases[f.Name()]; !ok && f.Name() != "nodepool-minvalues.yaml" {
			t.Errorf("testdata/bad/%s has no expected message", f.Name())
		}
	}
	for file, want := range cases {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "bad", file))
			require.NoError(t, err)
			b, err := manifest.Parse(data, file)
			require.Error(t, err)
			assert.Nil(t, b)
			assert.Equal(t, want, err.Error())
		})
	}
}

func TestMalformedMinValues(t *testing.T) {
	// The sentence after the key is the requirements package's.
	_, err := manifest.Load([]string{"testdata/bad/nodepool-minvalues.yaml"}, nil)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(),
		`testdata/bad/nodepool-minvalues.yaml: document 1 (NodePool general): spec.template.spec.requirements[0]: key "node.kubernetes.io/instance-type": minValues 3`), err.Error())
}

func TestLoadReportsEveryBadFile(t *testing.T) {
	_, err := manifest.Load([]string{"testdata/bad/type.yaml", "testdata/workloads.yaml", "testdata/bad/no-containers.yaml"}, nil)
	require.Error(t, err)
	assert.Equal(t, "testdata/bad/type.yaml: document 1 (Deployment shop/web): spec.replicas: got a string, want an integer\n"+
		"testdata/bad/no-containers.yaml: document 1 (Pod default/empty): spec.containers: a pod needs at least one container", err.Error())
}

func TestLoadDirectory(t *testing.T) {
	b := load(t, "cluster")
	// nodes.yaml, pods.json and storage/csinodes.yaml are read; README.txt and .hidden/ are not.
	assert.Equal(t, []string{"ip-10-0-1-7", "ip-10-0-2-9", "ip-10-0-3-3", "static-1"}, nodeNames(b.Nodes))
	assert.Equal(t, []string{"kube-system/on-static", "default/on-managed"}, names(b.BoundPods))
	assert.Equal(t, []string{"default/pending"}, names(b.Pods))
	require.Len(t, b.CSINodes, 1)
	assert.Empty(t, b.Warnings)

	_, err := manifest.Load([]string{"testdata/does-not-exist"}, nil)
	assert.EqualError(t, err, "stat testdata/does-not-exist: no such file or directory")
}

func nodeNames(nodes []*corev1.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name
	}
	return out
}

func TestNodeClaims(t *testing.T) {
	b := load(t, "cluster")
	require.Len(t, b.NodeClaims, 2)
	nc := b.NodeClaims[0]
	assert.Equal(t, "general-abcde", nc.Name)
	assert.Equal(t, "general", nc.NodePool)
	assert.Equal(t, []string{"m5.large", "us-west-2b", "spot"}, []string{nc.InstanceType, nc.Zone, nc.CapacityType})
	assert.Equal(t, "ip-10-0-2-9", nc.NodeName)
	assert.Equal(t, "aws:///us-west-2b/i-0002", nc.ProviderID)
	assert.Equal(t, time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC), nc.CreationTimestamp.UTC())
	assert.False(t, nc.Initialized)
	require.NotNil(t, nc.Consolidatable)
	assert.True(t, nc.Consolidatable.IsTrue())
	assert.Equal(t, time.Date(2025, 3, 1, 12, 0, 30, 0, time.UTC), nc.Consolidatable.LastTransitionTime.UTC())
	assert.True(t, nc.Drifted.IsTrue())
	assert.Equal(t, metav1.ConditionTrue, nc.Drifted.Status)
	assert.Equal(t, time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), nc.LastPodEventTime.UTC())
	assert.Equal(t, dur(720*time.Hour), nc.ExpireAfter)

	launching := b.NodeClaims[1]
	assert.Equal(t, []string{"c5.xlarge", "us-west-2c", "on-demand"}, []string{launching.InstanceType, launching.Zone, launching.CapacityType},
		"from single-valued requirements when the labels are not set yet")
	assert.Nil(t, launching.Consolidatable)
	assert.False(t, launching.Consolidatable.IsTrue())
}

func TestExistingNodes(t *testing.T) {
	b := load(t, "cluster")
	nodes := b.ExistingNodes()
	type row struct {
		Name        string
		NodePool    string
		Initialized bool
		Pods        []string
		Limits      map[string]int
	}
	var got []row
	for _, n := range nodes {
		got = append(got, row{n.Node.Name, n.NodePool, n.Initialized, names(n.Pods), n.VolumeAttachLimits})
	}
	assert.Equal(t, []row{
		// The launching NodeClaim, named after itself until it has a node.
		{Name: "general-fghij", NodePool: "general", Initialized: false, Pods: []string{}},
		// Label karpenter.sh/initialized=true, CSINode limits.
		{Name: "ip-10-0-1-7", NodePool: "general", Initialized: true, Pods: []string{"default/on-managed"}, Limits: map[string]int{"ebs.csi.aws.com": 25}},
		// NodeClaim says not initialized.
		{Name: "ip-10-0-2-9", NodePool: "general", Initialized: false, Pods: []string{}},
		// Managed, no NodeClaim, no karpenter.sh/initialized label: still starting.
		{Name: "ip-10-0-3-3", NodePool: "general", Initialized: false, Pods: []string{}},
		// Not managed by a NodePool.
		{Name: "static-1", NodePool: "", Initialized: true, Pods: []string{"kube-system/on-static"}},
	}, got)

	launching := nodes[0].Node
	assert.Equal(t, map[string]string{
		"karpenter.sh/nodepool":            "general",
		"kubernetes.io/hostname":           "general-fghij",
		"node.kubernetes.io/instance-type": "c5.xlarge",
		"topology.kubernetes.io/zone":      "us-west-2c",
		"karpenter.sh/capacity-type":       "on-demand",
	}, launching.Labels)
	assert.Empty(t, launching.Spec.Taints, "startup taints are expected to go")
	assert.Equal(t, qty("3920m"), launching.Status.Allocatable[corev1.ResourceCPU])
}

func TestStdin(t *testing.T) {
	in := strings.NewReader("apiVersion: v1\nkind: Pod\nmetadata: {name: piped}\nspec: {containers: [{name: a, image: pause}]}\n")
	b, err := manifest.Load([]string{"-", "testdata/requests.yaml"}, in)
	require.NoError(t, err)
	assert.Equal(t, []string{"default/piped", "default/limited"}, names(b.Pods))

	_, err = manifest.Load([]string{"-"}, strings.NewReader("kind: Pod\nmetadata: {name: [x]}\n"))
	assert.EqualError(t, err, "stdin: document 1 (Pod): metadata.name: got a list, want a string")
}

// Same files, same Bundle: loading twice gives identical results, and the order of unrelated
// objects in the input does not change NodePools, Nodes or NodeClaims.
func TestDeterministic(t *testing.T) {
	all := []string{"testdata/cluster", "testdata/workloads.yaml", "testdata/multidoc.yaml", "testdata/requests.yaml", "testdata/storage.yaml",
		"testdata/nodepool-v1.yaml", "testdata/provisioner.yaml", "testdata/nodepool-v1beta1.yaml"}
	first, err := manifest.Load(all, nil)
	require.NoError(t, err)
	for range 3 {
		again, err := manifest.Load(all, nil)
		require.NoError(t, err)
		assert.Equal(t, mustJSON(t, first), mustJSON(t, again))
		assert.Equal(t, mustJSON(t, first.ExistingNodes()), mustJSON(t, again.ExistingNodes()))
	}
	reversed := make([]string, len(all))
	for i, p := range all {
		reversed[len(all)-1-i] = p
	}
	other, err := manifest.Load(reversed, nil)
	require.NoError(t, err)
	assert.Equal(t, mustJSON(t, first.NodePools), mustJSON(t, other.NodePools))
	assert.Equal(t, mustJSON(t, first.Nodes), mustJSON(t, other.Nodes))
	assert.Equal(t, mustJSON(t, first.NodeClaims), mustJSON(t, other.NodeClaims))
	assert.Equal(t, mustJSON(t, first.PersistentVolumeClaims), mustJSON(t, other.PersistentVolumeClaims))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestOldAPIVersionsAreReadAsV1(t *testing.T) {
	b := parse(t, "old.yaml", `apiVersion: extensions/v1beta1
kind: Deployment
metadata: {name: old}
spec:
  replicas: 0
  template:
    metadata: {labels: {app: old}}
    spec: {containers: [{name: app, image: pause}]}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: old}
spec: {minAvailable: 1, selector: {matchLabels: {app: old}}}
`)
	assert.Empty(t, b.Pods, "replicas: 0")
	require.Len(t, b.PodDisruptionBudgets, 1)
	assert.Equal(t, "default", b.PodDisruptionBudgets[0].Namespace)
	assert.Equal(t, []string{
		"old.yaml: document 1 (Deployment default/old): extensions/v1beta1 is an old API version, read as apps/v1",
		"old.yaml: document 2 (PodDisruptionBudget default/old): policy/v1beta1 is an old API version, read as policy/v1",
	}, b.Warnings)
}

func TestJSONArrayAndStream(t *testing.T) {
	b := parse(t, "pods.json", `[
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
]
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}`)
	assert.Equal(t, []string{"default/a", "default/b", "default/c"}, names(b.Pods))
}

func TestNodeClaimInitializedLabel(t *testing.T) {
	b := parse(t, "nc.yaml", `apiVersion: karpenter.sh/v1beta1
kind: NodeClaim
metadata:
  name: old-claim
  labels: {karpenter.sh/nodepool: general, karpenter.sh/initialized: "true"}
spec: {}
`)
	require.Len(t, b.NodeClaims, 1)
	assert.True(t, b.NodeClaims[0].Initialized)
	assert.Equal(t, []string{"NodeClaim old-claim has no Node in the input and no status.allocatable: it is not counted as an existing node"}, b.Warnings)
	assert.Empty(t, b.ExistingNodes())
}

func TestNamespacesCarryTheirNameLabel(t *testing.T) {
	b := parse(t, "ns.yaml", `apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {env: prod}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: team-b}
spec: {containers: [{name: c, image: i}]}
`)
	require.Len(t, b.Namespaces, 2)
	assert.Equal(t, map[string]string{"env": "prod", "kubernetes.io/metadata.name": "team-a"}, b.Namespaces[0].Labels)
	assert.Equal(t, "team-b", b.Namespaces[1].Name, "a namespace the input uses but does not define")
	assert.Equal(t, map[string]string{"kubernetes.io/metadata.name": "team-b"}, b.Namespaces[1].Labels)
}

func TestYAMLFlowStyle(t *testing.T) {
	b := parse(t, "flow.yaml", "{apiVersion: v1, kind: Pod, metadata: {name: flow}, spec: {containers: [{name: c, image: i}]}}\n")
	assert.Equal(t, []string{"default/flow"}, names(b.Pods))
}

func TestStaticNodePool(t *testing.T) {
	b, err := manifest.Parse([]byte(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: static}
spec:
  replicas: 3
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
  limits: {nodes: 5}
`), "static.yaml")
	require.NoError(t, err)
	require.Len(t, b.NodePools, 1)
	require.NotNil(t, b.NodePools[0].Replicas)
	assert.Equal(t, int64(3), *b.NodePools[0].Replicas)
}
