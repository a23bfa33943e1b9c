package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/taints"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/volume"
)

// A pod meets the same checks wherever it may go: a node of the cluster, a node opened earlier
// in this plan, or a node about to open for it. They run in this order, which is also the
// order of rejection stages (rejection.go): when every place refuses a pod, the reason
// reported is the one that got furthest. Indexes may answer a check for many nodes at once
// (free room, hostname and host-port skip sets); they only skip what the check would refuse. Node-wide checks come first; the last two run per
// requirement alternative of the pod, as each alternative narrows the node differently.
//
// Each check has a test that builds nothing (failed attempts on hot paths allocate nothing)
// and, apart from it, the sentence that explains a failure.
type check int

const (
	// checkLaunch: the NodePool may launch a node at all (not static, limits left, a type).
	checkLaunch check = iota + 1
	// checkRoom: the pod's requests fit the room the node has or may still grow into, at a
	// price worth growing to. It comes first as the solver's free-room indexes answer it for
	// most nodes before any check runs.
	checkRoom
	checkTaints
	checkHostPorts
	// checkVolumes: ReadWriteOnce claims used elsewhere, attach limits, volume zones of a
	// cluster node.
	checkVolumes
	// checkNodeAffinity: the pod's node selector and affinity (and, on a new node, its volumes'
	// zones) agree with the node; on a new node it yields the requirement alternatives.
	checkNodeAffinity
	// checkTopology: spread and pod (anti-)affinity, per alternative.
	checkTopology
	// checkOptions: an instance-type option of a new node still holds everything, within
	// limits, attach limits, the growth rule and minValues, per alternative.
	checkOptions
)

// nodeWideChecks run once per attempt; checkTopology and checkOptions follow per alternative.
const lastNodeWideCheck = checkNodeAffinity

// target is a place a pod may go: exactly one of existing and node is set. fresh marks a node
// about to open for the pod, not yet in the plan.
type target struct {
	existing *existingNode
	node     *newNode
	fresh    bool
}

func (t target) pool() *poolState { return t.node.pool }

func (t target) taints() []corev1.Taint {
	if t.existing != nil {
		return t.existing.taints
	}
	return t.node.pool.NodePool.Taints
}

func (t target) ports() []hostport.Port {
	if t.existing != nil {
		return t.existing.ports
	}
	return t.node.ports
}

// attach returns the target's attached claims and its attach limits.
func (s *solver) attach(t target) (*volume.AttachCounter, map[string]int) {
	if t.existing != nil {
		return s.existingAttach(t.existing), t.existing.attachLimit
	}
	// A new node's attach limits depend on its type: fitOptions checks them per option.
	return t.node.attach, nil
}

func (t target) name() string {
	if t.existing != nil {
		return t.existing.name
	}
	return t.node.name
}

// try runs every check for pod p on t. On success it returns the node state p would produce
// there (for a cluster node, its requirements unchanged).
func (s *solver) try(t target, p *podInfo, explain bool) (candidate, rejection) {
	for c := checkLaunch; c <= lastNodeWideCheck; c++ {
		if constraint := s.fails(c, t, p); constraint != "" {
			r := rejection{constraint: constraint, stage: c}
			if explain {
				r.constraint, r.reason = s.why(c, t, p)
			}
			return candidate{}, r
		}
	}
	if t.existing != nil {
		reqs, r := s.topologyRequirements(p, t.existing.reqs, t, explain)
		return candidate{reqs: reqs}, r
	}
	alts, origins := s.alts, s.altOrigin // left by checkNodeAffinity
	var best candidate
	var last rejection
	for i, reqs := range alts {
		reqs, r := s.topologyRequirements(p, reqs, t, explain)
		if r.failed() {
			last = worse(last, r)
			continue
		}
		c, r := s.fitOptionsOn(t, p, reqs, origins[i], len(alts) == 1 && !explain, explain)
		if r.failed() {
			last = worse(last, r)
			continue
		}
		if best.options == nil || (s.karpenter == nil && cheaperCandidate(c, best)) {
			best = c
		}
	}
	if best.options == nil {
		return candidate{}, last
	}
	return best, ok
}

