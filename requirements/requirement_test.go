package requirements

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// Short names for the operators, so that a table row reads like the requirement it builds.
const (
	opIn           = corev1.NodeSelectorOpIn
	opNotIn        = corev1.NodeSelectorOpNotIn
	opExists       = corev1.NodeSelectorOpExists
	opDoesNotExist = corev1.NodeSelectorOpDoesNotExist
	opGt           = corev1.NodeSelectorOpGt
	opLt           = corev1.NodeSelectorOpLt
)

var allOperators = []corev1.NodeSelectorOperator{opIn, opNotIn, opExists, opDoesNotExist, opGt, opLt, OpGte, OpLte}

// k builds a requirement on the test key "k".
func k(op corev1.NodeSelectorOperator, values ...string) *Requirement { return New("k", op, values...) }

func intPtr(n int) *int { return &n }

// probes are label values that exercise every case: integers inside and outside the bounds
// used in the tests, non-canonical integers, and plain strings.
var probes = []string{"-1", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "05", "+5", "a", "b", "c", ""}

// requireSameValues checks that got allows exactly the probe values both a and b allow.
func requireSameValues(t *testing.T, got, a, b *Requirement) {
	t.Helper()
	for _, v := range probes {
		require.Equal(t, a.Has(v) && b.Has(v), got.Has(v), "%s ∩ %s = %s: Has(%q)", a, b, got, v)
	}
}

