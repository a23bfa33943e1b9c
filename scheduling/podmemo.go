package scheduling

import (
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/topology"
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

// put stores the conversions of pods that are not nil, under one lock.
func (m *podMemo) put(pods []*corev1.Pod, convs []*podConversion, ignorePreferences bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, conv := range convs {
		if conv != nil {
			m.conv[podMemoKey{pod: pods[i], ignorePreferences: ignorePreferences}] = conv
		}
	}
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

// convertAsync converts pods (nil ones aside) into the memo on other goroutines, on every
// core; the function it returns waits until they are in.
func (m *podMemo) convertAsync(pods []*corev1.Pod, dims *resources.Dims, policy PreferencePolicy) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		convs := make([]*podConversion, len(pods))
		parallel.Each(len(pods), func(i int) {
			if pods[i] != nil {
				convs[i] = convertPod(pods[i], dims, policy)
			}
		})
		m.put(pods, convs, policy == PreferencesIgnore)
	}()
	return func() { <-done }
}

// convertPod is the conversion of a pod alone: newPodInfo without a volume index, and what
// the pod declares to topology.
func convertPod(pod *corev1.Pod, dims *resources.Dims, policy PreferencePolicy) *podConversion {
	p, constraint, err := newPodInfo(pod, 0, dims, nil, policy)
	if err == nil {
		p.declared = topology.Declare(pod)
	}
	return &podConversion{info: p, constraint: constraint, err: err}
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
}

// podConverter returns the converter for a solve of pods, the solve's input pods.
func (prep *prepared) podConverter(pods []*corev1.Pod, vols *volume.Index, policy PreferencePolicy) *podConverter {
	return &podConverter{prep: prep, vols: vols, policy: policy, pods: pods, memo: prep.pods.lookup(pods, policy == PreferencesIgnore)}
}

// convertAll is newPodInfo(pods[i], i, dims, vols, policy) for every pod, on every core, each
// result in its own slot, taking the pod-only part from the memo: every solve gets podInfos
// of its own, equal to those newPodInfo would make, whose shared parts (requests,
// alternatives, preferences, host ports) solves only read. A nil pod is an error.
func (c *podConverter) convertAll() ([]podConversion, error) {
	if i := slices.Index(c.pods, nil); i >= 0 {
		return nil, fmt.Errorf("pods[%d] is nil", i)
	}
	out, infos, fresh := make([]podConversion, len(c.pods)), make([]podInfo, len(c.pods)), make([]*podConversion, len(c.pods))
	parallel.Each(len(c.pods), func(i int) {
		pod, conv := c.pods[i], c.memo[i]
		if conv == nil {
			conv = convertPod(pod, c.prep.dims, c.policy)
			fresh[i] = conv
		}
		p := &infos[i]
		*p = *conv.info
		p.index = i
		out[i] = podConversion{info: p, constraint: conv.constraint, err: conv.err}
		if conv.err == nil && c.vols != nil {
			if p.volumes, out[i].err = c.vols.ForPod(pod); out[i].err != nil {
				out[i].constraint = ConstraintVolume
			}
		}
	})
	c.prep.pods.put(c.pods, fresh, c.policy == PreferencesIgnore)
	return out, nil
}
