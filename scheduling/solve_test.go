package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

// Label keys, short for the tables.
const (
	zone         = "topology.kubernetes.io/zone"
	capacityType = "karpenter.sh/capacity-type"
	instanceType = "node.kubernetes.io/instance-type"
	arch         = "kubernetes.io/arch"
)

func TestSolveRequests(t *testing.T) {
	tiny := offered(tb.Type("tiny", "8", "16Gi", 3), 0.40, 0.16)
	run(t, []scenario{{
		name: "containers' requests add up",
		pods: pods(tb.Pod("app").CPU("1").Container("1500m", "")),
		want: []string{"default-1 c4 us-west-2a spot: app"},
	}, {
		name: "an init container larger than the containers sets the request",
		pods: pods(tb.Pod("app").CPU("1").InitContainer("3", "")),
		want: []string{"default-1 c4 us-west-2a spot: app"},
	}, {
		name: "a smaller init container adds nothing",
		pods: pods(tb.Pod("app").CPU("1500m").InitContainer("1", "")),
		want: []string{"default-1 c2 us-west-2a spot: app"},
	}, {
		name: "a sidecar runs beside the containers and adds to them",
		pods: pods(tb.Pod("app").CPU("1500m").Sidecar("1", "")),
		want: []string{"default-1 c4 us-west-2a spot: app"},
	}, {
		name: "pod overhead adds to the requests",
		pods: pods(tb.Pod("app").CPU("1900m").Overhead(corev1.ResourceCPU, "200m")),
		want: []string{"default-1 c4 us-west-2a spot: app"},
	}, {
		name: "pod-level requests replace the containers' sum",
		pods: pods(tb.Pod("app").CPU("500m").PodLevelRequest(corev1.ResourceCPU, "3")),
		want: []string{"default-1 c4 us-west-2a spot: app"},
	}, {
		name: "memory alone can decide the type",
		pods: pods(tb.Pod("app").CPU("1").Memory("6Gi")),
		want: []string{"default-1 c4 us-west-2a spot: app"},
	}, {
		name:  "every pod uses one of the node's pods",
		pods:  pods(tb.Pod("web").CPU("100m").Replicas(5)),
		pools: pools(tb.NodePool("default", tiny).Obj()),
		want: []string{
			"default-1 tiny us-west-2a spot: web-0 web-1 web-2",
			"default-2 tiny us-west-2a spot: web-3 web-4",
		},
	}, {
		name:  "an extended resource counts like any other",
		pods:  pods(tb.Pod("train").CPU("1").GPU("1").Replicas(2), tb.Pod("web").CPU("1")),
		pools: pools(tb.NodePool("default", c2(), c4(), g4()).Obj()),
		want: []string{
			"default-1 g4 us-west-2a spot: train-0 web",
			"default-2 g4 us-west-2a spot: train-1",
		},
	}, {
		name: "no type has the extended resource",
		pods: pods(tb.Pod("train").CPU("1").GPU("1"), tb.Pod("web").CPU("1")),
		want: []string{
			"default-1 c2 us-west-2a spot: web",
			"unschedulable train: Resources",
		},
		reasons: map[string]string{"train": "nodepool default: no instance type has 1 nvidia.com/gpu allocatable (largest: 0"},
	}})
}

func TestSolveValidation(t *testing.T) {
	negative := tb.Pod("negative").CPU("1").Obj()
	negative.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("-1")
	noContainers := tb.Pod("empty").Obj()
	noContainers.Spec.Containers = nil
	run(t, []scenario{{
		name: "invalid pods are unschedulable with constraint Validation while the rest plan",
		pods: pods(
			tb.Pod("fields").CPU("1").MatchFieldsTerm(tb.In("metadata.name", "node-1")),
			tb.Pod("bad-value").CPU("1").NodeSelector("team", "not a value!"),
			tb.Pod("bad-operator").CPU("1").RequiredTerm(corev1.NodeSelectorRequirement{Key: "team", Operator: "Near", Values: []string{"x"}}),
			tb.Pod("restricted").CPU("1").NodeSelector("karpenter.sh/nodeclaim", "default-1"),
			tb.Pod("no-terms").CPU("1").RequiredTerm(),
			negative, noContainers,
			tb.Pod("web").CPU("1"),
		),
		want: []string{
			"default-1 c2 us-west-2a spot: web",
			"unschedulable bad-operator: Validation",
			"unschedulable bad-value: Validation",
			"unschedulable empty: Validation",
			"unschedulable fields: Validation",
			"unschedulable negative: Validation",
			"unschedulable no-terms: Validation",
			"unschedulable restricted: Validation",
		},
		reasons: map[string]string{
			"fields":       "matchFields",
			"bad-value":    `"not a value!" is not a valid label value`,
			"bad-operator": `unknown operator "Near"`,
			"restricted":   "karpenter.sh/nodeclaim",
			"no-terms":     "no node can match",
			"negative":     "negative",
			"empty":        "no containers",
		},
	}, {
		name: "a pod given twice is planned once",
		pods: pods(tb.Pod("web").CPU("1"), tb.Pod("web").CPU("1")),
		want: []string{
			"default-1 c2 us-west-2a spot: web",
			"unschedulable web: Validation",
		},
		reasons: map[string]string{"web": "given more than once"},
	}})
}

