package disruption_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

func TestDecideScenarios(t *testing.T) {
	daemonPod := func(name string) *corev1.Pod {
		return testbuild.Pod(name).CPU("100m").OwnedByDaemonSet("logging").Obj()
	}
	// apart pods need 3 cpu and never share a node with each other.
	apart := func(name string) *corev1.Pod {
		return testbuild.Pod(name).Label("app", "db").CPU("3").AntiAffinity("kubernetes.io/hostname", map[string]string{"app": "db"}).Obj()
	}
	mirrorPod := func(name string) *corev1.Pod {
		return testbuild.Pod(name).CPU("100m").Annotation("kubernetes.io/config.mirror", "abc").Obj()
	}
	// apartOnThree is three large on-demand nodes, two of them with a pod that needs a node
	// of its own: their pods fit on two medium nodes.
	apartOnThree := func(karpenterMultiNode bool) disruption.Input {
		return disruption.Input{
			NodePools: []*scheduling.NodePool{pool("default").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
			Nodes: []*disruption.Node{
				running("a", "default", large, "on-demand", apart("db-0")),
				running("b", "default", large, "on-demand", apart("db-1")),
				running("c", "default", large, "on-demand", pod("web-0", "1")),
			},
			KarpenterMultiNode: karpenterMultiNode,
		}
	}
	tests := []struct {
		name     string
		in       func() disruption.Input
		commands []string
		// blocked maps a node to a phrase its reason must contain.
		blocked map[string]string
	}{{
		name: "scale to zero leaves a node empty: emptiness deletes it",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Obj()},
				Nodes: []*disruption.Node{
					running("busy", "default", medium, "on-demand", pod("api-0", "3"), daemonPod("logging-busy")),
					running("idle", "default", medium, "on-demand", daemonPod("logging-idle"), mirrorPod("kube-proxy-idle")),
				},
			}
		},
		commands: []string{"Emptiness delete [idle] -> [] 0.20"},
		blocked:  map[string]string{"busy": "Emptiness acted first"},
	}, {
		name: "a do-not-disrupt pod keeps its node; the other node's pod moves onto it",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Obj()},
				Nodes: []*disruption.Node{
					running("a", "default", medium, "on-demand", testbuild.Pod("batch-0").CPU("1").Annotation("karpenter.sh/do-not-disrupt", "true").Obj()),
					running("b", "default", medium, "on-demand", pod("web-0", "1")),
				},
			}
		},
		commands: []string{"SingleNodeConsolidation delete [b] -> [] 0.20"},
		blocked:  map[string]string{"a": "pod default/batch-0 has karpenter.sh/do-not-disrupt"},
	}, {
		name: "legacy do-not-evict on a pod and do-not-consolidate on a node block too",
		in: func() disruption.Input {
			c := running("c", "default", medium, "on-demand", pod("web-1", "1"))
			c.Node.Annotations = map[string]string{"karpenter.sh/do-not-consolidate": "true"}
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Obj()},
				Nodes: []*disruption.Node{
					running("a", "default", medium, "on-demand", testbuild.Pod("batch-0").CPU("1").Annotation("karpenter.sh/do-not-evict", "true").Obj()),
					c,
				},
			}
		},
		blocked: map[string]string{"a": "has karpenter.sh/do-not-evict", "c": "the node has karpenter.sh/do-not-consolidate"},
	}, {
		name: "two half-empty nodes consolidate into one, without replacing a node by its own type",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
				Nodes: []*disruption.Node{
					running("a", "default", medium, "on-demand", pod("web-0", "1"), pod("web-1", "500m")),
					running("b", "default", medium, "on-demand", pod("api-0", "1500m")),
				},
			}
		},
		commands: []string{"SingleNodeConsolidation delete [b] -> [] 0.20"},
		blocked:  map[string]string{"a": "acts on one node per decision"},
	}, {
		name: "a large node is replaced by a cheaper smaller one",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
				Nodes:     []*disruption.Node{running("big", "default", large, "on-demand", pod("web-0", "1"), pod("web-1", "500m"))},
			}
		},
		commands: []string{"SingleNodeConsolidation replace [big] -> [on-demand/small] 0.30"},
	}, {
		name: "a node already on the cheapest type that fits stays",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
				Nodes:     []*disruption.Node{running("right", "default", medium, "on-demand", pod("web-0", "3"))},
			}
		},
		blocked: map[string]string{"right": "not less than"},
	}, {
		name:     "N nodes into M > 1 cheaper nodes when some pods cannot share a node",
		in:       func() disruption.Input { return apartOnThree(false) },
		commands: []string{"MultiNodeConsolidation replace [a b c] -> [on-demand/medium on-demand/medium] 0.80"},
	}, {
		name:     "Karpenter's multi-node consolidation: several nodes into one new node at most",
		in:       func() disruption.Input { return apartOnThree(true) },
		commands: []string{"MultiNodeConsolidation replace [a b] -> [on-demand/medium] 0.60"},
	}, {
		name: "several nodes are not consolidated into as many new ones: single-node replaces one at a time",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
				Nodes: []*disruption.Node{
					running("a", "default", large, "on-demand", apart("db-0")),
					running("b", "default", large, "on-demand", apart("db-1")),
				},
			}
		},
		commands: []string{"SingleNodeConsolidation replace [a] -> [on-demand/medium] 0.20"},
		blocked:  map[string]string{"b": "acts on one node per decision"},
	}, {
		name: "consolidateAfter has not passed, or is Never, or the policy is WhenEmpty",
		in: func() disruption.Input {
			recent := running("recent", "default", large, "on-demand", pod("web-0", "1"))
			recent.LastPodEvent = now.Add(-time.Minute)
			return disruption.Input{
				NodePools: []*scheduling.NodePool{
					pool("default").ConsolidateAfter(5 * time.Minute).Obj(),
					testbuild.NodePool("never", small, medium, large).Obj(),
					pool("empty-only").ConsolidationPolicy(scheduling.ConsolidationWhenEmpty).Obj(),
				},
				Nodes: []*disruption.Node{
					recent,
					running("frozen", "never", large, "on-demand", pod("web-1", "1")),
					running("busy", "empty-only", large, "on-demand", pod("web-2", "1")),
				},
			}
		},
		blocked: map[string]string{
			"recent": "consolidateAfter 5m0s has not passed since the last pod event (60s ago)",
			"frozen": "consolidateAfter: Never",
			"busy":   "consolidates only empty nodes",
		},
	}, {
		name: "the Consolidatable condition decides over the last pod event",
		in: func() disruption.Input {
			no, yes := false, true
			a := running("a", "default", medium, "on-demand")
			a.Consolidatable = &no
			b := running("b", "default", medium, "on-demand")
			b.Consolidatable = &yes
			b.LastPodEvent = now
			return disruption.Input{NodePools: []*scheduling.NodePool{pool("default").ConsolidateAfter(time.Hour).Obj()}, Nodes: []*disruption.Node{a, b}}
		},
		commands: []string{"Emptiness delete [b] -> [] 0.20"},
		blocked:  map[string]string{"a": "not Consolidatable yet"},
	}, {
		name: "nodes that are unmanaged, unknown to the input, starting or already disrupting stay",
		in: func() disruption.Input {
			unmanaged := running("unmanaged", "", medium, "on-demand")
			delete(unmanaged.Node.Labels, "karpenter.sh/nodepool")
			starting := running("starting", "default", medium, "on-demand")
			starting.Initialized = false
			leaving := running("leaving", "default", medium, "on-demand")
			leaving.Disrupting = true
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Obj()},
				Nodes:     []*disruption.Node{unmanaged, running("orphan", "gone", medium, "on-demand"), starting, leaving},
			}
		},
		blocked: map[string]string{
			"unmanaged": "not managed by a NodePool",
			"orphan":    "NodePool gone is not in the input",
			"starting":  "not initialized",
			"leaving":   "already being disrupted",
		},
	}, {
		name: "a pod selected by two PodDisruptionBudgets blocks its node",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default").Obj()},
				Nodes: []*disruption.Node{
					running("a", "default", large, "on-demand", pod("web-0", "1")),
					running("b", "default", large, "on-demand", pod("api-0", "7")),
				},
				PodDisruptionBudgets: []*policyPDB{
					testbuild.PDB("web", map[string]string{"app": "web"}).MaxUnavailable("1").Obj(),
					testbuild.PDB("all-web", map[string]string{"app": "web"}).MaxUnavailable("100%").Obj(),
				},
			}
		},
		commands: []string{"SingleNodeConsolidation delete [b] -> [] 0.40"},
		blocked:  map[string]string{"a": "more than one PodDisruptionBudget (default/all-web, default/web)"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in()
			d := decide(t, in)
			assert.Equal(t, tc.commands, summary(d))
			for node, phrase := range tc.blocked {
				assert.Contains(t, blockedReason(d, node), phrase, "reason of %s", node)
			}
		})
	}
}

