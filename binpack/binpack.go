package binpack

import (
	"math"
	"slices"
	"sort"

	"github.com/nodeplan/nodeplan/bound"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// Class is a set of pods with the same requests; Left of them are still to be packed.
type Class struct {
	Requests resources.Vector
	Left     int
}

// Kinds are the node types a bin may be: the room of each for pods and its price.
type Kinds struct {
	Rooms  []resources.Vector
	Prices []float64
	// columns, set by NewKinds, keeps the fluid LP's columns for every fill over these kinds.
	columns *bound.ColumnSets
}

// NewKinds returns kinds of these rooms and prices, which must not change afterwards: what
// the fluid LP derives from them is then worked out once for all the fills over them, on
// any goroutine.
func NewKinds(rooms []resources.Vector, prices []float64) Kinds {
	return Kinds{Rooms: rooms, Prices: prices, columns: bound.NewColumnSets(rooms, prices)}
}

// fluid solves the fluid LP of remaining over the kinds.
func (k Kinds) fluid(ws *Workspace, remaining resources.Vector) (bound.FluidSolution, bool) {
	if k.columns != nil {
		return ws.lp.SolveFluidWith(k.columns, remaining)
	}
	return ws.lp.SolveFluid(k.Rooms, k.Prices, remaining)
}

// Fill is a trial filling of one bin; it takes no pod from the classes.
type Fill struct {
	// Taken is how many pods it takes of each class.
	Taken []int
	// Count is how many pods it takes.
	Count int
	// Used is the sum of the requests taken.
	Used resources.Vector
	// Price is the price of the cheapest kind that holds Used (MostEfficient only).
	Price float64
	// Efficiency is what Used is worth at the fluid LP's prices per dollar of Price
	// (MostEfficient only).
	Efficiency float64
}

// Strategy fills the next bin from what is left (remaining is the sum of the classes' requests
// left), or returns nil.
type Strategy func(ws *Workspace, kinds Kinds, remaining resources.Vector, classes []Class) *Fill

// Workspace holds the buffers a packing reuses from bin to bin; each goroutine needs its own.
type Workspace struct {
	lp bound.LP
	// fills are MostEfficient's: the fill under way and the best so far; open lists, while
	// a bin fills, the classes that may still join it (see fillInto).
	fills [2]Fill
	open  []int
	// candidates, seen and potential are candidateKinds' buffers.
	candidates []int
	seen       []bool
	potential  []float64
}

// Strategies are the ways to fill bins; a caller keeps the cheapest result. They fail on
// different catalogs: the LP's dual prices misjudge large balanced kinds when tiny burstable
// kinds sell cpu almost free, and the LP's own kinds alone miss mixes it does not buy.
func Strategies() []Strategy { return []Strategy{MostEfficient, FluidKind} }

// MostEfficient tries the kinds the fluid LP buys for what is left and the kinds worth most
// per dollar at its prices, and keeps the fill whose contents are worth most per dollar of the
// cheapest kind holding them.
func MostEfficient(ws *Workspace, kinds Kinds, remaining resources.Vector, classes []Class) *Fill {
	fl, _ := kinds.fluid(ws, remaining)
	// Each kind is filled in the workspace's fill under way, which becomes the best one when
	// it is: only the best is copied out.
	f, best := &ws.fills[0], (*Fill)(nil)
	for _, k := range candidateKinds(ws, kinds, fl) {
		fillInto(ws, f, classes, kinds.Rooms[k], len(remaining))
		if f.Count == 0 {
			continue
		}
		f.Price = cheapestFitting(kinds, f.Used)
		f.Efficiency = fl.Worth(f.Used) / f.Price
		if best == nil || f.Efficiency > best.Efficiency+1e-12 || (math.Abs(f.Efficiency-best.Efficiency) <= 1e-12 && f.Count > best.Count) {
			best, f = f, other(ws, f)
		}
	}
	if best == nil {
		return nil
	}
	return &Fill{Taken: slices.Clone(best.Taken), Count: best.Count, Used: slices.Clone(best.Used), Price: best.Price, Efficiency: best.Efficiency}
}

// other is the workspace's fill that is not f.
func other(ws *Workspace, f *Fill) *Fill {
	if f == &ws.fills[0] {
		return &ws.fills[1]
	}
	return &ws.fills[0]
}

// FluidKind fills a bin of the kind the fluid LP buys most of for the demand left (among
// those that can hold some pod left), or else of the cheapest kind that can.
func FluidKind(ws *Workspace, kinds Kinds, remaining resources.Vector, classes []Class) *Fill {
	fl, ok := kinds.fluid(ws, remaining)
	pick := -1
	if ok {
		most := 0.0
		for j, x := range fl.Count {
			if x > 1e-9 && x > most+1e-9 && holdsAny(classes, kinds.Rooms[j]) {
				pick, most = j, x
			}
		}
	}
	if pick < 0 {
		cheapest := math.Inf(1)
		for j, room := range kinds.Rooms {
			if kinds.Prices[j] < cheapest && holdsAny(classes, room) {
				pick, cheapest = j, kinds.Prices[j]
			}
		}
	}
	if pick < 0 {
		return nil
	}
	return fill(ws, classes, kinds.Rooms[pick], len(remaining))
}

// candidates is how many kinds, beyond the fluid LP's own, are tried for each bin.
const candidates = 6

// candidateKinds returns the kinds worth trying for the next bin: those the fluid LP buys
// for the demand left, and the ones whose room is worth most per dollar at the LP's prices
// (ties to the earlier kind); every kind when the LP has no prices. The result is in ws's
// buffer, valid until the next call.
func candidateKinds(ws *Workspace, kinds Kinds, fl bound.FluidSolution) []int {
	n := len(kinds.Rooms)
	out := ws.candidates[:0]
	if fl.Value == nil {
		for j := range n {
			out = append(out, j)
		}
		ws.candidates = out
		return out
	}
	seen := grow(&ws.seen, n)
	clear(seen)
	for j, x := range fl.Count {
		if x > 1e-9 {
			out = append(out, j)
			seen[j] = true
		}
	}
	potential := grow(&ws.potential, n)
	sortable := true
	for j, room := range kinds.Rooms {
		potential[j] = fl.Worth(room) / kinds.Prices[j]
		sortable = sortable && !math.IsNaN(potential[j])
	}
	if !sortable {
		out = candidatesSorted(out, seen, potential)
		ws.candidates = out
		return out
	}
	// The best unseen kinds, found by selection: the order a stable sort by potential,
	// highest first, gives, without sorting hundreds of kinds for each bin.
	for added := 0; added < candidates; added++ {
		best := -1
		for j := range n {
			if !seen[j] && (best < 0 || potential[j] > potential[best]) {
				best = j
			}
		}
		if best < 0 {
			break
		}
		out = append(out, best)
		seen[best] = true
	}
	ws.candidates = out
	return out
}

// candidatesSorted completes candidateKinds by a stable sort when some potential is NaN (a
// zero price), which no selection orders the way the sort does.
func candidatesSorted(out []int, seen []bool, potential []float64) []int {
	order := make([]int, len(potential))
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return potential[order[a]] > potential[order[b]] })
	added := 0
	for _, j := range order {
		if added == candidates {
			break
		}
		if !seen[j] {
			out = append(out, j)
			seen[j] = true
			added++
		}
	}
	return out
}

