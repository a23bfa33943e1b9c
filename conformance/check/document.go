package check

import (
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Document kinds ReadDocument accepts, with apiVersion nodeplan/v1.
const (
	KindPlan      = "Plan"
	KindDecisions = "Decisions"
	apiVersion    = "nodeplan/v1"
)

// Document is a nodeplan/v1 document read back: "nodeplan plan -o json|yaml" or "nodeplan
// consolidate -o json|yaml", or another tool's answer written in the same shape.
type Document struct {
	Kind string
	// Plan is set for kind Plan; HasSummary says whether the document carried a summary
	// (another tool's plan may leave it out, and then there is nothing to check it against).
	Plan       *scheduling.Plan
	HasSummary bool
	// Decisions is set for kind Decisions.
	Decisions *disruption.Decisions
}

// ReadDocument decodes a Plan or Decisions document from JSON or YAML. Fields it does not
// know are ignored, so documents of other tools in the same shape are read too.
func ReadDocument(data []byte) (Document, error) {
	var head struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Summary    map[string]any `json:"summary"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return Document{}, fmt.Errorf("not a JSON or YAML document: %w", err)
	}
	if head.APIVersion != apiVersion {
		return Document{}, fmt.Errorf("apiVersion is %q: want %q (what nodeplan plan and consolidate write with -o json or -o yaml)", head.APIVersion, apiVersion)
	}
	doc := Document{Kind: head.Kind}
	switch head.Kind {
	case KindPlan:
		doc.Plan, doc.HasSummary = &scheduling.Plan{}, head.Summary != nil
		if err := yaml.Unmarshal(data, doc.Plan); err != nil {
			return Document{}, fmt.Errorf("kind Plan: %w", err)
		}
	case KindDecisions:
		doc.Decisions = &disruption.Decisions{}
		if err := yaml.Unmarshal(data, doc.Decisions); err != nil {
			return Document{}, fmt.Errorf("kind Decisions: %w", err)
		}
	default:
		return Document{}, fmt.Errorf("kind is %q: want %s or %s", head.Kind, KindPlan, KindDecisions)
	}
	return doc, nil
}