func TestPDBMinAvailableLetsOneNodeGoPerDecision(t *testing.T) {
	// Both db nodes drifted (the NodePool no longer offers medium); the PDB keeps one of the
	// two db pods, so only one node goes in this decision.
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default", small, large).Obj()},
		Nodes: []*disruption.Node{
			running("db-a", "default", medium, "on-demand", pod("db-0", "3")),
			running("db-b", "default", medium, "on-demand", pod("db-1", "3")),
			running("spare", "default", large, "on-demand", pod("cache-0", "1")),
		},
		PodDisruptionBudgets: []*policyPDB{testbuild.PDB("db", map[string]string{"app": "db"}).MinAvailable("50%").Obj()},
	})
	assert.Equal(t, []string{"Drift delete [db-a] -> [] 0.20"}, summary(d))
	assert.Equal(t, []disruption.Move{{Pod: "default/db-0", To: "spare"}}, d.Commands[0].Moves)
	assert.Contains(t, blockedReason(d, "db-b"), "PodDisruptionBudget default/db allows 0 disruption(s) now")
	assert.Contains(t, blockedReason(d, "db-b"), "after the earlier commands of this decision")
}

func TestSpotToSpotNeedsFlexibility(t *testing.T) {
	// A spot node with 1 cpu of pods, priced 0.16/h.
	node := func() *disruption.Node { return running("spot", "default", large, "spot", pod("web-0", "1")) }
	spotPool := func(types ...*instancetype.InstanceType) *scheduling.NodePool {
		return pool("default", types...).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "spot").Obj()
	}
	t.Run("few cheaper spot types: stays", func(t *testing.T) {
		d := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{spotPool(small, medium, large)}, Nodes: []*disruption.Node{node()}})
		assert.Empty(t, d.Commands)
		assert.Contains(t, blockedReason(d, "spot"), "spot-to-spot consolidation needs at least 15 cheaper spot instance types")
		assert.Contains(t, blockedReason(d, "spot"), "found 2")
	})
	t.Run("fifteen cheaper spot types: replaced", func(t *testing.T) {
		types := []*instancetype.InstanceType{large}
		for i := 0; i < 15; i++ {
			types = append(types, testbuild.Type(fmt.Sprintf("flex-%02d", i), "2", "8Gi", 30).Offer(zoneA, "spot", 0.04+float64(i)*0.001).Obj())
		}
		d := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{spotPool(types...)}, Nodes: []*disruption.Node{node()}})
		require.Equal(t, []string{"SingleNodeConsolidation replace [spot] -> [spot/flex-00] 0.12"}, summary(d))
		options := d.Commands[0].Replacements[0].InstanceTypeOptions
		assert.Len(t, options, 15, "a spot replacement launches from the 15 cheapest types, all cheaper than the node")
		assert.NotContains(t, options, "large")
	})
	t.Run("several spot nodes together need no flexibility", func(t *testing.T) {
		d := decide(t, disruption.Input{
			NodePools: []*scheduling.NodePool{spotPool(small, medium, large)},
			Nodes: []*disruption.Node{
				running("spot-a", "default", large, "spot", pod("web-0", "1")),
				running("spot-b", "default", large, "spot", pod("web-1", "1")),
			},
		})
		assert.Equal(t, []string{"MultiNodeConsolidation replace [spot-a spot-b] -> [spot/small] 0.28"}, summary(d))
	})
}

