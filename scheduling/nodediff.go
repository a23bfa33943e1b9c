package scheduling

// nodeChanges are the nodes of a Cluster's input before and after Apply that differ: gone
// are those of before that are not at their place in after (replaced by a changed copy, or
// removed), came those of after that are not before's at their place (changed or new). ok is
// false when the lists could not be compared (a nil or unnamed node).
type nodeChanges struct {
	gone, came []*ExistingNode
	ok         bool
}

// nodesChanged compares before and after. Apply keeps the nodes' order, drops removed ones
// and appends new ones, so both lists are read side by side by identity, without looking a
// name up; any other order only lists more nodes in both.
func nodesChanged(before, after []*ExistingNode) nodeChanges {
	var ch nodeChanges
	i, j := 0, 0
	for i < len(before) && j < len(after) {
		b, a := before[i], after[j]
		switch {
		case b == a:
			j++
		case a == nil || a.Node == nil || b == nil || b.Node == nil:
			return nodeChanges{}
		case b.Node.Name == a.Node.Name: // changed
			ch.gone, ch.came = append(ch.gone, b), append(ch.came, a)
			j++
		default: // removed
			ch.gone = append(ch.gone, b)
		}
		i++
	}
	ch.gone, ch.came, ch.ok = append(ch.gone, before[i:]...), append(ch.came, after[j:]...), true
	return ch
}