func TestSolveNodeAffinity(t *testing.T) {
	ml := tb.NodePool("ml", c2(), c4()).Label("team", "ml").Obj()
	teams := tb.NodePool("teams", c2(), c4()).Requirement("team", corev1.NodeSelectorOpIn, "ml", "web").Obj()
	run(t, []scenario{{
		name: "every OR'ed term is considered: the first is impossible, the second works",
		pods: pods(tb.Pod("app").CPU("1").
			RequiredTerm(tb.In(instanceType, "x9")).
			RequiredTerm(tb.In(zone, "us-west-2b"))),
		want: []string{"default-1 c2 us-west-2b spot: app"},
	}, {
		name: "the cheapest of the OR'ed terms wins",
		pods: pods(tb.Pod("app").CPU("1").
			RequiredTerm(tb.In(capacityType, "on-demand")).
			RequiredTerm(tb.In(zone, "us-west-2b"))),
		want: []string{"default-1 c2 us-west-2b spot: app"},
	}, {
		name: "the first term names a label no nodepool defines, the second works",
		pods: pods(tb.Pod("app").CPU("1").
			RequiredTerm(tb.In("team", "ml")).
			RequiredTerm(tb.In(capacityType, "on-demand"))),
		want: []string{"default-1 c2 us-west-2a on-demand: app"},
	}, {
		name: "the node selector holds in every term",
		pods: pods(tb.Pod("app").CPU("1").NodeSelector(capacityType, "on-demand").
			RequiredTerm(tb.In(zone, "us-west-2b"))),
		want: []string{"default-1 c2 us-west-2b on-demand: app"},
	}, {
		name: "no term can be met",
		pods: pods(tb.Pod("app").CPU("1").RequiredTerm(tb.In(zone, "eu-west-1a")).RequiredTerm(tb.In(arch, "s390x"))),
		want: []string{"unschedulable app: NodeAffinity"},
	}, {
		name: "a preferred term is honoured",
		pods: pods(tb.Pod("app").CPU("1").PreferredTerm(10, tb.In(zone, "us-west-2b"))),
		want: []string{"default-1 c2 us-west-2b spot: app"},
	}, {
		name: "the heaviest preferred term is honoured",
		pods: pods(tb.Pod("app").CPU("1").
			PreferredTerm(1, tb.In(zone, "us-west-2b")).
			PreferredTerm(50, tb.In(capacityType, "on-demand"))),
		want: []string{"default-1 c2 us-west-2a on-demand: app"},
	}, {
		name: "an impossible preferred term is relaxed",
		pods: pods(tb.Pod("app").CPU("1").PreferredTerm(10, tb.In(instanceType, "x9"))),
		want: []string{"default-1 c2 us-west-2a spot: app"},
	}, {
		name: "preferred terms are relaxed heaviest first until one works",
		pods: pods(tb.Pod("app").CPU("1").
			PreferredTerm(90, tb.In(instanceType, "x9")).
			PreferredTerm(50, tb.In(capacityType, "on-demand")).
			PreferredTerm(10, tb.In(zone, "us-west-2b"))),
		want: []string{"default-1 c2 us-west-2a on-demand: app"},
	}, {
		name: "a preference that contradicts the requirement is ignored",
		pods: pods(tb.Pod("app").CPU("1").NodeSelector(zone, "us-west-2a").PreferredTerm(10, tb.In(zone, "us-west-2b"))),
		want: []string{"default-1 c2 us-west-2a spot: app"},
	}, {
		name:  "a custom label must be defined by the nodepool: template label",
		pods:  pods(tb.Pod("train").CPU("1").NodeSelector("team", "ml"), tb.Pod("web").CPU("1500m")),
		pools: pools(tb.NodePool("default", c2()).Weight(10).Obj(), ml),
		want: []string{
			"default-1 c2 us-west-2a spot: web",
			"ml-1 c2 us-west-2a spot: train",
		},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Equal(t, "ml", nodeClaim(t, p, "ml-1").Labels["team"])
		},
	}, {
		name:  "a custom label must be defined by the nodepool: requirement",
		pods:  pods(tb.Pod("web").CPU("1").NodeSelector("team", "web")),
		pools: pools(teams),
		want:  []string{"teams-1 c2 us-west-2a spot: web"},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Equal(t, "web", nodeClaim(t, p, "teams-1").Labels["team"])
		},
	}, {
		name: "a custom label no nodepool defines",
		pods: pods(tb.Pod("train").CPU("1").NodeSelector("team", "ml")),
		want: []string{"unschedulable train: NodeAffinity"},
		reasons: map[string]string{
			"train": `nodepool default: label "team" is not defined by the nodepool`,
		},
	}, {
		name: "another pod's NotIn on a node does not define a custom label",
		pods: pods(
			tb.Pod("a-notin").CPU("1").RequiredTerm(tb.NotIn("team", "db")),
			tb.Pod("b-web").CPU("1").NodeSelector("team", "web"),
		),
		want: []string{
			"default-1 c2 us-west-2a spot: a-notin",
			"unschedulable b-web: NodeAffinity",
		},
	}, {
		name: "a selector on a beta label name means the label",
		pods: pods(tb.Pod("app").CPU("1").NodeSelector("failure-domain.beta.kubernetes.io/zone", "us-west-2b")),
		want: []string{"default-1 c2 us-west-2b spot: app"},
	}, {
		name: "the region follows from the zones",
		pods: pods(tb.Pod("app").CPU("1").NodeSelector("topology.kubernetes.io/region", "us-west-2"), tb.Pod("eu").CPU("1").NodeSelector("topology.kubernetes.io/region", "eu-west-1")),
		want: []string{"default-1 c2 us-west-2a spot: app", "unschedulable eu: NodeAffinity"},
	}, {
		name:  "a nodepool requiring a custom label to exist gives its nodes one",
		pods:  pods(tb.Pod("app").CPU("1").RequiredTerm(tb.Exists("team")), tb.Pod("big").CPU("1").RequiredTerm(corev1.NodeSelectorRequirement{Key: "tier", Operator: corev1.NodeSelectorOpGt, Values: []string{"2"}})),
		pools: pools(tb.NodePool("default", c2()).Requirement("team", corev1.NodeSelectorOpExists).Requirement("tier", corev1.NodeSelectorOpExists).Obj()),
		want:  []string{"default-1 c2 us-west-2a spot: app big"},
		check: func(t *testing.T, p scheduling.Plan) {
			labels := nodeClaim(t, p, "default-1").Labels
			require.Equal(t, "0", labels["team"])
			require.Equal(t, "3", labels["tier"])
		},
	}, {
		name: "NotIn on an undefined label is met by a node without it",
		pods: pods(tb.Pod("app").CPU("1").RequiredTerm(tb.NotIn("team", "db"))),
		want: []string{"default-1 c2 us-west-2a spot: app"},
	}, {
		name:  "well-known labels come from the instance types",
		pods:  pods(tb.Pod("arm").CPU("1").NodeSelector(arch, "arm64"), tb.Pod("x86").CPU("3").NodeSelector(arch, "amd64")),
		pools: pools(tb.NodePool("default", c2(), c4(), a4()).Obj()),
		want: []string{
			"default-1 c4 us-west-2a spot: x86",
			"default-2 a4 us-west-2a spot: arm",
		},
	}, {
		name: "labels of the instance types are defined too",
		pods: pods(tb.Pod("app").CPU("1").NodeSelector("example.com/family", "big")),
		pools: pools(tb.NodePool("default", c2(),
			offered(tb.Type("c4f", "4", "8Gi", 20).Label("example.com/family", "big"), 0.20, 0.08)).Obj()),
		want: []string{"default-1 c4f us-west-2a spot: app"},
	}})
}

