package nodetemplate_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// A NodePool of two instance types, with a DaemonSet taking 500m on every node: its options
// come cheapest first with the room left after the daemon, and a node asking for zone 1a
// launches the cheapest offering there.
func Example() {
	small := testbuild.Type("m.large", "2", "8Gi", 30).Offer("test-1a", "on-demand", 0.10).Offer("test-1b", "on-demand", 0.11).Obj()
	big := testbuild.Type("m.xlarge", "4", "16Gi", 30).Offer("test-1b", "spot", 0.09).Obj()
	np := testbuild.NodePool("default", big, small).Obj()
	agent := testbuild.DaemonSet(testbuild.Pod("agent").CPU("500m").Obj())

	dims := resources.NewDims()
	templates, err := nodetemplate.Prepare([]*nodepool.NodePool{np}, dims, daemonset.Templates([]*appsv1.DaemonSet{agent}, dims))
	if err != nil {
		panic(err)
	}
	pool := templates[0]
	for _, o := range pool.Types {
		fmt.Printf("%d %s from $%.2f/h, room %s\n", o.Index, o.InstanceType.Name, o.Cheapest, dims.Format(o.Room))
	}
	reqs := pool.Reqs.Copy()
	reqs.Add(requirements.New(requirements.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-1a"))
	var scratch typeindex.Scratch
	c, _ := nodetemplate.Cheapest(pool.Allowing(reqs, &scratch), reqs)
	fmt.Println("in test-1a:", c.Option.InstanceType.Name, c.Offering.CapacityType, c.Offering.Price)
	// Output:
	// 0 m.xlarge from $0.09/h, room (cpu 3500m, memory 16Gi)
	// 1 m.large from $0.10/h, room (cpu 1500m, memory 8Gi)
	// in test-1a: m.large on-demand 0.1
}
