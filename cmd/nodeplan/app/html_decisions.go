package app

import (
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
)

// commandRow is one command of the decisions, every list in full.
type commandRow struct {
	N                                 int
	Method, Reason, Action            string
	Nodes, Replacements, Evictions    []string
	Moves                             []string
	Savings, SavingsMonthly, Negative string
	Notes                             []string
}

// WriteDecisionsHTML writes disruption decisions as one self-contained HTML page ("nodeplan
// consolidate -o html"): the cluster before the commands (the nodes they remove marked) and
// after them (replacements and moved pods included), zones as columns; cost and nodes by type
// and capacity type before and after; each command with its nodes, replacements, evictions,
// moves and savings; and the nodes left alone with the reason.
func WriteDecisionsHTML(w io.Writer, res *Consolidated) error {
	return writeReport(w, decisionsReport(res))
}

func decisionsReport(res *Consolidated) *report {
	d := res.Decisions
	removedBy := map[string]int{} // node → command number
	evicted := map[string]bool{}
	movedTo := map[string][]string{} // node → pods moving there
	for i, c := range d.Commands {
		for _, cand := range c.Candidates {
			removedBy[cand.Node] = i + 1
		}
		for _, e := range c.Evictions {
			evicted[e] = true
		}
		for _, m := range c.Moves {
			movedTo[m.To] = append(movedTo[m.To], m.Pod)
		}
	}
	podByKey := map[string]*corev1.Pod{}
	for _, n := range res.Input.Nodes {
		for _, p := range n.Pods {
			if p != nil {
				podByKey[podKey(p)] = p
			}
		}
	}
	moved := func(node string) []*corev1.Pod {
		var out []*corev1.Pod
		for _, k := range movedTo[node] {
			if p := podByKey[k]; p != nil {
				out = append(out, p)
			}
		}
		return out
	}

	var before, after []drawnNode
	var typesBefore, ctBefore, typesAfter, ctAfter []string
	for _, n := range res.Input.Nodes {
		if n == nil || n.Node == nil {
			continue
		}
		daemons, running := splitDaemons(n.Pods)
		b := drawnNode{
			name: n.Node.Name, zone: n.Zone, class: "existing",
			lines:       nodeLine(n.InstanceType, n.CapacityType, n.Price, n.NodePool),
			allocatable: n.Node.Status.Allocatable, daemons: daemons, running: running,
		}
		if n.Disrupting {
			b.badge = "disrupting"
		}
		typesBefore, ctBefore = append(typesBefore, orDash(n.InstanceType)), append(ctBefore, orDash(n.CapacityType))
		if i, ok := removedBy[n.Node.Name]; ok {
			b.class, b.badge = "removed", fmt.Sprintf("removed by #%d", i)
			before = append(before, b)
			continue
		}
		before = append(before, b)
		a := b
		a.running = nil
		for _, p := range running {
			if !evicted[podKey(p)] {
				a.running = append(a.running, p)
			}
		}
		a.placed = moved(n.Node.Name)
		after = append(after, a)
		typesAfter, ctAfter = append(typesAfter, orDash(n.InstanceType)), append(ctAfter, orDash(n.CapacityType))
	}
	for i, c := range d.Commands {
		for _, nc := range c.Replacements {
			after = append(after, drawnNode{
				name: nc.Name, zone: nc.Zone, class: "new", badge: fmt.Sprintf("new, #%d", i+1),
				lines:       nodeLine(nc.InstanceType, nc.CapacityType, nc.Price, nc.NodePool),
				allocatable: nc.Allocatable,
				daemons:     daemonPods(res.Input.DaemonSets, nc.Labels, nc.Taints),
				placed:      moved(nc.Name),
			})
			typesAfter, ctAfter = append(typesAfter, nc.InstanceType), append(ctAfter, nc.CapacityType)
		}
	}
	sc := newScale(before, after)
	beforeView := drawView("Before", "The running cluster. Red dashed boxes are the nodes the commands remove; "+
		"box width is allocatable CPU, height allocatable memory; pods are rectangles of their requests, corner to corner.", before, sc)
	beforeView.CountInLegend = true
	afterView := drawView("After", "The cluster once every command has run: replacements (blue) and the pods moved (bright) included.", after, sc)
	for k := range evicted {
		if !isMoved(d, k) {
			afterView.Pending = append(afterView.Pending, k)
		}
	}
	afterView.Pending = sortedStrings(afterView.Pending)

	r := &report{
		Title:    "nodeplan consolidate",
		Subtitle: strings.TrimSuffix(decisionsSummary(d), "\n"),
		Views:    []clusterView{beforeView, afterView},
	}
	r.Legend = legend(r.Views)
	r.Facts = decisionsFacts(res, before, after)
	r.Breakdowns = append(nodeCounts("Before: ", typesBefore, ctBefore), nodeCounts("After: ", typesAfter, ctAfter)...)
	for i, c := range d.Commands {
		r.Commands = append(r.Commands, commandRowOf(i+1, c))
	}
	for _, b := range d.Blocked {
		r.Blocked = append(r.Blocked, blockedRow{Node: b.Node, Reason: b.Reason})
	}
	sum := res.Decisions.Summary
	r.Workloads, r.WorkloadTotal = workloadRows(sum.CostByWorkloadAfter, sum.HourlyCostAfter)
	r.WorkloadTotalLabel = fmt.Sprintf("Total after the commands (before: %s/h)", price(sum.HourlyCostBefore))
	r.WorkloadNote = "After the commands, each NodePool-managed node's price is split among the pods that run on it by their share of its allocatable CPU plus their share of its memory; evicted pods count where they move."
	return r
}