func TestSolveTaints(t *testing.T) {
	gpu := func() *tb.NodePoolBuilder {
		return tb.NodePool("gpu", c2()).Taint("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule)
	}
	run(t, []scenario{{
		name:    "a NoSchedule taint keeps pods that do not tolerate it away",
		pods:    pods(tb.Pod("app").CPU("1")),
		pools:   pools(gpu().Obj()),
		want:    []string{"unschedulable app: Taints"},
		reasons: map[string]string{"app": "nodepool gpu: taint nvidia.com/gpu=true:NoSchedule not tolerated"},
	}, {
		name:  "a pod tolerating the taint uses the nodepool",
		pods:  pods(tb.Pod("app").CPU("1").Toleration("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule)),
		pools: pools(gpu().Obj()),
		want:  []string{"gpu-1 c2 us-west-2a spot: app"},
	}, {
		name:  "a toleration with Exists and no value tolerates every value",
		pods:  pods(tb.Pod("app").CPU("1").Toleration("nvidia.com/gpu", "", corev1.TaintEffectNoSchedule)),
		pools: pools(gpu().Obj()),
		want:  []string{"gpu-1 c2 us-west-2a spot: app"},
	}, {
		name:  "a toleration of another value does not tolerate",
		pods:  pods(tb.Pod("app").CPU("1").Toleration("nvidia.com/gpu", "false", corev1.TaintEffectNoSchedule)),
		pools: pools(gpu().Obj()),
		want:  []string{"unschedulable app: Taints"},
	}, {
		name:  "a NoExecute taint keeps pods away too",
		pods:  pods(tb.Pod("app").CPU("1")),
		pools: pools(tb.NodePool("batch", c2()).Taint("batch", "", corev1.TaintEffectNoExecute).Obj()),
		want:  []string{"unschedulable app: Taints"},
	}, {
		name: "a PreferNoSchedule taint is avoided while another nodepool works",
		pods: pods(tb.Pod("app").CPU("1")),
		pools: pools(
			tb.NodePool("soft", c2()).Weight(10).Taint("soft", "", corev1.TaintEffectPreferNoSchedule).Obj(),
			tb.NodePool("plain", c4()).Obj()),
		want: []string{"plain-1 c4 us-west-2a spot: app"},
	}, {
		name:  "a PreferNoSchedule taint is tolerated after relaxation",
		pods:  pods(tb.Pod("app").CPU("1")),
		pools: pools(tb.NodePool("soft", c2()).Taint("soft", "", corev1.TaintEffectPreferNoSchedule).Obj()),
		want:  []string{"soft-1 c2 us-west-2a spot: app"},
	}, {
		name:  "startup taints are ignored for placement and listed apart",
		pods:  pods(tb.Pod("app").CPU("1")),
		pools: pools(tb.NodePool("default", c2()).StartupTaint("node.cilium.io/agent-not-ready", "true", corev1.TaintEffectNoExecute).Obj()),
		want:  []string{"default-1 c2 us-west-2a spot: app"},
		check: func(t *testing.T, p scheduling.Plan) {
			nc := nodeClaim(t, p, "default-1")
			require.Empty(t, nc.Taints)
			require.Equal(t, []corev1.Taint{{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoExecute}}, nc.StartupTaints)
		},
	}, {
		name:     "an existing node's taint is respected",
		pods:     pods(tb.Pod("app").CPU("1")),
		existing: nodes(tb.Node("n1", "4", "8Gi", 20).Taint("dedicated", "db", corev1.TaintEffectNoSchedule).Obj()),
		want:     []string{"default-1 c2 us-west-2a spot: app"},
	}})
}

func TestSolveNodePoolChoice(t *testing.T) {
	run(t, []scenario{{
		name: "the highest weight wins over a cheaper nodepool",
		pods: pods(tb.Pod("app").CPU("1")),
		pools: pools(
			tb.NodePool("cheap", c2()).Obj(),
			tb.NodePool("reserved", c8()).Weight(10).Obj()),
		want: []string{"reserved-1 c8 us-west-2a spot: app"},
	}, {
		name: "equal weights: the name first in order wins",
		pods: pods(tb.Pod("app").CPU("1")),
		pools: pools(
			tb.NodePool("b-pool", c2()).Weight(5).Obj(),
			tb.NodePool("a-pool", c8()).Weight(5).Obj()),
		want: []string{"a-pool-1 c8 us-west-2a spot: app"},
	}, {
		name: "a heavier nodepool that cannot take the pod is skipped",
		pods: pods(tb.Pod("app").CPU("1").NodeSelector(arch, "amd64")),
		pools: pools(
			tb.NodePool("arm", a4()).Weight(10).Obj(),
			tb.NodePool("default", c2()).Obj()),
		want: []string{"default-1 c2 us-west-2a spot: app"},
	}, {
		name:  "nodepool requirements narrow the offerings",
		pods:  pods(tb.Pod("app").CPU("1")),
		pools: pools(tb.NodePool("default", c2()).Requirement(capacityType, corev1.NodeSelectorOpIn, "on-demand").Requirement(zone, corev1.NodeSelectorOpNotIn, "us-west-2a").Obj()),
		want:  []string{"default-1 c2 us-west-2b on-demand: app"},
	}, {
		name: "pods spread over nodepools by what each can take",
		pods: pods(tb.Pod("arm").CPU("1").NodeSelector(arch, "arm64"), tb.Pod("x86").CPU("1").NodeSelector(arch, "amd64")),
		pools: pools(
			tb.NodePool("arm", a4()).Weight(10).Obj(),
			tb.NodePool("default", c2()).Obj()),
		want: []string{
			"default-1 c2 us-west-2a spot: x86",
			"arm-1 a4 us-west-2a spot: arm",
		},
	}})
}

func TestSolveLimits(t *testing.T) {
	c4pool := func() *tb.NodePoolBuilder { return tb.NodePool("default", c4()) }
	run(t, []scenario{{
		name:  "a cpu limit blocks part of a batch",
		pods:  pods(tb.Pod("web").CPU("3").Replicas(3)),
		pools: pools(c4pool().Limit(corev1.ResourceCPU, "8").Obj()),
		want: []string{
			"default-1 c4 us-west-2a spot: web-0",
			"default-2 c4 us-west-2a spot: web-1",
			"unschedulable web-2: Limits",
		},
		reasons: map[string]string{"web-2": "nodepool default: limits (cpu 8) leave no room for a node that fits the pod"},
	}, {
		name:     "existing nodes of the nodepool count against its limits",
		pods:     pods(tb.Pod("web").CPU("3").Replicas(3)),
		pools:    pools(c4pool().Limit(corev1.ResourceCPU, "8").Obj()),
		existing: nodes(tb.Node("n1", "4", "8Gi", 20).NodePool("default").Pods(tb.Pod("running").CPU("4").Obj()).Obj()),
		want: []string{
			"default-1 c4 us-west-2a spot: web-0",
			"unschedulable web-1: Limits",
			"unschedulable web-2: Limits",
		},
	}, {
		name:     "existing nodes of another nodepool do not count",
		pods:     pods(tb.Pod("web").CPU("3").Replicas(2)),
		pools:    pools(c4pool().Limit(corev1.ResourceCPU, "8").Obj()),
		existing: nodes(tb.Node("n1", "4", "8Gi", 20).NodePool("other").Pods(tb.Pod("running").CPU("4").Obj()).Obj()),
		want: []string{
			"default-1 c4 us-west-2a spot: web-0",
			"default-2 c4 us-west-2a spot: web-1",
		},
	}, {
		name:     "existing nodes already over the limit leave nothing",
		pods:     pods(tb.Pod("web").CPU("3")),
		pools:    pools(c4pool().Limit(corev1.ResourceCPU, "4").Obj()),
		existing: nodes(tb.Node("n1", "8", "16Gi", 20).NodePool("default").Pods(tb.Pod("running").CPU("8").Obj()).Obj()),
		want:     []string{"unschedulable web: Limits"},
		reasons:  map[string]string{"web": "nodepool default: limits reached (cpu 8 of 4 taken)"},
	}, {
		name:  "a nodes limit",
		pods:  pods(tb.Pod("web").CPU("3").Replicas(3)),
		pools: pools(c4pool().Limit("nodes", "1").Obj()),
		want: []string{
			"default-1 c4 us-west-2a spot: web-0",
			"unschedulable web-1: Limits",
			"unschedulable web-2: Limits",
		},
		reasons: map[string]string{"web-1": "nodepool default: limits reached (nodes 1 of 1 taken)"},
	}, {
		name:  "a memory limit",
		pods:  pods(tb.Pod("db").CPU("1").Memory("5Gi").Replicas(2)),
		pools: pools(c4pool().Limit(corev1.ResourceMemory, "12Gi").Obj()),
		want: []string{
			"default-1 c4 us-west-2a spot: db-0",
			"unschedulable db-1: Limits",
		},
	}, {
		name:  "a limit on an extended resource",
		pods:  pods(tb.Pod("train").CPU("1").GPU("1").Replicas(2)),
		pools: pools(tb.NodePool("gpu", g4()).Limit("nvidia.com/gpu", "1").Obj()),
		want: []string{
			"gpu-1 g4 us-west-2a spot: train-0",
			"unschedulable train-1: Limits",
		},
	}, {
		name: "pods the heavier nodepool's limits block go to the next",
		pods: pods(tb.Pod("web").CPU("3").Replicas(2)),
		pools: pools(
			tb.NodePool("first", c4()).Weight(10).Limit("nodes", "1").Obj(),
			tb.NodePool("second", c4()).Obj()),
		want: []string{
			"first-1 c4 us-west-2a spot: web-0",
			"second-1 c4 us-west-2a spot: web-1",
		},
	}})
}

func TestSolveExistingNodes(t *testing.T) {
	n1 := func() *tb.NodeBuilder {
		return tb.Node("n1", "4", "8Gi", 20).Zone("us-west-2a").Label(arch, "amd64")
	}
	run(t, []scenario{{
		name:     "an existing node with room is used before a new one",
		pods:     pods(tb.Pod("web").CPU("1").Replicas(2), tb.Pod("big").CPU("2")),
		existing: nodes(n1().Pods(tb.Pod("running").CPU("1").Obj()).Obj()),
		want: []string{
			"default-1 c2 us-west-2a spot: web-1",
			"existing n1: big web-0",
		},
	}, {
		name: "initialized nodes are used before nodes still starting",
		pods: pods(tb.Pod("web").CPU("1")),
		existing: nodes(
			tb.Node("a-starting", "4", "8Gi", 20).Uninitialized().Obj(),
			tb.Node("b-ready", "4", "8Gi", 20).Obj()),
		want: []string{"existing b-ready: web"},
	}, {
		name:     "a node still starting is used before a new one",
		pods:     pods(tb.Pod("web").CPU("1")),
		existing: nodes(tb.Node("starting", "4", "8Gi", 20).Uninitialized().Obj()),
		want:     []string{"existing starting: web"},
	}, {
		name:  "a node still starting is used despite its not-ready taint and its NodePool's startup taints",
		pods:  pods(tb.Pod("web").CPU("1").Replicas(2)),
		pools: pools(tb.NodePool("default", c2()).StartupTaint("node.cilium.io/agent-not-ready", "true", corev1.TaintEffectNoExecute).Obj()),
		existing: nodes(tb.Node("starting", "1", "2Gi", 20).Uninitialized().NodePool("default").
			Taint("node.kubernetes.io/not-ready", "", corev1.TaintEffectNoSchedule).
			Taint("node.cilium.io/agent-not-ready", "true", corev1.TaintEffectNoExecute).Obj()),
		want: []string{"default-1 c2 us-west-2a spot: web-1", "existing starting: web-0"},
	}, {
		name:     "a node still starting keeps its other taints",
		pods:     pods(tb.Pod("web").CPU("1")),
		existing: nodes(tb.Node("starting", "4", "8Gi", 20).Uninitialized().Taint("dedicated", "db", corev1.TaintEffectNoSchedule).Obj()),
		want:     []string{"default-1 c2 us-west-2a spot: web"},
	}, {
		name:     "an initialized node's not-ready taint is respected",
		pods:     pods(tb.Pod("web").CPU("1")),
		existing: nodes(tb.Node("broken", "4", "8Gi", 20).Taint("node.kubernetes.io/not-ready", "", corev1.TaintEffectNoSchedule).Obj()),
		want:     []string{"default-1 c2 us-west-2a spot: web"},
	}, {
		name:     "a node still starting keeps room for the daemons that will run there",
		pods:     pods(tb.Pod("web").CPU("1500m")),
		existing: nodes(tb.Node("starting", "2", "4Gi", 20).Uninitialized().Obj()),
		daemons:  daemons(tb.Pod("agent").Namespace("kube-system").CPU("1").Obj()),
		want:     []string{"default-1 c4 us-west-2a spot: web"},
	}, {
		name: "a daemon already running on a starting node is not counted twice",
		pods: pods(tb.Pod("web").CPU("1")),
		existing: nodes(tb.Node("starting", "2", "4Gi", 20).Uninitialized().Pods(func() *corev1.Pod {
			p := tb.Pod("agent-x7k2p").Namespace("kube-system").CPU("1").Obj()
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent"}}
			return p
		}()).Obj()),
		daemons: daemons(tb.Pod("agent").Namespace("kube-system").CPU("1").Obj()),
		want:    []string{"existing starting: web"},
	}, {
		name:     "initialized nodes already run their daemons",
		pods:     pods(tb.Pod("web").CPU("1500m")),
		existing: nodes(tb.Node("ready", "2", "4Gi", 20).Obj()),
		daemons:  daemons(tb.Pod("agent").Namespace("kube-system").CPU("1").Obj()),
		want:     []string{"existing ready: web"},
	}, {
		name:     "an existing node that does not match the selector is passed over",
		pods:     pods(tb.Pod("web").CPU("1").NodeSelector(zone, "us-west-2b")),
		existing: nodes(n1().Obj()),
		want:     []string{"default-1 c2 us-west-2b spot: web"},
	}, {
		name:     "an existing node matches a custom label it carries",
		pods:     pods(tb.Pod("train").CPU("1").NodeSelector("team", "ml")),
		existing: nodes(n1().Label("team", "ml").Obj()),
		want:     []string{"existing n1: train"},
	}, {
		name:     "a cordoned node takes no pods",
		pods:     pods(tb.Pod("web").CPU("1")),
		existing: nodes(n1().Cordoned().Obj()),
		want:     []string{"default-1 c2 us-west-2a spot: web"},
	}, {
		name: "finished pods free their room",
		pods: pods(tb.Pod("web").CPU("3")),
		existing: nodes(n1().Pods(func() *corev1.Pod {
			p := tb.Pod("done").CPU("4").Obj()
			p.Status.Phase = corev1.PodSucceeded
			return p
		}()).Obj()),
		want: []string{"existing n1: web"},
	}, {
		name:     "a host port taken on the existing node sends the pod to a new one",
		pods:     pods(tb.Pod("web").CPU("1").HostPort(8080)),
		existing: nodes(n1().Pods(tb.Pod("running").HostPort(8080).Obj()).Obj()),
		want:     []string{"default-1 c2 us-west-2a spot: web"},
	}, {
		name:     "existing node names are not reused for new nodes",
		pods:     pods(tb.Pod("big").CPU("3")),
		existing: nodes(tb.Node("default-1", "2", "4Gi", 20).Obj()),
		want:     []string{"default-2 c4 us-west-2a spot: big"},
	}})
}

func TestSolveDaemonSets(t *testing.T) {
	agent := func() *tb.PodBuilder { return tb.Pod("agent").Namespace("kube-system").CPU("1") }
	run(t, []scenario{{
		name:    "daemon overhead makes a larger type necessary",
		pods:    pods(tb.Pod("app").CPU("1500m")),
		daemons: daemons(agent().Obj()),
		want:    []string{"default-1 c4 us-west-2a spot: app"},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Contains(t, nodeClaim(t, p, "default-1").Notes, "daemonsets use (cpu 1) of the allocatable")
		},
	}, {
		name:    "a daemon that does not tolerate the nodepool's taint takes no room",
		pods:    pods(tb.Pod("app").CPU("1500m").Toleration("dedicated", "", corev1.TaintEffectNoSchedule)),
		pools:   pools(tb.NodePool("default", c2(), c4()).Taint("dedicated", "ml", corev1.TaintEffectNoSchedule).Obj()),
		daemons: daemons(agent().Obj()),
		want:    []string{"default-1 c2 us-west-2a spot: app"},
	}, {
		name:    "a daemon that tolerates the nodepool's taint takes room",
		pods:    pods(tb.Pod("app").CPU("1500m").Toleration("dedicated", "", corev1.TaintEffectNoSchedule)),
		pools:   pools(tb.NodePool("default", c2(), c4()).Taint("dedicated", "ml", corev1.TaintEffectNoSchedule).Obj()),
		daemons: daemons(agent().TolerateAll().Obj()),
		want:    []string{"default-1 c4 us-west-2a spot: app"},
	}, {
		name:    "a PreferNoSchedule taint does not keep a daemon away",
		pods:    pods(tb.Pod("app").CPU("1500m")),
		pools:   pools(tb.NodePool("default", c2(), c4()).Taint("soft", "", corev1.TaintEffectPreferNoSchedule).Obj()),
		daemons: daemons(agent().Obj()),
		want:    []string{"default-1 c4 us-west-2a spot: app"},
	}, {
		name:    "a daemon for another architecture takes no room",
		pods:    pods(tb.Pod("app").CPU("1500m")),
		daemons: daemons(agent().NodeSelector(arch, "arm64").Obj()),
		want:    []string{"default-1 c2 us-west-2a spot: app"},
	}, {
		name:    "a daemon only on some types steers the choice",
		pods:    pods(tb.Pod("app").CPU("1500m")),
		pools:   pools(tb.NodePool("default", c2(), c4(), offered(tb.Type("a2", "2", "4Gi", 10).Arch("arm64"), 0.12, 0.05)).Obj()),
		daemons: daemons(agent().NodeSelector(arch, "amd64").Obj()),
		want:    []string{"default-1 a2 us-west-2a spot: app"},
	}, {
		name:    "daemons use the node's pods too",
		pods:    pods(tb.Pod("web").CPU("100m").Replicas(3)),
		pools:   pools(tb.NodePool("default", offered(tb.Type("tiny", "8", "16Gi", 3), 0.40, 0.16)).Obj()),
		daemons: daemons(agent().CPU("100m").Obj()),
		want: []string{
			"default-1 tiny us-west-2a spot: web-0 web-1",
			"default-2 tiny us-west-2a spot: web-2",
		},
	}, {
		name:    "a daemon's host port is taken on every node it runs on",
		pods:    pods(tb.Pod("exporter").CPU("100m").HostPort(9100), tb.Pod("web").CPU("1")),
		daemons: daemons(agent().HostPort(9100).Obj()),
		want: []string{
			"default-1 c2 us-west-2a spot: web",
			"unschedulable exporter: HostPorts",
		},
		reasons: map[string]string{"exporter": "nodepool default: host port 9100/TCP is taken by a daemon"},
	}})
}

func TestSolveHostPorts(t *testing.T) {
	pod := func(name, ip string, port int32, protocol corev1.Protocol) *tb.PodBuilder {
		return tb.Pod(name).CPU("100m").HostPortOn(ip, port, protocol)
	}
	run(t, []scenario{{
		name: "the same port and protocol cannot share a node",
		pods: pods(pod("a", "", 80, ""), pod("b", "", 80, "TCP")),
		want: []string{"default-1 c2 us-west-2a spot: a", "default-2 c2 us-west-2a spot: b"},
	}, {
		name: "different protocols share a node",
		pods: pods(pod("a", "", 53, "TCP"), pod("b", "", 53, "UDP")),
		want: []string{"default-1 c2 us-west-2a spot: a b"},
	}, {
		name: "different ports share a node",
		pods: pods(pod("a", "", 80, ""), pod("b", "", 443, "")),
		want: []string{"default-1 c2 us-west-2a spot: a b"},
	}, {
		name: "different addresses share a node",
		pods: pods(pod("a", "10.0.0.1", 80, ""), pod("b", "10.0.0.2", 80, "")),
		want: []string{"default-1 c2 us-west-2a spot: a b"},
	}, {
		name: "the same address conflicts",
		pods: pods(pod("a", "10.0.0.1", 80, ""), pod("b", "10.0.0.1", 80, "")),
		want: []string{"default-1 c2 us-west-2a spot: a", "default-2 c2 us-west-2a spot: b"},
	}, {
		name: "0.0.0.0 conflicts with any address",
		pods: pods(pod("a", "0.0.0.0", 80, ""), pod("b", "10.0.0.2", 80, "")),
		want: []string{"default-1 c2 us-west-2a spot: a", "default-2 c2 us-west-2a spot: b"},
	}, {
		name: ":: conflicts with any address",
		pods: pods(pod("a", "10.0.0.1", 80, ""), pod("b", "::", 80, "")),
		want: []string{"default-1 c2 us-west-2a spot: a", "default-2 c2 us-west-2a spot: b"},
	}})
}

func TestSolveVolumes(t *testing.T) {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	gp3 := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "gp3"}, Provisioner: "ebs.csi.aws.com", VolumeBindingMode: &wait}
	claim := func(name string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec:       corev1.PersistentVolumeClaimSpec{StorageClassName: &gp3.Name, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
		}
	}
	run(t, []scenario{{
		name:    "pods sharing a ReadWriteOnce claim share a node",
		pods:    pods(tb.Pod("a").CPU("1").PVC("data", "data"), tb.Pod("b").CPU("1500m").PVC("data", "data"), tb.Pod("c").CPU("1")),
		claims:  []*corev1.PersistentVolumeClaim{claim("data")},
		classes: []*storagev1.StorageClass{gp3},
		want:    []string{"default-1 c4 us-west-2a spot: a b c"},
	}, {
		name: "a pod that cannot join the node its ReadWriteOnce claim is used on",
		pods: pods(
			tb.Pod("a").CPU("1").NodeSelector(zone, "us-west-2b").PVC("data", "data"),
			tb.Pod("b").CPU("100m").NodeSelector(zone, "us-west-2a").PVC("data", "data"),
		),
		claims:  []*corev1.PersistentVolumeClaim{claim("data")},
		classes: []*storagev1.StorageClass{gp3},
		want:    []string{"default-1 c2 us-west-2b spot: a", "unschedulable b: Volume"},
		// A node is named when it joins the plan, so the reason names the node of the plan.
		reasons: map[string]string{"b": "nodepool default: claim default/data is ReadWriteOnce and used on node default-1"},
	}, {
		name: "a claim in use on an existing node pins the pod there",
		pods: pods(tb.Pod("b").CPU("3").PVC("data", "data")),
		existing: nodes(tb.Node("n1", "2", "4Gi", 20).Pods(
			tb.Pod("a").CPU("100m").PVC("data", "data").Obj()).Obj()),
		claims:  []*corev1.PersistentVolumeClaim{claim("data")},
		classes: []*storagev1.StorageClass{gp3},
		want:    []string{"unschedulable b: Volume"},
		reasons: map[string]string{"b": "claim default/data is ReadWriteOnce and used on node n1"},
	}})
}

