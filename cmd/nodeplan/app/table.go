package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// WritePlanTable prints a plan for people, as kubectl prints tables: the new nodes (type,
// zone, capacity type, price, pods and the share of allocatable CPU and memory their pods and
// DaemonSet pods request), the pods placed on existing nodes, the unschedulable pods with
// their reasons, and a summary line with the cost and its lower bound.
func WritePlanTable(w io.Writer, res *Planned) error {
	p := res.Plan
	pods := podsByKey(res.Input.Pods)
	var sections []func(io.Writer)
	if len(p.NodeClaims) > 0 {
		sections = append(sections, func(w io.Writer) {
			fmt.Fprintln(w, "NEW NODES")
			tw := newTable(w)
			fmt.Fprintln(tw, "NAME\tNODEPOOL\tTYPE\tZONE\tCAPACITY\t$/H\tPODS\tCPU%\tMEM%")
			for _, nc := range p.NodeClaims {
				var u usage
				for _, key := range nc.Pods {
					u.add(pods[key])
				}
				u.daemons(res.Input.DaemonSets, nc.Labels, nc.Taints)
				cpu, mem := u.percents(nc.Allocatable)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n",
					nc.Name, nc.NodePool, nc.InstanceType, nc.Zone, nc.CapacityType, price(nc.Price), len(nc.Pods), cpu, mem)
			}
			tw.Flush()
		})
	}
	if len(p.ExistingNodes) > 0 {
		existing := map[string]*scheduling.ExistingNode{}
		for _, e := range res.Input.ExistingNodes {
			existing[e.Node.Name] = e
		}
		sections = append(sections, func(w io.Writer) {
			fmt.Fprintln(w, "EXISTING NODES")
			tw := newTable(w)
			fmt.Fprintln(tw, "NAME\tTYPE\tZONE\tNEW PODS\tCPU%\tMEM%\tPLACED")
			for _, placement := range p.ExistingNodes {
				typ, zone, cpu, mem := "-", "-", "-", "-"
				if e := existing[placement.Name]; e != nil {
					typ = orDash(e.Node.Labels[requirements.LabelInstanceType])
					zone = orDash(e.Node.Labels[requirements.LabelTopologyZone])
					var u usage
					for _, pod := range e.Pods {
						u.add(pod)
					}
					for _, key := range placement.Pods {
						u.add(pods[key])
					}
					cpu, mem = u.percents(e.Node.Status.Allocatable)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n",
					placement.Name, typ, zone, len(placement.Pods), cpu, mem, abbreviate(placement.Pods, 3))
			}
			tw.Flush()
		})
	}
	if len(p.Unschedulable) > 0 {
		sections = append(sections, func(w io.Writer) {
			fmt.Fprintln(w, "UNSCHEDULABLE")
			tw := newTable(w)
			fmt.Fprintln(tw, "POD\tCONSTRAINT\tREASON")
			for _, u := range p.Unschedulable {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", u.Pod, u.Constraint, oneLine(u.Reason))
			}
			tw.Flush()
		})
	}
	var b strings.Builder
	for _, section := range sections {
		section(&b)
		b.WriteString("\n")
	}
	b.WriteString(planSummary(p))
	_, err := io.WriteString(w, b.String())
	return err
}

// planSummary is the last line of the table: what was placed where and what it costs.
func planSummary(p scheduling.Plan) string {
	s := p.Summary
	if s.Pods == 0 {
		return "No pending pods: nothing to plan.\n"
	}
	onNew := 0
	for _, nc := range p.NodeClaims {
		onNew += len(nc.Pods)
	}
	parts := []string{fmt.Sprintf("%d of %d pending pods placed", s.Placed, s.Pods)}
	var where []string
	if onNew > 0 {
		where = append(where, fmt.Sprintf("%d on %s", onNew, plural(s.NewNodes, "new node")))
	}
	if existing := s.Placed - onNew; existing > 0 {
		where = append(where, fmt.Sprintf("%d on existing nodes", existing))
	}
	if len(where) > 0 {
		parts[0] += " (" + strings.Join(where, ", ") + ")"
	}
	if n := len(p.Unschedulable); n > 0 {
		parts = append(parts, fmt.Sprintf("%d unschedulable", n))
	}
	if s.NewNodes > 0 {
		parts = append(parts, fmt.Sprintf("new nodes %s/h (lower bound %s/h)", price(s.HourlyCost), price(s.LowerBound)))
	} else {
		parts = append(parts, "no new nodes")
	}
	return strings.Join(parts, "; ") + ".\n"
}

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
}

func podsByKey(pods []*corev1.Pod) map[string]*corev1.Pod {
	out := make(map[string]*corev1.Pod, len(pods))
	for _, p := range pods {
		if p != nil {
			out[podKey(p)] = p
		}
	}
	return out
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func price(usd float64) string { return fmt.Sprintf("$%.4f", usd) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// abbreviate lists at most n names and how many more there are.
func abbreviate(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// oneLine keeps a reason on its table row.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
