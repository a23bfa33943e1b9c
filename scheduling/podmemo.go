package scheduling

import (
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/internal/resources"
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
	mu sync.Mutex
	// conv holds the conversions by pod, one map per policy (Respect, Ignore): a pointer key
	// is hashed quicker than a pointer and a flag, and a what-if looks up each of its pods.
	conv [2]map[*corev1.Pod]*podConversion
	// running holds what each running pod a node conversion met uses (see newExistingNode).
	running map[*corev1.Pod]resources.Vector
	// keys holds one copy of each class and order key the conversions carry, which they all
	// share: pods of one workload mostly tie on their requests, and the queue then compares
	// their keys, which a comparison of one string with itself settles at once.
	keys map[string]string
}

func newPodMemo() *podMemo {
	return &podMemo{conv: [2]map[*corev1.Pod]*podConversion{{}, {}}, running: map[*corev1.Pod]resources.Vector{}, keys: map[string]string{}}
}

// get and put are runningRequests, shared by every Cluster the memo serves: a node converts
// again whenever its pods change, and its other pods' requests stay what they were.
func (m *podMemo) get(pod *corev1.Pod) (resources.Vector, bool) {
	m.mu.Lock()
	v, ok := m.running[pod]
	m.mu.Unlock()
	return v, ok
}

func (m *podMemo) put(pod *corev1.Pod, v resources.Vector) {
	m.mu.Lock()
	m.running[pod] = v
	m.mu.Unlock()
}

// shared returns the memo's copy of key, storing key when it has none. The memo is locked.
func (m *podMemo) shared(key string) string {
	if k, ok := m.keys[key]; ok {
		return k
	}
	m.keys[key] = key
	return key
}

// size is how many conversions the memo holds.
func (m *podMemo) size() int { return len(m.conv[0]) + len(m.conv[1]) }

// policySlot is the map of conv that holds conversions under policy.
func policySlot(policy PreferencePolicy) int {
	if policy == PreferencesIgnore {
		return 1
	}
	return 0
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
	if prev.size() <= 2*present && len(prev.running) <= 2*present {
		return prev
	}
	next := newPodMemo()
	keep := func(pods []*corev1.Pod) {
		for _, pod := range pods {
			if v, ok := prev.running[pod]; ok {
				next.running[pod] = v
			}
			for slot := range prev.conv {
				if conv, ok := prev.conv[slot][pod]; ok {
					next.conv[slot][pod] = conv
					if p := conv.info; conv.err == nil {
						next.shared(p.plainClass)
						next.shared(p.plainOrderKey)
					}
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

// convert returns the conversions of pods under policy, making those the memo lacks (nil
// pods aside) on every core and storing them; the memo is locked twice, not once a pod.
func (m *podMemo) convert(pods []*corev1.Pod, dims *resources.Dims, policy PreferencePolicy) []*podConversion {
	conv := m.conv[policySlot(policy)]
	convs := make([]*podConversion, len(pods))
	var missing []int
	m.mu.Lock()
	for i, pod := range pods {
		if convs[i] = conv[pod]; convs[i] == nil && pod != nil {
			missing = append(missing, i)
		}
	}
	m.mu.Unlock()
	if len(missing) == 0 {
		return convs
	}
	parallel.EachMin(len(missing), convertPerWorker, func(k int) {
		i := missing[k]
		// Without a volume index newPodInfo converts what depends on the pod alone.
		p, constraint, err := newPodInfo(pods[i], 0, dims, nil, policy)
		if err == nil {
			p.setPlainKeys()
		}
		convs[i] = &podConversion{info: p, constraint: constraint, err: err}
	})
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, i := range missing {
		if p := convs[i].info; convs[i].err == nil {
			p.plainClass, p.plainOrderKey = m.shared(p.plainClass), m.shared(p.plainOrderKey)
		}
		conv[pods[i]] = convs[i]
	}
	return convs
}

// convertPerWorker is how many pods newPodInfo converts (a few microseconds each) for a
// goroutine to be worth waking: the few new pods of a replay step are converted on the
// caller.
const convertPerWorker = 32

// cheapPerWorker is how many calls of a few hundred nanoseconds (copying a pod's conversion,
// reading its memoised keys) a goroutine is worth: what-ifs of a few dozen pods run on the
// caller alone.
const cheapPerWorker = 256

// convertPods is newPodInfo(pods[i], i, dims, vols, policy) for every pod, on every core,
// taking the pod-only part from the memo: every solve gets podInfos of its own, equal to those
// newPodInfo would make, whose shared parts (requests, alternatives, preferences, host ports)
// solves only read. A nil pod is an error. The podInfos live in one array, and the
// conversions it returns in another, spare's when they are large enough (see solveSpares),
// which then holds them.
func (prep *prepared) convertPods(pods []*corev1.Pod, vols *volume.Index, policy PreferencePolicy, spare *solveSpares) ([]podConversion, error) {
	if i := slices.Index(pods, nil); i >= 0 {
		return nil, fmt.Errorf("pods[%d] is nil", i)
	}
	convs := prep.pods.convert(pods, prep.dims, policy)
	if cap(spare.infos) < len(pods) {
		spare.infos = make([]podInfo, len(pods))
	}
	if cap(spare.convs) < len(pods) {
		spare.convs = make([]podConversion, len(pods))
	}
	out, infos := spare.convs[:len(pods)], spare.infos[:len(pods)]
	parallel.EachMin(len(pods), cheapPerWorker, func(i int) {
		p := &infos[i]
		*p = *convs[i].info
		p.index = i
		out[i] = podConversion{info: p, constraint: convs[i].constraint, err: convs[i].err}
		if out[i].err == nil && vols != nil {
			if p.volumes, out[i].err = vols.ForPod(pods[i]); out[i].err != nil {
				out[i].constraint = ConstraintVolume
			}
		}
	})
	return out, nil
}
