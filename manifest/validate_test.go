package manifest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/manifest"
)

// podWith is a Pod document whose spec has extra, indented under spec.
func podWith(extra string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: web}}\nspec:\n  containers: [{name: app, image: pause}]\n" + extra
}

// The scheduling fields of a pod are checked as the API server checks them, each refusal
// naming the field.
func TestPodSpecValidation(t *testing.T) {
	const where = "pod.yaml: document 1 (Pod default/web): "
	cases := map[string]struct{ spec, want string }{
		"toleration operator": {
			"  tolerations: [{key: a, operator: Within}]\n",
			`spec.tolerations[0].operator: unknown toleration operator "Within" (use Equal or Exists)`,
		},
		"toleration of every key needs Exists": {
			"  tolerations: [{operator: Equal, value: x}]\n",
			"spec.tolerations[0].operator: must be Exists when key is empty (a toleration of every taint)",
		},
		"toleration value with Exists": {
			"  tolerations: [{key: a, operator: Exists, value: x}]\n",
			`spec.tolerations[0].value: must be empty when the operator is Exists, got "x"`,
		},
		"tolerationSeconds without NoExecute": {
			"  tolerations: [{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}]\n",
			"spec.tolerations[0].effect: must be NoExecute when tolerationSeconds is set",
		},
		"maxSkew zero": {
			"  topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]\n",
			"spec.topologySpreadConstraints[0].maxSkew: must be greater than zero, got 0",
		},
		"spread without a key": {
			"  topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]\n",
			"spec.topologySpreadConstraints[0].topologyKey: required",
		},
		"minDomains with ScheduleAnyway": {
			"  topologySpreadConstraints: [{maxSkew: 1, minDomains: 2, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]\n",
			"spec.topologySpreadConstraints[0].minDomains: can only be set when whenUnsatisfiable is DoNotSchedule",
		},
		"spread repeated": {
			"  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n  - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n",
			"spec.topologySpreadConstraints[1]: repeats the topologyKey and whenUnsatisfiable of spec.topologySpreadConstraints[0] (zone, DoNotSchedule)",
		},
		"node inclusion policy": {
			"  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Always}]\n",
			`spec.topologySpreadConstraints[0].nodeTaintsPolicy: unknown policy "Always" (use Honor or Ignore)`,
		},
		"spread selector": {
			"  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchExpressions: [{key: app, operator: In}]}}]\n",
			"spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
		},
		"node selector value": {
			"  nodeSelector: {disk: \"fast ssd\"}\n",
			`spec.nodeSelector.disk: "fast ssd" is not a valid label value: ` + labelValueRule,
		},
		"affinity without topologyKey": {
			"  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: web}}}]}}\n",
			"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: required",
		},
		"affinity weight": {
			"  affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, podAffinityTerm: {topologyKey: zone}}]}}\n",
			"spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be between 1 and 100, got 0",
		},
		"affinity namespace": {
			"  affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone, namespaces: [Shop]}]}}\n",
			`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaces[0]: "Shop" is not a valid namespace name (a DNS label): ` + dnsLabelRule,
		},
		"node affinity operator": {
			"  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Near}]}]}}}\n",
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]: ",
		},
		"ephemeral claim storage": {
			"  volumes: [{name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 0}}}}}}]\n",
			"spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests.storage: must be greater than zero, got 0",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := manifest.Parse([]byte(podWith(c.spec)), "pod.yaml")
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), where+c.want), "got %s\nwant %s", err, where+c.want)
		})
	}
}

const (
	labelValueRule = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
		`(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
	dnsLabelRule = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character ` +
		`(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
)

// Metadata: template labels, annotation keys, a Namespace's name, a claim's storage.
func TestMetadataValidation(t *testing.T) {
	cases := map[string]struct{ doc, want string }{
		"template label": {
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: \"web/1\"}}\n    spec: {containers: [{name: a, image: pause}]}\n",
			`x.yaml: document 1 (Deployment default/web): spec.template.metadata.labels.app: "web/1" is not a valid label value: ` + labelValueRule,
		},
		"annotation key": {
			"apiVersion: v1\nkind: Pod\nmetadata: {name: web, annotations: {\"what is this\": x}}\nspec: {containers: [{name: a, image: pause}]}\n",
			`x.yaml: document 1 (Pod default/web): metadata.annotations[what is this]: "what is this" is not a valid annotation key: `,
		},
		"namespace object name": {
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: team.a}\n",
			`x.yaml: document 1 (Namespace team.a): metadata.name: "team.a" is not a valid name (a DNS label): must not contain dots`,
		},
		"claim storage": {
			"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {resources: {requests: {storage: -5Gi}}}\n",
			`x.yaml: document 1 (PersistentVolumeClaim default/data): spec.resources.requests.storage: must be greater than zero, got -5Gi`,
		},
		"node capacity": {
			"apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus: {capacity: {memory: -1Gi}}\n",
			`x.yaml: document 1 (Node node-1): status.capacity.memory: must not be negative, got -1Gi`,
		},
		"node claim allocatable": {
			"apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: general-abc}\nspec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}, requirements: []}\nstatus: {allocatable: {pods: \"-3\"}}\n",
			`x.yaml: document 1 (NodeClaim general-abc): status.allocatable.pods: must not be negative, got -3`,
		},
		"karpenter kind in an unknown version": {
			"apiVersion: karpenter.sh/v2\nkind: NodePool\nmetadata: {name: general}\n",
			`x.yaml: document 1 (NodePool general): apiVersion: unknown version "karpenter.sh/v2" of NodePool (known versions: karpenter.sh/v1, karpenter.sh/v1beta1)`,
		},
		"core kind in an unknown version": {
			"apiVersion: v2\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: a, image: pause}]}\n",
			`x.yaml: document 1 (Pod default/web): apiVersion: unknown version "v2" of Pod (known versions: v1)`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := manifest.Parse([]byte(c.doc), "x.yaml")
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), c.want), "got %s\nwant %s", err, c.want)
		})
	}
}

// An older version of a built-in kind is read as the current one, with a warning.
func TestOldVersionsAreRead(t *testing.T) {
	b := parse(t, "old.yaml", "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: a, image: pause}]}\n"+
		"---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}\n")
	assert.Len(t, b.Pods, 2)
	assert.Len(t, b.PodDisruptionBudgets, 1)
	assert.Equal(t, []string{
		"old.yaml: document 1 (Deployment default/web): extensions/v1beta1 is an old API version, read as apps/v1",
		"old.yaml: document 2 (PodDisruptionBudget default/web): policy/v1beta1 is an old API version, read as policy/v1",
	}, b.Warnings)
}

// A Node whose allocatable is more than its capacity offers its capacity, with a warning.
func TestNodeAllocatableOverCapacity(t *testing.T) {
	b := load(t, "node-over-capacity.yaml")
	require.Len(t, b.Nodes, 1)
	alloc := b.Nodes[0].Status.Allocatable
	assert.Equal(t, "4", alloc.Cpu().String())
	assert.Equal(t, "15Gi", alloc.Memory().String(), "within capacity: kept")
	assert.Equal(t, []string{"testdata/node-over-capacity.yaml: document 1 (Node ip-10-0-0-1): status.allocatable.cpu: 64 is more than the capacity 4: using 4"}, b.Warnings)
}
