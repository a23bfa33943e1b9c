package app

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/nodeplan/nodeplan/replay"
)

// ReplayComparisonDocument is "nodeplan replay --compare -o json": the same trace replayed on
// two start clusters, each named by its input.
type ReplayComparisonDocument struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Inputs     []string        `json:"inputs"`
	Replays    []replay.Result `json:"replays"`
}

// NewReplayComparisonDocument wraps two replays of one trace.
func NewReplayComparisonDocument(names [2]string, a, b replay.Result) ReplayComparisonDocument {
	return ReplayComparisonDocument{APIVersion: APIVersion, Kind: "ReplayComparison", Inputs: names[:], Replays: []replay.Result{a, b}}
}

// WriteReplayComparison writes the two replays' summaries side by side with the difference.
func WriteReplayComparison(w io.Writer, names [2]string, a, b replay.Result) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "A: %s\nB: %s\n\n", names[0], names[1])
	tw := newTable(&sb)
	fmt.Fprintln(tw, "\tA\tB\tB - A")
	money := func(label string, x, y float64) {
		fmt.Fprintf(tw, "%s\t$%.2f\t$%.2f\t%s\n", label, x, y, signed("$%.2f", y-x))
	}
	rate := func(label string, x, y float64) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", label, price(x), price(y), signed("$%.4f", y-x))
	}
	count := func(label string, x, y int) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", label, x, y, signed("%.0f", float64(y-x)))
	}
	secs := func(label string, x, y float64) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", label, seconds(x), seconds(y), signed("%.0fs", y-x))
	}
	sa, sbm := a.Summary, b.Summary
	fmt.Fprintf(tw, "span\t%s\t%s\t\n", a.End.Sub(a.Start), b.End.Sub(b.Start))
	money("total cost", sa.TotalCost, sbm.TotalCost)
	money("$/month at that rate", monthlyRate(a), monthlyRate(b))
	count("peak nodes", sa.PeakNodes, sbm.PeakNodes)
	rate("peak $/h", sa.PeakHourlyCost, sbm.PeakHourlyCost)
	count("launched", sa.Launched, sbm.Launched)
	for _, reason := range reasonsOf(sa.Terminated, sbm.Terminated) {
		count("deleted "+reason, sa.Terminated[reason], sbm.Terminated[reason])
	}
	count("commands started", sa.Commands.Started, sbm.Commands.Started)
	count("commands abandoned", sa.Commands.Abandoned, sbm.Commands.Abandoned)
	count("pods evicted", sa.PodsEvicted, sbm.PodsEvicted)
	secs("pending p50", sa.PendingSeconds.P50, sbm.PendingSeconds.P50)
	secs("pending p95", sa.PendingSeconds.P95, sbm.PendingSeconds.P95)
	secs("pending max", sa.PendingSeconds.Max, sbm.PendingSeconds.Max)
	count("pending at the end", len(sa.Unschedulable), len(sbm.Unschedulable))
	tw.Flush()
	_, err := io.WriteString(w, sb.String())
	return err
}

// monthlyRate is the replay's average hourly cost over a 730-hour month.
func monthlyRate(r replay.Result) float64 { return averageHourly(r) * hoursPerMonth }

func reasonsOf(maps ...map[string]int) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// signed formats a difference with its sign, "0" when there is none.
func signed(format string, v float64) string {
	s := fmt.Sprintf(format, v)
	if strings.Trim(s, "$0.s") == "" || strings.Trim(s, "-$0.s") == "" {
		return "0"
	}
	if v > 0 {
		return "+" + s
	}
	return s
}