func TestSolveOfferings(t *testing.T) {
	run(t, []scenario{{
		name: "the cheapest offering is chosen and options are listed cheapest first",
		pods: pods(tb.Pod("app").CPU("1")),
		want: []string{"default-1 c2 us-west-2a spot: app"},
		check: func(t *testing.T, p scheduling.Plan) {
			nc := nodeClaim(t, p, "default-1")
			require.Equal(t, 0.04, nc.Price)
			require.Equal(t, []string{"c2", "c4", "c8"}, nc.InstanceTypeOptions)
			require.Equal(t, scheduling.Summary{Pods: 1, Placed: 1, NewNodes: 1, HourlyCost: 0.04, LowerBound: 0.04, NodeFixedCost: 0.002192,
				CostByWorkload: []workloadcost.Cost{{Namespace: "default", Kind: "Pod", Name: "app", Pods: 1, HourlyCost: 0.04}}}, p.Summary)
		},
	}, {
		name: "options are ordered by the price the node's requirements allow",
		pods: pods(tb.Pod("app").CPU("1").NodeSelector(capacityType, "on-demand")),
		pools: pools(tb.NodePool("default", c2(),
			tb.Type("cheap-od", "2", "4Gi", 10).Offer("us-west-2a", "on-demand", 0.09).Offer("us-west-2a", "spot", 0.05).Obj()).Obj()),
		want: []string{"default-1 cheap-od us-west-2a on-demand: app"},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Equal(t, []string{"cheap-od", "c2"}, nodeClaim(t, p, "default-1").InstanceTypeOptions)
		},
	}, {
		name: "at equal prices the chosen type is listed first",
		pods: pods(tb.Pod("app").CPU("1")),
		pools: pools(tb.NodePool("default",
			tb.Type("a-in-zone-b", "2", "4Gi", 10).Offer("us-west-2b", "spot", 0.05).Obj(),
			tb.Type("b-in-zone-a", "2", "4Gi", 10).Offer("us-west-2a", "spot", 0.05).Obj()).Obj()),
		want: []string{"default-1 b-in-zone-a us-west-2a spot: app"},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Equal(t, []string{"b-in-zone-a", "a-in-zone-b"}, nodeClaim(t, p, "default-1").InstanceTypeOptions)
		},
	}, {
		name:  "a selector pinning type, zone, capacity type and arch picks exactly that offering",
		pods:  pods(tb.Pod("app").CPU("1").NodeSelector(instanceType, "a4").NodeSelector(zone, "us-west-2b").NodeSelector(capacityType, "on-demand").NodeSelector(arch, "arm64")),
		pools: pools(tb.NodePool("default", c2(), c4(), a4()).Obj()),
		want:  []string{"default-1 a4 us-west-2b on-demand: app"},
		check: func(t *testing.T, p scheduling.Plan) {
			nc := nodeClaim(t, p, "default-1")
			require.Equal(t, 0.17, nc.Price)
			require.Equal(t, []string{"a4"}, nc.InstanceTypeOptions)
		},
	}, {
		name: "unavailable offerings are never chosen",
		pods: pods(tb.Pod("app").CPU("1")),
		pools: pools(tb.NodePool("default",
			tb.Type("sold-out", "2", "4Gi", 10).Unavailable("us-west-2a", "spot", 0.01).Obj(),
			tb.Type("c2x", "2", "4Gi", 10).Unavailable("us-west-2a", "spot", 0.01).Offer("us-west-2b", "on-demand", 0.12).Obj(),
		).Obj()),
		want: []string{"default-1 c2x us-west-2b on-demand: app"},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Equal(t, []string{"c2x"}, nodeClaim(t, p, "default-1").InstanceTypeOptions)
		},
	}, {
		name: "a pod pinned to an unavailable offering cannot be planned",
		pods: pods(tb.Pod("app").CPU("1").NodeSelector(zone, "us-west-2a")),
		pools: pools(tb.NodePool("default",
			tb.Type("c2x", "2", "4Gi", 10).Unavailable("us-west-2a", "spot", 0.01).Offer("us-west-2b", "on-demand", 0.12).Obj(),
		).Obj()),
		want:    []string{"unschedulable app: NodeAffinity"},
		reasons: map[string]string{"app": "no instance type with an available offering satisfies topology.kubernetes.io/zone In [us-west-2a]"},
	}, {
		name: "MaxInstanceTypeOptions bounds the options, cheapest kept",
		pods: pods(tb.Pod("app").CPU("1")),
		opts: scheduling.Options{MaxInstanceTypeOptions: 2},
		want: []string{"default-1 c2 us-west-2a spot: app"},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Equal(t, []string{"c2", "c4"}, nodeClaim(t, p, "default-1").InstanceTypeOptions)
		},
	}, {
		name: "incompatible pods go to separate nodes",
		pods: pods(
			tb.Pod("a").CPU("100m").NodeSelector(zone, "us-west-2a").NodeSelector(arch, "amd64").NodeSelector(capacityType, "on-demand"),
			tb.Pod("b").CPU("100m").NodeSelector(zone, "us-west-2b"),
			tb.Pod("c").CPU("100m").NodeSelector(zone, "us-west-2a").NodeSelector(arch, "arm64"),
			tb.Pod("d").CPU("100m").NodeSelector(zone, "us-west-2a").NodeSelector(arch, "amd64").NodeSelector(capacityType, "spot"),
		),
		pools: pools(tb.NodePool("default", c2(), a4()).Obj()),
		want: []string{
			"default-1 c2 us-west-2a on-demand: a",
			"default-2 c2 us-west-2a spot: d",
			"default-3 a4 us-west-2a spot: c",
			"default-4 c2 us-west-2b spot: b",
		},
	}, {
		name: "compatible selectors share a node narrowed to both",
		pods: pods(
			tb.Pod("a").CPU("100m").NodeSelector(zone, "us-west-2b"),
			tb.Pod("b").CPU("100m").NodeSelector(capacityType, "on-demand"),
		),
		want: []string{"default-1 c2 us-west-2b on-demand: a b"},
	}})
}