// fails runs check c's test: the constraint that fails, or "".
func (s *solver) fails(c check, t target, p *podInfo) Constraint {
	switch c {
	case checkLaunch:
		if !t.fresh {
			return ""
		}
		pool := t.pool()
		switch {
		case pool.NodePool.Replicas != nil, !pool.limits.Fits(make(resources.Vector, s.dims.Len())):
			return ConstraintLimits
		case len(pool.Types) == 0:
			return ConstraintNodeAffinity
		}
	case checkTaints:
		if _, bad := p.untoleratedTaint(t.taints()); bad {
			return ConstraintTaints
		}
	case checkHostPorts:
		if _, bad := hostport.FirstConflict(t.ports(), p.hostPorts); bad {
			return ConstraintHostPorts
		}
	case checkRoom:
		switch {
		case t.existing != nil:
			if !resources.FitsSum(t.existing.used, p.requests, t.existing.allocatable) {
				return ConstraintResources
			}
		case !t.fresh: // a fresh node's room is its options', checked last
			if !resources.FitsSum(t.node.used, p.requests, t.node.maxRoom) || !s.affordable(t.node, p) {
				return ConstraintResources
			}
		}
	case checkVolumes:
		if t.existing != nil && len(p.volumes.Alternatives) > 0 && !matchesAny(p.volumes.Alternatives, t.existing.labels) {
			return ConstraintVolume
		}
		attach, limits := s.attach(t)
		if _, bad := s.pins.Problem(p.volumes.Claims, attach, limits, t.name()); bad {
			return ConstraintVolume
		}
	case checkNodeAffinity:
		if t.existing != nil {
			if !matchesAnyList(p.effectiveLists(), t.existing.labels) {
				return ConstraintNodeAffinity
			}
			return ""
		}
		// The alternatives wait in s.alts for the per-alternative checks.
		if alts, _ := s.nodeRequirements(p, t.node.reqs, t.pool(), false); len(alts) == 0 {
			return ConstraintNodeAffinity
		}
	}
	return ""
}

// why explains how check c fails for p on t; only called after fails said it does.
func (s *solver) why(c check, t target, p *podInfo) (Constraint, string) {
	switch c {
	case checkLaunch:
		pool := t.pool()
		if r := pool.NodePool.Replicas; r != nil {
			return ConstraintLimits, fmt.Sprintf("nodepool %s is static (replicas %d): it keeps its node count and launches none for pods", pool.NodePool.Name, *r)
		}
		if len(pool.Types) > 0 {
			return ConstraintLimits, fmt.Sprintf("limits reached (%s)", pool.limits.Exhausted())
		}
		return ConstraintNodeAffinity, "no instance type satisfies the nodepool's requirements"
	case checkTaints:
		taint, _ := p.untoleratedTaint(t.taints())
		return ConstraintTaints, "taint " + taints.String(taint) + " not tolerated"
	case checkHostPorts:
		hp, _ := hostport.FirstConflict(t.ports(), p.hostPorts)
		if t.fresh {
			return ConstraintHostPorts, fmt.Sprintf("host port %d/%s is taken by a daemon", hp.Port, hp.Protocol)
		}
		return ConstraintHostPorts, fmt.Sprintf("host port %d/%s is taken on %s", hp.Port, hp.Protocol, t.name())
	case checkRoom:
		if t.existing != nil {
			return ConstraintResources, fmt.Sprintf("node %s lacks room", t.name())
		}
		if !resources.FitsSum(t.node.used, p.requests, t.node.maxRoom) {
			return ConstraintResources, fmt.Sprintf("node %s is full", t.name())
		}
		return ConstraintResources, fmt.Sprintf("adding the pod would move %s to a disproportionately pricier type", t.name())
	case checkVolumes:
		if t.existing != nil && len(p.volumes.Alternatives) > 0 && !matchesAny(p.volumes.Alternatives, t.existing.labels) {
			return ConstraintVolume, fmt.Sprintf("node %s is not where the pod's volumes can attach", t.name())
		}
		attach, limits := s.attach(t)
		problem, _ := s.pins.Problem(p.volumes.Claims, attach, limits, t.name())
		return ConstraintVolume, problem.Describe(t.name())
	case checkNodeAffinity:
		if t.existing != nil {
			return ConstraintNodeAffinity, fmt.Sprintf("node %s does not match the pod's node selector or affinity", t.name())
		}
		_, why := s.nodeRequirements(p, t.node.reqs, t.pool(), true)
		return ConstraintNodeAffinity, why
	}
	return "", ""
}

