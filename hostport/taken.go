package hostport

import "github.com/nodeplan/nodeplan/internal/skipset"

// Taken marks, per host port and protocol, the nodes (numbered by the caller) where a pod binds
// it on every address, so that pods needing that port skip them without trying each. The zero
// value marks no node.
type Taken struct {
	sets map[Key]*skipset.Set
}

// Note records that node binds the wildcard ones of ports (a specific address leaves the port
// free on the others).
func (t *Taken) Note(ports []Port, node int) {
	for _, p := range ports {
		if p.Wildcard() {
			t.set(p.Key()).Block(node)
		}
	}
}

// Skip returns the nodes to skip for the first of ports, or nil when there is none: the nodes
// it marks conflict with any address of that port.
func (t *Taken) Skip(ports []Port) *skipset.Set {
	if len(ports) == 0 {
		return nil
	}
	return t.set(ports[0].Key())
}

func (t *Taken) set(k Key) *skipset.Set {
	if t.sets == nil {
		t.sets = map[Key]*skipset.Set{}
	}
	return skipset.For(t.sets, k)
}
