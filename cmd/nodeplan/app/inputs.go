package app

import (
	"time"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// PlanInput loads what Plan solves, without solving: the manifests, and NodePools with the
// catalog's instance types as their nodes see them. Tools that check a plan made elsewhere
// read the input exactly as "nodeplan plan" does. Warnings about the input are in the
// returned Bundle, which is nil only when the manifests could not be read.
func PlanInput(cfg Config) (scheduling.Input, *manifest.Bundle, error) {
	in, b, _, err := cfg.planInput()
	return in, b, err
}

// DisruptionInput loads what Consolidate decides on at now, without deciding (see PlanInput).
func DisruptionInput(cfg Config, now time.Time) (disruption.Input, *manifest.Bundle, error) {
	in, b, _, err := cfg.disruptionInput(now)
	return in, b, err
}

func (c Config) planInput() (scheduling.Input, *manifest.Bundle, *instancetype.Catalog, error) {
	b, cat, err := c.load()
	if err != nil {
		return scheduling.Input{}, b, nil, err
	}
	in := b.SchedulingInput()
	withInstanceTypes(b, in.NodePools, cat)
	return in, b, cat, nil
}

func (c Config) disruptionInput(now time.Time) (disruption.Input, *manifest.Bundle, *instancetype.Catalog, error) {
	b, cat, err := c.load()
	if err != nil {
		return disruption.Input{}, b, nil, err
	}
	in, warnings := b.DisruptionInput(now, cat.InstanceTypes)
	b.Warnings = append(b.Warnings, warnings...)
	return in, b, cat, nil
}
