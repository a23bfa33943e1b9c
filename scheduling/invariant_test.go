package scheduling_test

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/instancetype"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// violations checks a plan against its input with kube-scheduler's own helpers rather than the
// solver's code, and returns every broken invariant as a sentence.
func violations(in scheduling.Input, plan scheduling.Plan) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	// Every pod is accounted for exactly once (a pod given twice: twice).
	given := map[string]int{}
	podByKey := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		k := key(p)
		given[k]++
		if podByKey[k] == nil {
			podByKey[k] = p
		}
	}
	got := map[string]int{}
	placed := 0
	for _, nc := range plan.NodeClaims {
		for _, p := range nc.Pods {
			got[p]++
			placed++
		}
	}
	for _, e := range plan.ExistingNodes {
		for _, p := range e.Pods {
			got[p]++
			placed++
		}
	}
	for _, u := range plan.Unschedulable {
		got[u.Pod]++
		if u.Reason == "" || u.Constraint == "" {
			fail("unschedulable %s has no reason or constraint: %+v", u.Pod, u)
		}
	}
	for k, n := range given {
		if got[k] != n {
			fail("pod %s is given %d times but appears %d times in the plan", k, n, got[k])
		}
	}
	for k := range got {
		if given[k] == 0 {
			fail("plan lists pod %s that is not in the input", k)
		}
	}

	// Summary.
	total := 0.0
	for _, nc := range plan.NodeClaims {
		total += nc.Price
	}
	s := plan.Summary
	if s.Pods != len(in.Pods) || s.Placed != placed || s.NewNodes != len(plan.NodeClaims) {
		fail("summary %+v does not count %d pods, %d placed, %d new nodes", s, len(in.Pods), placed, len(plan.NodeClaims))
	}
	if math.Abs(s.HourlyCost-total) > 1e-5 {
		fail("summary hourly cost %v is not the sum of prices %v", s.HourlyCost, total)
	}
	if s.HourlyCost < s.LowerBound-1e-5 {
		fail("hourly cost %v is below the lower bound %v", s.HourlyCost, s.LowerBound)
	}
	if s.LowerBound < 0 {
		fail("negative lower bound %v", s.LowerBound)
	}

	poolByName := map[string]*scheduling.NodePool{}
	for _, np := range in.NodePools {
		poolByName[np.Name] = np
	}
	existingByName := map[string]*scheduling.ExistingNode{}
	for _, en := range in.ExistingNodes {
		existingByName[en.Node.Name] = en
	}
	names := map[string]bool{}
	maxOptions := in.Options.MaxInstanceTypeOptions
	if maxOptions <= 0 {
		maxOptions = scheduling.DefaultMaxInstanceTypeOptions
	}
	newCapacity := map[string]corev1.ResourceList{}
	newCount := map[string]int64{}

	for _, nc := range plan.NodeClaims {
		where := "node claim " + nc.Name
		if names[nc.Name] || existingByName[nc.Name] != nil {
			fail("%s: name is not unique", where)
		}
		names[nc.Name] = true
		np := poolByName[nc.NodePool]
		if np == nil {
			fail("%s: unknown nodepool %q", where, nc.NodePool)
			continue
		}
		it := typeNamed(np, nc.InstanceType)
		if it == nil {
			fail("%s: instance type %s is not offered by nodepool %s", where, nc.InstanceType, np.Name)
			continue
		}
		off, found := offering(it, nc.Zone, nc.CapacityType)
		switch {
		case !found:
			fail("%s: %s has no offering %s/%s", where, it.Name, nc.Zone, nc.CapacityType)
		case !off.Available:
			fail("%s: offering %s/%s of %s is not available", where, nc.Zone, nc.CapacityType, it.Name)
		case off.Price != nc.Price:
			fail("%s: price %v is not the offering's %v", where, nc.Price, off.Price)
		}
		for k, v := range map[string]string{
			requirements.LabelHostname: nc.Name, requirements.LabelNodePool: np.Name,
			requirements.LabelInstanceType: it.Name, requirements.LabelTopologyZone: nc.Zone,
			requirements.LabelCapacityType: nc.CapacityType,
		} {
			if nc.Labels[k] != v {
				fail("%s: label %s=%q, want %q", where, k, nc.Labels[k], v)
			}
		}
		for _, m := range []map[string]string{np.Labels, it.Labels} {
			for k, v := range m {
				if nc.Labels[k] != v {
					fail("%s: label %s=%q, want %q", where, k, nc.Labels[k], v)
				}
			}
		}
		if !sameTaints(nc.Taints, np.Taints) || !sameTaints(nc.StartupTaints, np.StartupTaints) {
			fail("%s: taints %v / startup %v are not the nodepool's %v / %v", where, nc.Taints, nc.StartupTaints, np.Taints, np.StartupTaints)
		}
		node := &corev1.Node{}
		node.Name, node.Labels, node.Spec.Taints = nc.Name, nc.Labels, nc.Taints
		if !matchesPool(np, node) {
			fail("%s: labels %v break nodepool %s's requirements", where, nc.Labels, np.Name)
		}
		if len(nc.Pods) == 0 && np.Replicas == nil {
			fail("%s: no pods (only a static NodePool keeps empty nodes)", where)
		}
		var nodePods []*corev1.Pod
		for _, k := range nc.Pods {
			if p := podByKey[k]; p != nil {
				nodePods = append(nodePods, p)
			}
		}
		errs = append(errs, placementViolations(where, node, nodePods, nil, in, it.Allocatable())...)
		// Every listed option fits the pods, and no option offers a cheaper offering the pods
		// and the nodepool would accept.
		if len(nc.InstanceTypeOptions) == 0 || len(nc.InstanceTypeOptions) > maxOptions {
			fail("%s: %d instance type options (max %d)", where, len(nc.InstanceTypeOptions), maxOptions)
		}
		if len(nc.InstanceTypeOptions) > 0 && nc.InstanceTypeOptions[0] != nc.InstanceType {
			fail("%s: the chosen type %s is not the first option of %v", where, nc.InstanceType, nc.InstanceTypeOptions)
		}
		// The cheapest-offering check holds when the node's requirements are the pods' own:
		// minValues may keep a pricier zone or type to keep enough options, and a pod with
		// OR'ed terms commits to one of them when it joins a node.
		strictPrice := !hasMinValues(np) && !anyORedTerms(nodePods)
		// Options are ordered by the prices the node's requirements allow, which preferences
		// may narrow further than the pods' required terms.
		strictOrder := strictPrice && !anyPreferences(nodePods)
		prev := -1.0
		for _, name := range nc.InstanceTypeOptions {
			ot := typeNamed(np, name)
			if ot == nil {
				fail("%s: option %s is not offered by the nodepool", where, name)
				continue
			}
			cheapest := math.Inf(1)
			for _, o := range ot.Offerings {
				alt := optionNode(nc, np, ot, o)
				if !o.Available || !matchesPool(np, alt) || !allMatch(nodePods, alt) {
					continue
				}
				cheapest = math.Min(cheapest, o.Price)
				if strictPrice && o.Price < nc.Price-1e-12 && keepsPreferences(nodePods, node, alt) {
					fail("%s: option %s offers %s/%s at %v, cheaper than the chosen %v", where, name, o.Zone, o.CapacityType, o.Price, nc.Price)
				}
			}
			if math.IsInf(cheapest, 1) {
				fail("%s: option %s has no available offering the pods accept", where, name)
			} else if strictOrder && cheapest < prev {
				fail("%s: options %v are not cheapest first", where, nc.InstanceTypeOptions)
			} else {
				prev = cheapest
			}
			alt := optionNode(nc, np, ot, instancetype.Offering{Zone: nc.Zone, CapacityType: nc.CapacityType})
			if e := placementViolations(where+" as option "+name, alt, nodePods, nil, in, ot.Allocatable()); len(e) > 0 {
				fail("%s: option %s does not fit: %v", where, name, e)
			}
		}
		capacity := newCapacity[np.Name]
		if capacity == nil {
			capacity = corev1.ResourceList{}
			newCapacity[np.Name] = capacity
		}
		addList(capacity, it.Capacity)
		newCount[np.Name]++
	}

	// Limits: new nodes plus the existing nodes of the pool stay within them.
	for name, capacity := range newCapacity {
		np := poolByName[name]
		if len(np.Limits) == 0 {
			continue
		}
		used := capacity.DeepCopy()
		count := newCount[name]
		for _, en := range in.ExistingNodes {
			if en.NodePool == name || (en.NodePool == "" && en.Node.Labels[requirements.LabelNodePool] == name) {
				c := en.Node.Status.Capacity
				if len(c) == 0 {
					c = en.Node.Status.Allocatable
				}
				addList(used, c)
				count++
			}
		}
		for r, limit := range np.Limits {
			if r == "nodes" {
				if count > limit.Value() {
					fail("nodepool %s: %d nodes exceed the limit %s", name, count, limit.String())
				}
				continue
			}
			if q := used[r]; q.Cmp(limit) > 0 {
				fail("nodepool %s: %s %s exceeds the limit %s", name, r, q.String(), limit.String())
			}
		}
	}

	// Existing nodes: the pods placed there join those already running.
	for _, e := range plan.ExistingNodes {
		en := existingByName[e.Name]
		if en == nil {
			fail("existing node %s is not in the input", e.Name)
			continue
		}
		if en.Node.Spec.Unschedulable {
			fail("existing node %s is cordoned", e.Name)
		}
		var nodePods []*corev1.Pod
		for _, k := range e.Pods {
			nodePods = append(nodePods, podByKey[k])
		}
		var running []*corev1.Pod
		for _, p := range en.Pods {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				running = append(running, p)
			}
		}
		alloc := en.Node.Status.Allocatable
		if len(alloc) == 0 {
			alloc = en.Node.Status.Capacity
		}
		node := en.Node.DeepCopy()
		if node.Labels[requirements.LabelHostname] == "" {
			node.Labels[requirements.LabelHostname] = node.Name
		}
		if !en.Initialized {
			// A starting node's ephemeral taints and its NodePool's startup taints go away.
			node.Spec.Taints = nil
			for _, taint := range en.Node.Spec.Taints {
				if !startupTaint(taint, poolByName[en.NodePool]) {
					node.Spec.Taints = append(node.Spec.Taints, taint)
				}
			}
		}
		// Daemons count on a starting node until their pods are bound there.
		var daemonsToCome scheduling.Input
		if !en.Initialized {
			for _, ds := range in.DaemonSets {
				if !runsDaemon(en, ds.Namespace, ds.Name) {
					daemonsToCome.DaemonSets = append(daemonsToCome.DaemonSets, ds)
				}
			}
		}
		errs = append(errs, placementViolations("existing node "+e.Name, node, nodePods, running, daemonsToCome, alloc)...)
	}
	return errs
}