func TestBudgetWindow(t *testing.T) {
	// nodes: 0 every day from 09:00 for 8 hours (UTC); an empty node waits for the window
	// to close.
	in := func(at time.Time) disruption.Input {
		return disruption.Input{
			NodePools: []*scheduling.NodePool{pool("default").ScheduledBudget("0", "0 9 * * *", 8*time.Hour).Obj()},
			Nodes:     []*disruption.Node{running("idle", "default", medium, "on-demand")},
			Now:       at,
		}
	}
	inside := decide(t, in(now))
	assert.Empty(t, inside.Commands)
	assert.Contains(t, blockedReason(inside, "idle"), `disruption budget allows no more Empty disruptions now (budget nodes: "0" in its window`)
	outside := decide(t, in(now.Add(6*time.Hour)))
	assert.Equal(t, []string{"Emptiness delete [idle] -> [] 0.20"}, summary(outside))
}

func TestBudgetsPerReasonAndCount(t *testing.T) {
	nodes := func() []*disruption.Node {
		var out []*disruption.Node
		for i := 0; i < 5; i++ {
			out = append(out, running(fmt.Sprintf("idle-%d", i), "default", medium, "on-demand"))
		}
		return out
	}
	tests := []struct {
		name    string
		pool    *scheduling.NodePool
		mark    func([]*disruption.Node)
		deleted int
	}{
		{"default 10% of 5 nodes rounds up to 1", testbuild.NodePool("default", medium).ConsolidateAfter(0).Obj(), nil, 1},
		{"40% of 5 nodes is 2", pool("default").Budget("40%").Obj(), nil, 2},
		{"the least of the active budgets applies", pool("default").Budget("3").Budget("2").Obj(), nil, 2},
		{"a budget for another reason does not limit Empty", pool("default").Budget("0", "Drifted").Budget("4", "Empty").Obj(), nil, 4},
		{"a disrupting node counts against the budget", pool("default").Budget("2").Obj(), func(n []*disruption.Node) { n[0].Disrupting = true }, 1},
		{"a NotReady node counts against the budget", pool("default").Budget("2").Obj(), func(n []*disruption.Node) {
			n[4].Node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
		}, 1},
		{"a NotReady node counts against the budget, and again when it is a candidate", pool("default").Budget("2").Obj(), func(n []*disruption.Node) {
			n[0].Node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := nodes()
			if tc.mark != nil {
				tc.mark(ns)
			}
			d := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{tc.pool}, Nodes: ns})
			require.Len(t, d.Commands, 1, "emptiness deletes every node it may in one command")
			assert.Equal(t, disruption.MethodEmptiness, d.Commands[0].Method)
			assert.Len(t, d.Commands[0].Candidates, tc.deleted)
		})
	}
}

