package scheduling

import "slices"

// SimulateFresh is Simulate worked out from scratch, the oracle of the Cluster's shortcuts:
// the input changed by name (without the Cluster's base), prepared anew and solved without
// the base.
func SimulateFresh(c *Cluster, change Change, opts Options) (Plan, error) {
	c = &Cluster{in: c.in, prep: c.prep, baseBuilt: true} // no base
	in, _, err := c.changed(change)
	if err != nil {
		return Plan{}, err
	}
	in.Options = opts
	in.ReservedNodeNames = append(slices.Clip(in.ReservedNodeNames), change.RemoveNodes...)
	if len(change.Requirements) > 0 {
		if _, in.NodePools, err = c.narrow(change.Requirements); err != nil {
			return Plan{}, err
		}
	}
	prep, err := prepare(in)
	if err != nil {
		return Plan{}, err
	}
	return solve(in, prep, start{})
}