// grow returns (*buf)[:n], reallocating when the buffer is too small.
func grow[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

// holdsAny reports whether an empty bin with this room can take some pod left in classes:
// whether fill would take any.
func holdsAny(classes []Class, room resources.Vector) bool {
	for _, c := range classes {
		if c.Left > 0 && roomHolds(c.Requests, room) {
			return true
		}
	}
	return false
}

// roomHolds is resources.FitsSum with nothing used yet.
func roomHolds(requests, room resources.Vector) bool {
	for i, x := range requests {
		if x != 0 && x > room[i] {
			return false
		}
	}
	return true
}

// fill fills a bin with this room, without taking the pods, choosing each time the class
// whose pod best balances the room left.
func fill(ws *Workspace, classes []Class, room resources.Vector, dims int) *Fill {
	f := &Fill{}
	fillInto(ws, f, classes, room, dims)
	return f
}

// fillInto is fill into f, whose arrays it reuses.
func fillInto(ws *Workspace, f *Fill, classes []Class, room resources.Vector, dims int) {
	used := []int64(f.Used)
	f.Taken, f.Used = grow(&f.Taken, len(classes)), grow(&used, dims)
	clear(f.Taken)
	clear(f.Used)
	f.Count, f.Price, f.Efficiency = 0, 0, 0
	// A class that is used up or finds no room stays so while the bin fills (it only takes
	// more): it drops out of open, which keeps the classes' order, so ties go to the same one.
	open := grow(&ws.open, len(classes))
	for i := range open {
		open[i] = i
	}
	for {
		best := -1
		bestScore := -1.0
		kept := open[:0]
		for _, i := range open {
			c := classes[i]
			if f.Taken[i] >= c.Left || !resources.FitsSum(f.Used, c.Requests, room) {
				continue
			}
			kept = append(kept, i)
			if score := balanceScore(c.Requests, f.Used, room); score > bestScore {
				best, bestScore = i, score
			}
		}
		open = kept
		if best < 0 {
			return
		}
		f.Taken[best]++
		f.Count++
		f.Used.Add(classes[best].Requests)
	}
}

// cheapestFitting is the price of the cheapest kind whose room holds used.
func cheapestFitting(kinds Kinds, used resources.Vector) float64 {
	best := math.Inf(1)
	for j, room := range kinds.Rooms {
		if kinds.Prices[j] < best && used.Fits(room) {
			best = kinds.Prices[j]
		}
	}
	return best
}

// balanceScore is the dot product of a request with the free room, both normalised by the
// room: a classic vector-packing rule that pairs cpu-heavy with memory-heavy pods.
func balanceScore(requests, used, room resources.Vector) float64 {
	score := 0.0
	for i, r := range requests {
		if r == 0 || room[i] <= 0 {
			continue
		}
		capacity := float64(room[i])
		score += float64(r) / capacity * float64(room[i]-used[i]) / capacity
	}
	return score
}
