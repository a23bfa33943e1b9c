package scheduling

// nodesChanged compares the nodes of a Cluster's input before and after Apply: gone are those
// of before that are not at their place in after (replaced by a changed copy, or removed),
// came those of after that are not before's at their place (changed or new). Apply keeps the
// nodes' order, drops removed ones and appends new ones, so both lists are read side by side
// by identity, without looking a name up. ok is false for a nil or unnamed node; any other
// order only lists more nodes in both.
func nodesChanged(before, after []*ExistingNode) (gone, came []*ExistingNode, ok bool) {
	i, j := 0, 0
	for i < len(before) && j < len(after) {
		b, a := before[i], after[j]
		switch {
		case b == a:
			j++
		case a == nil || a.Node == nil || b == nil || b.Node == nil:
			return nil, nil, false
		case b.Node.Name == a.Node.Name: // changed
			gone, came = append(gone, b), append(came, a)
			j++
		default: // removed
			gone = append(gone, b)
		}
		i++
	}
	return append(gone, before[i:]...), append(came, after[j:]...), true
}
