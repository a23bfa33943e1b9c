package topology_test

import (
	"fmt"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/topology"
)

// A zonal spread with maxSkew 1: after two pods in zone a and one in zone b, only the empty
// zone c may take the next replica (b would be two ahead of c).
func Example() {
	tr := topology.NewTracker(nil)
	pod := tb.Pod("web-3").Label("app", "web").ZoneSpread(1).Obj()
	terms, _ := tr.Terms(pod)
	for _, zone := range []string{"a", "a", "b"} {
		running := tb.Pod("web").Label("app", "web").Obj()
		tr.Record(running, nil, func(string) (string, bool) { return zone, true })
	}
	g := terms[0].Group
	eligible := []string{"a", "b", "c"}
	for _, zone := range eligible {
		fmt.Println(zone, g.Allowed(zone, g.Matches(pod), g.MinCount(eligible)))
	}
	// Output:
	// a false
	// b false
	// c true
}
