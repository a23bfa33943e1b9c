package suite

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/conformance/workload"
	"github.com/nodeplan/nodeplan/disruption"
)

// edgeNow is when the edge clusters' decisions are made.
var edgeNow = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// Consolidation of random "edge" clusters (see workload.EdgeCluster): the decisions applied to
// the cluster must leave every pod, staying and moved, valid for kube-scheduler's filters, and
// account for every pod within the PodDisruptionBudgets. EDGE_FULL=1 adds 1,500 and 5,000
// nodes (minutes).
func TestEdgeConsolidation(t *testing.T) {
	cases := []struct{ nodes, seeds int }{{60, 4}, {300, 3}}
	if os.Getenv("EDGE_FULL") != "" {
		cases = append(cases, struct{ nodes, seeds int }{1500, 2}, struct{ nodes, seeds int }{5000, 1})
	}
	acted := 0
	for _, c := range cases {
		for seed := uint64(1); seed <= uint64(c.seeds); seed++ {
			t.Run(fmt.Sprintf("%dnodes/seed%d", c.nodes, seed), func(t *testing.T) {
				in, err := workload.EdgeCluster(rand.New(rand.NewPCG(seed, 24)), c.nodes, edgeNow)
				if err != nil {
					t.Fatal(err)
				}
				d, err := disruption.Decide(in)
				if err != nil {
					t.Fatal(err)
				}
				res, err := check.Decisions(in, d)
				if err != nil {
					t.Fatal(err)
				}
				moves := 0
				for _, cmd := range d.Commands {
					moves += len(cmd.Moves)
				}
				acted += len(d.Commands)
				t.Logf("%d nodes: %d commands, %d moves, %d blocked; %s", len(in.Nodes), len(d.Commands), moves, len(d.Blocked), res.Summary())
				for _, f := range res.Failures {
					t.Error(f)
				}
			})
		}
	}
	if acted == 0 {
		t.Error("no edge cluster was consolidated: the suite checks nothing")
	}
}
