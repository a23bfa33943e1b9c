package app

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/replay"
)

//go:embed replay.html.tmpl
var replayTemplateText string

var replayTemplate = template.Must(template.New("replay").Parse(replayTemplateText))

// replayPage is what replay.html.tmpl shows. Its style is the plan and decisions report's.
type replayPage struct {
	Title, Subtitle string
	Style           template.HTML
	Facts           []fact
	Charts          []chart
	NodeHours       []nodeHoursRow
	Decisions       []decisionRow
	Pending         []replay.Unschedulable
}

type nodeHoursRow struct {
	InstanceType, CapacityType string
	Nodes                      int
	Hours, Cost                string
}

type decisionRow struct {
	Time, What, Nodes, Replacements, Pods, Savings string
}

// chart is one quantity of the timeline over time, as a step line in an inline SVG.
type chart struct {
	Title                            string
	Width, Height                    int
	Left, Right, Top, Bottom, LabelX int
	TopLabelY, ChartTop, ChartBottom int
	Max                              string
	Line, Area                       string
	Marks                            []chartMark
	Ticks                            []chartTick
}

type chartMark struct {
	X     string
	Title string
}

type chartTick struct {
	X     string
	Y     int
	Label string
}

// reportStyle is the plan report's style block, shared so that every nodeplan page looks
// alike.
func reportStyle() template.HTML {
	_, after, _ := strings.Cut(reportTemplateText, "<style>")
	css, _, _ := strings.Cut(after, "</style>")
	return template.HTML("<style>" + css + "</style>") // our own embedded text, not input
}

// WriteReplayHTML writes a replay as one self-contained page: the summary, charts of nodes,
// $/h and pending pods over time with the disruption commands marked, node-hours by type,
// the commands and the pods left pending.
func WriteReplayHTML(w io.Writer, r replay.Result) error {
	s := r.Summary
	page := replayPage{
		Title:    "nodeplan replay",
		Subtitle: fmt.Sprintf("%s to %s (%s)", stampUTC(r.Start), stampUTC(r.End), r.End.Sub(r.Start)),
		Style:    reportStyle(),
		Facts: []fact{
			{Label: "Total cost", Value: fmt.Sprintf("$%.2f", s.TotalCost), Note: fmt.Sprintf("%s a month at that rate", monthly(averageHourly(r)))},
			{Label: "Peak", Value: fmt.Sprintf("%d nodes", s.PeakNodes), Note: price(s.PeakHourlyCost) + "/h"},
			{Label: "Launched", Value: fmt.Sprint(s.Launched)},
			{Label: "Deleted", Value: orDash(byReason(s.Terminated))},
			{Label: "Commands", Value: fmt.Sprint(s.Commands.Started), Note: fmt.Sprintf("%d abandoned at validation", s.Commands.Abandoned)},
			{Label: "Pods evicted", Value: fmt.Sprint(s.PodsEvicted)},
			{Label: "Pending", Value: "p95 " + seconds(s.PendingSeconds.P95), Note: fmt.Sprintf("p50 %s, max %s", seconds(s.PendingSeconds.P50), seconds(s.PendingSeconds.Max))},
		},
		Pending: s.Unschedulable,
	}
	var marks []replay.Decision
	for _, d := range r.Decisions {
		if d.Kind == replay.DecisionDisrupt || d.Kind == replay.DecisionInterrupt || d.Kind == replay.DecisionFail {
			marks = append(marks, d)
		}
		if d.Kind == replay.DecisionLaunch || d.Kind == replay.DecisionMark {
			continue
		}
		page.Decisions = append(page.Decisions, decisionRow{
			Time: stampUTC(d.Time), What: joinNonEmpty(" ", d.Kind, d.Method, d.Reason), Nodes: orDash(strings.Join(d.Nodes, ", ")),
			Replacements: orDash(strings.Join(d.Replacements, ", ")), Pods: fmt.Sprint(d.Pods), Savings: price(d.Savings),
		})
	}
	for _, q := range []struct {
		title string
		value func(replay.Point) float64
		label func(float64) string
	}{
		{"Nodes", func(p replay.Point) float64 { return float64(p.Nodes) }, func(v float64) string { return fmt.Sprintf("%.0f", v) }},
		{"Cost per hour", func(p replay.Point) float64 { return p.HourlyCost }, func(v float64) string { return fmt.Sprintf("$%.2f", v) }},
		{"Pending pods", func(p replay.Point) float64 { return float64(p.Pending) }, func(v float64) string { return fmt.Sprintf("%.0f", v) }},
	} {
		page.Charts = append(page.Charts, stepChart(q.title, r, q.value, q.label, marks))
	}
	for _, g := range nodeHoursByType(r) {
		page.NodeHours = append(page.NodeHours, nodeHoursRow{InstanceType: g.instanceType, CapacityType: g.capacityType, Nodes: g.nodes,
			Hours: fmt.Sprintf("%.2f", g.hours), Cost: fmt.Sprintf("$%.2f", g.cost)})
	}
	return replayTemplate.Execute(w, page)
}

// stepChart draws one quantity of the timeline: it holds each point's value until the next.
func stepChart(title string, r replay.Result, value func(replay.Point) float64, label func(float64) string, marks []replay.Decision) chart {
	c := chart{Title: title, Width: 960, Height: 150, Left: 60, Right: 950, Top: 10, Bottom: 120, LabelX: 54}
	c.TopLabelY, c.ChartTop, c.ChartBottom = c.Top+4, c.Top, c.Bottom
	span := r.End.Sub(r.Start)
	if span <= 0 {
		span = time.Second
	}
	x := func(t time.Time) float64 {
		return float64(c.Left) + float64(c.Right-c.Left)*float64(t.Sub(r.Start))/float64(span)
	}
	top := 0.0
	for _, p := range r.Timeline {
		top = max(top, value(p))
	}
	if top == 0 {
		top = 1
	}
	y := func(v float64) float64 { return float64(c.Bottom) - float64(c.Bottom-c.Top)*v/top }
	c.Max = label(top)
	var line strings.Builder
	for i, p := range r.Timeline {
		if i == 0 {
			fmt.Fprintf(&line, "M%.1f %.1f", x(p.Time), y(value(p)))
			continue
		}
		fmt.Fprintf(&line, "H%.1f V%.1f", x(p.Time), y(value(p)))
	}
	if len(r.Timeline) > 0 {
		fmt.Fprintf(&line, "H%.1f", x(r.End))
		c.Line = line.String()
		c.Area = fmt.Sprintf("%s V%d H%.1f Z", c.Line, c.Bottom, x(r.Timeline[0].Time))
	}
	for _, d := range marks {
		c.Marks = append(c.Marks, chartMark{X: fmt.Sprintf("%.1f", x(d.Time)),
			Title: fmt.Sprintf("%s %s", stampUTC(d.Time), joinNonEmpty(" ", d.Kind, d.Method, d.Reason, strings.Join(d.Nodes, ", ")))})
	}
	for i := 0; i <= 4; i++ {
		t := r.Start.Add(span * time.Duration(i) / 4)
		c.Ticks = append(c.Ticks, chartTick{X: fmt.Sprintf("%.1f", x(t)), Y: c.Bottom + 16, Label: t.UTC().Format("Jan 2 15:04")})
	}
	return c
}

func stampUTC(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// averageHourly is the replay's total cost over its span, per hour.
func averageHourly(r replay.Result) float64 {
	if h := r.End.Sub(r.Start).Hours(); h > 0 {
		return r.Summary.TotalCost / h
	}
	return 0
}
