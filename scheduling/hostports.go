package scheduling

import (
	"github.com/nodeplan/nodeplan/internal/skipset"
)

// notePorts records that new node i binds the pod's wildcard host ports.
func (s *solver) notePorts(p *podInfo, i int) {
	for _, hp := range p.hostPorts {
		if !hp.Wildcard() {
			continue // a specific address leaves the port free on the others
		}
		skipset.For(s.portTaken, hp.Key()).Block(i)
	}
}

// portSkip returns the skip set of the pod's first host port, or nil when it binds none: the
// nodes it marks conflict with any address of that port.
func (s *solver) portSkip(p *podInfo) *skipset.Set {
	if len(p.hostPorts) == 0 {
		return nil
	}
	hp := p.hostPorts[0]
	return skipset.For(s.portTaken, hp.Key())
}
