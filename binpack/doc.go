// Package binpack fills nodes one at a time from pods grouped by shape: the repacking step of
// a plan, once the pods of some nodes are known to be free to move. Its input has no
// scheduler types: Classes of pods with the same requests and how many are left, and Kinds of
// node with the room each offers pods and its price. A Strategy picks the next bin and what
// it takes (a Fill); the caller takes those pods, updates the classes and asks again until no
// pod is left, then launches each bin as the cheapest type that holds it.
//
// Both strategies lean on the fluid LP of package bound for what is left: MostEfficient keeps
// the fill worth most per dollar at the LP's dual prices, FluidKind fills the kind the LP buys
// most of. Each balances the room of a bin, pairing cpu-heavy with memory-heavy pods. Kinds
// made by NewKinds keep what the LP derives from them for every fill over them.
//
//	ws := &binpack.Workspace{}
//	for left > 0 {
//		f := binpack.MostEfficient(ws, kinds, remaining, classes)
//		for i, n := range f.Taken {
//			classes[i].Left -= n
//			// ... and take n pods of class i, subtracting their requests from remaining
//		}
//	}
package binpack
