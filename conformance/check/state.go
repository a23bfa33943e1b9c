package check

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/nodeplan/nodeplan/scheduling"
)

// Well-known labels and annotations the finished state uses.
const (
	labelNodePool     = "karpenter.sh/nodepool"
	labelCapacityType = "karpenter.sh/capacity-type"
	// annBindCompleted marks a claim the PV controller finished binding.
	annBindCompleted = "pv.kubernetes.io/bind-completed"
	// VirtualNodePrefix starts the name of every virtual zone node.
	VirtualNodePrefix = "virtual-zone-"
)

// csiTopologyLabels are the zone labels CSI node drivers put on the nodes they run on (kubelet
// copies the topology a driver reports into the Node's labels when the driver registers).
var csiTopologyLabels = map[string]string{
	"ebs.csi.aws.com": "topology.ebs.csi.aws.com/zone",
}

// ephemeralTaints go away when a node becomes ready, whatever its NodePool says.
var ephemeralTaints = map[string]bool{
	corev1.TaintNodeNotReady:                         true,
	corev1.TaintNodeUnreachable:                      true,
	"node.cloudprovider.kubernetes.io/uninitialized": true,
	"karpenter.sh/unregistered":                      true,
}

// state is the cluster as the plan leaves it.
type state struct {
	nodes []*corev1.Node
	// pods are bound (spec.nodeName): running, daemon and placed pods.
	pods   []*corev1.Pod
	placed []placedPod
	// running are the pods bound to existing nodes in the input (not the DaemonSet pods a
	// starting node gains).
	running []placedPod
	// objects feed the informers: namespaces, volume objects and CSINodes.
	objects                            []runtime.Object
	newNodes, virtualNodes, daemonPods int
	labelFailures                      []Failure
}

func newState(in scheduling.Input, plan scheduling.Plan) *state {
	st := &state{}
	pools := map[string]*scheduling.NodePool{}
	for _, np := range in.NodePools {
		if np != nil {
			pools[np.Name] = np
		}
	}
	uids := map[types.UID]bool{}
	bind := func(p *corev1.Pod, node, uid string) *corev1.Pod {
		p = p.DeepCopy()
		if p.Namespace == "" {
			p.Namespace = corev1.NamespaceDefault
		}
		p.Spec.NodeName = node
		// The snapshot keys pods by UID: give every pod a unique one.
		p.UID = types.UID(uid)
		for n := 2; uids[p.UID]; n++ {
			p.UID = types.UID(fmt.Sprintf("%s#%d", uid, n))
		}
		uids[p.UID] = true
		st.pods = append(st.pods, p)
		return p
	}
	daemons := func(node *corev1.Node, skip func(*appsv1.DaemonSet) bool) {
		for _, ds := range in.DaemonSets {
			if ds == nil || (skip != nil && skip(ds)) {
				continue
			}
			if p := daemonPod(ds, node); p != nil {
				bind(p, node.Name, "daemon/"+node.Name+"/"+p.Namespace+"/"+ds.Name)
				st.daemonPods++
			}
		}
	}

	// Existing nodes with their pods; a starting node loses its startup taints and gains the
	// DaemonSet pods it does not run yet.
	for _, en := range in.ExistingNodes {
		if en == nil || en.Node == nil {
			continue
		}
		node := en.Node.DeepCopy()
		if node.Labels == nil {
			node.Labels = map[string]string{}
		}
		if node.Labels[corev1.LabelHostname] == "" {
			node.Labels[corev1.LabelHostname] = node.Name
		}
		if len(node.Status.Allocatable) == 0 {
			node.Status.Allocatable = node.Status.Capacity.DeepCopy()
		}
		if !en.Initialized {
			node.Spec.Taints = withoutStartupTaints(node.Spec.Taints, pools[en.NodePool])
		}
		st.nodes = append(st.nodes, node)
		for _, p := range en.Pods {
			if p == nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			key := podKey(p)
			st.running = append(st.running, placedPod{key: key, node: node.Name, pod: bind(p, node.Name, "running/"+node.Name+"/"+key)})
		}
		if !en.Initialized {
			daemons(node, func(ds *appsv1.DaemonSet) bool { return runsDaemon(en, ds) })
		}
		if limits := en.VolumeAttachLimits; len(limits) > 0 {
			st.objects = append(st.objects, csiNode(node.Name, limits))
		}
	}

	// New nodes with their DaemonSet pods, and the zone labels of the CSI drivers the input's
	// volumes and classes use.
	drivers := csiDrivers(in)
	for _, nc := range plan.NodeClaims {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: nc.Name, Labels: map[string]string{}},
			Spec:       corev1.NodeSpec{Taints: append([]corev1.Taint(nil), nc.Taints...)},
			Status: corev1.NodeStatus{
				Capacity:    nc.Capacity.DeepCopy(),
				Allocatable: nc.Allocatable.DeepCopy(),
			},
		}
		for _, key := range drivers {
			node.Labels[key] = nc.Zone
		}
		for k, v := range nc.Labels {
			node.Labels[k] = v
		}
		st.labelFailures = append(st.labelFailures, claimLabelFailures(nc)...)
		st.nodes = append(st.nodes, node)
		st.newNodes++
		daemons(node, nil)
		if limits := typeAttachLimits(pools[nc.NodePool], nc.InstanceType); len(limits) > 0 {
			st.objects = append(st.objects, csiNode(node.Name, limits))
		}
	}

	// Pending pods on the nodes the plan chose: existing nodes first, then new ones.
	pending := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		if p != nil && pending[podKey(p)] == nil {
			pending[podKey(p)] = p
		}
	}
	isNode := map[string]bool{}
	for _, n := range st.nodes {
		isNode[n.Name] = true
	}
	done := map[string]bool{}
	place := func(node string, keys []string) {
		for _, k := range keys {
			p := pending[k]
			if p == nil || done[k] || !isNode[node] {
				continue // accounting reports it
			}
			done[k] = true
			st.placed = append(st.placed, placedPod{key: k, node: node, pod: bind(p, node, "pending/"+k)})
		}
	}
	for _, e := range plan.ExistingNodes {
		place(e.Name, e.Pods)
	}
	for _, nc := range plan.NodeClaims {
		place(nc.Name, nc.Pods)
	}

	// Empty zones a NodePool can launch in, as cordoned nodes with no room.
	zoned := map[string]bool{}
	for _, n := range st.nodes {
		zoned[n.Labels[corev1.LabelTopologyZone]] = true
	}
	for _, zone := range plan.TopologyDomains[corev1.LabelTopologyZone] {
		if zoned[zone] {
			continue
		}
		zoned[zone] = true
		st.nodes = append(st.nodes, virtualZoneNode(zone))
		st.virtualNodes++
	}

	st.objects = append(st.objects, namespaces(in, st.pods)...)
	st.objects = append(st.objects, volumeObjects(in)...)
	return st
}

