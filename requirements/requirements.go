package requirements

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Requirements is a conjunction of requirements, at most one per label key. The zero value
// (nil) allows everything; Add on a nil set is not allowed, use make or NewRequirements.
type Requirements map[string]*Requirement

// NewRequirements returns the conjunction of reqs; requirements on the same key intersect.
func NewRequirements(reqs ...*Requirement) Requirements {
	out := make(Requirements, len(reqs))
	out.Add(reqs...)
	return out
}

// FromLabels returns one In requirement per label, as a node's labels pin its values.
func FromLabels(labels map[string]string) Requirements {
	out := make(Requirements, len(labels))
	for k, v := range labels {
		out.Add(New(k, corev1.NodeSelectorOpIn, v))
	}
	return out
}

// FromNodeSelectorRequirements converts Kubernetes node selector requirements (as in a
// NodePool's spec.requirements or one nodeSelectorTerm's matchExpressions).
func FromNodeSelectorRequirements(reqs ...corev1.NodeSelectorRequirement) Requirements {
	out := make(Requirements, len(reqs))
	for _, r := range reqs {
		out.Add(New(r.Key, r.Operator, r.Values...))
	}
	return out
}

// Add intersects each requirement into the set.
func (rs Requirements) Add(reqs ...*Requirement) {
	for _, r := range reqs {
		if existing, ok := rs[r.Key]; ok {
			r = existing.Intersection(r)
		}
		rs[r.Key] = r
	}
}

// AddAll intersects every requirement of other into the set.
func (rs Requirements) AddAll(other Requirements) {
	for _, k := range other.Keys() {
		rs.Add(other[k])
	}
}

// Equal reports whether two requirement sets have the same canonical form (String); go-cmp
// compares Requirements with it.
func (rs Requirements) Equal(other Requirements) bool { return rs.String() == other.String() }

// Copy returns a set that can be narrowed without changing rs (requirements are immutable and
// shared).
func (rs Requirements) Copy() Requirements {
	out := make(Requirements, len(rs))
	for k, r := range rs {
		out[k] = r
	}
	return out
}

// Get returns the requirement on key, if any.
func (rs Requirements) Get(key string) (*Requirement, bool) {
	r, ok := rs[key]
	return r, ok
}

// Has reports whether the set constrains key.
func (rs Requirements) Has(key string) bool {
	_, ok := rs[key]
	return ok
}

// Keys returns the constrained keys, sorted.
func (rs Requirements) Keys() []string {
	keys := make([]string, 0, len(rs))
	for k := range rs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Conflict returns the first key (in no particular order) on which the two sets allow no
// common value, or "" when they intersect. It does not allocate; Intersects wraps it with a
// message.
func (rs Requirements) Conflict(other Requirements) string {
	small, large := rs, other
	if len(small) > len(large) {
		small, large = large, small
	}
	for key, a := range small {
		if b, ok := large[key]; ok && !a.Agrees(b) {
			return key
		}
	}
	return ""
}

// Intersects returns nil when some node could satisfy both sets on every key they share, or
// an error naming the first conflicting key (sorted order).
func (rs Requirements) Intersects(other Requirements) error {
	if rs.Conflict(other) == "" {
		return nil
	}
	for _, key := range rs.Keys() {
		b, ok := other[key]
		if !ok {
			continue
		}
		a := rs[key]
		if a.Agrees(b) {
			continue
		}
		return &ConflictError{Key: key, Have: a.String(), Want: b.String()}
	}
	return nil
}

// ConflictError says which key two requirement sets disagree on.
type ConflictError struct {
	Key        string
	Have, Want string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s does not allow %s", e.Have, e.Want)
}

// UndefinedError says that a requirement names a label the receiving side never sets.
type UndefinedError struct {
	Key  string
	Hint string // a defined key with a similar name, if any
}

func (e *UndefinedError) Error() string {
	msg := fmt.Sprintf("label %q is not defined by the nodepool (add it to the NodePool's labels or requirements)", e.Key)
	if e.Hint != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.Hint)
	}
	return msg
}