func TestSolveMinValues(t *testing.T) {
	pool := func() *scheduling.NodePool {
		return tb.NodePool("default", c2(), c4(), c8()).MinValues(instanceType, 2, corev1.NodeSelectorOpExists).Obj()
	}
	run(t, []scenario{{
		// Without minValues two of these pods would share a c8; with it a node never narrows
		// to c8 alone.
		name:  "a node keeps at least minValues instance types among its options",
		pods:  pods(tb.Pod("web").CPU("3").Replicas(3)),
		pools: pools(pool()),
		want: []string{
			"default-1 c4 us-west-2a spot: web-0",
			"default-2 c4 us-west-2a spot: web-1",
			"default-3 c4 us-west-2a spot: web-2",
		},
		check: func(t *testing.T, p scheduling.Plan) {
			for _, nc := range p.NodeClaims {
				require.Equal(t, []string{"c4", "c8"}, nc.InstanceTypeOptions)
			}
		},
	}, {
		name:    "Strict: a pod only one type fits is unschedulable",
		pods:    pods(tb.Pod("big").CPU("5")),
		pools:   pools(pool()),
		want:    []string{"unschedulable big: NodeAffinity"},
		reasons: map[string]string{"big": "minValues 2 for node.kubernetes.io/instance-type cannot be met: only 1 distinct values fit the pod"},
	}, {
		name:  "BestEffort: the node is planned with fewer values and says so",
		pods:  pods(tb.Pod("big").CPU("5")),
		pools: pools(pool()),
		opts:  scheduling.Options{MinValuesPolicy: scheduling.MinValuesBestEffort},
		want:  []string{"default-1 c8 us-west-2a spot: big"},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Equal(t, []string{"minValues for node.kubernetes.io/instance-type relaxed: 1 of 2 distinct values left (BestEffort)"}, nodeClaim(t, p, "default-1").Notes)
		},
	}, {
		name:  "minValues on zones counts the zones the options are offered in",
		pods:  pods(tb.Pod("web").CPU("1")),
		pools: pools(tb.NodePool("default", c2()).MinValues(zone, 2, corev1.NodeSelectorOpIn, "us-west-2a", "us-west-2b").Obj()),
		want:  []string{"default-1 c2 us-west-2a spot: web"},
	}, {
		name:  "a pod pinning one zone breaks minValues on zones",
		pods:  pods(tb.Pod("web").CPU("1").NodeSelector(zone, "us-west-2b")),
		pools: pools(tb.NodePool("default", c2()).MinValues(zone, 2, corev1.NodeSelectorOpIn, "us-west-2a", "us-west-2b").Obj()),
		want:  []string{"unschedulable web: NodeAffinity"},
	}})
}

