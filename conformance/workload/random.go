package workload

import (
	"fmt"
	"math/rand/v2"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Names the random clusters use.
const (
	// TeamLabel is a NodePool template label pods select with a node selector.
	TeamLabel = "team"
	// GPUTaint keeps pods that do not tolerate it off the gpu NodePool's nodes.
	GPUTaint = "dedicated"
	// StartupTaint is the default NodePool's startup taint.
	StartupTaint = "example.com/agent-not-ready"
	// ZonalClass is a WaitForFirstConsumer class whose volumes exist in the first two zones.
	ZonalClass = "zonal"
	// Driver provisions ZonalClass volumes; the bound volumes are its too.
	Driver = "ebs.csi.aws.com"
)

var (
	half                  = resource.MustParse("500m")
	gpuToleration         = corev1.Toleration{Key: GPUTaint, Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	volumeSize            = resource.MustParse("10Gi")
	waitForFirstConsumer  = storagev1.VolumeBindingWaitForFirstConsumer
	existingTypesFrom, to = 3, 16 // existing nodes are fake-it-3 … fake-it-15 (4–16 vCPU)
)

// RandomCluster returns a cluster with pods pending pods, deterministic from r: two NodePools
// (default, with a startup taint and template label team=core; gpu, tainted dedicated=gpu and
// labelled team=ml, on-demand only) over FakeCatalog(64); two to six existing nodes of either
// pool, one of them possibly still starting (not ready, startup taint, DaemonSet pods not yet
// bound), each running up to four pods labelled with a random value of Label (some with a host
// port, some with required hostname anti-affinity) and the DaemonSet pods it should run; two
// DaemonSets (a logging agent everywhere, itself labelled with a random value of Label, and a
// gpu agent with a host port on team=ml nodes), both in kube-system. The pending pods are diverse pods (see
// DiversePod) of random groups, some of them given a zone node selector, the gpu toleration
// and team=ml selector, host port 8080, a claim (bound to a zonal volume, or unbound of the
// WaitForFirstConsumer class ZonalClass whose allowed topologies are the first two zones), or
// a size=large node selector.
func RandomCluster(r *rand.Rand, pods int) scheduling.Input {
	catalog := FakeCatalog(64)
	in := scheduling.Input{
		NodePools: []*scheduling.NodePool{{
			Name:          "default",
			Labels:        map[string]string{TeamLabel: "core"},
			StartupTaints: []corev1.Taint{{Key: StartupTaint, Effect: corev1.TaintEffectNoSchedule}},
			InstanceTypes: catalog,
		}, {
			Name:   "gpu",
			Labels: map[string]string{TeamLabel: "ml"},
			Taints: []corev1.Taint{{Key: GPUTaint, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}},
			Requirements: []scheduling.NodeSelectorRequirementWithMinValues{{NodeSelectorRequirement: corev1.NodeSelectorRequirement{
				Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"},
			}}},
			InstanceTypes: catalog,
		}},
		DaemonSets: daemonSets(r),
		StorageClasses: []*storagev1.StorageClass{{
			ObjectMeta:        metav1.ObjectMeta{Name: ZonalClass},
			Provisioner:       Driver,
			VolumeBindingMode: &waitForFirstConsumer,
			AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{
				Key: corev1.LabelTopologyZone, Values: Zones[:2],
			}}}},
		}},
	}

	starting := r.IntN(2) == 0
	for i := range 2 + r.IntN(5) {
		pool := in.NodePools[r.IntN(len(in.NodePools))]
		en := existingNode(r, fmt.Sprintf("existing-%d", i), pool, catalog[existingTypesFrom+r.IntN(to-existingTypesFrom)], !(starting && i == 0))
		for j := range r.IntN(5) {
			en.Pods = append(en.Pods, runningPod(r, fmt.Sprintf("running-%d-%d", i, j), en.Node.Name))
		}
		if en.Initialized {
			for _, ds := range in.DaemonSets {
				if p := daemonPodOn(ds, en.Node); p != nil {
					en.Pods = append(en.Pods, p)
				}
			}
		}
		in.ExistingNodes = append(in.ExistingNodes, en)
	}

	for i := range pods {
		p := DiversePod(r, Groups[r.IntN(len(Groups))], fmt.Sprintf("pod-%d", i))
		switch r.IntN(10) {
		case 0:
			p.Spec.NodeSelector = map[string]string{corev1.LabelTopologyZone: Zones[r.IntN(len(Zones))]}
		case 1:
			p.Spec.NodeSelector = map[string]string{TeamLabel: "ml"}
			p.Spec.Tolerations = []corev1.Toleration{gpuToleration}
		case 2:
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080, Protocol: corev1.ProtocolTCP}}
		case 3:
			claim := "data-" + p.Name
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
			}}}
			pvc, pv := volume(r, claim)
			in.PersistentVolumeClaims = append(in.PersistentVolumeClaims, pvc)
			if pv != nil {
				in.PersistentVolumes = append(in.PersistentVolumes, pv)
			}
		case 4:
			p.Spec.NodeSelector = map[string]string{"size": "large"}
		}
		in.Pods = append(in.Pods, p)
	}

	return in
}

