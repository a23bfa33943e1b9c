package app

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// appendNodeClaim appends nc's JSON, the bytes encoding/json marshals, or reports false for
// what it leaves to encoding/json: a price that is not a finite number (an error there) and a
// taint's timeAdded. A large plan is mostly new nodes, and reflecting over each one (sorting
// its label map through reflect values) was most of the time spent writing it.
func appendNodeClaim(b []byte, nc *scheduling.NodeClaim) ([]byte, bool) {
	if math.IsInf(nc.Price, 0) || math.IsNaN(nc.Price) {
		return b, false
	}
	for _, list := range [][]corev1.Taint{nc.Taints, nc.StartupTaints} {
		for _, t := range list {
			if t.TimeAdded != nil {
				return b, false
			}
		}
	}
	b = append(b, `{"name":`...)
	b = appendJSONString(b, nc.Name)
	b = append(b, `,"nodePool":`...)
	b = appendJSONString(b, nc.NodePool)
	b = append(b, `,"instanceType":`...)
	b = appendJSONString(b, nc.InstanceType)
	b = append(b, `,"zone":`...)
	b = appendJSONString(b, nc.Zone)
	b = append(b, `,"capacityType":`...)
	b = appendJSONString(b, nc.CapacityType)
	b = append(b, `,"price":`...)
	b = appendJSONFloat(b, nc.Price)
	b = append(b, `,"instanceTypeOptions":`...)
	b = appendJSONStrings(b, nc.InstanceTypeOptions)
	b = append(b, `,"labels":`...)
	b = appendJSONLabels(b, nc.Labels)
	b = append(b, `,"taints":`...)
	b = appendJSONTaints(b, nc.Taints)
	if len(nc.StartupTaints) > 0 {
		b = append(b, `,"startupTaints":`...)
		b = appendJSONTaints(b, nc.StartupTaints)
	}
	b = append(b, `,"capacity":`...)
	b = appendJSONResources(b, nc.Capacity)
	b = append(b, `,"allocatable":`...)
	b = appendJSONResources(b, nc.Allocatable)
	b = append(b, `,"pods":`...)
	b = appendJSONStrings(b, nc.Pods)
	if len(nc.Notes) > 0 {
		b = append(b, `,"notes":`...)
		b = appendJSONStrings(b, nc.Notes)
	}
	return append(b, '}'), true
}

// appendJSONString appends s as encoding/json quotes it (HTML characters, control characters,
// invalid UTF-8 and U+2028/U+2029 escaped). Plain printable ASCII, all a plan's names and
// labels usually hold, is copied; anything else goes through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plainJSON[s[i]] {
			quoted, _ := json.Marshal(s) // a string always marshals
			return append(b, quoted...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON marks the bytes encoding/json copies into a string as they are: printable ASCII
// but for the quote, the backslash and the HTML characters it escapes.
var plainJSON = func() (plain [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		plain[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return plain
}()

// appendJSONFloat appends a finite f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONStrings appends a string list; nil is null.
func appendJSONStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONLabels appends a string map, keys sorted; nil is null.
func appendJSONLabels(b []byte, labels map[string]string) []byte {
	if labels == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSONString(b, labels[k])
	}
	return append(b, '}')
}

// appendJSONTaints appends taints without timeAdded; nil is null.
func appendJSONTaints(b []byte, taints []corev1.Taint) []byte {
	if taints == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, t := range taints {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendJSONString(b, t.Key)
		if t.Value != "" {
			b = append(b, `,"value":`...)
			b = appendJSONString(b, t.Value)
		}
		b = append(b, `,"effect":`...)
		b = appendJSONString(b, string(t.Effect))
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONResources appends a resource list, names sorted, each quantity as its own
// MarshalJSON writes it; nil is null.
func appendJSONResources(b []byte, list corev1.ResourceList) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, string(name))
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, name)
		b = append(b, ':')
		q := list[corev1.ResourceName(name)]
		data, _ := q.MarshalJSON() // never fails
		b = append(b, data...)
	}
	return append(b, '}')
}
