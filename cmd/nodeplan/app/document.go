package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	yaml "go.yaml.in/yaml/v3"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// APIVersion is the apiVersion of every document nodeplan writes.
const APIVersion = "nodeplan/v1"

// PlanDocument is "nodeplan plan -o json": the Plan with apiVersion and kind first, in the
// field order of DESIGN.md's Plan JSON.
type PlanDocument struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	scheduling.Plan
}

// NewPlanDocument wraps a plan.
func NewPlanDocument(p scheduling.Plan) PlanDocument {
	return PlanDocument{APIVersion: APIVersion, Kind: "Plan", Plan: p}
}

// DecisionsDocument is "nodeplan consolidate -o json": the Decisions with apiVersion and kind
// first.
type DecisionsDocument struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	disruption.Decisions
}

// NewDecisionsDocument wraps decisions.
func NewDecisionsDocument(d disruption.Decisions) DecisionsDocument {
	return DecisionsDocument{APIVersion: APIVersion, Kind: "Decisions", Decisions: d}
}

// Encode returns doc as indented JSON or as YAML with the same field names and order.
func Encode(doc any, format string) ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, doc, format); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes doc as indented JSON (see WriteJSON) or as YAML with the same field names and
// order.
func Write(w io.Writer, doc any, format string) error {
	switch format {
	case "json":
		return WriteJSON(w, doc)
	case "yaml":
		data, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		if data, err = JSONToYAML(data); err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	return fmt.Errorf("unknown output format %q", format)
}

// JSONToYAML converts a JSON document to block-style YAML, keeping the order of its fields
// (apiVersion and kind first), unlike a round trip through a map.
func JSONToYAML(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	blockStyle(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// blockStyle clears the flow and quoting styles JSON syntax gives every node, so the encoder
// picks YAML's usual ones (it still quotes strings that would otherwise read as numbers).
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}
