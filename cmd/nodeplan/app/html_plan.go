package app

import (
	"fmt"
	"io"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

// WritePlanHTML writes a plan as one self-contained HTML page ("nodeplan plan -o html"): the
// cluster after the plan with zones as columns and every node a box sized by its allocatable
// cpu and memory, pods inside coloured by workload; the cost per hour and per month with its
// lower bound, nodes by type and capacity type and the share of cpu and memory requested; the
// cost by workload; and the unschedulable pods with their reasons.
func WritePlanHTML(w io.Writer, res *Planned) error {
	return writeReport(w, planReport(res))
}

func planReport(res *Planned) *report {
	p := res.Plan
	pending := podsByKey(res.Input.Pods)
	podsOf := func(keys []string) []*corev1.Pod {
		var out []*corev1.Pod
		for _, k := range keys {
			if pod := pending[k]; pod != nil {
				out = append(out, pod)
			}
		}
		return out
	}

	placedOn := map[string][]string{}
	for _, e := range p.ExistingNodes {
		placedOn[e.Name] = e.Pods
	}
	var existing, added []drawnNode
	for _, e := range res.Input.ExistingNodes {
		if e == nil || e.Node == nil {
			continue
		}
		labels := e.Node.Labels
		daemons, running := splitDaemons(e.Pods)
		n := drawnNode{
			name: e.Node.Name, zone: labels[requirements.LabelTopologyZone], class: "existing",
			lines:       nodeLine(labels[requirements.LabelInstanceType], labels[requirements.LabelCapacityType], 0, e.NodePool),
			allocatable: e.Node.Status.Allocatable,
			daemons:     daemons, running: running, placed: podsOf(placedOn[e.Node.Name]),
		}
		switch {
		case e.Node.Spec.Unschedulable:
			n.badge = "cordoned"
		case !e.Initialized:
			n.badge = "starting"
		}
		existing = append(existing, n)
	}
	var types, capacityTypes []string
	for _, nc := range p.NodeClaims {
		added = append(added, drawnNode{
			name: nc.Name, zone: nc.Zone, class: "new", badge: "new",
			lines:       nodeLine(nc.InstanceType, nc.CapacityType, nc.Price, nc.NodePool),
			allocatable: nc.Allocatable,
			daemons:     daemonPods(res.Input.DaemonSets, nc.Labels, nc.Taints),
			placed:      podsOf(nc.Pods),
		})
		types = append(types, nc.InstanceType)
		capacityTypes = append(capacityTypes, nc.CapacityType)
	}
	all := append(append([]drawnNode{}, existing...), added...)
	view := drawView("Nodes after the plan",
		"Each box is a node, its width the allocatable CPU and its height the allocatable memory, on one scale. "+
			"Each pod is a rectangle of its requests, set corner to corner (CPU to the right, memory upwards), so the room left is above and to the right. "+
			"Grey: DaemonSet pods; pale: pods already running; blue outline: new nodes.",
		all, newScale(all))
	view.CountInLegend = true

	r := &report{
		Title:    "nodeplan plan",
		Subtitle: strings.TrimSuffix(planSummary(p), "\n"),
		Views:    []clusterView{view},
	}
	r.Legend = legend(r.Views)
	r.Facts = planFacts(p, added)
	if len(p.NodeClaims) > 0 {
		r.Breakdowns = nodeCounts("New ", types, capacityTypes)
	}
	r.Workloads, r.WorkloadTotal = workloadRows(p.Summary.CostByWorkload, p.Summary.HourlyCost)
	r.WorkloadNote = "Each new node's price is split among its pods by their share of its allocatable CPU plus their share of its memory; a Deployment's ReplicaSets count as the Deployment."
	r.WorkloadTotalLabel = "Total (the new nodes' prices)"
	for _, u := range p.Unschedulable {
		row := unschedulableRow{Pod: u.Pod, Constraint: string(u.Constraint), Reason: u.Reason}
		if pod := pending[u.Pod]; pod != nil {
			row.Workload = workloadLabel(workloadcost.Of(pod))
		}
		r.Unschedulable = append(r.Unschedulable, row)
	}
	return r
}

func planFacts(p scheduling.Plan, added []drawnNode) []fact {
	s := p.Summary
	onNew := 0
	for _, nc := range p.NodeClaims {
		onNew += len(nc.Pods)
	}
	facts := []fact{
		{Label: "Pending pods", Value: fmt.Sprint(s.Pods),
			Note: fmt.Sprintf("%d on new nodes, %d on existing nodes, %d unschedulable", onNew, s.Placed-onNew, len(p.Unschedulable))},
		{Label: "New nodes", Value: fmt.Sprint(s.NewNodes)},
		{Label: "Cost of the new nodes", Value: price(s.HourlyCost) + "/h", Note: monthly(s.HourlyCost) + "/month (730 h)"},
	}
	bound := fact{Label: "Lower bound", Value: price(s.LowerBound) + "/h", Note: "no packing of these pods onto new nodes costs less"}
	if s.LowerBound > 0 && s.HourlyCost >= s.LowerBound {
		bound.Note = fmt.Sprintf("the plan costs %.0f%% more than this bound, which no packing can beat", (s.HourlyCost/s.LowerBound-1)*100)
	}
	facts = append(facts, bound)
	if s.NodeFixedCost > 0 {
		facts = append(facts, fact{Label: "Per-node costs", Value: price(s.NodeFixedCost) + "/h",
			Note: "root volumes and the like (--node-cost), not in the cost above"})
	}
	if len(added) > 0 {
		cpu, mem := usageShare(added)
		facts = append(facts, fact{Label: "Requested of the new nodes", Value: "CPU " + cpu + " · memory " + mem,
			Note: "share of allocatable their pods and DaemonSet pods request"})
	}
	return facts
}

// workloadRows is the cost by workload table, with each workload's share of the total.
func workloadRows(costs []workloadcost.Cost, total float64) ([]workloadRow, string) {
	var rows []workloadRow
	for _, w := range costs {
		wl := workloadcost.Workload{Namespace: w.Namespace, Kind: w.Kind, Name: w.Name}
		row := workloadRow{
			ID: workloadID(wl), Namespace: w.Namespace, Kind: w.Kind, Name: w.Name, Color: workloadColor(wl),
			Pods: w.Pods, Hourly: price(w.HourlyCost), Monthly: monthly(w.HourlyCost), Share: "-",
		}
		if total > 0 {
			share := w.HourlyCost / total * 100
			row.Share, row.ShareBar = fmt.Sprintf("%.1f%%", share), int(math.Round(min(share, 100)))
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, ""
	}
	return rows, price(total) + "/h"
}
