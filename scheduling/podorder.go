package scheduling

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// The queue's order decides the plan, so it is a function of what the pods ask for, not of
// what they are called: two snapshots of the same workloads, whose pods got other generated
// names, give the same plan up to names. Names only order pods alike in every other respect,
// where the order changes which of them lands where and nothing else.

// sortPods orders the queue: largest first (cpu, then memory), then by content (orderKey),
// then by namespace/name.
func sortPods(pods []*podInfo) {
	for _, p := range pods {
		if p.orderKey == "" {
			p.orderKey = podOrderKey(p)
		}
	}
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if a.requests[resources.CPU] != b.requests[resources.CPU] {
			return a.requests[resources.CPU] > b.requests[resources.CPU]
		}
		if a.requests[resources.Memory] != b.requests[resources.Memory] {
			return a.requests[resources.Memory] > b.requests[resources.Memory]
		}
		if a.orderKey != b.orderKey {
			return a.orderKey < b.orderKey
		}
		return a.key < b.key
	})
}

// podOrderKey describes what places a pod, without its name: its requests, its topology rules
// and the groups counting it (so its labels as far as any rule reads them), node selection,
// preferences, tolerations, host ports, volume claims, namespace and controlling owner.
func podOrderKey(p *podInfo) string {
	var b strings.Builder
	b.WriteString(p.requestsKey)
	for _, t := range p.terms {
		fmt.Fprintf(&b, "|term %s %t %d", t.Group.ID(), t.Required, t.Weight)
	}
	for _, g := range p.matched {
		b.WriteString("|counted ")
		b.WriteString(g.ID())
	}
	for _, alt := range p.alternatives {
		b.WriteString("|node ")
		b.WriteString(alt.String())
	}
	for _, pref := range p.preferences {
		fmt.Fprintf(&b, "|pref %d %s", pref.Weight, pref.Requirements.String())
	}
	fmt.Fprintf(&b, "|%v|%v", p.pod.Spec.Tolerations, p.hostPorts)
	for _, c := range p.volumes.Claims {
		b.WriteString("|claim ")
		b.WriteString(c.Key)
	}
	b.WriteString("|ns ")
	b.WriteString(p.pod.Namespace)
	for _, ref := range p.pod.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			fmt.Fprintf(&b, "|owner %s/%s", ref.Kind, ref.Name)
		}
	}
	return b.String()
}