func runsDaemon(en *scheduling.ExistingNode, namespace, name string) bool {
	for _, p := range en.Pods {
		for _, ref := range p.OwnerReferences {
			if ref.Kind == "DaemonSet" && ref.Name == name && p.Namespace == namespace {
				return true
			}
		}
	}
	return false
}

func startupTaint(t corev1.Taint, np *scheduling.NodePool) bool {
	switch t.Key {
	case corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, "node.cloudprovider.kubernetes.io/uninitialized", "karpenter.sh/unregistered":
		return true
	}
	if np != nil {
		for _, st := range np.StartupTaints {
			if st.MatchTaint(&t) {
				return true
			}
		}
	}
	return false
}

// placementViolations checks pods (plus pods already running and the daemons that would run
// there) on one node: requests within allocatable, taints tolerated, required node affinity
// matched, host ports unique.
func placementViolations(where string, node *corev1.Node, pods, running []*corev1.Pod, in scheduling.Input, alloc corev1.ResourceList) []string {
	var errs []string
	sum := corev1.ResourceList{}
	var ports []corev1.ContainerPort
	var portOwners []string
	addPorts := func(owner string, p *corev1.Pod) {
		for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
			for _, c := range cs {
				for _, cp := range c.Ports {
					if cp.HostPort == 0 {
						continue
					}
					for i, other := range ports {
						if portsConflict(cp, other) {
							errs = append(errs, fmt.Sprintf("%s: host port %d of %s conflicts with %s", where, cp.HostPort, owner, portOwners[i]))
						}
					}
					ports = append(ports, cp)
					portOwners = append(portOwners, owner)
				}
			}
		}
	}
	count := func(p *corev1.Pod) {
		addList(sum, resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
		addList(sum, corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")})
	}
	for _, ds := range in.DaemonSets {
		p := &corev1.Pod{ObjectMeta: ds.Spec.Template.ObjectMeta, Spec: ds.Spec.Template.Spec}
		if tolerates(p, node.Spec.Taints) && matches(p, node) {
			count(p)
			addPorts("daemonset "+ds.Name, p)
		}
	}
	for _, p := range running {
		count(p)
		addPorts(key(p), p)
	}
	for _, p := range pods {
		count(p)
		addPorts(key(p), p)
		if !tolerates(p, node.Spec.Taints) {
			errs = append(errs, fmt.Sprintf("%s: pod %s does not tolerate taints %v", where, key(p), node.Spec.Taints))
		}
		if !matches(p, node) {
			errs = append(errs, fmt.Sprintf("%s: pod %s does not match labels %v", where, key(p), node.Labels))
		}
	}
	for r, q := range sum {
		if q.IsZero() {
			continue
		}
		if have := alloc[r]; q.Cmp(have) > 0 {
			errs = append(errs, fmt.Sprintf("%s: %s requests %s exceed allocatable %s", where, r, q.String(), have.String()))
		}
	}
	return errs
}

// tolerates is kube-scheduler's TaintToleration filter: NoSchedule and NoExecute taints count.
func tolerates(p *corev1.Pod, taints []corev1.Taint) bool {
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), taints, p.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
	return !untolerated
}

