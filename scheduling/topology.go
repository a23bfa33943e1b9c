package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/typeindex"
)

// The solver's side of topology.State: what it tells topology of its pods, nodes and
// NodePools, and how it asks which domains a pod may take on a node.

// setupTopology derives every pending pod's terms, counts the pods already running, and
// starts the topology of the solve. Pods with an invalid term become unschedulable. When
// listed, the existing nodes' antiAffinityPods (inputOrder: in's nodes, in its order, or only
// those running such pods) stand for their running pods until the groups are known.
func (s *solver) setupTopology(in Input, pods []*podInfo, listed bool, inputOrder []*existingNode) ([]*podInfo, []Unschedulable) {
	st := topology.NewState(in.Namespaces)
	kept := make([]*podInfo, 0, len(pods))
	var bad []Unschedulable
	terms, errs := st.TermsOfPods(len(pods), func(i int) *corev1.Pod { return pods[i].pod }, s.opts.PreferencePolicy == PreferencesIgnore) // preferences are dropped up front
	for i, p := range pods {
		if err := errs[i]; err != nil {
			bad = append(bad, Unschedulable{Pod: p.key, Reason: err.Error(), Constraint: topologyConstraintOfError(err)})
			continue
		}
		p.topo = topology.Member{Terms: terms[i], Host: p}
		kept = append(kept, p)
	}
	// Running pods' required anti-affinity constrains pending pods and may add groups, so it is
	// read before deciding whether there are any; then, only if there are, every running pod
	// is counted.
	running := func(pod *corev1.Pod) bool { return pod != nil && !isTerminal(pod) && pod.DeletionTimestamp == nil }
	if listed {
		// ReadBound reads only required anti-affinity: each node lists its pods with it.
		for _, n := range inputOrder {
			for _, pod := range n.antiAffinityPods {
				st.ReadBound(pod)
			}
		}
	} else {
		for _, en := range in.ExistingNodes {
			for _, pod := range en.Pods {
				if running(pod) {
					st.ReadBound(pod)
				}
			}
		}
	}
	s.topology = st
	if !st.HasGroups() {
		return kept, bad
	}
	byName := make(map[string]*existingNode, len(s.existing))
	for _, n := range s.existing {
		byName[n.name] = n
	}
	for _, en := range in.ExistingNodes {
		n := byName[en.Node.Name]
		for _, pod := range en.Pods {
			if running(pod) {
				st.RecordBound(pod, n.labels)
			}
		}
	}
	st.Start((*topologyCluster)(s), len(kept), func(i int) (*topology.Member, *corev1.Pod) { return &kept[i].topo, kept[i].pod }, s.daemons)
	return kept, bad
}

func topologyConstraintOfError(err error) Constraint {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "podAffinity"):
		return ConstraintPodAffinity
	case strings.HasPrefix(msg, "podAntiAffinity"):
		return ConstraintPodAntiAffinity
	}
	return ConstraintTopologySpread
}

// topologyRequirements returns reqs narrowed so that placing p on t keeps every spread and
// affinity rule in force (topology.State.Narrow), or a rejection.
func (s *solver) topologyRequirements(p *podInfo, reqs requirements.Requirements, t target, explain bool) (requirements.Requirements, rejection) {
	if !p.topo.Constrained() {
		return reqs, ok
	}
	var n topology.Joining
	var launch topology.Launch
	if t.existing != nil {
		n = topology.Joining{Name: t.existing.name, Existing: true, Labels: t.existing.labels}
	} else {
		options := t.node.options
		n = topology.Joining{Name: t.node.name, Pool: t.node.pool.Index, Fresh: t.fresh}
		launch = topology.Launch{
			Holds: func(reqs requirements.Requirements, key, value string) bool {
				narrowed := reqs.Copy()
				narrowed.Add(requirements.New(key, corev1.NodeSelectorOpIn, value))
				for _, o := range options {
					if typeindex.Allows(&o.Type, narrowed) && p.requests.Fits(o.Room) {
						return true
					}
				}
				return false
			},
			Allows: func(reqs requirements.Requirements) bool {
				for _, o := range options {
					if typeindex.Allows(&o.Type, reqs) {
						return true
					}
				}
				return false
			},
			CheapestMeets: func(reqs requirements.Requirements, filter []requirements.Requirements) bool {
				c, found := nodetemplate.Cheapest(options, reqs)
				return found && matchesFilter(c.Option, filter)
			},
		}
	}
	out, refused := s.topology.Narrow(&p.topo, reqs, n, launch, explain)
	if refused.Group == nil {
		return out, ok
	}
	c := ConstraintTopologySpread
	switch refused.Group.Kind {
	case topology.Affinity:
		c = ConstraintPodAffinity
	case topology.AntiAffinity:
		c = ConstraintPodAntiAffinity
	}
	if !explain {
		return nil, rejection{constraint: c, stage: checkTopology}
	}
	where := n.Name
	if t.fresh {
		where = "a new node"
	}
	return nil, rejection{constraint: c, stage: checkTopology, reason: refused.Describe(where)}
}

