package requirements

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Operators beyond corev1's: NodePools accept inclusive integer bounds.
const (
	OpGte corev1.NodeSelectorOperator = "Gte"
	OpLte corev1.NodeSelectorOperator = "Lte"
)

// Requirement is the set of values one label key may take. It is either a finite set of
// allowed values (In, DoesNotExist) or the complement of a finite set (NotIn, Exists), further
// narrowed by exclusive integer bounds (Gt, Lt; Gte and Lte are stored as Gt n-1 and Lt n+1).
//
// A Requirement is immutable once built; every operation returns a new value.
type Requirement struct {
	Key string
	// MinValues is the least number of distinct values this key must keep among a node's
	// instance-type options (Karpenter's minValues); nil when unset.
	MinValues *int

	complement bool
	values     []string // sorted, unique
	hasGT      bool
	gt         int64
	hasLT      bool
	lt         int64
}

// New builds a requirement for key (normalised) with a Kubernetes or NodePool operator. It does
// not validate: check user input with ValidateNodeSelectorRequirement or
// ValidateNodePoolRequirement first. Gt/Lt/Gte/Lte values that are not integers make
// the requirement empty.
func New(key string, op corev1.NodeSelectorOperator, values ...string) *Requirement {
	r := &Requirement{Key: NormalizeKey(key)}
	switch op {
	case corev1.NodeSelectorOpIn:
		r.values = sortedUnique(values)
	case corev1.NodeSelectorOpNotIn:
		r.complement = true
		r.values = sortedUnique(values)
	case corev1.NodeSelectorOpExists:
		r.complement = true
	case corev1.NodeSelectorOpDoesNotExist:
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, OpGte, OpLte:
		if len(values) != 1 {
			return &Requirement{Key: r.Key}
		}
		n, _, ok := parseInt(values[0])
		if !ok {
			return &Requirement{Key: r.Key}
		}
		r.complement = true
		// Gte and Lte become exclusive bounds. At the very ends of int64 the exclusive bound
		// is not representable; those clamp to Gt/Lt of the end value, leaving out that one
		// value rather than wrapping around to an empty range.
		switch op {
		case corev1.NodeSelectorOpGt:
			r.hasGT, r.gt = true, n
		case OpGte:
			r.hasGT, r.gt = true, max(n, math.MinInt64+1)-1
		case corev1.NodeSelectorOpLt:
			r.hasLT, r.lt = true, n
		case OpLte:
			r.hasLT, r.lt = true, min(n, math.MaxInt64-1)+1
		}
	default:
		return &Requirement{Key: r.Key}
	}
	return r
}

// NewWithMinValues is New with a minValues bound.
func NewWithMinValues(key string, op corev1.NodeSelectorOperator, minValues *int, values ...string) *Requirement {
	r := New(key, op, values...)
	if minValues != nil {
		m := *minValues
		r.MinValues = &m
	}
	return r
}

func sortedUnique(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	out := make([]string, len(values))
	copy(out, values)
	sort.Strings(out)
	n := 1
	for i := 1; i < len(out); i++ {
		if out[i] != out[n-1] {
			out[n] = out[i]
			n++
		}
	}
	return out[:n]
}

// Operator returns the operator that best describes the requirement. A requirement with both
// a lower and an upper bound reports Gt; NodeSelectorRequirements lists all of its parts.
func (r *Requirement) Operator() corev1.NodeSelectorOperator {
	if !r.complement {
		if len(r.values) > 0 {
			return corev1.NodeSelectorOpIn
		}
		return corev1.NodeSelectorOpDoesNotExist
	}
	switch {
	case len(r.values) > 0:
		return corev1.NodeSelectorOpNotIn
	case r.hasGT:
		return corev1.NodeSelectorOpGt
	case r.hasLT:
		return corev1.NodeSelectorOpLt
	}
	return corev1.NodeSelectorOpExists
}