func TestIntersectionOfEveryOperatorPair(t *testing.T) {
	// The left and right operand of each operator. Gte and Lte are stored as exclusive
	// bounds, so Gte 5 reads "Gt 4" and Lte 5 reads "Lt 6".
	left := map[corev1.NodeSelectorOperator]*Requirement{
		opIn:           k(opIn, "1", "5", "a"),
		opNotIn:        k(opNotIn, "5", "b"),
		opExists:       k(opExists),
		opDoesNotExist: k(opDoesNotExist),
		opGt:           k(opGt, "2"),
		opLt:           k(opLt, "7"),
		OpGte:          k(OpGte, "5"),
		OpLte:          k(OpLte, "5"),
	}
	right := map[corev1.NodeSelectorOperator]*Requirement{
		opIn:           k(opIn, "5", "9", "a"),
		opNotIn:        k(opNotIn, "1", "c"),
		opExists:       k(opExists),
		opDoesNotExist: k(opDoesNotExist),
		opGt:           k(opGt, "4"),
		opLt:           k(opLt, "9"),
		OpGte:          k(OpGte, "6"),
		OpLte:          k(OpLte, "1"),
	}
	// want is the intersection's String without the key; its first word is the operator.
	tests := []struct {
		left, right corev1.NodeSelectorOperator
		want        string
	}{
		// In [1 5 a] ∩ …
		{opIn, opIn, "In [5 a]"},
		{opIn, opNotIn, "In [5 a]"},
		{opIn, opExists, "In [1 5 a]"},
		{opIn, opDoesNotExist, "DoesNotExist"},
		{opIn, opGt, "In [5]"},
		{opIn, opLt, "In [1 5]"},
		{opIn, OpGte, "DoesNotExist"},
		{opIn, OpLte, "In [1]"},
		// NotIn [5 b] ∩ … (excluded values the bounds rule out anyway are dropped)
		{opNotIn, opIn, "In [9 a]"},
		{opNotIn, opNotIn, "NotIn [1 5 b c]"},
		{opNotIn, opExists, "NotIn [5 b]"},
		{opNotIn, opDoesNotExist, "DoesNotExist"},
		{opNotIn, opGt, "NotIn [5] Gt 4"},
		{opNotIn, opLt, "NotIn [5] Lt 9"},
		{opNotIn, OpGte, "Gt 5"},
		{opNotIn, OpLte, "Lt 2"},
		// Exists ∩ …
		{opExists, opIn, "In [5 9 a]"},
		{opExists, opNotIn, "NotIn [1 c]"},
		{opExists, opExists, "Exists"},
		{opExists, opDoesNotExist, "DoesNotExist"},
		{opExists, opGt, "Gt 4"},
		{opExists, opLt, "Lt 9"},
		{opExists, OpGte, "Gt 5"},
		{opExists, OpLte, "Lt 2"},
		// DoesNotExist ∩ anything is empty.
		{opDoesNotExist, opIn, "DoesNotExist"},
		{opDoesNotExist, opNotIn, "DoesNotExist"},
		{opDoesNotExist, opExists, "DoesNotExist"},
		{opDoesNotExist, opDoesNotExist, "DoesNotExist"},
		{opDoesNotExist, opGt, "DoesNotExist"},
		{opDoesNotExist, opLt, "DoesNotExist"},
		{opDoesNotExist, OpGte, "DoesNotExist"},
		{opDoesNotExist, OpLte, "DoesNotExist"},
		// Gt 2 ∩ …
		{opGt, opIn, "In [5 9]"},
		{opGt, opNotIn, "Gt 2"},
		{opGt, opExists, "Gt 2"},
		{opGt, opDoesNotExist, "DoesNotExist"},
		{opGt, opGt, "Gt 4"},
		{opGt, opLt, "Gt 2 Lt 9"},
		{opGt, OpGte, "Gt 5"},
		{opGt, OpLte, "DoesNotExist"},
		// Lt 7 ∩ …
		{opLt, opIn, "In [5]"},
		{opLt, opNotIn, "NotIn [1] Lt 7"},
		{opLt, opExists, "Lt 7"},
		{opLt, opDoesNotExist, "DoesNotExist"},
		{opLt, opGt, "Gt 4 Lt 7"},
		{opLt, opLt, "Lt 7"},
		{opLt, OpGte, "Gt 5 Lt 7"},
		{opLt, OpLte, "Lt 2"},
		// Gte 5 (Gt 4) ∩ …
		{OpGte, opIn, "In [5 9]"},
		{OpGte, opNotIn, "Gt 4"},
		{OpGte, opExists, "Gt 4"},
		{OpGte, opDoesNotExist, "DoesNotExist"},
		{OpGte, opGt, "Gt 4"},
		{OpGte, opLt, "Gt 4 Lt 9"},
		{OpGte, OpGte, "Gt 5"},
		{OpGte, OpLte, "DoesNotExist"},
		// Lte 5 (Lt 6) ∩ …
		{OpLte, opIn, "In [5]"},
		{OpLte, opNotIn, "NotIn [1] Lt 6"},
		{OpLte, opExists, "Lt 6"},
		{OpLte, opDoesNotExist, "DoesNotExist"},
		{OpLte, opGt, "Gt 4 Lt 6"},
		{OpLte, opLt, "Lt 6"},
		{OpLte, OpGte, "DoesNotExist"},
		{OpLte, OpLte, "Lt 2"},
	}
	require.Len(t, tests, len(allOperators)*len(allOperators), "one row per operator pair")
	seen := map[[2]corev1.NodeSelectorOperator]bool{}
	for _, tt := range tests {
		a, b := left[tt.left], right[tt.right]
		t.Run(a.String()+" ∩ "+b.String(), func(t *testing.T) {
			seen[[2]corev1.NodeSelectorOperator{tt.left, tt.right}] = true
			got := a.Intersection(b)
			require.Equal(t, "k "+tt.want, got.String())
			require.Equal(t, corev1.NodeSelectorOperator(strings.Fields(tt.want)[0]), got.Operator())
			require.Equal(t, got.String(), b.Intersection(a).String(), "intersection is commutative")
			require.Equal(t, got.Len() > 0, a.Intersects(b), "Intersects agrees with Intersection")
			require.Equal(t, got.Len() > 0, b.Intersects(a), "Intersects is symmetric")
			requireSameValues(t, got, a, b)
		})
	}
	require.Len(t, seen, len(tests), "no operator pair is listed twice")
}

