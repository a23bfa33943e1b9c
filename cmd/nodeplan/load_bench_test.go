package main

import (
	"bytes"
	"fmt"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/manifest"
)

// asJSON rewrites a multi-document YAML stream as a stream of JSON objects, one a line.
func asJSON(tb testing.TB, data []byte) []byte {
	var out bytes.Buffer
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		j, err := yaml.YAMLToJSON(bytes.TrimPrefix(doc, []byte("---\n")))
		if err != nil {
			tb.Fatal(err)
		}
		out.Write(j)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// asKubectlList rewrites a multi-document YAML stream as "kubectl get -o yaml" writes objects:
// one List in block style, keys sorted.
func asKubectlList(tb testing.TB, data []byte) []byte {
	var out bytes.Buffer
	out.WriteString("apiVersion: v1\nitems:\n")
	for _, doc := range bytes.Split(asJSON(tb, data), []byte("\n")) {
		if len(doc) == 0 {
			continue
		}
		y, err := yaml.JSONToYAML(doc)
		if err != nil {
			tb.Fatal(err)
		}
		for i, line := range bytes.SplitAfter(bytes.TrimSuffix(y, []byte("\n")), []byte("\n")) {
			if i == 0 {
				out.WriteString("- ")
			} else {
				out.WriteString("  ")
			}
			out.Write(line)
		}
		out.WriteByte('\n')
	}
	out.WriteString("kind: List\nmetadata: {}\n")
	return out.Bytes()
}

// BenchmarkLoadDiverse is the reading part of the CLI (manifest.Parse: split, YAML to JSON,
// decode, validate, expand) on Karpenter-shaped pods: as YAML documents in flow style, as one
// kubectl List in block style, and as the same objects in JSON; MB/s is the decode rate.
func BenchmarkLoadDiverse(b *testing.B) {
	for _, n := range []int{5000, 20000} {
		data := diverseManifest(n)
		for _, format := range []struct {
			name, file string
			data       []byte
		}{{"yaml", "diverse.yaml", data}, {"list", "diverse.yaml", asKubectlList(b, data)}, {"json", "diverse.json", asJSON(b, data)}} {
			b.Run(fmt.Sprintf("pods=%d/%s", n, format.name), func(b *testing.B) {
				b.SetBytes(int64(len(format.data)))
				b.ReportAllocs()
				for b.Loop() {
					bundle, err := manifest.Parse(format.data, format.file)
					if err != nil {
						b.Fatal(err)
					}
					if len(bundle.Pods) != n {
						b.Fatalf("%d pods, want %d", len(bundle.Pods), n)
					}
				}
			})
		}
	}
}
