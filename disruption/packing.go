package disruption

import "math/bits"

// packing is what crowded needs to know of the pods of a set to bound how much of a node's
// room they can use: the smallest request in each dimension (a node without room for it
// takes none of them), and the pod kinds asking the most cpu per byte of memory and the
// most memory per milli-cpu.
//
// The ratios matter because room is often lopsided: a node with 15 cpus free but 350Mi of
// memory takes 15 cpus only of pods that ask almost no memory. Pods whose highest
// cpu-to-memory ratio is r take at most r times a node's memory room in cpu, whatever their
// mix, since each takes at most r times its own memory in cpu; and the same holds the other
// way round. Counting the room that way, on a cluster filling up, rules out most single
// nodes whose pods the scheduler's first round finds no room for, without the round.
type packing struct {
	smallest vec
	// cpuPerMemory is the kind asking the most cpu per byte of memory, memoryPerCPU the kind
	// asking the most memory per milli-cpu; zero when some pod asks none of the divisor
	// (then nothing caps that dimension).
	cpuPerMemory, memoryPerCPU vec
}

// packingOf returns the packing of the movable pods of set and their total requests, and false
// when there are none.
func packingOf(set []*nodeState) (p packing, total vec, found bool) {
	capCPU, capMemory := true, true
	for _, c := range set {
		for _, k := range c.kinds {
			total = total.add(k.v.times(k.count))
			if !found {
				p.smallest, p.cpuPerMemory, p.memoryPerCPU, found = k.v, k.v, k.v, true
			}
			for d := range p.smallest {
				p.smallest[d] = min(p.smallest[d], k.v[d])
			}
			capCPU = capCPU && k.v[1] > 0
			capMemory = capMemory && k.v[0] > 0
			if capCPU && ratioAbove(k.v[0], k.v[1], p.cpuPerMemory[0], p.cpuPerMemory[1]) {
				p.cpuPerMemory = k.v
			}
			if capMemory && ratioAbove(k.v[1], k.v[0], p.memoryPerCPU[1], p.memoryPerCPU[0]) {
				p.memoryPerCPU = k.v
			}
		}
	}
	if !capCPU {
		p.cpuPerMemory = vec{}
	}
	if !capMemory {
		p.memoryPerCPU = vec{}
	}
	return p, total, found
}

// usable is the most of room that pods of the packing can take: all of it when the smallest
// does not fit, none; else each of cpu and memory at most what the other's room allows at
// the pods' highest ratio (rounded up, so the bound stays a relaxation).
func (p packing) usable(room vec) vec {
	if !p.smallest.fits(room) {
		return vec{}
	}
	if r := p.cpuPerMemory; r != (vec{}) {
		room[0] = min(room[0], scaledUp(room[1], r[0], r[1]))
	}
	if r := p.memoryPerCPU; r != (vec{}) {
		room[1] = min(room[1], scaledUp(room[0], r[1], r[0]))
	}
	return room
}

// ratioAbove reports whether a/b > c/d, for non-negative a and c and positive b and d,
// without overflow.
func ratioAbove(a, b, c, d int64) bool {
	hi1, lo1 := bits.Mul64(uint64(a), uint64(d))
	hi2, lo2 := bits.Mul64(uint64(c), uint64(b))
	return hi1 > hi2 || (hi1 == hi2 && lo1 > lo2)
}

// scaledUp is x·num/den rounded up, for non-negative x and num and positive den; the most
// int64 holds when it is more.
func scaledUp(x, num, den int64) int64 {
	hi, lo := bits.Mul64(uint64(x), uint64(num))
	if hi >= uint64(den) {
		return 1<<63 - 1 // the quotient would not fit in 64 bits
	}
	q, r := bits.Div64(hi, lo, uint64(den))
	if r > 0 {
		q++
	}
	if q > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(q)
}