func TestIntersectionBounds(t *testing.T) {
	tests := []struct {
		name    string
		a, b    *Requirement
		want    string
		wantLen int
	}{
		{"Gt 3 ∩ Lt 4 holds no integer", k(opGt, "3"), k(opLt, "4"), "k DoesNotExist", 0},
		{"Gt 3 ∩ Lt 5 is {4}", k(opGt, "3"), k(opLt, "5"), "k Gt 3 Lt 5", 1},
		{"Gte 3 ∩ Lte 3 is {3}", k(OpGte, "3"), k(OpLte, "3"), "k Gt 2 Lt 4", 1},
		{"Gte 4 ∩ Lte 3 is empty", k(OpGte, "4"), k(OpLte, "3"), "k DoesNotExist", 0},
		{"In [1 5 a] ∩ Gt 2 is In [5]", k(opIn, "1", "5", "a"), k(opGt, "2"), "k In [5]", 1},
		{"In [1 5 a] ∩ Lt 2 is In [1]", k(opIn, "1", "5", "a"), k(opLt, "2"), "k In [1]", 1},
		{"non-integers never satisfy a bound", k(opIn, "a", "b"), k(opGt, "-100"), "k DoesNotExist", 0},
		{"Gt 3 Lt 5 minus its only integer is empty", k(opGt, "3").Intersection(k(opLt, "5")), k(opNotIn, "4"), "k DoesNotExist", 0},
		{"excluding a non-canonical 04 leaves 4", k(opGt, "3").Intersection(k(opLt, "5")), k(opNotIn, "04"), "k NotIn [04] Gt 3 Lt 5", 1},
		{"Gt 0 Lt 10 minus three", k(opGt, "0").Intersection(k(opLt, "10")), k(opNotIn, "2", "5", "9", "x"), "k NotIn [2 5 9] Gt 0 Lt 10", 6},
		{"negative bounds", k(opGt, "-5"), k(opLt, "-2"), "k Gt -5 Lt -2", 2},
		// The int64 ends: no wrap-around in the emptiness check or the count.
		{"Gt -2 ∩ Lt MaxInt64 is huge", k(opGt, "-2"), k(opLt, "9223372036854775807"), "k Gt -2 Lt 9223372036854775807", math.MaxInt},
		{"Gt MinInt64 ∩ Lt MaxInt64 is huge", k(opGt, "-9223372036854775808"), k(opLt, "9223372036854775807"), "k Gt -9223372036854775808 Lt 9223372036854775807", math.MaxInt},
		{"Gt MaxInt64 ∩ Lt MinInt64+5 is empty", k(opGt, "9223372036854775807"), k(opLt, "-9223372036854775803"), "k DoesNotExist", 0},
		{"Gte MaxInt64 ∩ Lte MaxInt64 loses only the clamped end value", k(OpGte, "9223372036854775807"), k(OpLte, "9223372036854775807"), "k DoesNotExist", 0},
		{"Gte MaxInt64-1 ∩ Lte MaxInt64", k(OpGte, "9223372036854775806"), k(OpLte, "9223372036854775807"), "k Gt 9223372036854775805 Lt 9223372036854775807", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.a.Intersection(tt.b)
			require.Equal(t, tt.want, got.String())
			require.Equal(t, tt.wantLen, got.Len())
			require.Equal(t, tt.wantLen > 0, tt.a.Intersects(tt.b))
			require.Equal(t, tt.wantLen > 0, tt.b.Intersects(tt.a))
			requireSameValues(t, got, tt.a, tt.b)
		})
	}
}

func TestBoundsAtTheEndsOfInt64(t *testing.T) {
	// Gte MinInt64 and Lte MaxInt64 cannot be stored as exclusive bounds; they clamp so
	// that only the end value itself is lost, rather than wrapping to an empty range.
	gte := k(OpGte, "-9223372036854775808")
	require.True(t, gte.Has("-9223372036854775807"))
	require.True(t, gte.Has("0"))
	require.False(t, gte.Has("x"))
	lte := k(OpLte, "9223372036854775807")
	require.True(t, lte.Has("9223372036854775806"))
	require.True(t, lte.Has("-5"))
	require.True(t, gte.Intersects(lte))

	require.False(t, k(opGt, "9223372036854775807").Has("9223372036854775807"))
	require.False(t, k(opGt, "1").Has("9223372036854775808"), "out of int64 is not an integer")
}

func TestIntersectionMinValues(t *testing.T) {
	tests := []struct {
		name string
		a, b *int
		want *int
	}{
		{"neither", nil, nil, nil},
		{"left only", intPtr(2), nil, intPtr(2)},
		{"right only", nil, intPtr(3), intPtr(3)},
		{"larger right wins", intPtr(2), intPtr(5), intPtr(5)},
		{"larger left wins", intPtr(5), intPtr(2), intPtr(5)},
		{"equal", intPtr(4), intPtr(4), intPtr(4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewWithMinValues("k", opIn, tt.a, "a", "b", "c")
			b := NewWithMinValues("k", opExists, tt.b)
			require.Equal(t, tt.want, a.Intersection(b).MinValues)
			require.Equal(t, tt.want, b.Intersection(a).MinValues)

			// minValues survives an empty result too, which is DoesNotExist.
			empty := a.Intersection(NewWithMinValues("k", opIn, tt.b, "z"))
			require.Equal(t, opDoesNotExist, empty.Operator())
			require.Equal(t, tt.want, empty.MinValues)
			emptyBounds := NewWithMinValues("k", opGt, tt.a, "5").Intersection(NewWithMinValues("k", opLt, tt.b, "3"))
			require.Equal(t, opDoesNotExist, emptyBounds.Operator())
			require.Equal(t, tt.want, emptyBounds.MinValues)
		})
	}

	t.Run("NewWithMinValues copies the bound", func(t *testing.T) {
		n := 2
		r := NewWithMinValues("k", opIn, &n, "a", "b")
		n = 7
		require.Equal(t, 2, *r.MinValues)
		require.Equal(t, "k In [a b] minValues 2", r.String())
	})
}

