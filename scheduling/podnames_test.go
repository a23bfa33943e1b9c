package scheduling_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	"github.com/nodeplan/nodeplan/internal/karpenterload"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPlanDoesNotDependOnPodNames renames every pending pod (new names in another order) and
// shuffles them: the plan must be the same up to names, node for node (name, type, zone,
// capacity type, price and which pods, told apart by everything but their names), with the
// same cost. Two kubectl snapshots of one cluster, whose pods got other generated names, then
// get the same plan.
func TestPlanDoesNotDependOnPodNames(t *testing.T) {
	inputs := map[string]scheduling.Input{
		"karpenter diverse 1000": {
			Pods:      karpenterload.New(1).Diverse(1000),
			NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: karpenterload.FakeCatalog(400)}},
			Options:   scheduling.Options{NodeCost: -1},
		},
		"topology diverse 1000": {Pods: diverseWorkload(1000), NodePools: pools(tb.NodePool("default", synthetic.Default().InstanceTypes...).Obj())},
	}
	for seed := int64(1); seed <= 20; seed++ {
		inputs[fmt.Sprintf("random %d", seed)] = randomInput(rand.New(rand.NewSource(seed)))
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			want, err := scheduling.Solve(in)
			require.NoError(t, err)
			renamed, sig := renamedPods(in)
			got, err := scheduling.Solve(renamed)
			require.NoError(t, err)
			original := podSignatures(in.Pods)
			require.Empty(t, cmp.Diff(planUpToNames(want, original), planUpToNames(got, sig)), "plan depends on pod names")
			require.InDelta(t, want.Summary.HourlyCost, got.Summary.HourlyCost, 1e-9)
		})
	}
}

// renamedPods returns in with its pods renamed (z-<n>, numbered in reverse) and shuffled, and
// each new name's signature.
func renamedPods(in scheduling.Input) (scheduling.Input, map[string]string) {
	out := in
	r := rand.New(rand.NewSource(7))
	out.Pods = make([]*corev1.Pod, len(in.Pods))
	for i, p := range in.Pods {
		c := p.DeepCopy()
		c.Name = fmt.Sprintf("z-%05d", len(in.Pods)-i)
		out.Pods[i] = c
	}
	r.Shuffle(len(out.Pods), func(i, j int) { out.Pods[i], out.Pods[j] = out.Pods[j], out.Pods[i] })
	return out, podSignatures(out.Pods)
}

// podSignatures maps namespace/name to the pod without its name and UID.
func podSignatures(pods []*corev1.Pod) map[string]string {
	out := map[string]string{}
	for _, p := range pods {
		c := p.DeepCopy()
		c.Name, c.UID = "", ""
		b, _ := json.Marshal(c)
		ns := p.Namespace
		if ns == "" {
			ns = corev1.NamespaceDefault
		}
		out[ns+"/"+p.Name] = string(b)
	}
	return out
}

type claimUpToNames struct {
	Name, InstanceType, Zone, CapacityType string
	Price                                  float64
	Pods                                   []string
}

// planUpToNames is the plan with pod names replaced by their signatures (names of pods not in
// sig, such as running ones, stay).
func planUpToNames(plan scheduling.Plan, sig map[string]string) []claimUpToNames {
	pods := func(keys []string) []string {
		out := make([]string, len(keys))
		for i, k := range keys {
			if s, ok := sig[k]; ok {
				k = s
			}
			out[i] = k
		}
		sort.Strings(out)
		return out
	}
	var out []claimUpToNames
	for _, nc := range plan.NodeClaims {
		out = append(out, claimUpToNames{nc.Name, nc.InstanceType, nc.Zone, nc.CapacityType, nc.Price, pods(nc.Pods)})
	}
	for _, en := range plan.ExistingNodes {
		out = append(out, claimUpToNames{Name: en.Name, Pods: pods(en.Pods)})
	}
	var unschedulable []string
	for _, u := range plan.Unschedulable {
		unschedulable = append(unschedulable, u.Pod)
	}
	return append(out, claimUpToNames{Name: "unschedulable", Pods: pods(unschedulable)})
}
