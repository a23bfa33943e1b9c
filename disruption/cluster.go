package disruption

import (
	"sort"
	"strings"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/scheduling"
)

// cluster is the state simulations start from: every node with the pods it runs, and the
// pending pods. Committing a command removes its candidates, binds the moved pods where the
// simulation put them and adds the replacements as nodes, so later commands of the same
// decision build on it.
type cluster struct {
	nodes   []*simNode // input nodes by name, then replacements in the order they were added
	byName  map[string]*simNode
	pending []*corev1.Pod
	keep    *relevance
	daemons []*appsv1.DaemonSet
}

// simNode is one node of the cluster as simulations see it.
type simNode struct {
	name        string
	node        *corev1.Node
	pods        []*corev1.Pod
	nodePool    string
	initialized bool
	// planned is set for a replacement launched by an earlier command of this decision.
	planned bool
	attach  map[string]int
	// received is set once an earlier command of this decision moved pods onto the node.
	received bool
	// removed is set for a node that is gone in simulations: a candidate of an earlier
	// command, or a node already being disrupted.
	removed bool
	// view is the node handed to the solver: pods that matter to constraints are kept, the
	// others are folded into a smaller allocatable (see compact).
	view *scheduling.ExistingNode
	// free is the room left (cpu, memory, pods) for the quick resource checks.
	free vec
}

// vec is cpu (milli), memory (bytes) and pod count: the dimensions quick checks look at.
type vec [3]int64

func (v vec) fits(in vec) bool { return v[0] <= in[0] && v[1] <= in[1] && v[2] <= in[2] }
func (v vec) add(o vec) vec    { return vec{v[0] + o[0], v[1] + o[1], v[2] + o[2]} }
func (v vec) sub(o vec) vec    { return vec{v[0] - o[0], v[1] - o[1], v[2] - o[2]} }
func (v vec) isZero() bool     { return v == vec{} }

func vecOf(l corev1.ResourceList) vec {
	return vec{l.Cpu().MilliValue(), l.Memory().Value(), l.Pods().Value()}
}