func TestSolveUnschedulableReasons(t *testing.T) {
	big := offered(tb.Type("c64", "64", "256Gi", 110), 3.2, 1.2)
	run(t, []scenario{{
		name: "an oversized pod is unschedulable with constraint Resources while the rest plan, naming every nodepool",
		pods: pods(tb.Pod("big").CPU("96"), tb.Pod("web").CPU("1").Replicas(2)),
		pools: pools(
			tb.NodePool("gpu", g4()).Weight(10).Taint("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule).Obj(),
			tb.NodePool("default", c2(), big).Obj()),
		want: []string{
			"default-1 c2 us-west-2a spot: web-0 web-1",
			"unschedulable big: Resources",
		},
		check: func(t *testing.T, p scheduling.Plan) {
			u, _ := unschedulable(p, "big")
			require.Equal(t, "nodepool gpu: taint nvidia.com/gpu=true:NoSchedule not tolerated; nodepool default: no instance type has 96 cpu allocatable (largest: 64)", u.Reason)
			require.Equal(t, scheduling.Summary{Pods: 3, Placed: 2, NewNodes: 1, HourlyCost: 0.04, LowerBound: 0.04, NodeFixedCost: 0.002192,
				CostByWorkload: []workloadcost.Cost{{Namespace: "default", Kind: "Pod", Name: "web-0", Pods: 1, HourlyCost: 0.02}, {Namespace: "default", Kind: "Pod", Name: "web-1", Pods: 1, HourlyCost: 0.02}}}, p.Summary)
		},
	}, {
		name:     "existing nodes are mentioned when none fits",
		pods:     pods(tb.Pod("big").CPU("96")),
		existing: nodes(tb.Node("n1", "4", "8Gi", 20).Obj()),
		want:     []string{"unschedulable big: Resources"},
		reasons:  map[string]string{"big": "no existing node fits; nodepool default: no instance type has 96 cpu allocatable (largest: 8)"},
	}, {
		name:    "without nodepools only existing nodes can take pods",
		pods:    pods(tb.Pod("web").CPU("1")),
		pools:   pools(),
		want:    []string{"unschedulable web: Resources"},
		reasons: map[string]string{"web": "there is no NodePool"},
	}, {
		name:    "relaxed preferences are listed",
		pods:    pods(tb.Pod("big").CPU("96").PreferredTerm(10, tb.In(zone, "us-west-2b"))),
		want:    []string{"unschedulable big: Resources"},
		reasons: map[string]string{"big": "(preferences relaxed: preferred node affinity (weight 10) topology.kubernetes.io/zone In [us-west-2b])"},
	}, {
		name:    "daemon overhead is named when it makes the difference",
		pods:    pods(tb.Pod("big").CPU("8")),
		daemons: daemons(tb.Pod("agent").Namespace("kube-system").CPU("1").Obj()),
		want:    []string{"unschedulable big: Resources"},
		reasons: map[string]string{"big": "nodepool default: no instance type has 8 cpu allocatable (largest: 7, after daemon overhead)"},
	}, {
		name:    "a memory shortfall names memory",
		pods:    pods(tb.Pod("db").CPU("1").Memory("64Gi")),
		want:    []string{"unschedulable db: Resources"},
		reasons: map[string]string{"db": "no instance type has 64Gi memory allocatable (largest: 16Gi"},
	}, {
		name:    "a nodepool whose requirements no type meets",
		pods:    pods(tb.Pod("web").CPU("1")),
		pools:   pools(tb.NodePool("default", c2()).Requirement(arch, corev1.NodeSelectorOpIn, "arm64").Obj()),
		want:    []string{"unschedulable web: NodeAffinity"},
		reasons: map[string]string{"web": "no instance type satisfies the nodepool's requirements"},
	}})
}

func TestSolveLowerBound(t *testing.T) {
	s1 := tb.Type("s1", "1", "2Gi", 10).Offer("us-west-2a", "spot", 0.01).Obj()
	tolerant := func(name string) *tb.PodBuilder {
		return tb.Pod(name).Toleration("dedicated", "", corev1.TaintEffectNoSchedule)
	}
	run(t, []scenario{{
		// The small pods of a class may use types too small for its largest pod (s1 at 0.01
		// per cpu), but the large one fits only c4: the fluid relaxation covers its 3 cpu by
		// c4 (0.75 × 0.08) and the other 3 cpu by s1 (0.03), 0.09; the pattern bound sees that
		// the c4 is bought whole and s1 holds at most 10 pods, and proves the plan optimal.
		name:  "a class of pods with a large one is bounded by the types its small ones fit",
		pods:  pods(tolerant("big").CPU("3"), tolerant("small").CPU("100m").Replicas(30)),
		pools: pools(tb.NodePool("default", s1, c4()).Obj()),
		want: []string{
			"default-1 c4 us-west-2a spot: big small-0 small-1 small-10 small-11 small-12 small-13 small-14 small-15 small-16 small-17",
			"default-2 s1 us-west-2a spot: small-18 small-19 small-2 small-20 small-21 small-22 small-23 small-24 small-25 small-26",
			"default-3 s1 us-west-2a spot: small-27 small-28 small-29 small-3 small-4 small-5 small-6 small-7 small-8 small-9",
		},
		check: func(t *testing.T, p scheduling.Plan) {
			require.Equal(t, 0.1, p.Summary.HourlyCost)
			require.Equal(t, 0.1, p.Summary.LowerBound)
		},
	}})
}

func TestSolveNewNodeLabels(t *testing.T) {
	it := tb.Type("m7g.large", "2", "8Gi", 29).Arch("arm64").Label("karpenter.k8s.aws/instance-family", "m7g").
		KubeReserved("100m", "512Mi").Offer("us-west-2a", "spot", 0.03).Obj()
	pool := tb.NodePool("general", it).Label("team", "web").Taint("dedicated", "web", corev1.TaintEffectNoSchedule).Obj()
	plan, err := scheduling.Solve(scheduling.Input{
		Pods:      pods(tb.Pod("web").CPU("1").Toleration("dedicated", "web", corev1.TaintEffectNoSchedule)),
		NodePools: pools(pool),
	})
	require.NoError(t, err)
	require.Len(t, plan.NodeClaims, 1)
	nc := plan.NodeClaims[0]
	require.Equal(t, map[string]string{
		"kubernetes.io/hostname":            "general-1",
		"karpenter.sh/nodepool":             "general",
		"node.kubernetes.io/instance-type":  "m7g.large",
		"topology.kubernetes.io/zone":       "us-west-2a",
		"topology.kubernetes.io/region":     "us-west-2",
		"karpenter.sh/capacity-type":        "spot",
		"kubernetes.io/arch":                "arm64",
		"kubernetes.io/os":                  "linux",
		"karpenter.k8s.aws/instance-family": "m7g",
		"team":                              "web",
		// written by kubelet and the node lifecycle controller too
		"failure-domain.beta.kubernetes.io/zone":   "us-west-2a",
		"failure-domain.beta.kubernetes.io/region": "us-west-2",
		"beta.kubernetes.io/instance-type":         "m7g.large",
		"beta.kubernetes.io/arch":                  "arm64",
		"beta.kubernetes.io/os":                    "linux",
	}, nc.Labels)
	require.Equal(t, []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}}, nc.Taints)
	require.Equal(t, "2", ptr(nc.Capacity[corev1.ResourceCPU]).String())
	require.Equal(t, "1900m", ptr(nc.Allocatable[corev1.ResourceCPU]).String())
	require.Equal(t, "7680Mi", ptr(nc.Allocatable[corev1.ResourceMemory]).String())
	require.Equal(t, []string{"default/web"}, nc.Pods)
}

