package scheduling

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// The queue's order decides the plan, so it is a function of what the pods ask for, not of
// what they are called: two snapshots of the same workloads, whose pods got other generated
// names, give the same plan up to names. Names only order pods alike in every other respect,
// where the order changes which of them lands where and nothing else.

// sortPods orders the queue: largest first (cpu, then memory), then by content (orderKey,
// worked out on every core), then by namespace/name.
func sortPods(pods []*podInfo) {
	parallel.EachMin(len(pods), cheapPerWorker, func(i int) {
		switch p := pods[i]; {
		case p.orderKey != "":
		case p.memoClass != "" && p.memoClass == p.plainClass && p.plainOrderKey != "":
			p.orderKey = p.plainOrderKey // a plain pod's key reads the pod and its class alone
		default:
			p.orderKey = podOrderKey(p)
		}
	})
	// Input positions settle what compareQueued leaves equal (pods of one name, which the
	// solve refuses anyway): the order is the stable sort's, made by the quicker unstable one.
	slices.SortFunc(pods, func(a, b *podInfo) int {
		if c := compareQueued(a, b, a.orderKey, b.orderKey); c != 0 {
			return c
		}
		return cmp.Compare(a.index, b.index)
	})
}

// compareQueued is the queue's order of a and b, whose order keys are aKey and bKey.
func compareQueued(a, b *podInfo, aKey, bKey string) int {
	if c := compareSizes(queueSize(a), queueSize(b)); c != 0 {
		return c
	}
	return compareTied(a, b, aKey, bKey)
}

// compareTied is compareQueued of two pods whose cpu and memory requests are the same, which
// a caller that has them side by side knows without reading the pods.
func compareTied(a, b *podInfo, aKey, bKey string) int {
	if c := strings.Compare(aKey, bKey); c != 0 {
		return c
	}
	return strings.Compare(a.key, b.key)
}

// queueSize is a pod's cpu and memory requests, which the queue orders by first
// (compareSizes).
func queueSize(p *podInfo) [2]int64 {
	return [2]int64{p.requests[resources.CPU], p.requests[resources.Memory]}
}

// compareSizes orders two queueSizes by cpu, then memory, largest first: negative when a
// comes first, 0 when they tie.
func compareSizes(a, b [2]int64) int {
	if c := cmp.Compare(b[0], a[0]); c != 0 {
		return c
	}
	return cmp.Compare(b[1], a[1])
}

// podOrderKey describes what places a pod, without its name: its requests, its topology rules
// and the groups counting it (so its labels as far as any rule reads them), node selection,
// preferences, tolerations, host ports, volume claims, namespace and controlling owner. A
// plain pod of the default namespace without an owner uses its memoClass, which says all of
// that already; any other key is built in one allocation where it can be.
func podOrderKey(p *podInfo) string {
	owner := metav1.GetControllerOfNoCopy(p.pod)
	ns := p.pod.Namespace
	if p.memoClass != "" && owner == nil && (ns == "" || ns == corev1.NamespaceDefault) {
		return p.memoClass
	}
	size := len(p.requestsKey) + len(p.memoClass) + len(ns) + 16
	for _, t := range p.topo.Terms {
		size += len(t.Group.ID()) + 24
	}
	for _, g := range p.topo.Matched {
		size += len(g.ID()) + 10
	}
	if owner != nil {
		size += len(owner.Kind) + len(owner.Name) + 8
	}
	size += 64 * (len(p.alternatives) + len(p.preferences) + len(p.pod.Spec.Tolerations))
	var b strings.Builder
	b.Grow(size)
	var num [24]byte
	if p.memoClass != "" {
		b.WriteString(p.memoClass) // requests, node selection, preferences, tolerations
	} else {
		b.WriteString(p.requestsKey)
		for _, t := range p.topo.Terms {
			b.WriteString("|term ")
			b.WriteString(t.Group.ID())
			b.Write(strconv.AppendBool(num[:0], t.Required))
			b.Write(strconv.AppendInt(append(num[:0], ' '), int64(t.Weight), 10))
		}
		for _, g := range p.topo.Matched {
			b.WriteString("|counted ")
			b.WriteString(g.ID())
		}
		for _, alt := range p.alternatives {
			if len(alt) > 0 {
				b.WriteString("|node ")
				writeRequirements(&b, alt)
			}
		}
		for _, pref := range p.preferences {
			b.WriteString("|pref ")
			b.Write(strconv.AppendInt(num[:0], int64(pref.Weight), 10))
			writeRequirements(&b, pref.Requirements)
		}
		for _, t := range p.pod.Spec.Tolerations {
			b.WriteString("|tolerates ")
			for _, part := range []string{t.Key, string(t.Operator), t.Value, string(t.Effect)} {
				b.WriteString(part)
				b.WriteByte(' ')
			}
			if t.TolerationSeconds != nil {
				b.Write(strconv.AppendInt(num[:0], *t.TolerationSeconds, 10))
			}
		}
		if len(p.hostPorts) > 0 {
			b.WriteString(fmt.Sprintf("|ports %v", p.hostPorts))
		}
		for _, c := range p.volumes.Claims {
			b.WriteString("|claim ")
			b.WriteString(c.Key)
		}
	}
	b.WriteString("|ns ")
	b.WriteString(ns)
	if owner != nil {
		b.WriteString("|owner ")
		b.WriteString(owner.Kind)
		b.WriteString("/")
		b.WriteString(owner.Name)
	}
	return b.String()
}

// writeRequirements renders rs into b, keys sorted, without allocating in the common case.
func writeRequirements(b *strings.Builder, rs requirements.Requirements) {
	var buf [8]string
	keys := buf[:0]
	for k := range rs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r := rs[k]
		if r.IsComplement() || r.MinValues != nil {
			b.WriteString(r.String()) // bounds and minValues: rare, rendered in full
		} else {
			b.WriteString(k)
			b.WriteString(" In")
			for _, v := range r.Values() {
				b.WriteByte(' ')
				b.WriteString(v)
			}
		}
		b.WriteString("; ")
	}
}
