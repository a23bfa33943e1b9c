package limits

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// Left is what a NodePool's limits (spec.limits) still allow: capacity per resource, then
// nodes. Its zero value has no limits and allows everything. Copying a Left shares what is
// left; Clone gives a copy of its own.
type Left struct {
	list corev1.ResourceList
	dims *resources.Dims
	// left is the capacity of each dimension, then the number of nodes, still allowed; nil
	// when there are no limits. limited marks the dimensions with a limit.
	left    resources.Vector
	limited []bool
}

// New reads limits over dims, all of them left. A resource the dims do not track limits
// nothing (no pod asks for it); "nodes" limits the node count.
func New(list corev1.ResourceList, dims *resources.Dims) (Left, error) {
	if name, err := resources.CheckList(list); err != nil {
		return Left{}, fmt.Errorf("limits.%s: %w", name, err)
	}
	l := Left{list: list, dims: dims}
	if len(list) == 0 {
		return l, nil
	}
	l.left = make(resources.Vector, dims.Len()+1)
	l.limited = make([]bool, dims.Len()+1)
	for name, q := range list {
		if name == "nodes" {
			l.left[dims.Len()] = q.Value()
			l.limited[dims.Len()] = true
			continue
		}
		if i, ok := dims.Index(name); ok {
			l.left[i] = q.MilliValue()
			l.limited[i] = true
		}
	}
	return l, nil
}

// Set reports whether there are limits at all.
func (l *Left) Set() bool { return l.left != nil }

// Clone is a copy whose changes leave l alone.
func (l *Left) Clone() Left {
	c := *l
	c.left = l.left.Clone()
	return c
}

// Take counts a node of this capacity against the limits (an existing node, or a trial).
func (l *Left) Take(capacity resources.Vector) {
	if l.left == nil {
		return
	}
	for i, c := range capacity {
		l.left[i] -= c
	}
	l.left[len(l.left)-1]--
}

// Release gives back a node and the capacity it held.
func (l *Left) Release(held resources.Vector) {
	if l.left == nil {
		return
	}
	for i, r := range held {
		l.left[i] += r
	}
	l.left[len(l.left)-1]++
}

// Within reports whether no limit is overdrawn.
func (l *Left) Within() bool {
	for i, x := range l.left {
		if l.limited[i] && x < 0 {
			return false
		}
	}
	return true
}

// Fits reports whether one more node of this capacity fits the limits.
func (l *Left) Fits(capacity resources.Vector) bool {
	if l.left == nil {
		return true
	}
	for i, c := range capacity {
		if l.limited[i] && c > l.left[i] {
			return false
		}
	}
	return l.NodeLeft()
}

// FitsWith reports whether a node of this capacity fits the limits, counting the capacity
// the node already holds (held) as available to it.
func (l *Left) FitsWith(capacity, held resources.Vector) bool {
	if l.left == nil {
		return true
	}
	for i, c := range capacity {
		if l.limited[i] && c > l.left[i]+held[i] {
			return false
		}
	}
	return true
}

// Move changes a node's hold on the limits from held to capacity, and records capacity in
// held (Karpenter holds the largest capacity a node could still launch as).
func (l *Left) Move(held, capacity resources.Vector) {
	if l.left == nil {
		return
	}
	for i, c := range capacity {
		l.left[i] += held[i] - c
		held[i] = c
	}
}

// TakeNode counts one more node against the nodes limit; ReleaseNode gives one back.
func (l *Left) TakeNode() {
	if l.left != nil {
		l.left[len(l.left)-1]--
	}
}

// ReleaseNode gives back one node of the nodes limit.
func (l *Left) ReleaseNode() {
	if l.left != nil {
		l.left[len(l.left)-1]++
	}
}

// NodeLeft reports whether the nodes limit allows one more node.
func (l *Left) NodeLeft() bool {
	n := len(l.left) - 1
	return l.left == nil || !l.limited[n] || l.left[n] >= 1
}

// Exhausted names the limits nothing is left of, e.g. "cpu 12 of 8 taken".
func (l *Left) Exhausted() string { return l.describe(true) }

// Taken says how much of every limit is taken, e.g. "cpu 998 of 1000 taken".
func (l *Left) Taken() string { return l.describe(false) }

func (l *Left) describe(exhaustedOnly bool) string {
	var parts []string
	for _, name := range l.names() {
		limit := l.list[corev1.ResourceName(name)]
		if name == "nodes" {
			if left := l.left[l.dims.Len()]; left < 1 || !exhaustedOnly {
				parts = append(parts, fmt.Sprintf("nodes %d of %s taken", limit.Value()-left, plainQuantity(limit)))
			}
			continue
		}
		i, ok := l.dims.Index(corev1.ResourceName(name))
		if !ok || (exhaustedOnly && l.left[i] >= 0) {
			continue
		}
		taken := resources.Quantity(corev1.ResourceName(name), limit.MilliValue()-l.left[i])
		parts = append(parts, fmt.Sprintf("%s %s of %s taken", name, plainQuantity(taken), plainQuantity(limit)))
	}
	return strings.Join(parts, ", ")
}

// String writes the limits as the user gave them, e.g. "(cpu 8, nodes 3)".
func (l *Left) String() string {
	s := ""
	for _, n := range l.names() {
		if s != "" {
			s += ", "
		}
		s += n + " " + plainQuantity(l.list[corev1.ResourceName(n)])
	}
	return "(" + s + ")"
}

// Capacity writes the limited resources of a capacity vector, e.g. "cpu 4".
func (l *Left) Capacity(capacity resources.Vector) string {
	var parts []string
	for _, name := range l.names() {
		if i, ok := l.dims.Index(corev1.ResourceName(name)); ok {
			parts = append(parts, name+" "+plainQuantity(resources.Quantity(corev1.ResourceName(name), capacity[i])))
		}
	}
	return strings.Join(parts, ", ")
}

func (l *Left) names() []string {
	names := make([]string, 0, len(l.list))
	for name := range l.list {
		names = append(names, string(name))
	}
	sort.Strings(names)
	return names
}

// plainQuantity writes a whole decimal quantity as a plain number ("1000", not "1k"), as users
// write cpu and limits; other quantities keep their canonical form ("12Gi", "1500m").
func plainQuantity(q resource.Quantity) string {
	if q.Format == resource.DecimalSI && q.MilliValue()%1000 == 0 {
		return strconv.FormatInt(q.Value(), 10)
	}
	return q.String()
}