// fitOptionsOn is checkOptions for one alternative: the options of new node t left once p
// joins it under reqs. intoSpare lets a planned node's spare array take the result (when this
// is the only candidate and the caller commits it at once).
func (s *solver) fitOptionsOn(t target, p *podInfo, reqs, alt requirements.Requirements, intoSpare, explain bool) (candidate, rejection) {
	n, pool := t.node, t.pool()
	from, changed := n.options, len(reqs) != len(n.reqs) || !sameRequirements(reqs, n.reqs)
	if t.fresh {
		from, changed = s.allowedTypes(pool, reqs), false
	}
	var dst []*nodetemplate.Option
	var low resources.Vector
	if !t.fresh {
		low = n.minRoom
	}
	if intoSpare && !t.fresh {
		// Nil until the node's options first narrow: fitOptions then makes an array of the
		// size it keeps, only when it keeps fewer options than it was given.
		dst = n.spareOptions
	}
	var options []*nodetemplate.Option
	if t.fresh && len(from) > 0 && len(p.volumes.Claims) == 0 && !pool.limits.Set() {
		options = s.freshFit(from, reqs, n, p, pool)
	} else {
		options = s.fitOptions(dst, from, low, reqs, changed, n.used, p, pool, n.reserved, n.attach)
	}
	if options == nil {
		if t.fresh {
			return candidate{}, s.explainNoOption(pool, p, reqs, explain)
		}
		return candidate{}, s.optionsRejection(explain, "no instance type option of %s fits", t.name())
	}
	if !t.fresh && (len(options) != len(n.options) || changed) && !s.growthAllowed(n, options, reqs, p) {
		return candidate{}, s.optionsRejection(explain, "adding the pod would move %s to a disproportionately pricier type", t.name())
	}
	notes, r := s.checkMinValues(pool, options, reqs, explain)
	if r.failed() {
		return candidate{}, r
	}
	return candidate{reqs: reqs, options: options, notes: notes, alt: alt}, ok
}

// freshKey names an allowedTypes list (its array, which lives as long as the solve, and
// length) and the room a pod needs, of at most 8 resources.
type freshKey struct {
	list **nodetemplate.Option
	n    int
	need [8]int64
}

// freshFit is fitOptions for node n about to open with the options from (an allowedTypes
// list) when neither volumes nor limits apply: the options then depend on the list and the
// room the pod needs alone, and pods of a shape open many nodes alike, so they are memoised.
// The lists it returns are shared: nodes never write into options they do not own.
func (s *solver) freshFit(from []*nodetemplate.Option, reqs requirements.Requirements, n *newNode, p *podInfo, pool *poolState) []*nodetemplate.Option {
	key := freshKey{list: &from[0], n: len(from)}
	if len(p.requests) > len(key.need) {
		return s.fitOptions(nil, from, nil, reqs, false, n.used, p, pool, n.reserved, n.attach)
	}
	for i, x := range p.requests {
		key.need[i] = n.used[i] + x
	}
	if options, ok := s.freshFits[key]; ok {
		return options
	}
	options := s.fitOptions(nil, from, nil, reqs, false, n.used, p, pool, n.reserved, n.attach)
	if s.freshFits == nil {
		s.freshFits = map[freshKey][]*nodetemplate.Option{}
	}
	s.freshFits[key] = options
	return options
}

// optionsRejection is a resources rejection at checkOptions about one named node; the name is
// only formatted when explaining.
func (s *solver) optionsRejection(explain bool, format, name string) rejection {
	r := rejection{constraint: ConstraintResources, stage: checkOptions}
	if explain {
		r.reason = fmt.Sprintf(format, name)
	}
	return r
}

// checkMinValues verifies that options keep at least minValues distinct values for each key
// the pool bounds. Under BestEffort a shortfall is allowed and returned as a note.
func (s *solver) checkMinValues(pool *poolState, options []*nodetemplate.Option, reqs requirements.Requirements, explain bool) ([]string, rejection) {
	if len(pool.MinValues) == 0 {
		return nil, ok
	}
	var notes []string
	for _, rule := range pool.MinValues {
		n := nodetemplate.DistinctValues(rule.Key, options, reqs)
		if n >= rule.Min {
			continue
		}
		if s.opts.MinValuesPolicy == MinValuesBestEffort {
			notes = append(notes, fmt.Sprintf("minValues for %s relaxed: %d of %d distinct values left (BestEffort)", rule.Key, n, rule.Min))
			continue
		}
		return nil, reject(explain, ConstraintNodeAffinity, checkOptions, "minValues %d for %s cannot be met: only %d distinct values fit the pod", rule.Min, rule.Key, n)
	}
	return notes, ok
}