func TestNew(t *testing.T) {
	tests := []struct {
		name   string
		req    *Requirement
		wantOp corev1.NodeSelectorOperator
		want   string
	}{
		{"In sorts and dedupes", k(opIn, "b", "a", "b"), opIn, "k In [a b]"},
		{"In without values is empty", k(opIn), opDoesNotExist, "k DoesNotExist"},
		{"NotIn", k(opNotIn, "z", "y"), opNotIn, "k NotIn [y z]"},
		{"NotIn without values allows all", k(opNotIn), opExists, "k Exists"},
		{"Exists ignores values", k(opExists, "a"), opExists, "k Exists"},
		{"DoesNotExist ignores values", k(opDoesNotExist, "a"), opDoesNotExist, "k DoesNotExist"},
		{"Gt", k(opGt, "3"), opGt, "k Gt 3"},
		{"Lt", k(opLt, "3"), opLt, "k Lt 3"},
		{"Gte is Gt n-1", k(OpGte, "3"), opGt, "k Gt 2"},
		{"Lte is Lt n+1", k(OpLte, "3"), opLt, "k Lt 4"},
		{"Gt accepts what strconv.ParseInt accepts", k(opGt, "+07"), opGt, "k Gt 7"},
		{"Gt with a non-integer is empty", k(opGt, "three"), opDoesNotExist, "k DoesNotExist"},
		{"Lt with two values is empty", k(opLt, "1", "2"), opDoesNotExist, "k DoesNotExist"},
		{"Gte without a value is empty", k(OpGte), opDoesNotExist, "k DoesNotExist"},
		{"unknown operator is empty", k("Near", "a"), opDoesNotExist, "k DoesNotExist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.wantOp, tt.req.Operator())
			require.Equal(t, tt.want, tt.req.String())
		})
	}
}

func TestHas(t *testing.T) {
	tests := []struct {
		req   *Requirement
		value string
		want  bool
	}{
		{k(opIn, "a", "b"), "a", true},
		{k(opIn, "a", "b"), "c", false},
		{k(opIn, "a", "b"), "", false},
		{k(opNotIn, "a", "b"), "a", false},
		{k(opNotIn, "a", "b"), "c", true},
		{k(opExists), "anything", true},
		{k(opExists), "", true},
		{k(opDoesNotExist), "anything", false},
		{k(opGt, "3"), "4", true},
		{k(opGt, "3"), "3", false},
		{k(opGt, "3"), "+4", true},
		{k(opGt, "3"), "04", true},
		{k(opGt, "3"), "4.5", false},
		{k(opGt, "3"), "four", false},
		{k(opGt, "-3"), "-2", true},
		{k(opLt, "3"), "2", true},
		{k(opLt, "3"), "3", false},
		{k(opLt, "3"), "-100", true},
		{k(OpGte, "3"), "3", true},
		{k(OpGte, "3"), "2", false},
		{k(OpLte, "3"), "3", true},
		{k(OpLte, "3"), "4", false},
		{k(opGt, "1").Intersection(k(opNotIn, "3")), "3", false},
		{k(opGt, "1").Intersection(k(opNotIn, "3")), "03", true},
		{k(opGt, "1").Intersection(k(opNotIn, "3")), "2", true},
	}
	for _, tt := range tests {
		t.Run(tt.req.String()+" has "+strconv.Quote(tt.value), func(t *testing.T) {
			require.Equal(t, tt.want, tt.req.Has(tt.value))
		})
	}
}

func TestLen(t *testing.T) {
	tests := []struct {
		req  *Requirement
		want int
	}{
		{k(opIn, "a", "b", "a"), 2},
		{k(opDoesNotExist), 0},
		{k(opExists), math.MaxInt},
		{k(opNotIn, "a", "b"), math.MaxInt - 2},
		{k(opGt, "3"), math.MaxInt},
		{k(opLt, "3"), math.MaxInt},
		{k(opGt, "3").Intersection(k(opLt, "10")), 6},
		{k(OpGte, "3").Intersection(k(OpLte, "10")), 8},
		{k(opGt, "3").Intersection(k(opLt, "10")).Intersection(k(opNotIn, "5", "6", "11")), 4},
	}
	for _, tt := range tests {
		t.Run(tt.req.String(), func(t *testing.T) {
			require.Equal(t, tt.want, tt.req.Len())
		})
	}
}

