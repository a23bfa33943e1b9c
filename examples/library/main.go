// Command library shows nodeplan embedded the way an autoscaler would use it: no YAML, no
// CLI, only the packages. It plans nodes for a batch of pending pods with scheduling.Solve,
// "launches" them by turning the plan's node claims into Nodes, and, once most of the work
// is done, asks disruption.Decide which nodes can go.
//
//	go run ./examples/library
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "library:", err)
		os.Exit(1)
	}
}

// run plans, launches and consolidates, printing each step.
func run(w io.Writer) error {
	pool, err := nodePool()
	if err != nil {
		return err
	}
	pending := workers(12)
	plan, err := provision(pool, pending)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "provision: %d pods on %d new nodes, $%.4f/h (lower bound $%.4f/h)\n",
		plan.Summary.Placed, plan.Summary.NewNodes, plan.Summary.HourlyCost, plan.Summary.LowerBound)
	for _, nc := range plan.NodeClaims {
		fmt.Fprintf(w, "  %s: %s %s %s $%.4f/h, %d pods\n", nc.Name, nc.InstanceType, nc.Zone, nc.CapacityType, nc.Price, len(nc.Pods))
	}

	// An hour later the nodes run, and all but the first three workers have finished.
	launched := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	now := launched.Add(time.Hour)
	nodes := launch(plan, pending, launched, 3)
	decisions, err := consolidate(pool, nodes, now)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "consolidate: %d nodes, $%.4f/h -> %d nodes, $%.4f/h\n",
		decisions.Summary.Nodes, decisions.Summary.HourlyCostBefore, decisions.Summary.NodesAfter, decisions.Summary.HourlyCostAfter)
	for _, cmd := range decisions.Commands {
		for _, c := range cmd.Candidates {
			fmt.Fprintf(w, "  %s %s %s (%s), %d pods evicted\n", cmd.Method, cmd.Action, c.Node, c.InstanceType, len(cmd.Evictions))
		}
	}
	for _, b := range decisions.Blocked {
		fmt.Fprintf(w, "  keep %s: %s\n", b.Node, b.Reason)
	}
	return nil
}

// nodePool is what a NodePool's spec says: spot or on-demand arm64 nodes of general-purpose
// families, consolidated a minute after their last pod event; it may launch any type of the
// embedded us-west-2 catalog its requirements allow.
func nodePool() (*scheduling.NodePool, error) {
	catalog, err := aws.Catalog("us-west-2")
	if err != nil {
		return nil, err
	}
	consolidateAfter := time.Minute
	return &scheduling.NodePool{
		Name: "workers",
		Requirements: []scheduling.NodeSelectorRequirementWithMinValues{
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: requirements.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot", "on-demand"}}},
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: requirements.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}}},
			{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m"}}},
		},
		Disruption: scheduling.Disruption{
			ConsolidationPolicy: scheduling.ConsolidationWhenEmptyOrUnderutilized,
			ConsolidateAfter:    &consolidateAfter,
			Budgets:             []scheduling.Budget{{Nodes: "100%"}},
		},
		InstanceTypes: catalog.InstanceTypes,
	}, nil
}

// workers are n pending pods of a batch job, spread over zones.
func workers(n int) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:      fmt.Sprintf("worker-%d", i),
				Namespace: "batch",
				Labels:    map[string]string{"app": "worker"},
			},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{
					Name:  "worker",
					Image: "busybox:1.37",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("1"),
						corev1.ResourceMemory: resource.MustParse("2Gi"),
					}},
				}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
					MaxSkew:           1,
					TopologyKey:       requirements.LabelTopologyZone,
					WhenUnsatisfiable: corev1.DoNotSchedule,
					LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "worker"}},
				}},
			},
		}
	}
	return pods
}

// provision plans new nodes for the pending pods.
func provision(pool *scheduling.NodePool, pending []*corev1.Pod) (scheduling.Plan, error) {
	return scheduling.Solve(scheduling.Input{Pods: pending, NodePools: []*scheduling.NodePool{pool}})
}

// launch turns the plan's node claims into running Nodes with their pods bound, as the
// cloud provider and kube-scheduler would; only the first keep workers are still running.
func launch(plan scheduling.Plan, pods []*corev1.Pod, at time.Time, keep int) []*disruption.Node {
	byKey := map[string]*corev1.Pod{}
	for _, p := range pods {
		byKey[p.Namespace+"/"+p.Name] = p
	}
	running := map[string]bool{}
	for _, p := range pods[:keep] {
		running[p.Namespace+"/"+p.Name] = true
	}
	var nodes []*disruption.Node
	for _, nc := range plan.NodeClaims {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: nc.Name, Labels: nc.Labels, CreationTimestamp: metav1.NewTime(at)},
			Spec:       corev1.NodeSpec{Taints: nc.Taints},
			Status:     corev1.NodeStatus{Capacity: nc.Capacity, Allocatable: nc.Allocatable},
		}
		n := &disruption.Node{
			Node:         node,
			NodePool:     nc.NodePool,
			InstanceType: nc.InstanceType,
			Zone:         nc.Zone,
			CapacityType: nc.CapacityType,
			Price:        nc.Price,
			Created:      at,
			LastPodEvent: at.Add(10 * time.Minute), // when the finished workers left
			Initialized:  true,
		}
		for _, key := range nc.Pods {
			if !running[key] {
				continue
			}
			pod := byKey[key].DeepCopy()
			pod.Spec.NodeName = node.Name
			pod.Status.Phase = corev1.PodRunning
			n.Pods = append(n.Pods, pod)
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// consolidate decides which nodes can go now.
func consolidate(pool *scheduling.NodePool, nodes []*disruption.Node, now time.Time) (disruption.Decisions, error) {
	return disruption.Decide(disruption.Input{Nodes: nodes, NodePools: []*scheduling.NodePool{pool}, Now: now})
}