// csiDrivers returns the zone labels of the CSI drivers the input's volumes and classes use.
func csiDrivers(in scheduling.Input) []string {
	var out []string
	add := func(driver string) {
		if key, ok := csiTopologyLabels[driver]; ok && !slices.Contains(out, key) {
			out = append(out, key)
		}
	}
	for _, pv := range in.PersistentVolumes {
		if pv != nil && pv.Spec.CSI != nil {
			add(pv.Spec.CSI.Driver)
		}
	}
	for _, sc := range in.StorageClasses {
		if sc != nil {
			add(sc.Provisioner)
		}
	}
	slices.Sort(out)
	return out
}

// virtualZoneNode stands for a zone a NodePool can launch in but the plan has no node in.
func virtualZoneNode(zone string) *corev1.Node {
	name := VirtualNodePrefix + zone
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			corev1.LabelTopologyZone:   zone,
			corev1.LabelTopologyRegion: regionOf(zone),
			corev1.LabelHostname:       name,
		}},
		Spec: corev1.NodeSpec{Unschedulable: true},
	}
}

// regionOf derives a region from a zone name by dropping its last letter (us-west-2a → us-west-2).
func regionOf(zone string) string {
	if len(zone) < 2 {
		return zone
	}
	return zone[:len(zone)-1]
}

// withoutStartupTaints drops the taints a node loses once initialised.
func withoutStartupTaints(taints []corev1.Taint, np *scheduling.NodePool) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		if ephemeralTaints[t.Key] {
			continue
		}
		startup := false
		if np != nil {
			for _, st := range np.StartupTaints {
				if st.MatchTaint(&t) {
					startup = true
				}
			}
		}
		if !startup {
			out = append(out, t)
		}
	}
	return out
}

// runsDaemon reports whether one of the node's pods belongs to the DaemonSet.
func runsDaemon(en *scheduling.ExistingNode, ds *appsv1.DaemonSet) bool {
	for _, p := range en.Pods {
		if p == nil || p.Namespace != ds.Namespace {
			continue
		}
		for _, ref := range p.OwnerReferences {
			if ref.Kind == "DaemonSet" && ref.Name == ds.Name {
				return true
			}
		}
	}
	return false
}