func TestExpirationIgnoresBudgets(t *testing.T) {
	old := running("old", "default", medium, "on-demand", pod("web-0", "3"))
	old.Created = now.Add(-800 * time.Hour)
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default").Budget("0").ExpireAfter(720*time.Hour).
			Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
		Nodes:                []*disruption.Node{old, running("young", "default", small, "on-demand", pod("api-0", "1500m"))},
		PodDisruptionBudgets: []*policyPDB{testbuild.PDB("web", map[string]string{"app": "web"}).MinAvailable("1").Obj()},
	})
	require.Equal(t, []string{"Expiration replace [old] -> [on-demand/medium] 0.00"}, summary(d))
	cmd := d.Commands[0]
	assert.Equal(t, scheduling.ReasonExpired, cmd.Reason)
	assert.Equal(t, []disruption.Move{{Pod: "default/web-0", To: "default-1"}}, cmd.Moves)
	assert.Contains(t, cmd.Notes[0], "past NodePool default's expireAfter 720h0m0s")
	assert.Contains(t, fmt.Sprint(cmd.Notes), "PodDisruptionBudget default/web allows 0 disruption(s) now")
	assert.Contains(t, blockedReason(d, "young"), "Expiration acted first")
}

func TestDriftFromChangedRequirement(t *testing.T) {
	// The NodePool now wants on-demand capacity; the spot node drifted and is replaced.
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
		Nodes: []*disruption.Node{
			running("spot", "default", medium, "spot", pod("web-0", "3")),
			running("od", "default", medium, "on-demand", pod("api-0", "3")),
		},
	})
	require.Equal(t, []string{"Drift replace [spot] -> [on-demand/medium] -0.12"}, summary(d))
	assert.Equal(t, []string{"drifted: label karpenter.sh/capacity-type=spot no longer meets NodePool default's requirement karpenter.sh/capacity-type In [on-demand]"}, d.Commands[0].Notes)
	assert.Contains(t, blockedReason(d, "od"), "Drift acted first")
}

