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
// its label map through reflect values) was most of the time spent writing it. With
// indent set, nc is written as json.MarshalIndent writes it (two spaces an indent), as an
// element depth levels deep, without the line break and indentation before it: indenting the
// compact JSON again took longer than writing it.
func appendNodeClaim(b []byte, nc *scheduling.NodeClaim, indent bool, depth int) ([]byte, bool) {
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
	o := jsonAppender{b: b, indent: indent, depth: depth}
	o.open('{')
	o.key("name")
	o.string(nc.Name)
	o.key("nodePool")
	o.string(nc.NodePool)
	o.key("instanceType")
	o.string(nc.InstanceType)
	o.key("zone")
	o.string(nc.Zone)
	o.key("capacityType")
	o.string(nc.CapacityType)
	o.key("price")
	o.b = appendJSONFloat(o.b, nc.Price)
	o.key("instanceTypeOptions")
	o.strings(nc.InstanceTypeOptions)
	o.key("labels")
	o.labels(nc.Labels)
	o.key("taints")
	o.taints(nc.Taints)
	if len(nc.StartupTaints) > 0 {
		o.key("startupTaints")
		o.taints(nc.StartupTaints)
	}
	o.key("capacity")
	o.resources(nc.Capacity)
	o.key("allocatable")
	o.resources(nc.Allocatable)
	o.key("pods")
	o.strings(nc.Pods)
	if len(nc.Notes) > 0 {
		o.key("notes")
		o.strings(nc.Notes)
	}
	o.close('}')
	return o.b, true
}

// jsonAppender appends JSON as json.Marshal writes it or, with indent, as json.MarshalIndent
// does with no prefix and two spaces: a line per member or element, "key": value, and empty
// objects and lists kept as {} and [].
type jsonAppender struct {
	b      []byte
	indent bool
	depth  int
	// empty is set while the innermost open object or list has no member yet.
	empty bool
}

func (o *jsonAppender) open(c byte) {
	o.b = append(o.b, c)
	o.depth++
	o.empty = true
}

func (o *jsonAppender) close(c byte) {
	o.depth--
	if !o.empty {
		o.newline()
	}
	o.b = append(o.b, c)
	o.empty = false // the object or list just closed is a member of the one around it
}

// item starts a member or element.
func (o *jsonAppender) item() {
	if !o.empty {
		o.b = append(o.b, ',')
	}
	o.empty = false
	o.newline()
}

func (o *jsonAppender) newline() {
	if o.indent {
		o.b = append(o.b, newline(o.depth)...)
	}
}

func (o *jsonAppender) key(k string) {
	o.item()
	o.b = appendJSONString(o.b, k)
	if o.indent {
		o.b = append(o.b, ": "...)
	} else {
		o.b = append(o.b, ':')
	}
}

func (o *jsonAppender) string(s string) { o.b = appendJSONString(o.b, s) }

// strings appends a string list; nil is null.
func (o *jsonAppender) strings(list []string) {
	if list == nil {
		o.b = append(o.b, "null"...)
		return
	}
	o.open('[')
	for _, s := range list {
		o.item()
		o.string(s)
	}
	o.close(']')
}

// labels appends a string map, keys sorted; nil is null.
func (o *jsonAppender) labels(labels map[string]string) {
	if labels == nil {
		o.b = append(o.b, "null"...)
		return
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o.open('{')
	for _, k := range keys {
		o.key(k)
		o.string(labels[k])
	}
	o.close('}')
}

// taints appends taints without timeAdded; nil is null.
func (o *jsonAppender) taints(taints []corev1.Taint) {
	if taints == nil {
		o.b = append(o.b, "null"...)
		return
	}
	o.open('[')
	for _, t := range taints {
		o.item()
		o.open('{')
		o.key("key")
		o.string(t.Key)
		if t.Value != "" {
			o.key("value")
			o.string(t.Value)
		}
		o.key("effect")
		o.string(string(t.Effect))
		o.close('}')
	}
	o.close(']')
}

// resources appends a resource list, names sorted, each quantity as its own MarshalJSON
// writes it; nil is null.
func (o *jsonAppender) resources(list corev1.ResourceList) {
	if list == nil {
		o.b = append(o.b, "null"...)
		return
	}
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, string(name))
	}
	slices.Sort(names)
	o.open('{')
	for _, name := range names {
		o.key(name)
		q := list[corev1.ResourceName(name)]
		data, _ := q.MarshalJSON() // never fails
		o.b = append(o.b, data...)
	}
	o.close('}')
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
