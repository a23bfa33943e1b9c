package disruption

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/topology"
)

// Pods that stay are constraints too. A pod with a required pod affinity runs on because a
// matching pod ran in its domain when it was scheduled (requiredDuringSchedulingIgnored-
// DuringExecution); a command that moves the last such partner out of the domain leaves a
// state kube-scheduler would not admit again, so the next rollout or eviction of that pod
// could only follow the partners. Karpenter checks only the pods it moves; Decide also keeps
// every staying pod valid. (The inverse, a moved pod landing where a staying pod's required
// anti-affinity forbids it, is the scheduler's own check of the moved pod.)

// affinitySet is the pods that declare the same required pod-affinity terms, and the bound
// pods those terms count.
type affinitySet struct {
	// groups are the required affinity terms; a pod counts when it matches all of them, as
	// kube-scheduler's InterPodAffinity counts it.
	groups  []*topology.Group
	members []affinityMember
	// partners are the bound pods matching every term, found on first use (simulations run
	// in parallel, hence the Once).
	once     sync.Once
	partners []affinityPartner
}

type affinityMember struct {
	pod    *corev1.Pod
	key    string
	node   string
	labels map[string]string
	// from is the running node the pod is on, nil once an earlier command of the decision
	// moved it (it then stays where it went: such nodes are not disrupted again).
	from *nodeState
	// self is set when the pod matches its own terms (it then counts in its own domain).
	self bool
}

type affinityPartner struct {
	key  string
	node *nodeState
}

// settledPod is a pod an earlier command of the decision moved, where it runs now.
type settledPod struct {
	pod    *corev1.Pod
	node   string
	labels map[string]string
}

// stayingRules holds the affinity sets of a decision and what its commands moved so far.
type stayingRules struct {
	sets      []*affinitySet
	memberOf  map[string]*affinitySet
	movedAway map[string]bool
	settled   []settledPod
}

// newStayingRules groups the bound pods with required pod affinity by their terms. A pod
// whose terms cannot be read is left to the scheduler, which reports them when it moves it.
func newStayingRules(nodes []*nodeState, namespaces []*corev1.Namespace) *stayingRules {
	r := &stayingRules{movedAway: map[string]bool{}, memberOf: map[string]*affinitySet{}}
	tracker := topology.NewTracker(namespaces)
	bySignature := map[string]*affinitySet{}
	for _, n := range nodes {
		if n.removed {
			continue
		}
		for _, p := range n.affine {
			terms, err := tracker.Terms(p)
			if err != nil {
				continue
			}
			var groups []*topology.Group
			var ids []string
			for _, t := range terms {
				if t.Required && t.Group.Kind == topology.Affinity {
					groups = append(groups, t.Group)
					ids = append(ids, t.Group.ID())
				}
			}
			sig := strings.Join(ids, "\x00")
			s := bySignature[sig]
			if s == nil {
				s = &affinitySet{groups: groups}
				bySignature[sig] = s
				r.sets = append(r.sets, s)
			}
			m := affinityMember{pod: p, key: podKey(p), node: n.name, labels: n.in.Node.Labels, from: n, self: s.matches(p)}
			s.members = append(s.members, m)
			r.memberOf[m.key] = s
		}
	}
	return r
}

func (s *affinitySet) matches(p *corev1.Pod) bool {
	for _, g := range s.groups {
		if !g.Matches(p) {
			return false
		}
	}
	return true
}

func (s *affinitySet) findPartners(nodes []*nodeState) {
	s.once.Do(func() {
		for _, n := range nodes {
			if n.in.Disrupting {
				continue
			}
			for _, p := range n.pods {
				if s.matches(p) {
					s.partners = append(s.partners, affinityPartner{key: podKey(p), node: n})
				}
			}
		}
	})
}

// domainOf is a node's value for a topology key; a node without a hostname label is known by
// its name, as kubelet labels it.
func domainOf(labels map[string]string, node, key string) (string, bool) {
	v, ok := labels[key]
	if !ok && key == corev1.LabelHostname {
		return node, true
	}
	return v, ok
}

// affinityCounts counts, per topology key and domain, the pods matching every term of a set.
type affinityCounts struct {
	byDomain map[[2]string]int
	total    int
}

