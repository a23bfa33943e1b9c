package workloadcost

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// Cost is the share of the nodes' hourly cost that one workload's pods account for.
type Cost struct {
	Namespace string `json:"namespace"`
	// Kind and Name are the pod's controller (see Of): Deployment, StatefulSet, Job,
	// …, or Pod and the pod's own name for a pod without one.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Pods counts the workload's pods on the nodes.
	Pods int `json:"pods"`
	// HourlyCost is the workload's part of the nodes' prices (USD per hour).
	HourlyCost float64 `json:"hourlyCost"`
}

// Workload names the controller a pod belongs to.
type Workload struct {
	Namespace, Kind, Name string
}

// labelPodTemplateHash is the label the Deployment controller puts on its ReplicaSets' pods;
// it also ends the ReplicaSet's name: <deployment>-<hash>.
const labelPodTemplateHash = "pod-template-hash"

// Of returns the workload a pod belongs to: its controller owner reference (the
// first owner reference when none is marked controller), or kind Pod and the pod's own name
// when it has none. A ReplicaSet counts as its Deployment when the pod carries the
// pod-template-hash label and the ReplicaSet is named <deployment>-<that hash>, as the
// Deployment controller names them; the pod alone cannot say more (a ReplicaSet named
// otherwise stays a ReplicaSet, and a Job stays a Job even when a CronJob made it).
func Of(pod *corev1.Pod) Workload {
	w := Workload{Namespace: pod.Namespace, Kind: "Pod", Name: pod.Name}
	var owner *metav1.OwnerReference
	for i := range pod.OwnerReferences {
		r := &pod.OwnerReferences[i]
		if r.Controller != nil && *r.Controller {
			owner = r
			break
		}
		if owner == nil {
			owner = r
		}
	}
	if owner == nil || owner.Kind == "" || owner.Name == "" {
		return w
	}
	w.Kind, w.Name = owner.Kind, owner.Name
	if hash := pod.Labels[labelPodTemplateHash]; owner.Kind == "ReplicaSet" && hash != "" {
		if deployment, ok := strings.CutSuffix(owner.Name, "-"+hash); ok && deployment != "" {
			w.Kind, w.Name = "Deployment", deployment
		}
	}
	return w
}

// Share is a pod on a node with the cpu and memory requests its share of the node's price is
// weighed by, in milli-units.
type Share struct {
	Pod         *corev1.Pod
	CPU, Memory float64
}

// Priced is a node's price and allocatable resources, for ByShares.
type Priced struct {
	Price       float64
	Allocatable corev1.ResourceList
}

// ByShares splits each node's price among its pods (sharesOf(i) for nodes[i]), in proportion
// to cpu request / allocatable cpu + memory request / allocatable memory (equally when all of
// a node's pods request neither), and sums the shares per workload. The result is sorted by
// cost, most expensive first, then by namespace, kind and name; each cost is rounded to the
// millionth of a dollar, as plans round prices, so the costs add up to the nodes' price up to
// that rounding.
func ByShares(nodes []Priced, sharesOf func(i int) []Share) []Cost {
	type total struct {
		pods int
		cost float64
	}
	totals := map[Workload]*total{}
	for i, nc := range nodes {
		pods := sharesOf(i)
		if len(pods) == 0 {
			continue
		}
		allocCPU := float64(nc.Allocatable.Cpu().MilliValue())
		allocMem := float64(nc.Allocatable.Memory().MilliValue())
		weights := make([]float64, len(pods))
		sum := 0.0
		for j, p := range pods {
			if allocCPU > 0 {
				weights[j] += p.CPU / allocCPU
			}
			if allocMem > 0 {
				weights[j] += p.Memory / allocMem
			}
			weights[j] = max(weights[j], 0) // a negative request takes no share
			sum += weights[j]
		}
		for j, p := range pods {
			share := 1 / float64(len(pods))
			if sum > 0 {
				share = weights[j] / sum
			}
			w := Of(p.Pod)
			t := totals[w]
			if t == nil {
				t = &total{}
				totals[w] = t
			}
			t.pods++
			t.cost += nc.Price * share
		}
	}
	out := make([]Cost, 0, len(totals))
	for w, t := range totals {
		out = append(out, Cost{Namespace: w.Namespace, Kind: w.Kind, Name: w.Name, Pods: t.pods, HourlyCost: float64(int64(t.cost*1e6+0.5)) / 1e6})
	}
	slices.SortFunc(out, func(a, b Cost) int {
		return cmp.Or(
			cmp.Compare(b.HourlyCost, a.HourlyCost),
			cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.Name, b.Name),
		)
	})
	return out
}

// Node is a node's price and the pods running on it, for Split.
type Node struct {
	Price       float64
	Allocatable corev1.ResourceList
	Pods        []*corev1.Pod
}

// Split splits each node's price among its pods as ByShares does, weighing each pod by its
// cpu and memory requests (as resourcehelper.PodRequests counts them, requests defaulted from
// limits); consolidation reports the cluster's costs before and after its commands with it.
func Split(nodes []Node) []Cost {
	priced := make([]Priced, len(nodes))
	for i, n := range nodes {
		priced[i] = Priced{Price: n.Price, Allocatable: n.Allocatable}
	}
	var out []Share
	return ByShares(priced, func(i int) []Share {
		out = out[:0]
		for _, p := range nodes[i].Pods {
			cpu, memory := costRequests(p)
			out = append(out, Share{Pod: p, CPU: float64(cpu.MilliValue()), Memory: float64(memory.MilliValue())})
		}
		return out
	})
}

// costRequests is a pod's cpu and memory requests as resourcehelper.PodRequests counts them
// with requests defaulted from limits (resources.WithDefaultRequests). A pod with nothing
// but containers (no init containers, overhead or pod-level resources), the common case,
// is summed here without the maps and copies those make, to the same quantities.
func costRequests(p *corev1.Pod) (cpu, memory resource.Quantity) {
	spec := &p.Spec
	if len(spec.InitContainers) > 0 || spec.Overhead != nil || spec.Resources != nil {
		r := resourcehelper.PodRequests(resources.WithDefaultRequests(p), resourcehelper.PodResourcesOptions{})
		return r[corev1.ResourceCPU], r[corev1.ResourceMemory]
	}
	for i := range spec.Containers {
		res := &spec.Containers[i].Resources
		if q, ok := defaultedRequest(res, corev1.ResourceCPU); ok {
			cpu.Add(q)
		}
		if q, ok := defaultedRequest(res, corev1.ResourceMemory); ok {
			memory.Add(q)
		}
	}
	return cpu, memory
}

// defaultedRequest is a container's request of a resource, or its limit when it requests none
// (the API server's defaulting).
func defaultedRequest(res *corev1.ResourceRequirements, name corev1.ResourceName) (resource.Quantity, bool) {
	if q, ok := res.Requests[name]; ok {
		return q, true
	}
	q, ok := res.Limits[name]
	return q, ok
}