func podVec(p *corev1.Pod) vec {
	v := vecOf(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
	v[2] = 1
	return v
}

func maxVec(a, b vec) vec {
	for i := range a {
		a[i] = max(a[i], b[i])
	}
	return a
}

func newCluster(nodes []*nodeState, pending []*corev1.Pod, daemons []*appsv1.DaemonSet, keep *relevance) *cluster {
	c := &cluster{byName: map[string]*simNode{}, pending: append([]*corev1.Pod(nil), pending...), keep: keep, daemons: daemons}
	for _, n := range nodes {
		sn := &simNode{
			name:        n.name,
			node:        n.in.Node,
			pods:        n.pods,
			nodePool:    n.poolName,
			initialized: n.in.Initialized || n.poolName == "",
			attach:      n.in.VolumeAttachLimits,
		}
		// A pod listed on a node runs there, whatever its spec.nodeName says; the solver's
		// volume accounting reads it.
		copied := false
		for i, p := range sn.pods {
			if p.Spec.NodeName == sn.name {
				continue
			}
			if !copied {
				sn.pods = append([]*corev1.Pod(nil), sn.pods...)
				copied = true
			}
			sn.pods[i] = boundCopy(p, sn.name)
		}
		c.refresh(sn)
		c.nodes = append(c.nodes, sn)
		c.byName[sn.name] = sn
		// A node already being disrupted takes no pods, and its pods need a place as pending
		// pods do (Karpenter simulates them the same way).
		if n.in.Disrupting {
			sn.removed = true
			for _, p := range sn.pods {
				if reschedulable(p) {
					c.pending = append(c.pending, pendingCopy(p))
				}
			}
		}
	}
	sortPods(c.pending)
	return c
}

// refresh recomputes a node's solver view and free room after its pods changed.
func (c *cluster) refresh(n *simNode) {
	alloc := n.node.Status.Allocatable
	if len(alloc) == 0 {
		alloc = n.node.Status.Capacity
	}
	folded := corev1.ResourceList{}
	var kept []*corev1.Pod
	var used vec
	foldedPods := int64(0)
	for _, p := range n.pods {
		if isTerminal(p) {
			continue
		}
		reqs := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		v := vecOf(reqs)
		v[2] = 1
		used = used.add(v)
		if c.keep.keep(p) {
			kept = append(kept, p)
			continue
		}
		foldedPods++
		for name, q := range reqs {
			sum := folded[name]
			sum.Add(q)
			folded[name] = sum
		}
	}
	n.free = vecOf(alloc).sub(used)
	if n.node.Spec.Unschedulable {
		n.free = vec{}
	}
	view := &scheduling.ExistingNode{
		Node:               n.node,
		Pods:               kept,
		NodePool:           n.nodePool,
		Initialized:        n.initialized,
		VolumeAttachLimits: n.attach,
	}
	if foldedPods > 0 {
		smaller := corev1.ResourceList{} // alloc may be nil: a node whose status lists neither
		for name, q := range alloc {
			smaller[name] = q.DeepCopy()
		}
		for name, q := range folded {
			if a, ok := smaller[name]; ok {
				a.Sub(q)
				if a.Sign() < 0 {
					a = resource.Quantity{Format: a.Format}
				}
				smaller[name] = a
			}
		}
		pods := smaller.Pods().Value() - foldedPods
		smaller[corev1.ResourcePods] = *resource.NewQuantity(max(pods, 0), resource.DecimalSI)
		node := *n.node // shallow: only the two resource lists are replaced
		node.Status.Allocatable = smaller
		if len(node.Status.Capacity) == 0 {
			node.Status.Capacity = alloc
		}
		view.Node = &node
	}
	n.view = view
}

// existingFor lists the solver views of every node that stays when the leaving nodes go;
// nodes to avoid and replacements of earlier commands are shown cordoned, so they take no
// pods but their pods still count. A command thus never relies on another command's
// replacement, which may fail to launch.
func (c *cluster) existingFor(leaving, avoid map[string]bool) []*scheduling.ExistingNode {
	out := make([]*scheduling.ExistingNode, 0, len(c.nodes))
	for _, n := range c.nodes {
		if n.removed || leaving[n.name] {
			continue
		}
		if !avoid[n.name] && !n.planned {
			out = append(out, n.view)
			continue
		}
		view := *n.view
		node := *view.Node
		node.Spec.Unschedulable = true
		view.Node = &node
		out = append(out, &view)
	}
	return out
}

// bind adds pods to a node, as bound pods.
func (c *cluster) bind(n *simNode, pods []*corev1.Pod) {
	if len(pods) == 0 {
		return
	}
	all := make([]*corev1.Pod, 0, len(n.pods)+len(pods))
	all = append(all, n.pods...)
	for _, p := range pods {
		all = append(all, boundCopy(p, n.name))
	}
	n.pods = all
	n.received = true
	c.refresh(n)
}

// addReplacement turns a planned NodeClaim into a node of the cluster, with its pods and the
// pods of the DaemonSets that will run on it.
func (c *cluster) addReplacement(nc scheduling.NodeClaim, pods []*corev1.Pod) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: nc.Name, Labels: nc.Labels},
		Spec:       corev1.NodeSpec{Taints: nc.Taints},
		Status:     corev1.NodeStatus{Allocatable: nc.Allocatable, Capacity: nc.Capacity},
	}
	n := &simNode{name: nc.Name, node: node, nodePool: nc.NodePool, planned: true}
	for _, ds := range c.daemons {
		if p := daemonPodFor(ds, node); p != nil {
			n.pods = append(n.pods, p)
		}
	}
	for _, p := range pods {
		n.pods = append(n.pods, boundCopy(p, nc.Name))
	}
	c.refresh(n)
	c.nodes = append(c.nodes, n)
	c.byName[n.name] = n
}

func boundCopy(p *corev1.Pod, node string) *corev1.Pod {
	cp := *p
	cp.Spec.NodeName = node
	return &cp
}