func (c *affinityCounts) add(s *affinitySet, labels map[string]string, node string, delta int) {
	c.total += delta
	for _, g := range s.groups {
		if v, ok := domainOf(labels, node, g.Key); ok {
			c.byDomain[[2]string{g.Key, v}] += delta
		}
	}
}

// satisfied applies kube-scheduler's InterPodAffinity filter to a member, itself left out:
// every term needs a matching pod in the member's domain, unless no pod anywhere matches and
// the member matches its own terms (the first pod of a group with affinity to itself).
func (c *affinityCounts) satisfied(s *affinitySet, m affinityMember) bool {
	self := 0
	if m.self {
		self = 1
	}
	for _, g := range s.groups {
		v, ok := domainOf(m.labels, m.node, g.Key)
		if !ok {
			return false
		}
		if c.byDomain[[2]string{g.Key, v}]-self <= 0 {
			return m.self && c.total-self == 0
		}
	}
	return true
}

// strandedAffinity says which staying pod an outcome leaves without the partners its
// required pod affinity needs ("" when none does). A pod already without them before the
// command is not the command's doing and does not block it.
func (d *decider) strandedAffinity(o *outcome) string {
	r := d.staying
	if len(r.sets) == 0 {
		return ""
	}
	leaving := map[*nodeState]bool{}
	for _, c := range o.cands {
		leaving[c] = true
	}
	for _, s := range r.sets {
		var moving []*corev1.Pod
		for _, c := range o.cands {
			for _, p := range c.movable {
				if s.matches(p) {
					moving = append(moving, p)
				}
			}
		}
		if len(moving) == 0 {
			continue
		}
		s.findPartners(d.nodes)
		before := affinityCounts{byDomain: map[[2]string]int{}}
		after := affinityCounts{byDomain: map[[2]string]int{}}
		for _, pt := range s.partners {
			if pt.node.removed || r.movedAway[pt.key] {
				continue
			}
			before.add(s, pt.node.in.Node.Labels, pt.node.name, 1)
			if !leaving[pt.node] {
				after.add(s, pt.node.in.Node.Labels, pt.node.name, 1)
			}
		}
		for _, sp := range r.settled {
			if s.matches(sp.pod) {
				before.add(s, sp.labels, sp.node, 1)
				after.add(s, sp.labels, sp.node, 1)
			}
		}
		for _, p := range moving {
			if to, ok := o.to[podKey(p)]; ok {
				after.add(s, d.labelsOf(to, o), to, 1)
			}
		}
		for _, m := range s.members {
			if m.from != nil && (m.from.removed || leaving[m.from] || r.movedAway[m.key]) {
				continue
			}
			if !after.satisfied(s, m) && before.satisfied(s, m) {
				return fmt.Sprintf("moving %s leaves %s on %s without the pods its required affinity needs", podPattern(moving), m.key, m.node)
			}
		}
	}
	return ""
}

// labelsOf returns the labels of the node a pod moves to: an existing node or one of the
// outcome's new nodes.
func (d *decider) labelsOf(node string, o *outcome) map[string]string {
	if n := d.byName[node]; n != nil {
		return n.in.Node.Labels
	}
	for _, nc := range o.plan.NodeClaims {
		if nc.Name == node {
			return nc.Labels
		}
	}
	return nil
}

// settle records where a committed command moved its pods.
func (r *stayingRules) settle(d *decider, o *outcome) {
	if len(r.sets) == 0 {
		return
	}
	for _, c := range o.cands {
		for _, p := range c.movable {
			k := podKey(p)
			to, ok := o.to[k]
			if !ok {
				continue
			}
			r.movedAway[k] = true
			labels := d.labelsOf(to, o)
			r.settled = append(r.settled, settledPod{pod: p, node: to, labels: labels})
			if s := r.memberOf[k]; s != nil {
				s.members = append(s.members, affinityMember{pod: p, key: k, node: to, labels: labels, self: s.matches(p)})
			}
		}
	}
}

// podPattern names pods briefly: one by its key, several by their keys' common prefix and a *.
func podPattern(pods []*corev1.Pod) string {
	keys := make([]string, len(pods))
	for i, p := range pods {
		keys[i] = podKey(p)
	}
	sort.Strings(keys)
	if len(keys) == 1 {
		return keys[0]
	}
	prefix := keys[0]
	for _, k := range keys[1:] {
		for !strings.HasPrefix(k, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	return prefix + "*"
}
