package main

import (
	"bytes"

	yaml "go.yaml.in/yaml/v3"
)

// jsonToYAML converts a JSON document to block-style YAML, keeping the order of its fields
// (apiVersion and kind first), unlike a round trip through a map.
func jsonToYAML(data []byte) ([]byte, error) {
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
