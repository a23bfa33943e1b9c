package nodetemplate

import (
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// Offer is a new node's options as topology.State.SettleDaemons narrows them (a
// topology.Offer).
type Offer struct{ Options []*Option }

// AnyRuns reports whether runs (by option Index) holds for one of the options.
func (o *Offer) AnyRuns(runs []bool) bool {
	for _, t := range o.Options {
		if runs[t.Index] {
			return true
		}
	}
	return false
}

// Cheapest is the Index and price of the option Cheapest chooses under reqs.
func (o *Offer) Cheapest(reqs requirements.Requirements) (int, float64, bool) {
	c, found := Cheapest(o.Options, reqs)
	if !found {
		return 0, 0, false
	}
	return c.Option.Index, c.Offering.Price, true
}

// Narrow keeps the options that can meet reqs.
func (o *Offer) Narrow(reqs requirements.Requirements) {
	o.Options = Filter(o.Options, func(t *Option) bool { return typeindex.Allows(&t.Type, reqs) })
}

// Keep keeps the options whose runs (by Index) is want.
func (o *Offer) Keep(runs []bool, want bool) {
	o.Options = Filter(o.Options, func(t *Option) bool { return runs[t.Index] == want })
}
