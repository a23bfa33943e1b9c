package scheduling_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestSimulateMatchesFreshSolve runs random what-ifs (nodes removed, cordoned, pods evicted,
// added and removed, NodePools narrowed) on random grown clusters with zone spread, pod
// affinity, hostname anti-affinity, host ports and volumes, and checks that Simulate, which
// starts from what the Cluster keeps between simulations, plans exactly what a fresh solve of
// the changed input plans.
func TestSimulateMatchesFreshSolve(t *testing.T) {
	clusters, changes := 12, 25
	if testing.Short() {
		clusters = 4
	}
	stats := map[string]int{}
	for seed := int64(1); seed <= int64(clusters); seed++ {
		r := rand.New(rand.NewSource(seed))
		c, newPod := growRandomCluster(t, r)
		for step := range changes {
			change, opts := randomChange(r, c, newPod)
			cluster := c
			if r.Intn(4) == 0 {
				cluster = c.Clone()
			}
			got, err := cluster.Simulate(change, opts)
			want, wantErr := scheduling.SimulateFresh(c, change, opts)
			where := fmt.Sprintf("seed %d, step %d, change %+v", seed, step, change)
			if wantErr != nil {
				require.EqualError(t, err, wantErr.Error(), where)
				continue
			}
			require.NoError(t, err, where)
			require.Empty(t, cmp.Diff(want, got), where)
			// Again: what the first simulation left in the memos must not change the plan.
			again, err := cluster.Simulate(change, opts)
			require.NoError(t, err, where)
			require.Empty(t, cmp.Diff(want, again), "%s, simulated again", where)
			wantJSON, err := json.Marshal(want)
			require.NoError(t, err)
			gotJSON, err := json.Marshal(got)
			require.NoError(t, err)
			require.Equal(t, string(wantJSON), string(gotJSON), where)
			stats["placed"] += got.Summary.Placed
			stats["onExisting"] += len(got.ExistingNodes)
			stats["newNodes"] += len(got.NodeClaims)
			stats["unschedulable"] += len(got.Unschedulable)
			if r.Intn(5) == 0 && len(change.Requirements) == 0 {
				// Move on to the changed cluster: what Simulate keeps must follow it.
				require.NoError(t, c.Apply(change, got), where)
				stats["applied"]++
			}
		}
	}
	for _, k := range []string{"placed", "onExisting", "newNodes", "unschedulable", "applied"} {
		require.Positive(t, stats[k], "no what-if produced %s (stats %v)", k, stats)
	}
	t.Logf("outcomes: %v", stats)
}

// growRandomCluster grows a cluster as a replay would, a few pods at a time, and returns it
// with a maker of further pods like its own.
func growRandomCluster(t *testing.T, r *rand.Rand) (*scheduling.Cluster, func() *corev1.Pod) {
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	apps := []string{"web", "api", "db", "cache", "batch"}
	var claims []*corev1.PersistentVolumeClaim
	for i := range 40 {
		claims = append(claims, claim(fmt.Sprintf("data-%d", i), "gp3", ""))
	}
	in := scheduling.Input{NodePools: ebsPools(1 + r.Intn(3)), PersistentVolumeClaims: claims, StorageClasses: nil}
	in.StorageClasses = append(in.StorageClasses, gp3(""))
	in.DaemonSets = daemons(tb.Pod("agent").Namespace("kube-system").CPU("100m").Memory("128Mi").HostPort(9100).Obj())
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	count, claimed := 0, 0
	// Some clusters run mostly plain pods, whose new nodes improve repacks.
	rules := 8
	if r.Intn(2) == 0 {
		rules = 40
	}
	newPod := func() *corev1.Pod {
		app := apps[r.Intn(len(apps))]
		b := tb.Pod(fmt.Sprintf("%s-%d", app, count)).Label("app", app).CPU(fmt.Sprintf("%dm", 100*(1+r.Intn(14)))).Memory(fmt.Sprintf("%dMi", 256*(1+r.Intn(12))))
		count++
		switch r.Intn(rules) {
		case 0:
			b.ZoneSpread(1)
		case 1:
			b.Spread(requirements.LabelTopologyZone, 1, corev1.ScheduleAnyway)
		case 2:
			b.AntiAffinity(requirements.LabelHostname, map[string]string{"app": app})
		case 3:
			b.Affinity(requirements.LabelTopologyZone, map[string]string{"app": apps[r.Intn(len(apps))]})
		case 4:
			b.HostPort(int32(8080 + r.Intn(2)))
		case 5, 7:
			switch {
			case claimed > 0 && r.Intn(3) == 0:
				b.PVC("data", claims[r.Intn(claimed)].Name) // shares a claim: the same node
			case claimed < len(claims):
				b.PVC("data", claims[claimed].Name)
				claimed++
			}
		case 6:
			b.NodeSelector(requirements.LabelTopologyZone, zones[r.Intn(len(zones))])
		}
		return b.Obj()
	}
	growInBatches(t, r, c, newPod, 8+r.Intn(10), 8)
	// Apply leaves a placed pod as it was given; a cluster read from the API server has its
	// pods bound (spec.nodeName), which the volume index reads.
	grown := c.Input()
	grown.ExistingNodes = slices.Clone(grown.ExistingNodes)
	for i, en := range grown.ExistingNodes {
		bound := *en
		bound.Pods = make([]*corev1.Pod, len(en.Pods))
		for j, p := range en.Pods {
			cp := *p
			cp.Spec.NodeName = en.Node.Name
			bound.Pods[j] = &cp
		}
		grown.ExistingNodes[i] = &bound
	}
	c, err = scheduling.Prepare(grown)
	require.NoError(t, err)
	return c, newPod
}

// growInBatches adds batches of 1 to most pods to c, planning and applying each; the nodes
// launched for a batch finish starting with the next one, unless (one time in three) they
// are left starting.
func growInBatches(t *testing.T, r *rand.Rand, c *scheduling.Cluster, newPod func() *corev1.Pod, batches, most int) {
	var starting []string
	for range batches {
		var add []*corev1.Pod
		for range 1 + r.Intn(most) {
			add = append(add, newPod())
		}
		change := scheduling.Change{AddPods: add, Initialize: starting}
		plan, err := c.Simulate(change, scheduling.Options{})
		require.NoError(t, err)
		require.NoError(t, c.Apply(change, plan))
		starting = starting[:0]
		if r.Intn(3) > 0 {
			for _, nc := range plan.NodeClaims {
				starting = append(starting, nc.Name)
			}
		}
	}
}

// randomChange is a what-if disruption or a replay might ask of c.
func randomChange(r *rand.Rand, c *scheduling.Cluster, newPod func() *corev1.Pod) (scheduling.Change, scheduling.Options) {
	nodes := c.Input().ExistingNodes
	var change scheduling.Change
	pick := func() *scheduling.ExistingNode { return nodes[r.Intn(len(nodes))] }
	if len(nodes) > 0 {
		remove := 1 + r.Intn(3)
		if r.Intn(4) == 0 {
			remove = 1 + r.Intn(len(nodes)) // many pods for new nodes, which improve repacks
		}
		for range remove {
			change.RemoveNodes = appendNew(change.RemoveNodes, pick().Node.Name)
		}
		if r.Intn(3) == 0 {
			change.Cordon = appendNew(change.Cordon, pick().Node.Name)
		}
		if en := pick(); r.Intn(4) == 0 && len(en.Pods) > 0 {
			p := en.Pods[r.Intn(len(en.Pods))]
			change.Evict = append(change.Evict, p.Namespace+"/"+p.Name)
		}
		if en := pick(); r.Intn(5) == 0 && len(en.Pods) > 0 {
			p := en.Pods[r.Intn(len(en.Pods))]
			change.RemovePods = append(change.RemovePods, p.Namespace+"/"+p.Name)
		}
		for _, en := range nodes {
			if !en.Initialized && r.Intn(3) == 0 {
				change.Initialize = append(change.Initialize, en.Node.Name)
			}
		}
	}
	if r.Intn(2) == 0 {
		for range 1 + r.Intn(3) {
			change.AddPods = append(change.AddPods, newPod())
		}
	}
	if r.Intn(6) == 0 {
		change.Requirements = []corev1.NodeSelectorRequirement{tb.In(requirements.LabelTopologyZone, "us-west-2a", "us-west-2b")}
	}
	opts := scheduling.Options{SkipLowerBound: r.Intn(2) == 0, SkipImprovement: r.Intn(4) == 0}
	if r.Intn(4) == 0 {
		opts.MaxInstanceTypeOptions = 1 // names fewer options than the last what-if did
	}
	return change, opts
}

func appendNew(names []string, name string) []string {
	for _, n := range names {
		if n == name {
			return names
		}
	}
	return append(names, name)
}

// TestSimulateOnClonesConcurrently runs what-ifs on clones of one cluster at once, after the
// cluster's first Simulate made the base they share: each must plan what the cluster plans
// alone (and go test -race sees any write to the shared base).
func TestSimulateOnClonesConcurrently(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	c, newPod := growRandomCluster(t, r)
	_, err := c.Simulate(scheduling.Change{}, scheduling.Options{})
	require.NoError(t, err)
	changes := make([]scheduling.Change, 8)
	opts := make([]scheduling.Options, len(changes))
	want := make([]scheduling.Plan, len(changes))
	for i := range changes {
		changes[i], opts[i] = randomChange(r, c, newPod)
		want[i], err = scheduling.SimulateFresh(c, changes[i], opts[i])
		require.NoError(t, err)
	}
	got := make([]scheduling.Plan, len(changes))
	errs := make([]error, len(changes))
	var wg sync.WaitGroup
	for i := range changes {
		clone := c.Clone()
		wg.Go(func() {
			for range 3 {
				got[i], errs[i] = clone.Simulate(changes[i], opts[i])
			}
		})
	}
	wg.Wait()
	for i := range changes {
		require.NoError(t, errs[i])
		require.Empty(t, cmp.Diff(want[i], got[i]), "change %d: %+v", i, changes[i])
	}
}

// TestSimulateReplaysRepacking simulates pods that repacking rearranges over several bins
// again and again (on the cluster and on a clone, with more pods each time): the fills the
// NodePool remembers from one simulation must give the next the plan a fresh solve gives.
func TestSimulateReplaysRepacking(t *testing.T) {
	var pending []*corev1.Pod
	for i := range 40 {
		cpu := []string{"1300m", "600m", "2700m"}[i%3]
		pending = append(pending, tb.Pod(fmt.Sprintf("plain-%02d", i)).CPU(cpu).Memory("1Gi").Obj())
	}
	in := scheduling.Input{NodePools: []*scheduling.NodePool{defaultPool()}, Pods: pending}
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	greedy, err := c.Simulate(scheduling.Change{}, scheduling.Options{SkipImprovement: true})
	require.NoError(t, err)
	clone := c.Clone()
	for round := range 3 {
		var add []*corev1.Pod
		for i := range round * 5 {
			add = append(add, tb.Pod(fmt.Sprintf("more-%d-%d", round, i)).CPU("1300m").Memory("2Gi").Obj())
		}
		change := scheduling.Change{AddPods: add}
		want, err := scheduling.SimulateFresh(c, change, scheduling.Options{})
		require.NoError(t, err)
		if round == 0 {
			require.Less(t, want.Summary.HourlyCost, greedy.Summary.HourlyCost, "repacking replaced greedy nodes")
		}
		for range 2 {
			for _, cluster := range []*scheduling.Cluster{c, clone} {
				got, err := cluster.Simulate(change, scheduling.Options{})
				require.NoError(t, err)
				require.Empty(t, cmp.Diff(want, got), "round %d", round)
			}
		}
	}
}

// TestPlansOutliveLaterSimulations checks that a plan stays as it was made while its Cluster
// and the Cluster's clones go on simulating, at once on several goroutines: solves reuse
// what earlier ones are done with, and a plan must share none of it.
func TestPlansOutliveLaterSimulations(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewSource(seed))
		c, newPod := growRandomCluster(t, r)
		type kept struct {
			plan scheduling.Plan
			json string
		}
		var plans []kept
		for range 10 {
			change, opts := randomChange(r, c, newPod)
			plan, err := c.Simulate(change, opts)
			if err != nil {
				continue
			}
			raw, err := json.Marshal(plan)
			require.NoError(t, err)
			plans = append(plans, kept{plan, string(raw)})
		}
		changes := make([]scheduling.Change, 20)
		options := make([]scheduling.Options, len(changes))
		for i := range changes {
			changes[i], options[i] = randomChange(r, c, newPod)
		}
		var wg sync.WaitGroup
		for w := range 3 {
			cluster := c
			if w > 0 {
				cluster = c.Clone()
			}
			wg.Go(func() {
				for i := range changes {
					_, _ = cluster.Simulate(changes[i], options[i])
				}
			})
		}
		wg.Wait()
		for i, k := range plans {
			raw, err := json.Marshal(k.plan)
			require.NoError(t, err)
			require.Equal(t, k.json, string(raw), "seed %d: plan %d changed after later simulations", seed, i)
		}
	}
}