func matches(p *corev1.Pod, node *corev1.Node) bool {
	ok, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(node)
	return err == nil && ok
}

func hasMinValues(np *scheduling.NodePool) bool {
	for _, r := range np.Requirements {
		if r.MinValues != nil {
			return true
		}
	}
	return false
}

func anyPreferences(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
	}
	return false
}

func anyORedTerms(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil &&
			len(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) > 1 {
			return true
		}
	}
	return false
}

// keepsPreferences reports whether alt meets every preferred node affinity term of the pods
// that node meets: an offering outside a preference the plan honoured is no cheaper choice.
func keepsPreferences(pods []*corev1.Pod, node, alt *corev1.Node) bool {
	for _, p := range pods {
		if p.Spec.Affinity == nil || p.Spec.Affinity.NodeAffinity == nil {
			continue
		}
		for _, term := range p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term.Preference}})
			if err == nil && sel.Match(node) && !sel.Match(alt) {
				return false
			}
		}
	}
	return true
}

func allMatch(pods []*corev1.Pod, node *corev1.Node) bool {
	for _, p := range pods {
		if !matches(p, node) {
			return false
		}
	}
	return true
}

// matchesPool reports whether a node's labels meet the nodepool's requirements (Gte and Lte,
// which node affinity lacks, as Gt and Lt of the neighbouring integer).
func matchesPool(np *scheduling.NodePool, node *corev1.Node) bool {
	var exprs []corev1.NodeSelectorRequirement
	for _, r := range np.Requirements {
		e := *r.NodeSelectorRequirement.DeepCopy()
		e.Key = requirements.NormalizeKey(e.Key)
		switch e.Operator {
		case requirements.OpGte:
			var n int64
			fmt.Sscan(e.Values[0], &n)
			e.Operator, e.Values = corev1.NodeSelectorOpGt, []string{fmt.Sprint(n - 1)}
		case requirements.OpLte:
			var n int64
			fmt.Sscan(e.Values[0], &n)
			e.Operator, e.Values = corev1.NodeSelectorOpLt, []string{fmt.Sprint(n + 1)}
		}
		exprs = append(exprs, e)
	}
	if len(exprs) == 0 {
		return true
	}
	sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}})
	return err == nil && sel.Match(node)
}