func pendingCopy(p *corev1.Pod) *corev1.Pod {
	if p.Spec.NodeName == "" {
		return p
	}
	cp := *p
	cp.Spec.NodeName = ""
	return &cp
}

var discard = logr.Discard()

// daemonPodFor returns the pod a DaemonSet runs on node, or nil when its template does not
// tolerate the node's taints or does not select the node.
func daemonPodFor(ds *appsv1.DaemonSet, node *corev1.Node) *corev1.Pod {
	tmpl := ds.Spec.Template
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      ds.Name + "-" + node.Name,
			Namespace: namespaceOf(ds.Namespace),
			Labels:    tmpl.Labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, Controller: ptrTo(true),
			}},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	pod.Spec.NodeName = node.Name
	noSchedule := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	if _, bad := corev1helpers.FindMatchingUntoleratedTaint(discard, node.Spec.Taints, pod.Spec.Tolerations, noSchedule, false); bad {
		return nil
	}
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); err != nil || !ok {
		return nil
	}
	return pod
}

func ptrTo[T any](v T) *T { return &v }

// relevance decides which running pods the solver must see one by one: those with host
// ports, volume claims or topology rules, and those some pod's spread or affinity selector
// may count. The rest only take room, and are folded into their node's allocatable, which
// keeps each simulation's setup proportional to the nodes rather than to every pod.
type relevance struct {
	selectors []labels.Selector
	everyPod  bool
	cache     map[string]bool
}

func newRelevance(pods []*corev1.Pod, daemons []*appsv1.DaemonSet) *relevance {
	r := &relevance{cache: map[string]bool{}}
	seen := map[string]bool{}
	addSelector := func(ls *metav1.LabelSelector) {
		if ls == nil {
			return
		}
		sel, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			r.everyPod = true
			return
		}
		if sel.Empty() {
			r.everyPod = true
			return
		}
		if s := sel.String(); !seen[s] {
			seen[s] = true
			r.selectors = append(r.selectors, sel)
		}
	}
	visit := func(spec *corev1.PodSpec) {
		for i := range spec.TopologySpreadConstraints {
			addSelector(spec.TopologySpreadConstraints[i].LabelSelector)
		}
		a := spec.Affinity
		if a == nil {
			return
		}
		var terms []corev1.PodAffinityTerm
		if a.PodAffinity != nil {
			terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
			for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
				terms = append(terms, w.PodAffinityTerm)
			}
		}
		if a.PodAntiAffinity != nil {
			terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
			for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
				terms = append(terms, w.PodAffinityTerm)
			}
		}
		for i := range terms {
			addSelector(terms[i].LabelSelector)
		}
	}
	for _, p := range pods {
		visit(&p.Spec)
	}
	for _, ds := range daemons {
		visit(&ds.Spec.Template.Spec)
	}
	sort.Slice(r.selectors, func(i, j int) bool { return r.selectors[i].String() < r.selectors[j].String() })
	return r
}

// keep reports whether the solver must see p itself.
func (r *relevance) keep(p *corev1.Pod) bool {
	if r.everyPod || hasTopologyRules(&p.Spec) || hasHostPorts(&p.Spec) || hasClaims(&p.Spec) {
		return true
	}
	if len(r.selectors) == 0 || len(p.Labels) == 0 {
		return false
	}
	key := labelsKey(p.Labels)
	if v, ok := r.cache[key]; ok {
		return v
	}
	set := labels.Set(p.Labels)
	match := false
	for _, s := range r.selectors {
		if s.Matches(set) {
			match = true
			break
		}
	}
	r.cache[key] = match
	return match
}

func labelsKey(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(l[k])
		b.WriteByte(0)
	}
	return b.String()
}

func hasTopologyRules(spec *corev1.PodSpec) bool {
	if len(spec.TopologySpreadConstraints) > 0 {
		return true
	}
	a := spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

func hasHostPorts(spec *corev1.PodSpec) bool {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			for _, p := range c.Ports {
				if p.HostPort != 0 {
					return true
				}
			}
		}
	}
	return false
}

func hasClaims(spec *corev1.PodSpec) bool {
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return true
		}
	}
	return false
}