// matchesFilter reports whether a type's own requirements satisfy one of the alternatives.
func matchesFilter(t *nodetemplate.Option, filter []requirements.Requirements) bool {
	for _, alt := range filter {
		if t.Reqs.Conflict(alt) == "" && typeindex.Allows(&t.Type, alt) {
			return true
		}
	}
	return false
}

// loosen gives up, after a round without progress, what topology keeps only to place pods in
// a good order (topology.State.Loosen). It reports whether anything was loosened.
func (s *solver) loosen(failing []*podInfo) bool {
	return s.topology.Loosen(len(failing),
		func(i int) *topology.Member { return &failing[i].topo },
		func(i int, what string) {
			if failing[i].trace != nil {
				failing[i].trace.note("%s", what)
			}
		})
}

// NodeAffinity, Tolerates and HostClass make a pod a topology.Host.
func (p *podInfo) NodeAffinity() []requirements.Requirements { return p.alternatives }

func (p *podInfo) Tolerates(taints []corev1.Taint) bool {
	_, bad := p.untoleratedTaint(taints)
	return !bad
}

func (p *podInfo) HostClass() string {
	var b strings.Builder
	for _, alt := range p.alternatives {
		b.WriteString(alt.String())
		b.WriteString(" | ")
	}
	fmt.Fprint(&b, p.pod.Spec.Tolerations)
	return b.String()
}

// topologyCluster is the solver as topology.State sees its nodes and NodePools.
type topologyCluster solver

func (c *topologyCluster) Nodes() int { return len(c.existing) }

func (c *topologyCluster) Node(i int) topology.Existing {
	n := c.existing[i]
	return topology.Existing{Labels: n.labels, Taints: n.taints, Initialized: n.initialized, DaemonSets: n.daemonSets}
}

func (c *topologyCluster) Pools() int { return len(c.pools) }

func (c *topologyCluster) PoolTaints(pool int) []corev1.Taint { return c.pools[pool].NodePool.Taints }

func (c *topologyCluster) PoolTypes(pool int) int { return len(c.pools[pool].Types) }

func (c *topologyCluster) DaemonRuns(d *daemonset.Template, pool, typ int, reqs requirements.Requirements) bool {
	p := c.pools[pool]
	if typ >= 0 {
		reqs = p.Reqs.Copy()
		reqs.AddAll(p.Types[typ].Reqs)
	}
	return d.RunsOn(p.NodePool.Taints, reqs, p.AllowUndefined)
}

// PoolValues lists the values key can take on a new node of the pool: from available
// offerings for zone and capacity type, names for instance type, else type and template
// labels.
func (c *topologyCluster) PoolValues(pool int, key string) []string {
	p := c.pools[pool]
	seen := map[string]bool{}
	r := p.Reqs[key]
	nodetemplate.Values(seen, p.Types, key, r)
	if r != nil && !r.IsComplement() {
		for _, v := range r.Values() {
			seen[v] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// PoolCanHost reports whether some type of the pool has an available offering for a pod of the
// alternatives with key = value.
func (c *topologyCluster) PoolCanHost(pool int, alternatives []requirements.Requirements, key, value string) bool {
	p := c.pools[pool]
	pin := requirements.New(key, corev1.NodeSelectorOpIn, value)
	for _, alt := range alternatives {
		if p.Reqs.Conflict(alt) != "" {
			continue
		}
		reqs := alt.Copy()
		reqs.Add(pin)
		for _, t := range p.Types {
			if typeindex.Allows(&t.Type, reqs) {
				return true
			}
		}
	}
	return false
}