// optionNode is the node a claim would be with another type and offering.
func optionNode(nc scheduling.NodeClaim, np *scheduling.NodePool, it *instancetype.InstanceType, o instancetype.Offering) *corev1.Node {
	labels := map[string]string{}
	for k, v := range np.Labels {
		labels[k] = v
	}
	for k, v := range it.Labels {
		labels[k] = v
	}
	if _, ok := labels[requirements.LabelOS]; !ok {
		labels[requirements.LabelOS] = requirements.OSLinux
	}
	labels[requirements.LabelHostname] = nc.Name
	labels[requirements.LabelNodePool] = np.Name
	labels[requirements.LabelInstanceType] = it.Name
	labels[requirements.LabelTopologyZone] = o.Zone
	labels[requirements.LabelCapacityType] = o.CapacityType
	if r, ok := nc.Labels[requirements.LabelTopologyRegion]; ok {
		labels[requirements.LabelTopologyRegion] = r
	}
	// Labels the pods' requirements pinned (custom values a nodepool requirement allows).
	for k, v := range nc.Labels {
		if _, ok := labels[k]; !ok && !isTypeLabel(k, np) && requirements.NormalizeKey(k) == k {
			labels[k] = v
		}
	}
	// The beta names kubelet and the node lifecycle controller write too.
	for _, k := range []string{requirements.LabelTopologyZone, requirements.LabelTopologyRegion, requirements.LabelInstanceType, requirements.LabelArch, requirements.LabelOS} {
		for _, old := range requirements.DeprecatedKeysOf(k) {
			if _, ok := nc.Labels[old]; ok {
				labels[old] = labels[k]
			}
		}
	}
	node := &corev1.Node{}
	node.Name, node.Labels, node.Spec.Taints = nc.Name, labels, nc.Taints
	return node
}

