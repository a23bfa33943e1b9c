package app

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/workloadcost"
)

// The HTML report ("-o html") is one self-contained page: inline CSS, a few lines of inline
// script and SVG, no network. html_plan.go and html_decisions.go turn a plan or decisions into
// a report; html_nodes.go draws nodes; report.html.tmpl lays the page out. html/template
// escapes every value, and nothing on the page depends on anything but the input, so the
// same input gives the same bytes.

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Parse(reportTemplateText))

// report is what the template shows; sections without rows are left out.
type report struct {
	Title    string
	Subtitle string
	// Facts are the summary's headline numbers; Breakdowns its short lists (nodes by type…).
	Facts      []fact
	Breakdowns []breakdown
	Views      []clusterView
	Legend     []legendEntry
	// Workloads is the cost by workload table.
	Workloads          []workloadRow
	WorkloadTotal      string
	WorkloadTotalLabel string
	WorkloadNote       string
	Unschedulable      []unschedulableRow
	Commands           []commandRow
	Blocked            []blockedRow
}

type fact struct {
	Label, Value, Note string
}

type breakdown struct {
	Title string
	Items []fact
}

type legendEntry struct {
	ID    string // workload identifier, for highlighting
	Label string
	Color string
	Pods  int
}

type workloadRow struct {
	ID, Namespace, Kind, Name string
	Color                     string
	Pods                      int
	Hourly, Monthly, Share    string
	ShareBar                  int // Share in whole percent, for its bar
}

type unschedulableRow struct {
	Pod, Workload, Constraint, Reason string
}

type blockedRow struct {
	Node, Reason string
}

// hoursPerMonth is the month $/month figures use, as cloud price lists do.
const hoursPerMonth = 730

func writeReport(w io.Writer, r *report) error {
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, r); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// legend lists the workloads drawn in the views, by namespace, kind and name.
func legend(views []clusterView) []legendEntry {
	counts := map[string]*legendEntry{}
	var order []*legendEntry
	for _, v := range views {
		for _, z := range v.Zones {
			for _, n := range z.Nodes {
				for _, p := range n.Pods {
					e := counts[p.Workload]
					if e == nil {
						e = &legendEntry{ID: p.Workload, Label: p.WorkloadLabel, Color: p.Fill}
						counts[p.Workload] = e
						order = append(order, e)
					}
					if v.CountInLegend {
						e.Pods++
					}
				}
			}
		}
	}
	out := make([]legendEntry, len(order))
	for i, e := range order {
		out[i] = *e
	}
	slices.SortFunc(out, func(a, b legendEntry) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// workloadID identifies a workload on the page (namespace/kind/name).
func workloadID(w workloadcost.Workload) string {
	return w.Namespace + "/" + w.Kind + "/" + w.Name
}

// workloadLabel is how the page names a workload: "Deployment shop/catalog".
func workloadLabel(w workloadcost.Workload) string {
	return w.Kind + " " + w.Namespace + "/" + w.Name
}

// monthly formats an hourly price as a monthly one.
func monthly(hourly float64) string { return fmt.Sprintf("$%.2f", hourly*hoursPerMonth) }

// countsOf lists how many nodes have each value, values sorted.
func countsOf(values []string) []fact {
	counts := map[string]int{}
	for _, v := range values {
		counts[v]++
	}
	var out []fact
	for _, k := range sortedKeys(counts) {
		out = append(out, fact{Label: k, Value: plural(counts[k], "node")})
	}
	return out
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
