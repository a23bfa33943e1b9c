package disruption_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/testbuild"
)

type policyPDB = policyv1.PodDisruptionBudget

// now is a Monday, 12:00 UTC.
var now = time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)

const zoneA = "test-zone-a"

// Instance types of the scenarios: prices grow with size, on-demand and spot in one zone.
var (
	small  = testbuild.Type("small", "2", "8Gi", 30).Offer(zoneA, "on-demand", 0.10).Offer(zoneA, "spot", 0.04).Obj()
	medium = testbuild.Type("medium", "4", "16Gi", 60).Offer(zoneA, "on-demand", 0.20).Offer(zoneA, "spot", 0.08).Obj()
	large  = testbuild.Type("large", "8", "32Gi", 110).Offer(zoneA, "on-demand", 0.40).Offer(zoneA, "spot", 0.16).Obj()
)

// small and medium on-demand only, priced by cpu: for scenarios about price alone, where no
// spot replacement undercuts a node.
var (
	smallOnDemand  = testbuild.Type("small", "2", "8Gi", 30).Offer(zoneA, "on-demand", 0.10).Obj()
	mediumOnDemand = testbuild.Type("medium", "4", "16Gi", 60).Offer(zoneA, "on-demand", 0.20).Obj()
)

// running builds a node a NodePool launched a day ago, with its pods bound to it.
func running(name, pool string, it *instancetype.InstanceType, capacityType string, pods ...*corev1.Pod) *disruption.Node {
	for _, p := range pods {
		p.Spec.NodeName = name
	}
	price := 0.0
	for _, o := range it.Offerings {
		if o.Zone == zoneA && o.CapacityType == capacityType {
			price = o.Price
		}
	}
	return &disruption.Node{
		Node:         testbuild.KarpenterNode(name, pool, it, zoneA, capacityType),
		Pods:         pods,
		NodePool:     pool,
		InstanceType: it.Name,
		Zone:         zoneA,
		CapacityType: capacityType,
		Price:        price,
		Created:      now.Add(-24 * time.Hour),
		Initialized:  true,
	}
}

func pod(name, cpu string) *corev1.Pod {
	return testbuild.Pod(name).Label("app", strings.SplitN(name, "-", 2)[0]).CPU(cpu).Memory("1Gi").Obj()
}

// pool is a NodePool of the scenario types that consolidates at once and lets every node be
// disrupted (budget nodes: 100%), so scenarios are not about the default 10% budget.
func pool(name string, types ...*instancetype.InstanceType) *testbuild.NodePoolBuilder {
	if len(types) == 0 {
		types = []*instancetype.InstanceType{small, medium, large}
	}
	return testbuild.NodePool(name, types...).ConsolidateAfter(0).Budget("100%")
}

func decide(t *testing.T, in disruption.Input) disruption.Decisions {
	t.Helper()
	if in.Now.IsZero() {
		in.Now = now
	}
	d, err := disruption.Decide(in)
	require.NoError(t, err)
	checkAccounting(t, in, d)
	requireFreshNames(t, in, d)
	return d
}

// checkAccounting asserts that every node is either a candidate of exactly one command or
// blocked with a reason, and that every eviction has a move unless the command notes it.
func checkAccounting(t *testing.T, in disruption.Input, d disruption.Decisions) {
	t.Helper()
	seen := map[string]string{}
	for _, c := range d.Commands {
		for _, cand := range c.Candidates {
			require.Empty(t, seen[cand.Node], "node %s acted on twice", cand.Node)
			seen[cand.Node] = c.Method
		}
		if c.Method != disruption.MethodExpiration {
			require.Len(t, c.Moves, len(c.Evictions), "every eviction of %s has a move", c.Method)
		}
	}
	for _, b := range d.Blocked {
		require.Empty(t, seen[b.Node], "node %s both acted on and blocked", b.Node)
		require.NotEmpty(t, b.Reason, "node %s blocked without a reason", b.Node)
		seen[b.Node] = "blocked"
	}
	require.Len(t, seen, len(in.Nodes), "every node is accounted for")
}

// blockedReason returns the reason a node is blocked, or "" when it is acted on.
func blockedReason(d disruption.Decisions, node string) string {
	for _, b := range d.Blocked {
		if b.Node == node {
			return b.Reason
		}
	}
	return ""
}

// summary renders commands one per line: method action [candidates] -> [replacements] savings.
func summary(d disruption.Decisions) []string {
	var out []string
	for _, c := range d.Commands {
		var cands, repl []string
		for _, x := range c.Candidates {
			cands = append(cands, x.Node)
		}
		for _, r := range c.Replacements {
			repl = append(repl, r.CapacityType+"/"+r.InstanceType)
		}
		out = append(out, fmt.Sprintf("%s %s %v -> %v %.2f", c.Method, c.Action, cands, repl, c.Savings))
	}
	return out
}