// isTypeLabel reports whether some instance type of the pool sets k (so it must come from the
// option's type, not from the chosen one).
func isTypeLabel(k string, np *scheduling.NodePool) bool {
	for _, it := range np.InstanceTypes {
		if _, ok := it.Labels[k]; ok {
			return true
		}
	}
	return false
}

func portsConflict(a, b corev1.ContainerPort) bool {
	proto := func(p corev1.Protocol) corev1.Protocol {
		if p == "" {
			return corev1.ProtocolTCP
		}
		return p
	}
	wild := func(ip string) bool { return ip == "" || ip == "0.0.0.0" || ip == "::" }
	return a.HostPort == b.HostPort && proto(a.Protocol) == proto(b.Protocol) && (a.HostIP == b.HostIP || wild(a.HostIP) || wild(b.HostIP))
}

func typeNamed(np *scheduling.NodePool, name string) *instancetype.InstanceType {
	for _, it := range np.InstanceTypes {
		if it.Name == name {
			return it
		}
	}
	return nil
}

func offering(it *instancetype.InstanceType, zone, capacityType string) (instancetype.Offering, bool) {
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType && o.Available {
			return o, true
		}
	}
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o, true
		}
	}
	return instancetype.Offering{}, false
}

func sameTaints(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].MatchTaint(&b[i]) || a[i].Value != b[i].Value {
			return false
		}
	}
	return true
}

