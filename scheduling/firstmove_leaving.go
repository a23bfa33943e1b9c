package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/volume"
)

// leavingPods is what firstMoves reads of the pods that leave with a node (movesWithNode).
type leavingPods struct {
	// usable is set when every one is plain, as far as it converts (no topology term, host
	// port or claim: its queue key is its own), the dimensions cover them all and no name
	// comes twice.
	usable bool
	// queued are the conversions of those that convert, in queue order, as the solve has
	// each when its turn comes: plain, its preferences all in force (its memoClass and
	// orderKey the plain ones). They are copies of the pod memo's, made once per node, which
	// the walks only read (a plain pod never relaxes).
	queued []*podInfo
	// sizes, classes and requests are the queued pods' queueSize, memoClass and requests, side
	// by side in queue order: a walk reads them pod after pod, and a queued pod itself only on
	// a tie of sizes, for a new class, or where it stops or waits.
	sizes    [][2]int64
	classes  []string
	requests []resources.Vector
	// keys are all their names, and hashes their keyHash.
	keys   []string
	hashes []uint64
}

// leavingOf returns what firstMoves reads of the pods that leave with node i of the base
// (input position), memoised on the node's conversion.
func (c *Cluster) leavingOf(b *base, i int, policy PreferencePolicy) *leavingPods {
	slot := 0
	if policy == PreferencesIgnore {
		slot = 1
	}
	facts := b.nodes[b.rank[i]].nodeFacts
	if l := facts.leaving[slot].Load(); l != nil {
		return l
	}
	var pods []*corev1.Pod
	for _, p := range b.inputNodes[i].Pods {
		if p != nil && movesWithNode(p) {
			pods = append(pods, p)
		}
	}
	l := &leavingPods{usable: c.prep.dims.CoversPods(pods), keys: make([]string, len(pods)), hashes: make([]uint64, len(pods))}
	plain := make([]podInfo, 0, len(pods))
	// The copies' requests lie side by side too: a walk reads them pod after pod.
	requests := make([]int64, 0, len(pods)*c.prep.dims.Len())
	for k, conv := range c.prep.pods.convert(pods, c.prep.dims, policy) {
		p := conv.info
		l.keys[k], l.hashes[k] = p.key, keyHash(p.key)
		if topology.DeclaresTerms(pods[k]) || slices.Contains(l.keys[:k], p.key) {
			l.usable = false
		}
		if conv.err != nil {
			continue // not queued
		}
		if len(p.hostPorts) > 0 || p.plainOrderKey == "" || volume.UsesClaims(pods[k]) {
			l.usable = false
		}
		plain = append(plain, *p)
		cp := &plain[len(plain)-1]
		at := len(requests)
		requests = append(requests, p.requests...)
		cp.requests = requests[at:len(requests):len(requests)]
		cp.memoClass, cp.orderKey = cp.plainClass, cp.plainOrderKey
		cp.effective() // cached now, so that walks on several clusters at once only read it
		l.queued = append(l.queued, cp)
	}
	slices.SortFunc(l.queued, comparePlain)
	l.sizes = make([][2]int64, len(l.queued))
	l.classes = make([]string, len(l.queued))
	l.requests = make([]resources.Vector, len(l.queued))
	for k, p := range l.queued {
		l.sizes[k], l.classes[k], l.requests[k] = queueSize(p), p.memoClass, p.requests
	}
	facts.leaving[slot].Store(l)
	return l
}

// comparePlain is the queue's order of two plain pods.
func comparePlain(a, b *podInfo) int { return compareQueued(a, b, a.plainOrderKey, b.plainOrderKey) }

// keyHash is the FNV-1a hash of a pod's key.
func keyHash(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return h
}

// hashFilter is a Bloom filter of 4,096 bits over keyHash values, two bits a hash: has is
// false for a hash never added, and true for few others.
type hashFilter [64]uint64

func (f *hashFilter) add(h uint64) {
	f[h>>6&63] |= 1 << (h & 63)
	f[h>>38&63] |= 1 << (h >> 32 & 63)
}

func (f *hashFilter) has(h uint64) bool {
	return f[h>>6&63]&(1<<(h&63)) != 0 && f[h>>38&63]&(1<<(h>>32&63)) != 0
}
