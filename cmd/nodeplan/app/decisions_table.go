package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/nodeplan/nodeplan/disruption"
)

// WriteDecisionsTable prints disruption decisions for people: the commands in order (method,
// reason, action, the nodes removed, their replacements, evictions and savings), where each
// evicted pod goes, the nodes left alone and why, and a summary of the NodePool-managed nodes
// and their cost before and after.
func WriteDecisionsTable(w io.Writer, res *Consolidated) error {
	d := res.Decisions
	var b strings.Builder
	if len(d.Commands) > 0 {
		b.WriteString("COMMANDS\n")
		tw := newTable(&b)
		fmt.Fprintln(tw, "#\tMETHOD\tREASON\tACTION\tNODES\tREPLACEMENTS\tEVICTIONS\tSAVINGS/H")
		for i, c := range d.Commands {
			nodes := make([]string, len(c.Candidates))
			for j, cand := range c.Candidates {
				nodes[j] = fmt.Sprintf("%s (%s, %s, %s)", cand.Node, cand.InstanceType, cand.Zone, cand.CapacityType)
			}
			repl := make([]string, len(c.Replacements))
			for j, r := range c.Replacements {
				repl[j] = fmt.Sprintf("%s (%s, %s, %s)", r.Name, r.InstanceType, r.Zone, r.CapacityType)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", i+1, c.Method, c.Reason, c.Action,
				abbreviate(nodes, 3), orDash(abbreviate(repl, 3)), len(c.Evictions), price(c.Savings))
		}
		tw.Flush()
		for i, c := range d.Commands {
			for _, note := range c.Notes {
				fmt.Fprintf(&b, "  %d: %s\n", i+1, oneLine(note))
			}
		}
		b.WriteString("\n")

		from := map[string]string{}
		for _, n := range res.Input.Nodes {
			for _, p := range n.Pods {
				from[podKey(p)] = n.Node.Name
			}
		}
		moves := false
		for _, c := range d.Commands {
			moves = moves || len(c.Moves) > 0
		}
		if moves {
			b.WriteString("MOVES\n")
			tw := newTable(&b)
			fmt.Fprintln(tw, "#\tPOD\tFROM\tTO")
			for i, c := range d.Commands {
				for _, m := range c.Moves {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", i+1, m.Pod, orDash(from[m.Pod]), m.To)
				}
			}
			tw.Flush()
			b.WriteString("\n")
		}
	}
	if len(d.Blocked) > 0 {
		b.WriteString("NOT DISRUPTED\n")
		tw := newTable(&b)
		fmt.Fprintln(tw, "NODE\tREASON")
		for _, bl := range d.Blocked {
			fmt.Fprintf(tw, "%s\t%s\n", bl.Node, oneLine(bl.Reason))
		}
		tw.Flush()
		b.WriteString("\n")
	}
	b.WriteString(decisionsSummary(d))
	_, err := io.WriteString(w, b.String())
	return err
}

func decisionsSummary(d disruption.Decisions) string {
	s := d.Summary
	if len(d.Commands) == 0 {
		return fmt.Sprintf("Nothing to disrupt: %s managed by NodePools, %s/h.\n", plural(s.Nodes, "node"), price(s.HourlyCostBefore))
	}
	deleted, replaced := 0, 0
	for _, c := range d.Commands {
		if c.Action == disruption.ActionReplace {
			replaced += len(c.Candidates)
		} else {
			deleted += len(c.Candidates)
		}
	}
	var acts []string
	if deleted > 0 {
		acts = append(acts, "delete "+plural(deleted, "node"))
	}
	if replaced > 0 {
		acts = append(acts, "replace "+plural(replaced, "node"))
	}
	return fmt.Sprintf("%s: %s; NodePool-managed nodes %d → %d, %s/h → %s/h.\n",
		plural(len(d.Commands), "command"), strings.Join(acts, ", "), s.Nodes, s.NodesAfter, price(s.HourlyCostBefore), price(s.HourlyCostAfter))
}
