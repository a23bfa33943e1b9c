package topology

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Member is one pending pod as a State follows it through a solve: its terms, the groups that
// count it, and what it has given up. The solver keeps one per pod and hands it to every
// question it asks of the State.
type Member struct {
	// Pod is the pending pod.
	Pod *corev1.Pod
	// Terms are the pod's spread and pod (anti-)affinity rules: required ones, then preferred
	// ones in relaxation order; the first Relaxed preferred ones have been given up.
	Terms   []Term
	Relaxed int
	// Matched are the groups that count the pod (set by State.Start).
	Matched []*Group
	// Loose is set once the pod, after a round without progress, may break what only keeps the
	// placement order good (State.Loosen).
	Loose bool
	// Host answers what topology cannot know of the pod: where its node affinity and
	// tolerations let it run.
	Host Host

	// eligible caches the eligible domains of each spread group for the pod.
	eligible    map[*Group][]string
	activeCache []Term
	activeFor   int
	keysCache   []string
	keysFor     int
}

// Host is the solver's side of a pod: what a spread group's eligible domains depend on besides
// the groups themselves.
type Host interface {
	// NodeAffinity returns the pod's requirement alternatives (node selector × required node
	// affinity).
	NodeAffinity() []requirements.Requirements
	// Tolerates reports whether the pod tolerates every taint of a node.
	Tolerates(taints []corev1.Taint) bool
	// HostClass names the pods whose NodeAffinity and tolerations are the same: they share
	// their eligible domains.
	HostClass() string
}

// Constrained reports whether any rule binds or counts the pod; a pod that is not gets a
// yes to every question without one being asked.
func (m *Member) Constrained() bool { return len(m.Terms) > 0 || len(m.Matched) > 0 }

// Soft returns the pod's preferred terms (after its required ones).
func (m *Member) Soft() []Term {
	for i, t := range m.Terms {
		if !t.Required {
			return m.Terms[i:]
		}
	}
	return nil
}

// Active returns the terms in force: required ones and preferred ones not yet relaxed.
func (m *Member) Active() []Term {
	soft := m.Soft()
	required := m.Terms[:len(m.Terms)-len(soft)]
	if m.Relaxed == 0 {
		return m.Terms
	}
	if m.activeFor != m.Relaxed {
		out := make([]Term, 0, len(required)+len(soft)-m.Relaxed)
		out = append(out, required...)
		m.activeCache = append(out, soft[m.Relaxed:]...)
		m.activeFor = m.Relaxed
	}
	return m.activeCache
}

// keys returns RuleKeys of the active terms and matched groups, cached until the pod relaxes
// a term.
func (m *Member) keys(active []Term) []string {
	if m.keysCache == nil || m.keysFor != m.Relaxed {
		m.keysCache = RuleKeys(active, m.Matched)
		m.keysFor = m.Relaxed
	}
	return m.keysCache
}
