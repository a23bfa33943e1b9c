package app

import (
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Planned is the outcome of Plan: the plan and what it was made from.
type Planned struct {
	Bundle  *manifest.Bundle
	Catalog *instancetype.Catalog
	Input   scheduling.Input
	Plan    scheduling.Plan
}

// Plan loads the manifests and the catalog, gives every NodePool the catalog's instance
// types and solves. Warnings about the input are in Planned.Bundle.Warnings; the error is for
// unusable input only. With an error, the result is nil, or holds only the Bundle when the
// manifests could be read (for their warnings).
func Plan(cfg Config, opts scheduling.Options) (*Planned, error) {
	in, b, cat, err := cfg.planInput()
	if err != nil {
		return partial(b), err
	}
	in.Options = opts
	plan, err := scheduling.Solve(in)
	if err != nil {
		return partial(b), err
	}
	return &Planned{Bundle: b, Catalog: cat, Input: in, Plan: plan}, nil
}

// withInstanceTypes gives every NodePool the catalog's types as its nodes see them: through
// its node class (zones, kubelet, volumes), then through the NodeOverlays. Overlays left out
// for a conflict are reported among the bundle's warnings.
func withInstanceTypes(b *manifest.Bundle, pools []*scheduling.NodePool, cat *instancetype.Catalog) {
	b.Warnings = append(b.Warnings, b.AssignInstanceTypes(pools, cat.InstanceTypes)...)
}

func partial(b *manifest.Bundle) *Planned {
	if b == nil {
		return nil
	}
	return &Planned{Bundle: b}
}