// Compatible reports whether a node described by rs can satisfy other (typically a pod's
// requirements): they must intersect, and every key other requires to exist must be defined
// by rs unless allowUndefined accepts it (well-known labels come from instance types).
// allowUndefined may be nil, meaning IsWellKnown.
func (rs Requirements) Compatible(other Requirements, allowUndefined func(string) bool) error {
	if allowUndefined == nil {
		allowUndefined = IsWellKnown
	}
	if key := rs.undefined(other, allowUndefined); key != "" {
		return &UndefinedError{Key: key, Hint: closestKey(key, append(rs.Keys(), WellKnownKeys()...))}
	}
	return rs.Intersects(other)
}

// IsCompatible is Compatible without building an error, for hot paths.
func (rs Requirements) IsCompatible(other Requirements, allowUndefined func(string) bool) bool {
	if allowUndefined == nil {
		allowUndefined = IsWellKnown
	}
	return rs.undefined(other, allowUndefined) == "" && rs.Conflict(other) == ""
}

func (rs Requirements) undefined(other Requirements, allowUndefined func(string) bool) string {
	first := ""
	for key, r := range other {
		if _, ok := rs[key]; ok || r.isNegative() || allowUndefined(key) {
			continue
		}
		if first == "" || key < first {
			first = key
		}
	}
	return first
}

// Matches reports whether a node with these labels satisfies every requirement.
func (rs Requirements) Matches(labels map[string]string) bool {
	for key, r := range rs {
		if !r.matchesLabel(labels, key) {
			return false
		}
	}
	return true
}

// matchesLabel reports whether a node with these labels satisfies r, held under key.
func (r *Requirement) matchesLabel(labels map[string]string, key string) bool {
	v, ok := labels[key]
	if !ok {
		switch {
		case r.complement && !r.hasGT && !r.hasLT && len(r.values) == 0:
			return false // Exists
		case !r.complement && len(r.values) > 0:
			return false // In
		case r.hasGT || r.hasLT:
			return false
		}
		return true
	}
	return r.Has(v)
}

// Flat is a set of requirements as a list sorted by key, for a caller that matches one set
// against the labels of many nodes: ranging over a list costs less than starting to range
// over a map, which a small set's match is mostly made of.
type Flat []flatEntry

type flatEntry struct {
	key string
	r   *Requirement
}

// Flat returns the set as a list.
func (rs Requirements) Flat() Flat {
	out := make(Flat, 0, len(rs))
	for _, k := range rs.Keys() {
		out = append(out, flatEntry{key: k, r: rs[k]})
	}
	return out
}

// Matches reports whether a node with these labels satisfies every requirement, as the set's
// Matches does.
func (f Flat) Matches(labels map[string]string) bool {
	for _, e := range f {
		if !e.r.matchesLabel(labels, e.key) {
			return false
		}
	}
	return true
}

// Labels returns the labels a node must carry: every key whose requirement allows exactly one
// value.
func (rs Requirements) Labels() map[string]string {
	out := map[string]string{}
	for k, r := range rs {
		if !r.complement && len(r.values) == 1 {
			out[k] = r.values[0]
		}
	}
	return out
}

// NodeSelectorRequirements converts the set back to Kubernetes form, sorted by key.
func (rs Requirements) NodeSelectorRequirements() []corev1.NodeSelectorRequirement {
	var out []corev1.NodeSelectorRequirement
	for _, k := range rs.Keys() {
		out = append(out, rs[k].NodeSelectorRequirements()...)
	}
	return out
}

// String renders the set deterministically, keys sorted.
func (rs Requirements) String() string {
	parts := make([]string, 0, len(rs))
	for _, k := range rs.Keys() {
		parts = append(parts, rs[k].String())
	}
	return strings.Join(parts, ", ")
}
