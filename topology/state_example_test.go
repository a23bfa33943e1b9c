package topology_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// threeZones is a cluster with no node yet and one NodePool that launches in zones a, b and c.
type threeZones struct{}

func (threeZones) Nodes() int                    { return 0 }
func (threeZones) Node(int) topology.Existing    { return topology.Existing{} }
func (threeZones) Pools() int                    { return 1 }
func (threeZones) PoolTaints(int) []corev1.Taint { return nil }
func (threeZones) PoolTypes(int) int             { return 1 }
func (threeZones) PoolValues(_ int, key string) []string {
	if key == requirements.LabelTopologyZone {
		return []string{"a", "b", "c"}
	}
	return nil
}
func (threeZones) PoolCanHost(int, []requirements.Requirements, string, string) bool { return true }
func (threeZones) DaemonRuns(*daemonset.Template, int, int, requirements.Requirements) bool {
	return false
}

// anywhere is a pod with no node affinity (one alternative that requires nothing) and no
// toleration.
type anywhere struct{}

func (anywhere) NodeAffinity() []requirements.Requirements { return []requirements.Requirements{{}} }
func (anywhere) Tolerates(taints []corev1.Taint) bool      { return len(taints) == 0 }
func (anywhere) HostClass() string                         { return "" }

// A solver's use of State: four replicas spread over zones with maxSkew 1 each open a new
// node; Narrow fixes each node's zone to the least populated one, and Record counts the pod
// there.
func ExampleState() {
	st := topology.NewState(nil)
	var members []*topology.Member
	var pods []*corev1.Pod
	for i := range 4 {
		pod := tb.Pod(fmt.Sprintf("web-%d", i)).Label("app", "web").ZoneSpread(1).Obj()
		terms, _ := st.Terms(pod, false)
		members = append(members, &topology.Member{Terms: terms, Host: anywhere{}})
		pods = append(pods, pod)
	}
	if st.HasGroups() {
		st.Start(threeZones{}, len(members), func(i int) (*topology.Member, *corev1.Pod) { return members[i], pods[i] }, nil)
	}
	launch := topology.Launch{ // every instance type launches in every zone
		Holds:         func(requirements.Requirements, string, string) bool { return true },
		Allows:        func(requirements.Requirements) bool { return true },
		CheapestMeets: func(requirements.Requirements, []requirements.Requirements) bool { return true },
	}
	for i, m := range members {
		node := topology.Joining{Name: fmt.Sprintf("node-%d", i), Pool: 0, Fresh: true}
		reqs, refused := st.Narrow(m, requirements.Requirements{}, node, launch, true)
		if refused.Group != nil {
			fmt.Println(refused.Describe(node.Name))
			continue
		}
		st.Record(m, node, reqs, i)
		zone, _ := reqs[requirements.LabelTopologyZone].Any()
		fmt.Println(pods[i].Name, "opens", node.Name, "in zone", zone)
	}
	// Output:
	// web-0 opens node-0 in zone a
	// web-1 opens node-1 in zone b
	// web-2 opens node-2 in zone c
	// web-3 opens node-3 in zone a
}