// Values returns the allowed values of an In requirement, or the excluded values of a NotIn
// one. The slice is shared: do not modify it.
func (r *Requirement) Values() []string { return r.values }

// IsComplement reports whether the requirement allows every value except a finite set.
func (r *Requirement) IsComplement() bool { return r.complement }

// Len is the number of values the requirement allows; math.MaxInt for open sets, less the
// excluded values. A range bounded on both sides counts its integers written as
// strconv.FormatInt writes them, so "Gt 3 Lt 5" has length 1.
func (r *Requirement) Len() int {
	if !r.complement {
		return len(r.values)
	}
	if !r.hasGT || !r.hasLT {
		return math.MaxInt - len(r.values)
	}
	n := integersLeft(r.gt, r.lt, r.values, nil)
	if n > math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}

// Has reports whether value is allowed.
func (r *Requirement) Has(value string) bool {
	if !r.withinBounds(value) {
		return false
	}
	return r.hasValue(value) != r.complement
}

// Any returns one allowed value of a finite requirement (the smallest), for labelling a node.
func (r *Requirement) Any() (string, bool) {
	if r.complement || len(r.values) == 0 {
		return "", false
	}
	return r.values[0], true
}

func (r *Requirement) withinBounds(value string) bool {
	return inRange(value, r.hasGT, r.gt, r.hasLT, r.lt)
}

// inRange reports whether value is an integer within the exclusive bounds that are set; any
// value is when none is.
func inRange(value string, hasGT bool, gt int64, hasLT bool, lt int64) bool {
	if !hasGT && !hasLT {
		return true
	}
	n, _, ok := parseInt(value)
	return ok && (!hasGT || n > gt) && (!hasLT || n < lt)
}

// boundsEmpty reports whether no integer n has gt < n < lt.
func boundsEmpty(gt, lt int64) bool {
	// When gt < lt the true difference is at least 1, and it wraps to 1 only when it is 1.
	return gt >= lt || lt-gt == 1
}

// integersLeft counts the integers strictly between gt and lt (a non-empty range) that
// neither excluded list names. Only canonically written exclusions count: excluding "05"
// leaves "5" allowed.
func integersLeft(gt, lt int64, excluded, moreExcluded []string) uint64 {
	if boundsEmpty(gt, lt) {
		return 0
	}
	// Exact in uint64: the true count is between 1 and 2^64-2.
	left := uint64(lt) - uint64(gt) - 1
	inside := func(v string) bool {
		n, canonical, ok := parseInt(v)
		return ok && canonical && n > gt && n < lt
	}
	for _, v := range excluded {
		if inside(v) {
			left--
		}
	}
	for _, v := range moreExcluded {
		if inside(v) && !containsSorted(excluded, v) {
			left--
		}
	}
	return left
}

// parseInt reads a base-10 int64 exactly as strconv.ParseInt(v, 10, 64) does (which is how
// kube-scheduler reads a label for Gt and Lt), without allocating an error. canonical
// reports whether v is written as strconv.FormatInt would write n: no '+', no leading zeros,
// no "-0".
func parseInt(v string) (n int64, canonical, ok bool) {
	s, neg := v, false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false, false
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false, false
		}
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, false, false
		}
		u = u*10 + d
	}
	canonical = v[0] != '+' && (s[0] != '0' || (s == "0" && !neg))
	if neg {
		return -int64(u), canonical, true
	}
	return int64(u), canonical, true
}

func containsSorted(values []string, v string) bool {
	i := sort.SearchStrings(values, v)
	return i < len(values) && values[i] == v
}

// mergedBounds returns the tighter of the two requirements' bounds.
func mergedBounds(a, b *Requirement) (hasGT bool, gt int64, hasLT bool, lt int64) {
	hasGT, gt = a.hasGT, a.gt
	if b.hasGT && (!hasGT || b.gt > gt) {
		hasGT, gt = true, b.gt
	}
	hasLT, lt = a.hasLT, a.lt
	if b.hasLT && (!hasLT || b.lt < lt) {
		hasLT, lt = true, b.lt
	}
	return hasGT, gt, hasLT, lt
}

