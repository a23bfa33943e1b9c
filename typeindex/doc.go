// Package typeindex answers, for the instance types of one NodePool, which types can meet a
// requirement set, and which of their offerings it allows. A Type is what the index needs of
// an instance type: its name, the requirements its labels make and its available offerings,
// cheapest first. New indexes a pool's types once; Compile turns a node's requirements into a
// Filter whose answers are bit tests, and OfferingFilter answers the offering questions alone.
//
// A filter gives the same verdicts as asking each type directly (Allows, CheapestOffering);
// the index only makes the question cheap when a solver asks it for hundreds of types and
// thousands of nodes. Cheapest picks the offering a node launches with among several types
// (the cheapest allowed, price ties broken by zone, capacity type and type name: TieLess).
//
//	types := []*typeindex.Type{
//		{Reqs: requirements.FromLabels(map[string]string{"kubernetes.io/arch": "amd64"}), Offerings: amd64Offerings},
//		{Reqs: requirements.FromLabels(map[string]string{"kubernetes.io/arch": "arm64"}), Offerings: arm64Offerings},
//	}
//	ix := typeindex.New(len(types), func(i int) *typeindex.Type { return types[i] })
//	var scratch typeindex.Scratch
//	f := ix.Compile(nodeRequirements, &scratch)
//	for _, t := range types {
//		if f.Allows(t) {
//			fmt.Println(t.Offerings[f.CheapestOffering(t)].Price)
//		}
//	}
package typeindex
