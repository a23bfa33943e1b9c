package resources

import (
	"fmt"
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// MaxUnits bounds every quantity nodeplan accepts, in the resource's units (cores, bytes,
// pods). Vectors hold milli-units in an int64, so a bounded quantity is at most 4e18 of them
// and any two bounded quantities add up without wrapping. 4e15 bytes is 3.5 PiB and 4e15
// cores is far beyond any node, so no real value is refused.
const MaxUnits = 4_000_000_000_000_000

var maxQuantity = resource.NewQuantity(MaxUnits, resource.DecimalSI)

// maxExponent is the largest decimal exponent a quantity may carry. Any larger is far past
// MaxUnits with a mantissa other than zero, and costly to compare even with zero; up to it,
// comparisons stay cheap and the error can show the quantity.
const maxExponent = 1000

// CheckQuantity refuses a quantity whose magnitude exceeds MaxUnits, which would be misread as
// milli-units.
func CheckQuantity(q resource.Quantity) error {
	// A huge exponent ("0e33330000" parses) makes every comparison or conversion of the
	// quantity compute a power of ten with millions of digits: it is refused before any. Only
	// a quantity past float64's range can have one, which the allocation-free approximation
	// tells; the exact exponent is read off then.
	if f := q.AsApproximateFloat64(); math.IsNaN(f) || math.IsInf(f, 0) {
		if scale := q.AsDec().Scale(); scale < -maxExponent {
			return fmt.Errorf("has a decimal exponent of %d (at most %d)", -int64(scale), maxExponent)
		}
	}
	abs := q.DeepCopy()
	if abs.Sign() < 0 {
		abs.Neg()
	}
	if abs.Cmp(*maxQuantity) > 0 {
		return fmt.Errorf("%s is too large (at most 4e15)", q.String())
	}
	return nil
}

// CheckList is CheckQuantity for each entry of a list, in name order; the error names the
// entry.
func CheckList(l corev1.ResourceList) (corev1.ResourceName, error) {
	bad := false
	for _, q := range l {
		if CheckQuantity(q) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return "", nil // the common case, without sorting the names
	}
	for _, name := range slices.Sorted(maps.Keys(l)) {
		if err := CheckQuantity(l[name]); err != nil {
			return name, err
		}
	}
	return "", nil
}

// CheckSum refuses lists whose sum, per resource, exceeds MaxUnits (containers' requests that
// each pass but add up past it). It returns the first such resource.
func CheckSum(lists ...corev1.ResourceList) (corev1.ResourceName, bool) {
	sums := map[corev1.ResourceName]*resource.Quantity{}
	for _, l := range lists {
		for name, q := range l {
			if s, ok := sums[name]; ok {
				s.Add(q)
			} else {
				c := q.DeepCopy()
				sums[name] = &c
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		if CheckQuantity(*sums[name]) != nil {
			return name, false
		}
	}
	return "", true
}