func isMoved(d disruption.Decisions, pod string) bool {
	for _, c := range d.Commands {
		for _, m := range c.Moves {
			if m.Pod == pod {
				return true
			}
		}
	}
	return false
}

func sortedStrings(s []string) []string {
	m := map[string]bool{}
	for _, v := range s {
		m[v] = true
	}
	return sortedKeys(m)
}

func decisionsFacts(res *Consolidated, before, after []drawnNode) []fact {
	s := res.Decisions.Summary
	savings := s.HourlyCostBefore - s.HourlyCostAfter
	cpuBefore, memBefore := usageShare(before)
	cpuAfter, memAfter := usageShare(after)
	return []fact{
		{Label: "Commands", Value: fmt.Sprint(len(res.Decisions.Commands)), Note: "decided at " + res.Input.Now.UTC().Format(time.RFC3339)},
		{Label: "NodePool-managed nodes", Value: fmt.Sprintf("%d → %d", s.Nodes, s.NodesAfter)},
		{Label: "Cost before", Value: price(s.HourlyCostBefore) + "/h", Note: monthly(s.HourlyCostBefore) + "/month (730 h)"},
		{Label: "Cost after", Value: price(s.HourlyCostAfter) + "/h", Note: monthly(s.HourlyCostAfter) + "/month (730 h)"},
		{Label: "Savings", Value: price(savings) + "/h", Note: monthly(savings) + "/month"},
		{Label: "Requested before", Value: "CPU " + cpuBefore + " · memory " + memBefore, Note: "share of allocatable of all nodes"},
		{Label: "Requested after", Value: "CPU " + cpuAfter + " · memory " + memAfter, Note: "share of allocatable of all nodes"},
	}
}

func commandRowOf(n int, c disruption.Command) commandRow {
	row := commandRow{N: n, Method: c.Method, Reason: c.Reason, Action: c.Action,
		Evictions: c.Evictions, Notes: c.Notes,
		Savings: price(c.Savings) + "/h", SavingsMonthly: monthly(c.Savings) + "/month"}
	if c.Savings < 0 {
		row.Negative = "negative"
	}
	for _, cand := range c.Candidates {
		row.Nodes = append(row.Nodes, fmt.Sprintf("%s (%s, %s, %s, %s/h)", cand.Node, orDash(cand.InstanceType), orDash(cand.Zone), orDash(cand.CapacityType), price(cand.Price)))
	}
	for _, r := range c.Replacements {
		row.Replacements = append(row.Replacements, fmt.Sprintf("%s (%s, %s, %s, %s/h)", r.Name, r.InstanceType, r.Zone, r.CapacityType, price(r.Price)))
	}
	for _, m := range c.Moves {
		row.Moves = append(row.Moves, m.Pod+" → "+m.To)
	}
	return row
}
