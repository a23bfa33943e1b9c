package scheduling

import (
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/volume"
)

// podConversion is what newPodInfo derives from a pod alone, under the prepared cluster's
// dimensions and one preference policy: its key, requests, requirement alternatives,
// preferences and host ports, or why it is invalid. Input values are never modified, so a pod
// given as the same value to many simulations converts the same way each time; the volumes,
// which depend on each simulation's claims and bound pods, are not part of it.
type podConversion struct {
	info       *podInfo // never handed to a solve: solves get copies
	constraint Constraint
	err        error
}

// podMemo holds the pod conversions of a Cluster, its clones and the Clusters prepared from it
// with the same dimensions. They share it across goroutines (clones simulate concurrently),
// hence the lock; a conversion, once stored, is only read. What the memo holds never changes a
// plan: a conversion is the one newPodInfo would make again.
type podMemo struct {
	mu   sync.Mutex
	conv map[podMemoKey]*podConversion
}

func newPodMemo() *podMemo { return &podMemo{conv: map[podMemoKey]*podConversion{}} }

// lookup returns the conversions the memo holds of pods (nil for the others), under one lock.
func (m *podMemo) lookup(pods []*corev1.Pod, ignorePreferences bool) []*podConversion {
	out := make([]*podConversion, len(pods))
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, pod := range pods {
		out[i] = m.conv[podMemoKey{pod: pod, ignorePreferences: ignorePreferences}]
	}
	return out
}

func (m *podMemo) put(key podMemoKey, conv *podConversion) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conv[key] = conv
}

// keeping returns the memo for a cluster prepared from in, continuing prev's: a cluster
// prepared again and again from a slowly changing one converts only its new pods. prev itself
// is shared while it holds at most twice as many conversions as in has pods; past that, only
// the conversions of in's pods (pending or bound to a node) are kept, so that the memo does
// not grow with every pod that ever left.
func (prev *podMemo) keeping(in Input) *podMemo {
	present := len(in.Pods)
	for _, en := range in.ExistingNodes {
		if en != nil {
			present += len(en.Pods)
		}
	}
	prev.mu.Lock()
	defer prev.mu.Unlock()
	if len(prev.conv) <= 2*present {
		return prev
	}
	next := newPodMemo()
	keep := func(pods []*corev1.Pod) {
		for _, pod := range pods {
			for _, ignore := range []bool{false, true} {
				key := podMemoKey{pod: pod, ignorePreferences: ignore}
				if conv, ok := prev.conv[key]; ok {
					next.conv[key] = conv
				}
			}
		}
	}
	keep(in.Pods)
	for _, en := range in.ExistingNodes {
		if en != nil {
			keep(en.Pods)
		}
	}
	return next
}

// podMemoKey names a pod's conversion: the pod value and whether its preferences are ignored
// (the preference policy is Respect or Ignore by the time pods are converted).
type podMemoKey struct {
	pod               *corev1.Pod
	ignorePreferences bool
}

// podConverter makes the podInfos of one solve, from the prepared cluster's memo of pod
// conversions, in one allocation.
type podConverter struct {
	prep   *prepared
	vols   *volume.Index
	policy PreferencePolicy
	pods   []*corev1.Pod
	// memo holds the memo's conversion of each of pods, or nil.
	memo []*podConversion
	// infos holds the solve's podInfos, one per input pod.
	infos []podInfo
}

// podConverter returns the converter for a solve of pods, the solve's input pods.
func (prep *prepared) podConverter(pods []*corev1.Pod, vols *volume.Index, policy PreferencePolicy) *podConverter {
	return &podConverter{prep: prep, vols: vols, policy: policy, pods: pods,
		memo: prep.pods.lookup(pods, policy == PreferencesIgnore), infos: make([]podInfo, 0, len(pods))}
}

// convert is newPodInfo(pod, index, dims, vols, policy) for pod = pods[index], taking the
// pod-only part from the memo: every solve gets a podInfo of its own, equal to the one
// newPodInfo would make, whose shared parts (requests, alternatives, preferences, host ports)
// solves only read.
func (c *podConverter) convert(pod *corev1.Pod, index int) (*podInfo, Constraint, error) {
	var conv *podConversion
	if index < len(c.pods) && c.pods[index] == pod {
		conv = c.memo[index]
	}
	if conv == nil {
		// Without a volume index newPodInfo converts what depends on the pod alone.
		p, constraint, err := newPodInfo(pod, index, c.prep.dims, nil, c.policy)
		if err == nil {
			p.setPlainKeys()
		}
		conv = &podConversion{info: p, constraint: constraint, err: err}
		c.prep.pods.put(podMemoKey{pod: pod, ignorePreferences: c.policy == PreferencesIgnore}, conv)
	}
	var p *podInfo
	if len(c.infos) < cap(c.infos) {
		c.infos = append(c.infos, *conv.info)
		p = &c.infos[len(c.infos)-1]
	} else {
		p = new(podInfo) // more pods than announced: the slab never moves
		*p = *conv.info
	}
	p.index = index
	if conv.err != nil {
		return p, conv.constraint, conv.err
	}
	if c.vols != nil {
		pv, err := c.vols.ForPod(pod)
		if err != nil {
			return p, ConstraintVolume, err
		}
		p.volumes = pv
	}
	return p, "", nil
}