func addList(sum, l corev1.ResourceList) {
	for r, q := range l {
		v := sum[r]
		v.Add(q)
		sum[r] = v
	}
}

func key(p *corev1.Pod) string {
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	return ns + "/" + p.Name
}

// TestInvariantsRandomInputs solves many random small clusters and checks every plan with
// violations. Seeds are fixed, so a failure names the seed that reproduces it.
func TestInvariantsRandomInputs(t *testing.T) {
	iterations := 1000
	if testing.Short() {
		iterations = 100
	}
	stats := map[string]int{}
	for seed := int64(1); seed <= int64(iterations); seed++ {
		in := randomInput(rand.New(rand.NewSource(seed)))
		in.Options.SkipImprovement = true
		greedy, err := scheduling.Solve(in)
		require.NoError(t, err, "seed %d", seed)
		require.Empty(t, violations(in, greedy), "seed %d, greedy pass", seed)
		in.Options.SkipImprovement = false
		plan, err := scheduling.Solve(in)
		require.NoError(t, err, "seed %d", seed)
		require.Empty(t, violations(in, plan), "seed %d", seed)
		// Improvement moves pods between new nodes; it never loses one or costs more.
		require.Equal(t, greedy.Summary.Placed, plan.Summary.Placed, "seed %d", seed)
		require.Equal(t, greedy.Unschedulable, plan.Unschedulable, "seed %d", seed)
		require.LessOrEqual(t, plan.Summary.HourlyCost, greedy.Summary.HourlyCost+1e-9, "seed %d: improvement costs more than the greedy pass", seed)
		stats["nodes"] += len(plan.NodeClaims)
		stats["existing"] += len(plan.ExistingNodes)
		for _, u := range plan.Unschedulable {
			stats[string(u.Constraint)]++
		}
		stats["placed"] += plan.Summary.Placed
	}
	// The generator must exercise the interesting outcomes, or the test proves little.
	for _, k := range []string{"nodes", "existing", "placed", "Resources", "Taints", "NodeAffinity", "Validation", "Limits", "HostPorts"} {
		require.Positive(t, stats[k], "no random input produced %s (stats %v)", k, stats)
	}
	t.Logf("outcomes over %d inputs: %v", iterations, stats)
}

var (
	randZones = []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	randTeams = []string{"ml", "web", "db"}
)