func TestLargeNodeReplacementOptionsAreCheaper(t *testing.T) {
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
		Nodes:     []*disruption.Node{running("big", "default", large, "on-demand", pod("web-0", "1"))},
	})
	require.Len(t, d.Commands, 1)
	assert.Equal(t, []string{"small", "medium"}, d.Commands[0].Replacements[0].InstanceTypeOptions, "large is not cheaper than the node it replaces")
}

func TestDriftedButProtected(t *testing.T) {
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default", small, large).Obj()},
		Nodes:     []*disruption.Node{running("a", "default", medium, "on-demand", testbuild.Pod("db-0").CPU("1").Annotation("karpenter.sh/do-not-disrupt", "true").Obj())},
	})
	assert.Empty(t, d.Commands)
	assert.Equal(t, "drifted (instance type medium is no longer among NodePool default's instance types), but pod default/db-0 has karpenter.sh/do-not-disrupt", blockedReason(d, "a"))
}

func TestDriftFromRemovedInstanceType(t *testing.T) {
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default", small, medium).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
		Nodes:     []*disruption.Node{running("big", "default", large, "on-demand", pod("web-0", "3"))},
	})
	require.Equal(t, []string{"Drift replace [big] -> [on-demand/medium] 0.20"}, summary(d))
	assert.Contains(t, d.Commands[0].Notes[0], "instance type large is no longer among NodePool default's instance types")
}

func TestDriftWaitsWhenPodsCannotMove(t *testing.T) {
	// The pod needs 6 cpu but the NodePool now offers only small and medium types.
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default", small, medium).Obj()},
		Nodes:     []*disruption.Node{running("big", "default", large, "on-demand", pod("web-0", "6"))},
	})
	assert.Empty(t, d.Commands)
	assert.Contains(t, blockedReason(d, "big"), "drifted (instance type large is no longer among NodePool default's instance types), but pod default/web-0 cannot be rescheduled")
}