func ptr(q resource.Quantity) *resource.Quantity { return &q }

func TestSolveOptions(t *testing.T) {
	prefersB := tb.Pod("app").CPU("1").PreferredTerm(10, tb.In(zone, "us-west-2b"))
	run(t, []scenario{{
		name: "PreferencePolicy Ignore drops preferred node affinity",
		pods: pods(prefersB.Obj()),
		opts: scheduling.Options{PreferencePolicy: scheduling.PreferencesIgnore},
		want: []string{"default-1 c2 us-west-2a spot: app"},
	}, {
		name: "PreferencePolicy Respect keeps it",
		pods: pods(prefersB.Obj()),
		opts: scheduling.Options{PreferencePolicy: scheduling.PreferencesRespect},
		want: []string{"default-1 c2 us-west-2b spot: app"},
	}, {
		name: "PreferencePolicy Ignore drops PreferNoSchedule avoidance",
		pods: pods(tb.Pod("app").CPU("1")),
		pools: pools(
			tb.NodePool("soft", c2()).Weight(10).Taint("soft", "", corev1.TaintEffectPreferNoSchedule).Obj(),
			tb.NodePool("plain", c4()).Obj()),
		opts: scheduling.Options{PreferencePolicy: scheduling.PreferencesIgnore},
		want: []string{"soft-1 c2 us-west-2a spot: app"},
	}})

	bad := []struct {
		name string
		in   scheduling.Input
		want string
	}{
		{"unknown preference policy", scheduling.Input{Options: scheduling.Options{PreferencePolicy: "Sometimes"}}, `preference policy "Sometimes"`},
		{"unknown minValues policy", scheduling.Input{Options: scheduling.Options{MinValuesPolicy: "Lax"}}, `minValues policy "Lax"`},
		{"nil pod", scheduling.Input{Pods: []*corev1.Pod{nil}, NodePools: pools(defaultPool())}, "pods[0] is nil"},
		{"nil nodepool", scheduling.Input{NodePools: []*scheduling.NodePool{nil}}, "nodepools[0] is nil"},
		{"nodepool without a name", scheduling.Input{NodePools: pools(tb.NodePool("", c2()).Obj())}, "name must be set"},
		{"nodepool given twice", scheduling.Input{NodePools: pools(defaultPool(), defaultPool())}, `nodepool "default" is given twice`},
		{"invalid nodepool requirement", scheduling.Input{NodePools: pools(tb.NodePool("default", c2()).Requirement(arch, "Near", "x").Obj())}, `nodepool "default": requirements[0]`},
		{"restricted nodepool label", scheduling.Input{NodePools: pools(tb.NodePool("default", c2()).Label("kubernetes.io/hostname", "x").Obj())}, "restricted"},
		{"existing node without a name", scheduling.Input{ExistingNodes: nodes(tb.Node("", "1", "1Gi", 1).Obj())}, "no name"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scheduling.Solve(tc.in)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