// Intersection returns the values both requirements allow. The larger minValues wins; an empty
// result is DoesNotExist.
func (r *Requirement) Intersection(other *Requirement) *Requirement {
	out := &Requirement{Key: r.Key, complement: r.complement && other.complement}
	out.hasGT, out.gt, out.hasLT, out.lt = mergedBounds(r, other)
	out.MinValues = maxMinValues(r.MinValues, other.MinValues)
	if out.hasGT && out.hasLT && boundsEmpty(out.gt, out.lt) {
		return &Requirement{Key: r.Key, MinValues: out.MinValues}
	}
	switch {
	case r.complement && other.complement:
		out.values = unionSorted(r.values, other.values)
		if out.hasGT || out.hasLT {
			// Excluding a value the bounds rule out anyway says nothing; dropping it keeps
			// "NotIn [a] Gt 3" the plain "Gt 3" it means.
			out.values = filterSorted(out.values, out.withinBounds)
			if out.hasGT && out.hasLT && integersLeft(out.gt, out.lt, out.values, nil) == 0 {
				return &Requirement{Key: r.Key, MinValues: out.MinValues}
			}
		}
	case r.complement:
		out.values = filterSorted(other.values, func(v string) bool { return !r.hasValue(v) && out.withinBounds(v) })
	case other.complement:
		out.values = filterSorted(r.values, func(v string) bool { return !other.hasValue(v) && out.withinBounds(v) })
	default:
		out.values = filterSorted(r.values, func(v string) bool { return other.hasValue(v) && out.withinBounds(v) })
	}
	if !out.complement {
		// A finite set carries its bounds in its values already.
		out.hasGT, out.hasLT = false, false
		out.gt, out.lt = 0, 0
	}
	return out
}

func (r *Requirement) hasValue(v string) bool { return containsSorted(r.values, v) }

// Intersects reports whether some value satisfies both requirements, without allocating. It
// agrees with Intersection(other).Len() > 0.
func (r *Requirement) Intersects(other *Requirement) bool {
	hasGT, gt, hasLT, lt := mergedBounds(r, other)
	if hasGT && hasLT && boundsEmpty(gt, lt) {
		return false
	}
	switch {
	case r.complement && other.complement:
		if !hasGT || !hasLT {
			return true
		}
		// A closed integer range minus excluded values: count what is left.
		return integersLeft(gt, lt, r.values, other.values) > 0
	case r.complement:
		for _, v := range other.values {
			if !r.hasValue(v) && inRange(v, hasGT, gt, hasLT, lt) {
				return true
			}
		}
		return false
	case other.complement:
		for _, v := range r.values {
			if !other.hasValue(v) && inRange(v, hasGT, gt, hasLT, lt) {
				return true
			}
		}
		return false
	default:
		i, j := 0, 0
		for i < len(r.values) && j < len(other.values) {
			switch {
			case r.values[i] < other.values[j]:
				i++
			case r.values[i] > other.values[j]:
				j++
			default:
				if inRange(r.values[i], hasGT, gt, hasLT, lt) {
					return true
				}
				i++
				j++
			}
		}
		return false
	}
}

// Agrees reports whether a node can satisfy both requirements on their key: some value meets
// both, or both only exclude (a node without the label satisfies them). Requirements.Conflict
// is Agrees on every shared key; callers that index requirements by key use it directly.
func (r *Requirement) Agrees(other *Requirement) bool {
	return r.Intersects(other) || (r.isNegative() && other.isNegative())
}

// isNegative reports whether the requirement only says what a node must not carry (NotIn,
// DoesNotExist); two such requirements agree even when their intersection is empty, since a
// node without the label satisfies both. A bounded requirement is never negative: Gt and Lt
// need the label to be there.
func (r *Requirement) isNegative() bool {
	if r.hasGT || r.hasLT {
		return false
	}
	op := r.Operator()
	return op == corev1.NodeSelectorOpNotIn || op == corev1.NodeSelectorOpDoesNotExist
}

