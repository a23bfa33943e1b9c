package cli

import "github.com/nodeplan/nodeplan/cmd/nodeplan/app"

// jsonToYAML converts a JSON document to block-style YAML, keeping the order of its fields.
func jsonToYAML(data []byte) ([]byte, error) { return app.JSONToYAML(data) }
