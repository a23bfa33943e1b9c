package workload

import (
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Names the edge clusters use.
const (
	// EdgeTaint keeps pods that do not tolerate it off the edge NodePool's nodes.
	EdgeTaint = "dedicated"
	// Widget is the extended resource every edge node offers four of.
	Widget = corev1.ResourceName("example.com/widget")
	// edgeAttachLimit is the volumes of Driver an edge node can attach.
	edgeAttachLimit = 4
)

// edge app kinds, one per less common feature.
const (
	kindSpread = iota
	kindZonalAffinity
	kindAntiAffinityNamespaces
	kindBigInit
	kindOverhead
	kindWidget
	kindHostIP
	kindTainted
	kindVolume
	kindTwoPDBs
	edgeKinds
)

// EdgeCluster returns a running cluster of about nodes nodes for disruption.Decide, at now,
// deterministic from r, that uses the less common scheduling features: zone spread with
// minDomains, nodeAffinityPolicy, nodeTaintsPolicy and matchLabelKeys; zonal pod affinity to
// another app (affin-N to cache-N); anti-affinity through a namespaceSelector; init containers
// bigger than the app; pod overhead; the Widget extended resource; host ports on host IPs;
// pods on a tainted NodePool (edge); volumes bound in a zone on nodes that attach at most
// edgeAttachLimit; pods under two PodDisruptionBudgets (their nodes may not be disrupted
// gracefully) besides apps under one. The pods are planned with scheduling.Solve onto two
// NodePools over 4 to 8 vCPU types of FakeCatalog, so the cluster starts valid, and then about
// 40% of the pods that nothing depends on are gone, as after a scale-down: the nodes are
// underutilized (none empty) and consolidation has work to do.
func EdgeCluster(r *rand.Rand, nodes int, now time.Time) (disruption.Input, error) {
	var types []*instancetype.InstanceType
	for _, it := range FakeCatalog(8)[3:] {
		it.Capacity[Widget] = resource.MustParse("4")
		it.VolumeAttachLimits = map[string]int{Driver: edgeAttachLimit}
		types = append(types, it)
	}
	consolidateAfter := time.Duration(0)
	disrupt := scheduling.Disruption{ConsolidationPolicy: scheduling.ConsolidationWhenEmptyOrUnderutilized,
		ConsolidateAfter: &consolidateAfter, Budgets: []scheduling.Budget{{Nodes: "100%"}}}
	pools := []*scheduling.NodePool{
		{Name: "default", Labels: map[string]string{TeamLabel: "core"}, Disruption: disrupt, InstanceTypes: types},
		{Name: "edge", Labels: map[string]string{TeamLabel: "edge"}, Disruption: disrupt, InstanceTypes: types,
			Taints: []corev1.Taint{{Key: EdgeTaint, Value: "edge", Effect: corev1.TaintEffectNoSchedule}}},
	}
	in := scheduling.Input{NodePools: pools, Namespaces: []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"tier": "frontend"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "team-b", Labels: map[string]string{"tier": "backend"}}},
	}}
	g := &edgeGenerator{r: r, in: &in, removable: map[string]bool{}}
	for app := 0; len(in.Pods) < nodes*9; app++ {
		g.app(app)
	}

	plan, err := scheduling.Solve(in)
	if err != nil {
		return disruption.Input{}, fmt.Errorf("planning the edge cluster: %w", err)
	}
	pods := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		pods[p.Namespace+"/"+p.Name] = p
	}
	out := disruption.Input{NodePools: pools, PodDisruptionBudgets: g.pdbs, Namespaces: in.Namespaces,
		PersistentVolumeClaims: in.PersistentVolumeClaims, PersistentVolumes: in.PersistentVolumes, Now: now}
	created := now.Add(-48 * time.Hour)
	for i, nc := range plan.NodeClaims {
		// Names unlike the planner's, as a cluster's are, so replacements never share them.
		name := fmt.Sprintf("e%04d", i+1)
		nc.Labels[corev1.LabelHostname] = name
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}, CreationTimestamp: metav1.NewTime(created)},
			Spec:       corev1.NodeSpec{Taints: nc.Taints},
			Status: corev1.NodeStatus{Capacity: nc.Capacity, Allocatable: nc.Allocatable,
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}
		for k, v := range nc.Labels {
			node.Labels[k] = v
		}
		n := &disruption.Node{Node: node, NodePool: nc.NodePool, InstanceType: nc.InstanceType, Zone: nc.Zone,
			CapacityType: nc.CapacityType, Price: nc.Price, Created: created, Initialized: true,
			VolumeAttachLimits: map[string]int{Driver: edgeAttachLimit}}
		for j, k := range nc.Pods {
			// Scaled down, but no node empties: emptiness would take the decision and leave
			// consolidation, whose moves this cluster is for, unexercised.
			if j > 0 && g.removable[k] && r.IntN(10) < 4 {
				continue
			}
			p := pods[k].DeepCopy()
			p.Spec.NodeName = name
			p.Status.Phase = corev1.PodRunning
			n.Pods = append(n.Pods, p)
		}
		out.Nodes = append(out.Nodes, n)
	}
	return out, nil
}

// edgeGenerator adds the apps of an edge cluster to in.
type edgeGenerator struct {
	r  *rand.Rand
	in *scheduling.Input
	// removable holds the pods a scale-down may take away: none that another app's affinity
	// needs, and none with a volume.
	removable map[string]bool
	pdbs      []*policyv1.PodDisruptionBudget
}