// daemonPod returns the pod the DaemonSet would run on node, or nil when the DaemonSet
// controller would not run one there: its template's required node affinity and node selector
// must match the node, and it must tolerate the node's NoSchedule and NoExecute taints.
func daemonPod(ds *appsv1.DaemonSet, node *corev1.Node) *corev1.Pod {
	tmpl := ds.Spec.Template.DeepCopy()
	ns := ds.Namespace
	if ns == "" {
		ns = corev1.NamespaceDefault
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        ds.Name + "-" + node.Name,
			Namespace:   ns,
			Labels:      tmpl.Labels,
			Annotations: tmpl.Annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: ptr.To(true),
			}},
		},
		Spec: tmpl.Spec,
	}
	if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !ok {
		return nil
	}
	noScheduleOrExecute := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	comparisons := utilfeature.DefaultFeatureGate.Enabled(features.TaintTolerationComparisonOperators)
	if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, noScheduleOrExecute, comparisons); untolerated {
		return nil
	}
	defaultRequestsFromLimits(pod)
	return pod
}

// defaultRequestsFromLimits sets a container's missing requests to its limits, as the API
// server does when it creates a pod.
func defaultRequestsFromLimits(pod *corev1.Pod) {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			c := &cs[i]
			for name, limit := range c.Resources.Limits {
				if _, ok := c.Resources.Requests[name]; ok {
					continue
				}
				if c.Resources.Requests == nil {
					c.Resources.Requests = corev1.ResourceList{}
				}
				c.Resources.Requests[name] = limit.DeepCopy()
			}
		}
	}
}

// claimLabelFailures reports a NodeClaim whose labels contradict its own fields.
func claimLabelFailures(nc scheduling.NodeClaim) []Failure {
	var out []Failure
	for _, want := range []struct{ key, value string }{
		{corev1.LabelHostname, nc.Name},
		{corev1.LabelTopologyZone, nc.Zone},
		{corev1.LabelInstanceTypeStable, nc.InstanceType},
		{labelCapacityType, nc.CapacityType},
		{labelNodePool, nc.NodePool},
	} {
		if got, ok := nc.Labels[want.key]; !ok || got != want.value {
			out = append(out, Failure{Node: nc.Name, Plugin: NodeClaimLabels,
				Reason: fmt.Sprintf("label %s is %q, the NodeClaim says %q", want.key, got, want.value)})
		}
	}
	return out
}

// typeAttachLimits returns the CSI attach limits of the NodePool's instance type.
func typeAttachLimits(np *scheduling.NodePool, typeName string) map[string]int {
	if np == nil {
		return nil
	}
	for _, it := range np.InstanceTypes {
		if it != nil && it.Name == typeName {
			return it.VolumeAttachLimits
		}
	}
	return nil
}

func csiNode(name string, limits map[string]int) *storagev1.CSINode {
	n := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for driver, count := range limits {
		n.Spec.Drivers = append(n.Spec.Drivers, storagev1.CSINodeDriver{
			Name: driver, NodeID: name, Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To(int32(count))},
		})
	}
	return n
}

// namespaces returns the input's namespaces and, as the API server would have them, those the
// pods use, each labelled kubernetes.io/metadata.name.
func namespaces(in scheduling.Input, pods []*corev1.Pod) []runtime.Object {
	var out []runtime.Object
	have := map[string]bool{}
	for _, ns := range in.Namespaces {
		if ns == nil || have[ns.Name] {
			continue
		}
		ns = ns.DeepCopy()
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
		have[ns.Name] = true
		out = append(out, ns)
	}
	for _, p := range pods {
		if have[p.Namespace] {
			continue
		}
		have[p.Namespace] = true
		out = append(out, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: p.Namespace, Labels: map[string]string{corev1.LabelMetadataName: p.Namespace},
		}})
	}
	return out
}

// volumeObjects returns the input's claims, volumes and classes as the PV controller leaves
// them: a claim with spec.volumeName is fully bound, and its volume is bound to it.
func volumeObjects(in scheduling.Input) []runtime.Object {
	var out []runtime.Object
	boundTo := map[string]*corev1.PersistentVolumeClaim{}
	for _, c := range in.PersistentVolumeClaims {
		if c == nil {
			continue
		}
		c = c.DeepCopy()
		if c.Namespace == "" {
			c.Namespace = corev1.NamespaceDefault
		}
		if c.Spec.VolumeName != "" {
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[annBindCompleted] = "yes"
			c.Status.Phase = corev1.ClaimBound
			boundTo[c.Spec.VolumeName] = c
		}
		out = append(out, c)
	}
	for _, pv := range in.PersistentVolumes {
		if pv == nil {
			continue
		}
		pv = pv.DeepCopy()
		if c := boundTo[pv.Name]; c != nil {
			if pv.Spec.ClaimRef == nil {
				pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: c.Namespace, Name: c.Name, UID: c.UID}
			}
			pv.Status.Phase = corev1.VolumeBound
		}
		out = append(out, pv)
	}
	for _, sc := range in.StorageClasses {
		if sc != nil {
			out = append(out, sc.DeepCopy())
		}
	}
	return out
}
