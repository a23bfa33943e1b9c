package resources

import (
	"fmt"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Dims assigns each resource name an index. cpu, memory, pods and ephemeral-storage always
// come first; other names (extended resources) follow in sorted order.
type Dims struct {
	names []corev1.ResourceName
	index map[corev1.ResourceName]int
}

// Fixed indexes of the resources every vector carries.
const (
	CPU = iota
	Memory
	Pods
	EphemeralStorage
	fixed
)

// NewDims builds dimensions covering every resource named in lists.
func NewDims(lists ...corev1.ResourceList) *Dims {
	d := &Dims{
		names: []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage},
		index: map[corev1.ResourceName]int{},
	}
	var extra []string
	seen := map[corev1.ResourceName]bool{}
	for _, l := range lists {
		for n := range l {
			seen[n] = true
		}
	}
	for i, n := range d.names {
		d.index[n] = i
		delete(seen, n)
	}
	for n := range seen {
		extra = append(extra, string(n))
	}
	sort.Strings(extra)
	for _, n := range extra {
		d.index[corev1.ResourceName(n)] = len(d.names)
		d.names = append(d.names, corev1.ResourceName(n))
	}
	return d
}

// Len is the number of dimensions.
func (d *Dims) Len() int { return len(d.names) }

// Name returns the resource name of dimension i.
func (d *Dims) Name(i int) corev1.ResourceName { return d.names[i] }

// Index returns the dimension of a resource name.
func (d *Dims) Index(name corev1.ResourceName) (int, bool) {
	i, ok := d.index[name]
	return i, ok
}

// Vector converts a list; names outside the dimensions are ignored (NewDims should have been
// given every list that matters).
func (d *Dims) Vector(l corev1.ResourceList) Vector {
	v := make(Vector, len(d.names))
	d.Fill(v, l)
	return v
}

// Fill writes a list into an existing vector of the right length.
func (d *Dims) Fill(v Vector, l corev1.ResourceList) {
	for i := range v {
		v[i] = 0
	}
	for n, q := range l {
		if i, ok := d.index[n]; ok {
			v[i] = q.MilliValue()
		}
	}
}

// List converts a vector back to a resource list (zero entries omitted except cpu, memory and
// pods), with canonical quantity formats.
func (d *Dims) List(v Vector) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i, m := range v {
		if m == 0 && i >= EphemeralStorage {
			continue
		}
		out[d.names[i]] = Quantity(d.names[i], m)
	}
	return out
}

// Quantity renders milli-units of a resource in its usual format: cpu as millicores or cores,
// memory and storage in binary units, counts as integers.
func Quantity(name corev1.ResourceName, milli int64) resource.Quantity {
	switch name {
	case corev1.ResourceCPU:
		return *resource.NewMilliQuantity(milli, resource.DecimalSI)
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		if milli%1000 == 0 {
			return *resource.NewQuantity(milli/1000, resource.BinarySI)
		}
		return *resource.NewMilliQuantity(milli, resource.BinarySI)
	}
	if milli%1000 == 0 {
		return *resource.NewQuantity(milli/1000, resource.DecimalSI)
	}
	return *resource.NewMilliQuantity(milli, resource.DecimalSI)
}

// Vector holds milli-units per dimension.
type Vector []int64

// Add adds o into v.
func (v Vector) Add(o Vector) {
	for i := range v {
		v[i] += o[i]
	}
}

// Sub subtracts o from v.
func (v Vector) Sub(o Vector) {
	for i := range v {
		v[i] -= o[i]
	}
}

// Fits reports whether v ≤ capacity in every dimension.
func (v Vector) Fits(capacity Vector) bool {
	for i, x := range v {
		if x > capacity[i] {
			return false
		}
	}
	return true
}

// FitsSum reports whether used + add ≤ capacity in every dimension, without allocating.
func FitsSum(used, add, capacity Vector) bool {
	for i, x := range add {
		if x != 0 && used[i]+x > capacity[i] {
			return false
		}
	}
	return true
}

// FirstExceeded returns the first dimension where used + add > capacity, or -1.
func FirstExceeded(used, add, capacity Vector) int {
	for i, x := range add {
		if x != 0 && used[i]+x > capacity[i] {
			return i
		}
	}
	return -1
}

// Max sets v to the element-wise maximum of v and o.
func (v Vector) Max(o Vector) {
	for i := range v {
		if o[i] > v[i] {
			v[i] = o[i]
		}
	}
}

// Clone returns a copy.
func (v Vector) Clone() Vector { return append(Vector(nil), v...) }

// IsZero reports whether every dimension is zero.
func (v Vector) IsZero() bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// Key identifies the vector's content, as a map key: vectors of one Dims have equal keys
// exactly when they are equal.
func (v Vector) Key() string {
	var buf [64]byte
	return string(v.AppendKey(buf[:0]))
}

// AppendKey appends Key() to b.
func (v Vector) AppendKey(b []byte) []byte {
	for _, x := range v {
		b = strconv.AppendInt(b, x, 36)
		b = append(b, ',')
	}
	return b
}

// Format writes the vector's non-zero resources but pods, in dimension order, as
// "(cpu 500m, memory 1Gi)".
func (d *Dims) Format(v Vector) string {
	s := ""
	for i, x := range v {
		if x == 0 || i == Pods {
			continue
		}
		if s != "" {
			s += ", "
		}
		q := Quantity(d.Name(i), x)
		s += fmt.Sprintf("%s %s", d.Name(i), q.String())
	}
	return "(" + s + ")"
}
