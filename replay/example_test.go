package replay_test

import (
	"fmt"
	"time"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A web Deployment runs four replicas for an hour, then two: consolidation decides to replace
// the large node by a smaller one five minutes (consolidateAfter) after the scale-down, and
// starts the command once it is validated, 15 s later.
func Example() {
	tr, err := replay.ReadTrace([]byte(`
kind: Events
start: "2026-01-12T09:00:00Z"
events:
- at: 0s
  create:
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      replicas: 4
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: nginx, resources: {requests: {cpu: "1"}}}]
- {at: 1h, scale: default/web, replicas: 2}
`), "events.yaml")
	if err != nil {
		panic(err)
	}
	m5large := testbuild.Type("m5.large", "2", "8Gi", 29).Offer("us-west-2a", "on-demand", 0.096).Obj()
	m5xlarge := testbuild.Type("m5.xlarge", "4", "16Gi", 58).Offer("us-west-2a", "on-demand", 0.192).Obj()
	res, err := replay.Run(disruption.Input{
		NodePools: []*scheduling.NodePool{testbuild.NodePool("default", m5large, m5xlarge).ConsolidateAfter(5 * time.Minute).Obj()},
		Now:       tr.Start,
	}, tr.Events, replay.Options{})
	if err != nil {
		panic(err)
	}
	for _, d := range res.Decisions {
		fmt.Println(d.Time.Format("15:04:05"), d.Kind, d.Method, d.Nodes, d.Replacements)
	}
	fmt.Printf("$%.4f over %s, %d pods evicted\n", res.Summary.TotalCost, res.End.Sub(res.Start), res.Summary.PodsEvicted)
	// Output:
	// 09:00:01 launch  [default-1] []
	// 10:05:15 disrupt SingleNodeConsolidation [default-1] [default-2]
	// 10:06:45 delete  [default-1] []
	// $0.2159 over 1h6m45s, 2 pods evicted
}
