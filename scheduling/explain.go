package scheduling

import (
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
)

// explainNoOption says why none of the pool's types can take the pod under reqs.
func (s *solver) explainNoOption(pool *poolState, p *podInfo, reqs requirements.Requirements, explain bool) rejection {
	if !explain {
		return rejection{constraint: ConstraintResources, stage: checkOptions}
	}
	compatible := pool.compatibleTypes(reqs)
	if len(compatible) == 0 {
		return reject(true, ConstraintNodeAffinity, checkOptions, "no instance type with an available offering satisfies %s%s", pool.Describe(reqs), pool.NodePool.RuledOutBy(pool.Reqs, reqs))
	}
	zero := make(resources.Vector, s.dims.Len())
	var fitting []*nodetemplate.Option
	for _, t := range compatible {
		if resources.FitsSum(zero, p.requests, t.Room) {
			fitting = append(fitting, t)
		}
	}
	if len(fitting) > 0 {
		smallest := fitting[0]
		for _, t := range fitting[1:] {
			if t.Capacity[resources.CPU] < smallest.Capacity[resources.CPU] {
				smallest = t
			}
		}
		return reject(true, ConstraintLimits, checkOptions, "limits %s leave no room for a node that fits the pod (%s; the smallest type that fits, %s, has %s)",
			pool.limits.String(), pool.limits.Taken(), smallest.InstanceType.Name, pool.limits.Capacity(smallest.Capacity))
	}
	// Name the first resource no compatible type has room for, with the largest room seen.
	for i := 0; i < s.dims.Len(); i++ {
		want := p.requests[i]
		if want == 0 {
			continue
		}
		var largest int64 = -1
		for _, t := range compatible {
			if t.Room[i] > largest {
				largest = t.Room[i]
			}
		}
		if largest < want {
			name := s.dims.Name(i)
			wantQ, largestQ := resources.Quantity(name, want), resources.Quantity(name, max(largest, 0))
			daemons := ""
			for _, t := range compatible {
				if t.Daemons[i] > 0 {
					daemons = ", after daemon overhead"
					break
				}
			}
			return reject(true, ConstraintResources, checkOptions, "no instance type has %s %s allocatable (largest: %s%s)", wantQ.String(), name, largestQ.String(), daemons)
		}
	}
	return reject(true, ConstraintResources, checkOptions, "no single instance type has room for all of the pod's requests %s", s.dims.Format(p.requests))
}
