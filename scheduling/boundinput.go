package scheduling

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/bound"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// lowerBound is a cost no plan for the pods on new nodes can beat (see bound.Lower), for the
// pods placed on new nodes and the NodePools' types. It does not depend on the plan's cost:
// every bound that applies runs. When every pod the placement started with ended on a new
// node, it is the bound worked out meanwhile (startLowerBound), the same figure.
func (s *solver) lowerBound() float64 {
	var placed []*podInfo
	for _, n := range s.nodes {
		placed = append(placed, n.pods...)
	}
	if e := s.earlyBound; e != nil {
		<-e.done
		if len(placed) == e.pods {
			return e.value
		}
	}
	return bound.Lower(s.boundInput(placed))
}

// earlyBound is the lower bound for all the pods the placement starts with, worked out on
// another core while they are placed. It is the plan's bound when they all end on new
// nodes: the bound's input depends on which pods those are, not on where they went.
type earlyBound struct {
	pods  int // how many pods it is for
	value float64
	done  chan struct{} // closed when value is set
}

// startLowerBound starts working out the bound for pods, as if they all end on new nodes,
// when that is likely (there are no existing nodes to take some) and the caller wants it.
// The bound's input is read here, before the placement changes the pods; only bound.Lower,
// which reads nothing the placement writes, runs meanwhile. lowerBound joins it, so nothing
// is left running after Solve.
func (s *solver) startLowerBound(pods []*podInfo) {
	if s.opts.SkipLowerBound || len(s.existing) > 0 || len(pods) == 0 {
		return
	}
	in := s.boundInput(pods)
	e := &earlyBound{pods: len(pods), done: make(chan struct{})}
	s.earlyBound = e
	go func() {
		defer close(e.done)
		e.value = bound.Lower(in)
	}()
}

// boundClass is the pods of one bound.Input class: the same requirements and tolerations.
type boundClass struct {
	pod *podInfo // a representative
	// alternatives are the representative's required alternatives as the input gives them.
	alternatives []requirements.Requirements
	// smallest is the element-wise minimum of the pods' requests: a type without room for it
	// can take none of them.
	smallest resources.Vector
}

