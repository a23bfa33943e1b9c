package scheduling

// solveSpares are the arrays a solve fills afresh, which it takes from its prepared cluster
// and hands back when its plan is made (the plan copies what it reports of them), for the next
// solve to overwrite: its podInfos (500 bytes a pod) and, from a base, its arrays of existing
// nodes. A replay's what-ifs, hundreds of thousands of them, allocated a third of their bytes
// there.
type solveSpares struct {
	infos             []podInfo
	convs             []podConversion
	seen              map[string]bool
	byIndex, existing []*existingNode
	pos               []int32
}

// seenKeys returns the spare set of pod keys, emptied, or a new one sized for n.
func (sp *solveSpares) seenKeys(n int) map[string]bool {
	if sp.seen == nil {
		sp.seen = make(map[string]bool, n)
	} else {
		clear(sp.seen)
	}
	return sp.seen
}

// takeSpares returns spare arrays, or empty ones when there are none.
func (prep *prepared) takeSpares() *solveSpares {
	if prep.spares != nil {
		if sp, ok := prep.spares.Get().(*solveSpares); ok {
			return sp
		}
	}
	return &solveSpares{}
}

// recycle hands a solve's arrays back once nothing refers to them.
func (prep *prepared) recycle(sp *solveSpares) {
	if prep.spares != nil && sp != nil {
		prep.spares.Put(sp)
	}
}
