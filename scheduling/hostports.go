package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/skipset"
)

// hostPort is one port a pod binds on its node.
type hostPort struct {
	ip       string
	port     int32
	protocol corev1.Protocol
}

func podHostPorts(pod *corev1.Pod) []hostPort {
	var out []hostPort
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			for _, p := range c.Ports {
				if p.HostPort == 0 {
					continue
				}
				proto := p.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				out = append(out, hostPort{ip: p.HostIP, port: p.HostPort, protocol: proto})
			}
		}
	}
	return out
}

func wildcardIP(ip string) bool { return ip == "" || ip == "0.0.0.0" || ip == "::" }

// conflicts reports whether two host ports cannot share a node: same port and protocol, and
// the same IP or either one bound to every address.
func (a hostPort) conflicts(b hostPort) bool {
	return a.port == b.port && a.protocol == b.protocol && (a.ip == b.ip || wildcardIP(a.ip) || wildcardIP(b.ip))
}

// portConflict returns the first of want that conflicts with used.
func portConflict(used, want []hostPort) (hostPort, bool) {
	for _, w := range want {
		for _, u := range used {
			if w.conflicts(u) {
				return w, true
			}
		}
	}
	return hostPort{}, false
}

// hostPortKey is a port and protocol, whatever the address.
type hostPortKey struct {
	port     int32
	protocol corev1.Protocol
}

// notePorts records that new node i binds the pod's wildcard host ports.
func (s *solver) notePorts(p *podInfo, i int) {
	for _, hp := range p.hostPorts {
		if !wildcardIP(hp.ip) {
			continue // a specific address leaves the port free on the others
		}
		skipset.For(s.portTaken, hostPortKey{hp.port, hp.protocol}).Block(i)
	}
}

// portSkip returns the skip set of the pod's first host port, or nil when it binds none: the
// nodes it marks conflict with any address of that port.
func (s *solver) portSkip(p *podInfo) *skipset.Set {
	if len(p.hostPorts) == 0 {
		return nil
	}
	hp := p.hostPorts[0]
	return skipset.For(s.portTaken, hostPortKey{hp.port, hp.protocol})
}
