package app

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/nodeplan/nodeplan/replay"
)

// ReplayDocument is "nodeplan replay -o json": the Result with apiVersion and kind first.
type ReplayDocument struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	replay.Result
}

// NewReplayDocument wraps a replay's result.
func NewReplayDocument(r replay.Result) ReplayDocument {
	return ReplayDocument{APIVersion: APIVersion, Kind: "Replay", Result: r}
}

// WriteReplayTable writes a replay's summary for people: span and cost, node-hours by
// instance type and capacity type, peaks, launches and deletions by reason, evictions,
// pending time and the pods left pending.
func WriteReplayTable(w io.Writer, r replay.Result) error {
	var b strings.Builder
	s := r.Summary
	perHour := averageHourly(r)
	fmt.Fprintf(&b, "SPAN        %s to %s (%s)\n", stampUTC(r.Start), stampUTC(r.End), r.End.Sub(r.Start))
	fmt.Fprintf(&b, "TOTAL COST  $%.2f (%s/h on average, $%.2f/month at that rate)\n", s.TotalCost, price(perHour), perHour*hoursPerMonth)
	fmt.Fprintf(&b, "PEAK        %d nodes, %s/h\n", s.PeakNodes, price(s.PeakHourlyCost))
	fmt.Fprintf(&b, "LAUNCHED    %d nodes\n", s.Launched)
	fmt.Fprintf(&b, "DELETED     %s\n", orDash(byReason(s.Terminated)))
	fmt.Fprintf(&b, "COMMANDS    %d started, %d abandoned at validation\n", s.Commands.Started, s.Commands.Abandoned)
	fmt.Fprintf(&b, "EVICTED     %d pods\n", s.PodsEvicted)
	fmt.Fprintf(&b, "PENDING     p50 %s, p95 %s, max %s\n", seconds(s.PendingSeconds.P50), seconds(s.PendingSeconds.P95), seconds(s.PendingSeconds.Max))
	fmt.Fprintf(&b, "PODS        %d created: %d running, %d pending, %d finished, %d deleted\n\n",
		s.Pods.Created, s.Pods.Running, s.Pods.Pending, s.Pods.Finished, s.Pods.Deleted)

	if groups := nodeHoursByType(r); len(groups) > 0 {
		b.WriteString("NODE-HOURS\n")
		tw := newTable(&b)
		fmt.Fprintln(tw, "INSTANCE TYPE\tCAPACITY\tNODES\tNODE-HOURS\tCOST")
		for _, g := range groups {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t$%.2f\n", g.instanceType, g.capacityType, g.nodes, g.hours, g.cost)
		}
		tw.Flush()
		b.WriteString("\n")
	}
	if len(s.Unschedulable) > 0 {
		b.WriteString("PENDING AT THE END\n")
		tw := newTable(&b)
		fmt.Fprintln(tw, "POD\tREASON")
		for _, u := range s.Unschedulable {
			fmt.Fprintf(tw, "%s\t%s\n", u.Pod, oneLine(u.Reason))
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func byReason(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	total := 0
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
		total += counts[k]
	}
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("%d nodes: %s", total, strings.Join(parts, ", "))
}

func seconds(v float64) string { return fmt.Sprintf("%.0fs", v) }

// nodeHours is what one instance type and capacity type ran for in a replay.
type nodeHours struct {
	instanceType, capacityType string
	nodes                      int
	hours, cost                float64
}

// nodeHoursByType sums the nodes' lifetimes by instance type and capacity type, dearest first.
func nodeHoursByType(r replay.Result) []nodeHours {
	index := map[[2]string]int{}
	var out []nodeHours
	for _, n := range r.Nodes {
		key := [2]string{n.InstanceType, n.CapacityType}
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, nodeHours{instanceType: n.InstanceType, capacityType: n.CapacityType})
		}
		h := n.Hours(r.End)
		out[i].nodes++
		out[i].hours += h
		out[i].cost += h * n.Price
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].cost != out[j].cost {
			return out[i].cost > out[j].cost
		}
		if out[i].instanceType != out[j].instanceType {
			return out[i].instanceType < out[j].instanceType
		}
		return out[i].capacityType < out[j].capacityType
	})
	return out
}