// RandomClusterWithMesh is RandomCluster plus meshDaemonSet, drawn from r after the rest, so
// the cluster is otherwise the one RandomCluster gives; initialized existing nodes run its pod.
func RandomClusterWithMesh(r *rand.Rand, pods int) scheduling.Input {
	in := RandomCluster(r, pods)
	mesh := meshDaemonSet(r)
	in.DaemonSets = append(in.DaemonSets, mesh)
	for _, en := range in.ExistingNodes {
		if en.Initialized {
			if p := daemonPodOn(mesh, en.Node); p != nil {
				en.Pods = append(en.Pods, p)
			}
		}
	}
	return in
}

// meshDaemonSet is a DaemonSet in the pending pods' own namespace, labelled with a random
// value of Label, so that the spread and pod-affinity rules selecting that value count its pod
// on every node.
func meshDaemonSet(r *rand.Rand) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "mesh", Namespace: corev1.NamespaceDefault, UID: "ds-mesh"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "mesh", Label: randomValue(r)}},
			Spec: corev1.PodSpec{
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers: []corev1.Container{{Name: "proxy", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi"),
				}}}},
			},
		}},
	}
}

// existingNode is a node of pool's making, as Karpenter labels it.
func existingNode(r *rand.Rand, name string, pool *scheduling.NodePool, it *instancetype.InstanceType, initialized bool) *scheduling.ExistingNode {
	zone := Zones[r.IntN(len(Zones))]
	labels := map[string]string{
		corev1.LabelHostname:           name,
		corev1.LabelTopologyZone:       zone,
		corev1.LabelTopologyRegion:     zone[:len(zone)-1],
		corev1.LabelInstanceTypeStable: it.Name,
		"karpenter.sh/capacity-type":   "on-demand",
		"karpenter.sh/nodepool":        pool.Name,
	}
	for k, v := range it.Labels {
		labels[k] = v
	}
	for k, v := range pool.Labels {
		labels[k] = v
	}
	taints := append([]corev1.Taint(nil), pool.Taints...)
	if !initialized {
		taints = append(taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
		taints = append(taints, pool.StartupTaints...)
	}
	return &scheduling.ExistingNode{
		Node: &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec:       corev1.NodeSpec{Taints: taints},
			Status:     corev1.NodeStatus{Capacity: it.Capacity, Allocatable: it.Allocatable()},
		},
		NodePool:           pool.Name,
		Initialized:        initialized,
		VolumeAttachLimits: map[string]int{Driver: 4},
	}
}

// runningPod is a small pod bound to node, sometimes with a host port or anti-affinity.
func runningPod(r *rand.Rand, name, node string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceDefault, Labels: map[string]string{Label: randomValue(r), "group": "running"}},
		Spec: corev1.PodSpec{
			NodeName: node,
			Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi"),
			}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	switch r.IntN(4) {
	case 0:
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080, Protocol: corev1.ProtocolTCP}}
	case 1:
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{Label: randomValue(r)}},
				TopologyKey:   corev1.LabelHostname,
			}},
		}}
	}
	return p
}

func daemonSets(r *rand.Rand) []*appsv1.DaemonSet {
	ds := func(name string, labels map[string]string, spec corev1.PodSpec) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", UID: types.UID("ds-" + name)},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec,
			}},
		}
	}
	return []*appsv1.DaemonSet{
		ds("logging", map[string]string{"app": "logging", Label: randomValue(r)}, corev1.PodSpec{
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{Name: "agent", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
			}}}},
		}),
		ds("gpu-agent", map[string]string{"app": "gpu-agent"}, corev1.PodSpec{
			NodeSelector: map[string]string{TeamLabel: "ml"},
			Tolerations:  []corev1.Toleration{gpuToleration},
			Containers: []corev1.Container{{
				Name:      "agent",
				Ports:     []corev1.ContainerPort{{ContainerPort: 9400, HostPort: 9400, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: half}},
			}},
		}),
	}
}

// daemonPodOn is the pod the DaemonSet runs on an existing node, bound and owned, or nil when
// its node selector does not match (both DaemonSets tolerate the pools' taints).
func daemonPodOn(ds *appsv1.DaemonSet, node *corev1.Node) *corev1.Pod {
	for k, v := range ds.Spec.Template.Spec.NodeSelector {
		if node.Labels[k] != v {
			return nil
		}
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + node.Name, Namespace: ds.Namespace, Labels: ds.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: ptr.To(true)}},
		},
		Spec:   *ds.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	p.Spec.NodeName = node.Name
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		if c.Resources.Requests == nil && c.Resources.Limits != nil {
			c.Resources.Requests = c.Resources.Limits.DeepCopy()
		}
	}
	return p
}

// volume returns a claim: half the time bound to a volume in a random zone (node affinity and
// zone label, as the EBS CSI driver makes them), else unbound of ZonalClass.
func volume(r *rand.Rand, name string) (*corev1.PersistentVolumeClaim, *corev1.PersistentVolume) {
	class := ZonalClass
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceDefault},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &class,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: volumeSize}},
		},
	}
	if r.IntN(2) == 0 {
		return pvc, nil
	}
	zone := Zones[r.IntN(len(Zones))]
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-" + name, Labels: map[string]string{corev1.LabelTopologyZone: zone}},
		Spec: corev1.PersistentVolumeSpec{
			AccessModes:      pvc.Spec.AccessModes,
			Capacity:         corev1.ResourceList{corev1.ResourceStorage: volumeSize},
			StorageClassName: class,
			ClaimRef:         &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: pvc.Namespace, Name: name},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: Driver, VolumeHandle: "vol-" + name,
			}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}},
			}}}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	}
	pvc.Spec.VolumeName = pv.Name
	return pvc, pv
}