// boundInput describes the pods placed on new nodes and the NodePools' types for package
// bound: one kind per type and capacity type, the exclusive sets of required hostname
// anti-affinity, the room capacity reservations hold, and the pods grouped by class
// (classKey) and requests, in an order of their content alone (classes by key, then
// requests). The pattern bound's column generation depends on the order of the pods: taking
// them as the nodes hold them, or as the input lists them, would make the bound depend on
// the plan or on the order of the input.
func (s *solver) boundInput(pods []*podInfo) bound.Input {
	var in bound.Input
	classIndex := map[string]int{}
	var classes []boundClass
	var keys []string
	type itemKey struct {
		class    int
		requests string
	}
	items := map[itemKey]int{}
	exclusive := map[*topology.Group]map[int]int{} // per group, members per item
	lastItem, lastClass, lastRequests := -1, -1, ""
	for _, p := range pods {
		alts := s.inputAlternatives(p)
		key := classKey(p, alts)
		c, seen := classIndex[key]
		if !seen {
			c = len(classes)
			classIndex[key] = c
			classes = append(classes, boundClass{pod: p, alternatives: alts, smallest: p.requests.Clone()})
			keys = append(keys, key)
		} else {
			for i, r := range p.requests {
				classes[c].smallest[i] = min(classes[c].smallest[i], r)
			}
		}
		// Pods of one workload tend to come together: the last pod's item is tried first.
		item := lastItem
		if c != lastClass || p.requestsKey != lastRequests {
			k := itemKey{c, p.requestsKey}
			var ok bool
			if item, ok = items[k]; !ok {
				item = len(in.Pods)
				items[k] = item
				in.Pods = append(in.Pods, bound.Pods{Class: c, Requests: p.requests})
			}
			lastItem, lastClass, lastRequests = item, c, p.requestsKey
		}
		in.Pods[item].Count++
		for _, t := range p.topo.Terms {
			g := t.Group
			if !t.Required || g.Kind != topology.AntiAffinity || g.Key != requirements.LabelHostname || !slices.Contains(p.topo.Matched, g) {
				continue
			}
			if exclusive[g] == nil {
				exclusive[g] = map[int]int{}
			}
			exclusive[g][item]++
		}
	}
	// The order of content: classes by key, pods by class and requests.
	classOrder := make([]int, len(classes))
	for c := range classOrder {
		classOrder[c] = c
	}
	slices.SortFunc(classOrder, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	classRank := make([]int, len(classes))
	sortedClasses := make([]boundClass, len(classes))
	for rank, c := range classOrder {
		classRank[c] = rank
		sortedClasses[rank] = classes[c]
	}
	itemOrder := make([]int, len(in.Pods))
	for i := range itemOrder {
		itemOrder[i] = i
		in.Pods[i].Class = classRank[in.Pods[i].Class]
	}
	slices.SortFunc(itemOrder, func(a, b int) int {
		if c := in.Pods[a].Class - in.Pods[b].Class; c != 0 {
			return c
		}
		return slices.Compare(in.Pods[a].Requests, in.Pods[b].Requests)
	})
	itemRank := make([]int, len(in.Pods))
	sortedPods := make([]bound.Pods, len(in.Pods))
	for rank, i := range itemOrder {
		itemRank[i] = rank
		sortedPods[rank] = in.Pods[i]
	}
	in.Pods = sortedPods
	in.Classes = len(classes)
	for _, members := range exclusive {
		var set bound.Exclusive
		for item, count := range members {
			set.Members = append(set.Members, bound.Member{Pods: itemRank[item], Count: count})
		}
		slices.SortFunc(set.Members, func(a, b bound.Member) int { return a.Pods - b.Pods })
		in.Exclusive = append(in.Exclusive, set)
	}
	slices.SortFunc(in.Exclusive, func(a, b bound.Exclusive) int {
		return slices.CompareFunc(a.Members, b.Members, func(x, y bound.Member) int {
			if x.Pods != y.Pods {
				return x.Pods - y.Pods
			}
			return x.Count - y.Count
		})
	})
	in.Kinds = s.boundKinds(sortedClasses)
	in.Reserved = nodetemplate.ReservedRoom(len(s.pools), s.template, s.dims)
	return in
}

// boundKinds is one bound.Kind per NodePool type and capacity type with an offering outside
// capacity reservations, priced at the cheapest such offering, and per class at the cheapest
// the class's requirements allow (none when it does not tolerate the NodePool's taints, no
// requirement alternative fits the NodePool and the type, or its smallest requests do not
// fit). PreferNoSchedule taints do not count, as a plan may relax them.
func (s *solver) boundKinds(classes []boundClass) []bound.Kind {
	// The kinds and their class prices are allocated at once: two passes over the offerings
	// cost less than an allocation per type.
	var buf []nodetemplate.CapacityPrice
	count := 0
	for _, pool := range s.pools {
		for _, t := range pool.Types {
			buf = t.CheapestByCapacityType(buf)
			count += len(buf)
		}
	}
	kinds := make([]bound.Kind, 0, count)
	classPrices := make([]float64, count*len(classes))
	tolerated := make([]bool, len(classes))
	var alts []requirements.Requirements
	for _, pool := range s.pools {
		for c, class := range classes {
			_, bad := (&podInfo{pod: class.pod.pod, tolerateSoft: true}).untoleratedTaint(pool.NodePool.Taints)
			tolerated[c] = !bad
		}
		for _, t := range pool.Types {
			buf = t.CheapestByCapacityType(buf)
			first := len(kinds)
			for _, cp := range buf {
				prices := classPrices[:len(classes):len(classes)]
				classPrices = classPrices[len(classes):]
				for c := range prices {
					prices[c] = -1
				}
				kinds = append(kinds, bound.Kind{Type: t.InstanceType.Name, Room: t.Room, Price: cp.Price, ClassPrices: prices})
			}
			for c, class := range classes {
				if !tolerated[c] || !class.smallest.Fits(t.Room) {
					continue
				}
				alts = alts[:0]
				for _, alt := range class.alternatives {
					if pool.Reqs.Conflict(alt) == "" && t.Reqs.Conflict(alt) == "" {
						alts = append(alts, alt)
					}
				}
				for _, o := range t.Offerings {
					if o.ReservationID != "" {
						continue
					}
					k := first + slices.IndexFunc(buf, func(cp nodetemplate.CapacityPrice) bool { return cp.CapacityType == o.CapacityType })
					if price := kinds[k].ClassPrices[c]; price >= 0 && price <= o.Price {
						continue
					}
					if slices.ContainsFunc(alts, func(alt requirements.Requirements) bool { return instancetype.OfferingAllowed(o, alt) }) {
						kinds[k].ClassPrices[c] = o.Price
					}
				}
			}
		}
	}
	return kinds
}

// inputAlternatives is p's required alternatives as the input gives them: StrategyKarpenter
// keeps one at a time in force.
func (s *solver) inputAlternatives(p *podInfo) []requirements.Requirements {
	if s.karpenter != nil {
		if all, ok := s.karpenter.alternatives[p]; ok {
			return all
		}
	}
	return p.alternatives
}

// classKey groups pods by what limits their nodetemplate.Choice of types: required node selectors and
// affinity (not preferences, which a plan may keep for some pods and relax for others: the
// bound holds for every plan) and tolerations. Plain pods share the empty key.
func classKey(p *podInfo, alts []requirements.Requirements) string {
	if len(p.pod.Spec.Tolerations) == 0 && (len(alts) == 0 || (len(alts) == 1 && len(alts[0]) == 0)) {
		return ""
	}
	var b strings.Builder
	for _, alt := range alts {
		b.WriteString(alt.String())
		b.WriteString(" | ")
	}
	fmt.Fprint(&b, p.pod.Spec.Tolerations)
	return b.String()
}
