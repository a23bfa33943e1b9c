package app

import (
	"errors"
	"time"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/manifest"
)

// Consolidated is the outcome of Consolidate: the decisions and what they were made from.
type Consolidated struct {
	Bundle    *manifest.Bundle
	Catalog   *instancetype.Catalog
	Input     disruption.Input
	Decisions disruption.Decisions
}

// Consolidate loads the running cluster from the manifests (see Bundle.DisruptionInput) and decides
// which nodes to delete or replace at now. The error is for unusable input only; with an
// error, the result is nil or holds only the Bundle.
func Consolidate(cfg Config, now time.Time) (*Consolidated, error) {
	if now.IsZero() {
		return nil, errors.New("consolidate needs the current time")
	}
	in, b, cat, err := cfg.disruptionInput(now)
	if err != nil {
		return partialCluster(b), err
	}
	d, err := disruption.Decide(in)
	if err != nil {
		return partialCluster(b), err
	}
	return &Consolidated{Bundle: b, Catalog: cat, Input: in, Decisions: d}, nil
}

func partialCluster(b *manifest.Bundle) *Consolidated {
	if b == nil {
		return nil
	}
	return &Consolidated{Bundle: b}
}