func maxMinValues(a, b *int) *int {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case *a >= *b:
		return a
	}
	return b
}

func unionSorted(a, b []string) []string {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func filterSorted(values []string, keep func(string) bool) []string {
	n := 0
	for _, v := range values {
		if keep(v) {
			n++
		}
	}
	if n == len(values) {
		return values
	}
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for _, v := range values {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// NodeSelectorRequirements renders the requirement as Kubernetes node selector requirements
// (two for a bounded range).
func (r *Requirement) NodeSelectorRequirements() []corev1.NodeSelectorRequirement {
	var out []corev1.NodeSelectorRequirement
	if !r.complement {
		if len(r.values) == 0 {
			return []corev1.NodeSelectorRequirement{{Key: r.Key, Operator: corev1.NodeSelectorOpDoesNotExist}}
		}
		return []corev1.NodeSelectorRequirement{{Key: r.Key, Operator: corev1.NodeSelectorOpIn, Values: append([]string(nil), r.values...)}}
	}
	if len(r.values) > 0 {
		out = append(out, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOpNotIn, Values: append([]string(nil), r.values...)})
	}
	if r.hasGT {
		out = append(out, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOpGt, Values: []string{strconv.FormatInt(r.gt, 10)}})
	}
	if r.hasLT {
		out = append(out, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOpLt, Values: []string{strconv.FormatInt(r.lt, 10)}})
	}
	if len(out) == 0 {
		out = append(out, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOpExists})
	}
	return out
}

// String renders the requirement like "key In [a b]", bounds as "key Gt 3 Lt 9".
func (r *Requirement) String() string {
	var b strings.Builder
	b.WriteString(r.Key)
	switch op := r.Operator(); op {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		fmt.Fprintf(&b, " %s [%s]", op, strings.Join(r.values, " "))
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		fmt.Fprintf(&b, " %s", op)
	}
	if r.complement {
		if r.hasGT {
			fmt.Fprintf(&b, " Gt %d", r.gt)
		}
		if r.hasLT {
			fmt.Fprintf(&b, " Lt %d", r.lt)
		}
	}
	if r.MinValues != nil {
		fmt.Fprintf(&b, " minValues %d", *r.MinValues)
	}
	return b.String()
}

// AppendString appends r.String() to b. The usual requirements, a set of values or
// DoesNotExist without minValues, are written without String's formatting work: solvers key
// caches by them for every instance type and every new node.
func (r *Requirement) AppendString(b []byte) []byte {
	if r.complement || r.MinValues != nil {
		return append(b, r.String()...)
	}
	b = append(b, r.Key...)
	if len(r.values) == 0 {
		return append(b, " DoesNotExist"...)
	}
	b = append(b, " In ["...)
	for i, v := range r.values {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

// ExistenceValue returns a value for a key the requirement needs on a node without naming one
// (Exists, Gt, Lt): the smallest non-negative integer it allows, where Karpenter would pick a
// random one. It returns false when a node may go without the key, or no small integer is
// allowed.
func (r *Requirement) ExistenceValue() (string, bool) {
	if (Requirements{r.Key: r}).Matches(nil) {
		return "", false // the node may go without the label
	}
	start := int64(0)
	for _, nsr := range r.NodeSelectorRequirements() {
		if nsr.Operator != corev1.NodeSelectorOpGt || len(nsr.Values) != 1 {
			continue
		}
		if n, err := strconv.ParseInt(nsr.Values[0], 10, 64); err == nil && n >= start && n < math.MaxInt64 {
			start = n + 1
		}
	}
	for i := start; i < start+1000 && i >= 0; i++ {
		if v := strconv.FormatInt(i, 10); r.Has(v) {
			return v, true
		}
	}
	return "", false
}