func TestAny(t *testing.T) {
	v, ok := k(opIn, "b", "a").Any()
	require.True(t, ok)
	require.Equal(t, "a", v, "the smallest value, so labels are deterministic")
	for _, r := range []*Requirement{k(opDoesNotExist), k(opExists), k(opNotIn, "a"), k(opGt, "1")} {
		_, ok := r.Any()
		require.False(t, ok, "%s has no single value to pick", r)
	}
}

func TestIntersectionDoesNotModifyItsOperands(t *testing.T) {
	a := k(opIn, "a", "b", "c")
	b := k(opNotIn, "b")
	_ = a.Intersection(b)
	_ = b.Intersection(a)
	require.Equal(t, "k In [a b c]", a.String())
	require.Equal(t, "k NotIn [b]", b.String())
}

// randomRequirement draws a requirement over a small universe of values, sometimes the
// intersection of two, so that combined forms (NotIn with bounds, closed ranges) appear too.
func randomRequirement(rng *rand.Rand, depth int) *Requirement {
	if depth > 0 && rng.IntN(3) == 0 {
		return randomRequirement(rng, depth-1).Intersection(randomRequirement(rng, depth-1))
	}
	op := allOperators[rng.IntN(len(allOperators))]
	var values []string
	switch op {
	case opIn, opNotIn:
		for range rng.IntN(4) {
			values = append(values, probes[rng.IntN(len(probes))])
		}
	case opGt, opLt, OpGte, OpLte:
		values = []string{strconv.Itoa(rng.IntN(12) - 2)}
	}
	var minValues *int
	if rng.IntN(4) == 0 {
		minValues = intPtr(1 + rng.IntN(3))
	}
	return NewWithMinValues("k", op, minValues, values...)
}

// TestIntersectsAgreesWithIntersection checks over many generated pairs that the allocation-
// free Intersects answers exactly as building the intersection would, and that the
// intersection allows exactly what both operands allow.
func TestIntersectsAgreesWithIntersection(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	for range 20000 {
		a, b := randomRequirement(rng, 2), randomRequirement(rng, 2)
		got := a.Intersection(b)
		require.Equal(t, got.Len() > 0, a.Intersects(b), "%s ∩ %s = %s (Len %d)", a, b, got, got.Len())
		require.Equal(t, a.Intersects(b), b.Intersects(a), "%s ∩ %s", a, b)
		requireSameValues(t, got, a, b)
		if got.Len() == 0 {
			require.Equal(t, opDoesNotExist, got.Operator(), "an empty result is DoesNotExist: %s ∩ %s = %s", a, b, got)
		}
		for _, v := range probes {
			if a.Has(v) && b.Has(v) {
				require.True(t, a.Intersects(b), "%s and %s both allow %q", a, b, v)
			}
		}
		require.Equal(t, maxMinValues(a.MinValues, b.MinValues), got.MinValues)
	}
}

func TestParseIntAgreesWithStrconv(t *testing.T) {
	inputs := []string{
		"0", "7", "-7", "+7", "007", "-0", "+0", "-007", "00", "",
		"-", "+", "1_000", "1e3", " 1", "1 ", "0x10", "١",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"99999999999999999999", "+9223372036854775807", "--1",
	}
	for _, v := range inputs {
		t.Run(strconv.Quote(v), func(t *testing.T) {
			want, err := strconv.ParseInt(v, 10, 64)
			got, canonical, ok := parseInt(v)
			require.Equal(t, err == nil, ok)
			if ok {
				require.Equal(t, want, got)
				require.Equal(t, strconv.FormatInt(want, 10) == v, canonical)
			}
		})
	}
}

func TestExistenceValue(t *testing.T) {
	cases := []struct {
		name string
		req  *Requirement
		want string
		ok   bool
	}{
		{"exists gets 0", New("k", corev1.NodeSelectorOpExists), "0", true},
		{"gt gets the next integer", New("k", corev1.NodeSelectorOpGt, "7"), "8", true},
		{"a negative bound still starts at 0", New("k", corev1.NodeSelectorOpGt, "-5000"), "0", true},
		{"does not exist: the node may go without", New("k", corev1.NodeSelectorOpDoesNotExist), "", false},
		{"not in: the node may go without", New("k", corev1.NodeSelectorOpNotIn, "a"), "", false},
	}
	for _, c := range cases {
		got, ok := c.req.ExistenceValue()
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