func TestInvalidInput(t *testing.T) {
	good := func() disruption.Input {
		return disruption.Input{NodePools: []*scheduling.NodePool{pool("default").Obj()}, Nodes: []*disruption.Node{running("a", "default", small, "on-demand")}, Now: now}
	}
	tests := []struct {
		name   string
		mutate func(*disruption.Input)
		err    string
	}{
		{"no now", func(in *disruption.Input) { in.Now = time.Time{} }, "now must be set"},
		{"nil node", func(in *disruption.Input) { in.Nodes = append(in.Nodes, nil) }, "nodes[1]: node is nil"},
		{"duplicate node", func(in *disruption.Input) { in.Nodes = append(in.Nodes, in.Nodes[0]) }, `node "a" is given twice`},
		{"bad budget", func(in *disruption.Input) { in.NodePools[0].Disruption.Budgets = []scheduling.Budget{{Nodes: "ten"}} }, `nodes "ten" is neither`},
		{"bad schedule", func(in *disruption.Input) {
			h := time.Hour
			in.NodePools[0].Disruption.Budgets = []scheduling.Budget{{Nodes: "0", Schedule: "0 25 * * *", Duration: &h}}
		}, "hour: 25 is outside 0-23"},
		{"schedule without duration", func(in *disruption.Input) {
			in.NodePools[0].Disruption.Budgets = []scheduling.Budget{{Nodes: "0", Schedule: "@daily"}}
		}, "schedule and duration must be set together"},
		{"bad policy", func(in *disruption.Input) { in.NodePools[0].Disruption.ConsolidationPolicy = "Sometimes" }, `unknown consolidation policy "Sometimes"`},
		{"bad requirement", func(in *disruption.Input) {
			in.NodePools[0].Requirements = append(in.NodePools[0].Requirements, scheduling.NodeSelectorRequirementWithMinValues{
				NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "kubernetes.io/arch", Operator: "Near", Values: []string{"arm64"}}})
		}, `nodepool "default"`},
		{"nil pending pod", func(in *disruption.Input) { in.PendingPods = []*corev1.Pod{nil} }, "pendingPods[0] is nil"},
		{"nil pod on a node", func(in *disruption.Input) { in.Nodes[0].Pods = []*corev1.Pod{nil} }, "node a: pods[0] is nil"},
		{"duplicate nodepool", func(in *disruption.Input) { in.NodePools = append(in.NodePools, in.NodePools[0]) }, `nodepool "default" is given twice`},
		{"bad budget reason", func(in *disruption.Input) {
			in.NodePools[0].Disruption.Budgets = []scheduling.Budget{{Nodes: "1", Reasons: []string{"Bored"}}}
		}, `unknown reason "Bored"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := good()
			tc.mutate(&in)
			_, err := disruption.Decide(in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestDriftDoesNotMovePodsOntoNodesItAlsoReplaces(t *testing.T) {
	// Every node drifted (medium left the NodePool). Pods go to the replacements, never to a
	// node that a later command of the same decision replaces, and never to another
	// command's replacement: each command stands on its own, should that launch fail.
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default", small, large).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
		Nodes: []*disruption.Node{
			running("a", "default", medium, "on-demand", pod("web-0", "1")),
			running("b", "default", medium, "on-demand", pod("web-1", "1")),
			running("c", "default", medium, "on-demand", pod("web-2", "1")),
		},
	})
	assert.Equal(t, []string{
		"Drift replace [a] -> [on-demand/small] 0.10",
		"Drift replace [b] -> [on-demand/small] 0.10",
		"Drift replace [c] -> [on-demand/small] 0.10",
	}, summary(d))
	for i, c := range d.Commands {
		require.Len(t, c.Moves, 1)
		assert.Equal(t, c.Replacements[0].Name, c.Moves[0].To, "command %d moves its pod to its own replacement", i)
	}
	assert.Equal(t, []string{"default-1", "default-2", "default-3"},
		[]string{d.Commands[0].Replacements[0].Name, d.Commands[1].Replacements[0].Name, d.Commands[2].Replacements[0].Name},
		"replacement names stay unique across commands")
	each := func(cost float64) []workloadcost.Cost {
		var out []workloadcost.Cost
		for _, name := range []string{"web-0", "web-1", "web-2"} {
			out = append(out, workloadcost.Cost{Namespace: "default", Kind: "Pod", Name: name, Pods: 1, HourlyCost: cost})
		}
		return out
	}
	assert.Equal(t, disruption.Summary{Nodes: 3, NodesAfter: 3, HourlyCostBefore: 0.6, HourlyCostAfter: 0.3,
		CostByWorkloadBefore: each(0.2), CostByWorkloadAfter: each(0.1)}, d.Summary)
}

func TestCandidatesOrderedBySavingsPerDisruptionCost(t *testing.T) {
	// a and b cost the same and either's pod fits on keeper; the budget lets one go. The
	// node whose pods are cheaper to disrupt goes first.
	tests := []struct {
		name string
		a, b *corev1.Pod
		want string
	}{
		{"fewer pods", pod("web-0", "500m"), nil, "a"},
		{"lower priority", testbuild.Pod("web-0").CPU("1").Priority(1_000_000).Obj(), pod("api-0", "1"), "b"},
		{"lower pod-deletion-cost", pod("web-0", "1"), testbuild.Pod("api-0").CPU("1").Annotation("controller.kubernetes.io/pod-deletion-cost", "1000000000").Obj(), "a"},
		{"ties by name", pod("web-0", "1"), pod("api-0", "1"), "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Without a pod of its own, b runs two.
			bPods := []*corev1.Pod{pod("api-0", "1"), pod("api-1", "500m")}
			if tc.b != nil {
				bPods = []*corev1.Pod{tc.b}
			}
			d := decide(t, disruption.Input{
				NodePools: []*scheduling.NodePool{onDemand("default").Budget("1").Obj()},
				Nodes: []*disruption.Node{
					running("a", "default", medium, "on-demand", tc.a),
					running("b", "default", medium, "on-demand", bPods...),
					keep(running("keeper", "default", large, "on-demand")),
				},
			})
			require.Len(t, d.Commands, 1)
			assert.Equal(t, tc.want, d.Commands[0].Candidates[0].Node)
		})
	}
}

func TestEveryNodeNotActedOnHasItsReason(t *testing.T) {
	pinned := running("pinned", "default", medium, "on-demand", pod("web-1", "1"))
	pinned.Node.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": "true"}
	fresh := running("fresh", "slow", medium, "on-demand", pod("web-2", "1"))
	fresh.LastPodEvent = now.Add(-10 * time.Minute)
	starting := running("starting", "default", medium, "on-demand")
	starting.Initialized = false
	old := running("old", "default", medium, "on-demand", pod("web-3", "1"))
	old.Created = now.Add(-1000 * time.Hour)
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{
			pool("default").ExpireAfter(720 * time.Hour).Obj(),
			pool("slow").ConsolidateAfter(time.Hour).Obj(),
			pool("spot-only").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "spot").Obj(),
		},
		Nodes: []*disruption.Node{
			running("idle", "default", medium, "on-demand"),
			running("busy", "default", medium, "on-demand", pod("web-0", "1")),
			pinned,
			running("guarded", "default", medium, "on-demand", pod("db-0", "1")),
			fresh,
			starting,
			testbuildFull("foreign"),
			running("drifted", "spot-only", medium, "on-demand", pod("web-4", "1")),
			old,
		},
		PodDisruptionBudgets: []*policyPDB{testbuild.PDB("db", map[string]string{"app": "db"}).MaxUnavailable("0").Obj()},
	})
	assert.Equal(t, []string{"Emptiness delete [idle] -> [] 0.20"}, summary(d))
	assert.Equal(t, []disruption.Blocked{
		{Node: "busy", Reason: "consolidation is not evaluated in this decision because Emptiness acted first (one method acts per decision)"},
		{Node: "drifted", Reason: "drifted: label karpenter.sh/capacity-type=on-demand no longer meets NodePool spot-only's requirement karpenter.sh/capacity-type In [spot]; it waits for a later decision because Emptiness acted in this one (one method acts per decision)"},
		{Node: "foreign", Reason: "the node is not managed by a NodePool (no karpenter.sh/nodepool label or NodeClaim)"},
		{Node: "fresh", Reason: "consolidateAfter 1h0m0s has not passed since the last pod event (10m ago)"},
		{Node: "guarded", Reason: "pod default/db-0: PodDisruptionBudget default/db allows 0 disruption(s) now (1 healthy of 1 pods, 1 required)"},
		{Node: "old", Reason: "the node is 41d old, past NodePool default's expireAfter 720h0m0s; it waits for a later decision because Emptiness acted in this one (one method acts per decision)"},
		{Node: "pinned", Reason: "the node has karpenter.sh/do-not-disrupt"},
		{Node: "starting", Reason: "the node is not initialized yet"},
	}, d.Blocked)
}

func TestDriftNeverEvictsAPodTwice(t *testing.T) {
	// Every node drifted (only small is offered now) and the budget lets two go. a's pod moves
	// to c, which was not kept free because b was to go second; b is then held by the web
	// PDB. c must not go next: its removal would evict web-0 a second time, a second web
	// disruption the PDB does not allow.
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{testbuild.NodePool("default", small).Budget("2").Obj()},
		Nodes: []*disruption.Node{
			running("a", "default", medium, "on-demand", pod("web-0", "1")),
			running("b", "default", medium, "on-demand", pod("web-1", "1")),
			running("c", "default", large, "on-demand", pod("api-0", "500m"), pod("api-1", "500m"), pod("api-2", "500m")),
		},
		PodDisruptionBudgets: []*policyPDB{testbuild.PDB("web", map[string]string{"app": "web"}).MaxUnavailable("1").Obj()},
	})
	require.Equal(t, []string{"Drift delete [a] -> [] 0.20"}, summary(d))
	assert.Equal(t, []disruption.Move{{Pod: "default/web-0", To: "c"}}, d.Commands[0].Moves)
	assert.Contains(t, blockedReason(d, "b"), "PodDisruptionBudget default/web allows 0 disruption(s) now")
	assert.Equal(t, "drifted (instance type large is no longer among NodePool default's instance types), but an earlier command of this decision moves pods onto the node, so it is considered again in the next decision", blockedReason(d, "c"))
}

func TestSingleNodeIsNotSplitIntoSeveral(t *testing.T) {
	// The two db pods never share a node: replacing big would take two small nodes. A node
	// is replaced by one cheaper node at most (Karpenter's rule), not split.
	apart := func(name string) *corev1.Pod {
		return testbuild.Pod(name).Label("app", "db").CPU("1").AntiAffinity("kubernetes.io/hostname", map[string]string{"app": "db"}).Obj()
	}
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes:     []*disruption.Node{running("big", "default", large, "on-demand", apart("db-0"), apart("db-1"))},
	})
	assert.Empty(t, d.Commands)
	assert.Equal(t, "its pods need 2 new nodes; a node is only replaced by one cheaper node", blockedReason(d, "big"))
}