func (g *edgeGenerator) app(i int) {
	r := g.r
	kind := r.IntN(edgeKinds)
	ns := "team-a"
	if r.IntN(2) == 0 {
		ns = "team-b"
	}
	name := fmt.Sprintf("app-%d", i)
	replicas := 3 + r.IntN(8)
	removable := true
	var shape func(*corev1.Pod, int)
	switch kind {
	case kindSpread:
		name = fmt.Sprintf("spread-%d", i)
		policy := corev1.NodeInclusionPolicyHonor
		if r.IntN(2) == 0 {
			policy = corev1.NodeInclusionPolicyIgnore
		}
		shape = func(p *corev1.Pod, _ int) {
			p.Labels["pod-template-hash"] = "h1"
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				MinDomains:    ptr.To(int32(3)), NodeAffinityPolicy: &policy,
				NodeTaintsPolicy: ptr.To(corev1.NodeInclusionPolicyHonor), MatchLabelKeys: []string{"pod-template-hash"},
			}}
		}
		removable = false // a scale-down keeps a deployment's spread; taking pods at random would not
	case kindZonalAffinity:
		// cache-N pods first, then affin-N pods that need one in their zone.
		cache := fmt.Sprintf("cache-%d", i)
		g.add(ns, cache, 2+r.IntN(3), false, nil)
		name = fmt.Sprintf("affin-%d", i)
		shape = func(p *corev1.Pod, _ int) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": cache}},
				TopologyKey:   corev1.LabelTopologyZone,
			}}}}
		}
	case kindAntiAffinityNamespaces:
		// loner-N pods in team-b keep away, per node, from every frontend pod labelled role=web.
		ns, name = "team-b", fmt.Sprintf("loner-%d", i)
		g.add("team-a", fmt.Sprintf("web-%d", i), replicas, true, func(p *corev1.Pod, _ int) { p.Labels["role"] = "web" })
		replicas = 2 + r.IntN(3)
		shape = func(p *corev1.Pod, _ int) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"role": "web"}},
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "frontend"}},
				TopologyKey:       corev1.LabelHostname,
			}}}}
		}
	case kindBigInit:
		name = fmt.Sprintf("init-%d", i)
		shape = func(p *corev1.Pod, _ int) {
			p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("3Gi"),
			}}}}
		}
	case kindOverhead:
		name = fmt.Sprintf("sandboxed-%d", i)
		shape = func(p *corev1.Pod, _ int) {
			p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")}
		}
	case kindWidget:
		name = fmt.Sprintf("widget-%d", i)
		shape = func(p *corev1.Pod, _ int) {
			p.Spec.Containers[0].Resources.Requests[Widget] = resource.MustParse(fmt.Sprint(1 + r.IntN(2)))
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{Widget: p.Spec.Containers[0].Resources.Requests[Widget]}
		}
	case kindHostIP:
		name = fmt.Sprintf("hostip-%d", i)
		shape = func(p *corev1.Pod, j int) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 9000, HostPort: 9000, HostIP: fmt.Sprintf("10.0.0.%d", 1+j%2), Protocol: corev1.ProtocolTCP}}
		}
	case kindTainted:
		name = fmt.Sprintf("edge-%d", i)
		shape = func(p *corev1.Pod, _ int) {
			p.Spec.NodeSelector = map[string]string{TeamLabel: "edge"}
			p.Spec.Tolerations = []corev1.Toleration{{Key: EdgeTaint, Operator: corev1.TolerationOpEqual, Value: "edge", Effect: corev1.TaintEffectNoSchedule}}
		}
	case kindVolume:
		name, removable = fmt.Sprintf("db-%d", i), false
		shape = func(p *corev1.Pod, _ int) {
			claim := "data-" + p.Name
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
			}}}
			pvc, pv := volume(r, claim)
			for pv == nil { // bound volumes only: the cluster is running
				pvc, pv = volume(r, claim)
			}
			pvc.Namespace = p.Namespace
			pv.Spec.ClaimRef.Namespace = p.Namespace
			g.in.PersistentVolumeClaims = append(g.in.PersistentVolumeClaims, pvc)
			g.in.PersistentVolumes = append(g.in.PersistentVolumes, pv)
		}
	case kindTwoPDBs:
		name = fmt.Sprintf("guarded-%d", i)
	}
	g.add(ns, name, replicas, removable, shape)
	if kind == kindTwoPDBs || r.IntN(3) == 0 {
		g.pdb(ns, name, kind == kindTwoPDBs)
	}
}

// add appends an app's pods, named <name>-<j>, shaped by shape.
func (g *edgeGenerator) add(ns, name string, replicas int, removable bool, shape func(*corev1.Pod, int)) {
	for j := range replicas {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", name, j), Namespace: ns, Labels: map[string]string{"app": name},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: types.UID(ns + "/" + name), Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: RandomCPU(g.r), corev1.ResourceMemory: RandomMemory(g.r),
			}}}}},
		}
		if shape != nil {
			shape(p, j)
		}
		if removable {
			g.removable[ns+"/"+p.Name] = true
		}
		g.in.Pods = append(g.in.Pods, p)
	}
}

// pdb adds a budget over an app allowing one disruption, and with two a second budget over the
// same pods (the eviction API then refuses to evict them).
func (g *edgeGenerator) pdb(ns, app string, two bool) {
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	g.pdbs = append(g.pdbs, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1)), Selector: selector},
	})
	if two {
		g.pdbs = append(g.pdbs, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: app + "-min", Namespace: ns},
			Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)), Selector: selector},
		})
	}
}