// randomInput builds a small cluster: a dozen instance types, one to three NodePools with
// random weights, taints, requirements, labels and limits, a few existing nodes and
// DaemonSets, and up to 60 pods with random requests, selectors, affinities, tolerations and
// host ports.
func randomInput(r *rand.Rand) scheduling.Input {
	pick := func(xs []string) string { return xs[r.Intn(len(xs))] }
	chance := func(p float64) bool { return r.Float64() < p }

	var types []*instancetype.InstanceType
	for i, n := 0, 4+r.Intn(10); i < n; i++ {
		cpus := []int{1, 2, 4, 8, 16}[r.Intn(5)]
		memPerCPU := []int{2, 4, 8}[r.Intn(3)]
		arch := "amd64"
		if chance(0.3) {
			arch = "arm64"
		}
		b := tb.Type(fmt.Sprintf("t%d-%dx%d", i, cpus, memPerCPU), fmt.Sprint(cpus), fmt.Sprintf("%dGi", cpus*memPerCPU), int64([]int{4, 8, 29, 110}[r.Intn(4)])).
			Arch(arch).Label("example.com/family", fmt.Sprintf("f%d", r.Intn(3)))
		if chance(0.5) {
			b.KubeReserved(fmt.Sprintf("%dm", 50+r.Intn(100)), fmt.Sprintf("%dMi", 100+r.Intn(400)))
		}
		if chance(0.15) {
			b.Capacity("nvidia.com/gpu", fmt.Sprint(1+r.Intn(4)))
		}
		base := (0.02*float64(cpus) + 0.005*float64(cpus*memPerCPU)) * (0.8 + 0.4*r.Float64())
		for _, z := range randZones {
			for _, ct := range []string{"on-demand", "spot"} {
				price := base * (0.9 + 0.2*r.Float64())
				if ct == "spot" {
					price *= 0.3 + 0.4*r.Float64()
				}
				price = math.Round(price*1e4) / 1e4
				if chance(0.15) {
					b.Unavailable(z, ct, price/2)
				} else {
					b.Offer(z, ct, price)
				}
			}
		}
		types = append(types, b.Obj())
	}

	var nps []*scheduling.NodePool
	for i, n := 0, 1+r.Intn(3); i < n; i++ {
		var its []*instancetype.InstanceType
		for _, it := range types {
			if chance(0.7) {
				its = append(its, it)
			}
		}
		b := tb.NodePool(fmt.Sprintf("pool%d", i), its...).Weight(int32(r.Intn(3) * 10))
		if chance(0.3) {
			b.Taint("dedicated", pick(randTeams), corev1.TaintEffectNoSchedule)
		}
		if chance(0.15) {
			b.Taint("soft", "true", corev1.TaintEffectPreferNoSchedule)
		}
		if chance(0.15) {
			b.StartupTaint("startup", "true", corev1.TaintEffectNoSchedule)
		}
		if chance(0.3) {
			b.Label("team", pick(randTeams))
		} else if chance(0.2) {
			b.Requirement("team", corev1.NodeSelectorOpIn, pick(randTeams), pick(randTeams))
		}
		if chance(0.3) {
			b.Requirement(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, pick([]string{"spot", "on-demand"}))
		}
		if chance(0.3) {
			b.Requirement(requirements.LabelTopologyZone, corev1.NodeSelectorOpIn, pick(randZones), pick(randZones))
		}
		if chance(0.2) {
			b.Requirement(requirements.LabelArch, corev1.NodeSelectorOpIn, pick([]string{"amd64", "arm64"}))
		}
		if chance(0.3) {
			b.Limit(corev1.ResourceCPU, fmt.Sprint(8+r.Intn(40)))
		}
		if chance(0.2) {
			b.Limit("nodes", fmt.Sprint(1+r.Intn(4)))
		}
		if chance(0.15) {
			b.MinValues(requirements.LabelInstanceType, 1+r.Intn(3), corev1.NodeSelectorOpExists)
		}
		nps = append(nps, b.Obj())
	}

	podSpec := func(name string) *tb.PodBuilder {
		b := tb.Pod(name).CPU(fmt.Sprintf("%dm", 50+r.Intn(4000))).Memory(fmt.Sprintf("%dMi", 64+r.Intn(8192)))
		if chance(0.2) {
			b.NodeSelector(requirements.LabelTopologyZone, pick(randZones))
		}
		if chance(0.15) {
			b.NodeSelector(requirements.LabelArch, pick([]string{"amd64", "arm64"}))
		}
		if chance(0.15) {
			b.NodeSelector("team", pick(randTeams))
		}
		if chance(0.1) {
			b.NodeSelector(requirements.LabelCapacityType, pick([]string{"spot", "on-demand"}))
		}
		if chance(0.15) {
			b.RequiredTerm(tb.In(requirements.LabelTopologyZone, pick(randZones)), tb.In("example.com/family", fmt.Sprintf("f%d", r.Intn(3))))
			b.RequiredTerm(tb.In(requirements.LabelArch, pick([]string{"amd64", "arm64"})))
		}
		if chance(0.1) {
			b.RequiredTerm(tb.NotIn("team", pick(randTeams)))
		}
		if chance(0.2) {
			b.PreferredTerm(int32(1+r.Intn(100)), tb.In(requirements.LabelTopologyZone, pick(randZones)))
		}
		if chance(0.1) {
			b.PreferredTerm(int32(1+r.Intn(100)), tb.In("team", pick(randTeams)))
		}
		if chance(0.3) {
			b.Toleration("dedicated", pick(randTeams), corev1.TaintEffectNoSchedule)
		}
		if chance(0.05) {
			b.TolerateAll()
		}
		if chance(0.1) {
			b.HostPortOn(pick([]string{"", "10.0.0.1", "10.0.0.2", "::"}), int32(8080+r.Intn(3)), corev1.Protocol(pick([]string{"", "TCP", "UDP"})))
		}
		if chance(0.05) {
			b.GPU("1")
		}
		if chance(0.1) {
			b.InitContainer(fmt.Sprintf("%dm", 100+r.Intn(6000)), "")
		}
		if chance(0.1) {
			b.Sidecar("100m", "128Mi")
		}
		if chance(0.02) {
			b.MatchFieldsTerm(tb.In("metadata.name", "n1"))
		}
		if chance(0.02) {
			b.CPU("200") // larger than any type
		}
		return b
	}

	var ens []*scheduling.ExistingNode
	for i, n := 0, r.Intn(4); i < n; i++ {
		name := fmt.Sprintf("node%d", i)
		cpus := []int{2, 4, 8}[r.Intn(3)]
		b := tb.Node(name, fmt.Sprint(cpus), fmt.Sprintf("%dGi", cpus*4), int64(10+r.Intn(20))).
			Zone(pick(randZones)).Label(requirements.LabelArch, pick([]string{"amd64", "arm64"}))
		if chance(0.3) {
			b.Label("team", pick(randTeams))
		}
		if chance(0.5) && len(nps) > 0 {
			b.NodePool(nps[r.Intn(len(nps))].Name)
		}
		if chance(0.2) {
			b.Taint("dedicated", pick(randTeams), corev1.TaintEffectNoSchedule)
		}
		if chance(0.3) {
			b.Uninitialized()
			if chance(0.5) {
				b.Taint(corev1.TaintNodeNotReady, "", corev1.TaintEffectNoSchedule)
			}
			if chance(0.5) {
				b.Taint("startup", "true", corev1.TaintEffectNoSchedule)
			}
		}
		if chance(0.1) {
			b.Cordoned()
		}
		var running []*corev1.Pod
		for j, m := 0, r.Intn(3); j < m; j++ {
			running = append(running, tb.Pod(fmt.Sprintf("%s-running-%d", name, j)).CPU(fmt.Sprintf("%dm", 100+r.Intn(1500))).Memory("512Mi").Obj())
		}
		ens = append(ens, b.Pods(running...).Obj())
	}

	var dss []*corev1.Pod
	for i, n := 0, r.Intn(3); i < n; i++ {
		b := tb.Pod(fmt.Sprintf("ds%d", i)).Namespace("kube-system").CPU(fmt.Sprintf("%dm", 50+r.Intn(400))).Memory(fmt.Sprintf("%dMi", 50+r.Intn(400)))
		if chance(0.3) {
			b.TolerateAll()
		}
		if chance(0.3) {
			b.NodeSelector(requirements.LabelArch, pick([]string{"amd64", "arm64"}))
		}
		if chance(0.3) {
			b.HostPort(int32(8080 + i)) // daemons do not collide with each other
		}
		dss = append(dss, b.Obj())
	}

	var ps []*corev1.Pod
	for i, n := 0, 1+r.Intn(60); i < n; i++ {
		ps = append(ps, podSpec(fmt.Sprintf("p%d", i)).Obj())
	}
	return scheduling.Input{Pods: ps, NodePools: nps, ExistingNodes: ens, DaemonSets: daemons(dss...)}
}
