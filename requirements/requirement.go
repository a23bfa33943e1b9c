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
// not validate: use Validate for user input. Gt/Lt/Gte/Lte values that are not integers make
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
		n, err := strconv.ParseInt(values[0], 10, 64)
		if err != nil {
			return &Requirement{Key: r.Key}
		}
		r.complement = true
		switch op {
		case corev1.NodeSelectorOpGt:
			r.hasGT, r.gt = true, n
		case OpGte:
			r.hasGT, r.gt = true, n-1
		case corev1.NodeSelectorOpLt:
			r.hasLT, r.lt = true, n
		case OpLte:
			r.hasLT, r.lt = true, n+1
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

// Len is the number of values the requirement allows; math.MaxInt for open sets.
func (r *Requirement) Len() int {
	if r.complement {
		if r.hasGT && r.hasLT {
			n := r.lt - r.gt - 1
			for _, v := range r.values {
				if r.withinBounds(v) {
					n--
				}
			}
			if n < 0 {
				return 0
			}
			return int(n)
		}
		return math.MaxInt - len(r.values)
	}
	return len(r.values)
}

// Has reports whether value is allowed.
func (r *Requirement) Has(value string) bool {
	if !r.withinBounds(value) {
		return false
	}
	i := sort.SearchStrings(r.values, value)
	found := i < len(r.values) && r.values[i] == value
	return found != r.complement
}

// Any returns one allowed value of a finite requirement (the smallest), for labelling a node.
func (r *Requirement) Any() (string, bool) {
	if r.complement || len(r.values) == 0 {
		return "", false
	}
	return r.values[0], true
}

func (r *Requirement) withinBounds(value string) bool {
	if !r.hasGT && !r.hasLT {
		return true
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return false
	}
	return (!r.hasGT || n > r.gt) && (!r.hasLT || n < r.lt)
}

// Intersection returns the values both requirements allow. The larger minValues wins; an empty
// result is DoesNotExist.
func (r *Requirement) Intersection(other *Requirement) *Requirement {
	out := &Requirement{Key: r.Key, complement: r.complement && other.complement}
	out.hasGT, out.gt = r.hasGT, r.gt
	if other.hasGT && (!out.hasGT || other.gt > out.gt) {
		out.hasGT, out.gt = true, other.gt
	}
	out.hasLT, out.lt = r.hasLT, r.lt
	if other.hasLT && (!out.hasLT || other.lt < out.lt) {
		out.hasLT, out.lt = true, other.lt
	}
	out.MinValues = maxMinValues(r.MinValues, other.MinValues)
	if out.hasGT && out.hasLT && out.gt+1 >= out.lt {
		return &Requirement{Key: r.Key, MinValues: out.MinValues}
	}
	switch {
	case r.complement && other.complement:
		out.values = unionSorted(r.values, other.values)
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
	}
	return out
}

func (r *Requirement) hasValue(v string) bool {
	i := sort.SearchStrings(r.values, v)
	return i < len(r.values) && r.values[i] == v
}

// Intersects reports whether some value satisfies both requirements, without allocating.
func (r *Requirement) Intersects(other *Requirement) bool {
	hasGT, gt := r.hasGT, r.gt
	if other.hasGT && (!hasGT || other.gt > gt) {
		hasGT, gt = true, other.gt
	}
	hasLT, lt := r.hasLT, r.lt
	if other.hasLT && (!hasLT || other.lt < lt) {
		hasLT, lt = true, other.lt
	}
	if hasGT && hasLT && gt+1 >= lt {
		return false
	}
	inBounds := func(v string) bool {
		if !hasGT && !hasLT {
			return true
		}
		n, err := strconv.ParseInt(v, 10, 64)
		return err == nil && (!hasGT || n > gt) && (!hasLT || n < lt)
	}
	switch {
	case r.complement && other.complement:
		if !hasGT || !hasLT {
			return true
		}
		// A closed integer range minus excluded values: count what is left.
		left := lt - gt - 1
		for _, v := range r.values {
			if inBounds(v) {
				left--
			}
		}
		for _, v := range other.values {
			if inBounds(v) && !r.hasValue(v) {
				left--
			}
		}
		return left > 0
	case r.complement:
		for _, v := range other.values {
			if !r.hasValue(v) && inBounds(v) {
				return true
			}
		}
		return false
	case other.complement:
		for _, v := range r.values {
			if !other.hasValue(v) && inBounds(v) {
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
				if inBounds(r.values[i]) {
					return true
				}
				i++
				j++
			}
		}
		return false
	}
}

// isNegative reports whether the requirement only says what a node must not carry (NotIn,
// DoesNotExist); two such requirements agree even when their intersection is empty, since a
// node without the label satisfies both.
func (r *Requirement) isNegative() bool {
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
