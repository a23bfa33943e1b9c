package hostport

import corev1 "k8s.io/api/core/v1"

// Port is one port a pod binds on its node (a container port with a hostPort).
type Port struct {
	IP       string
	Port     int32
	Protocol corev1.Protocol
}

// Key is a port and protocol, whatever the address: the ports a wildcard address takes on
// every address of the node.
type Key struct {
	Port     int32
	Protocol corev1.Protocol
}

// OfPod lists the host ports of a pod's init and regular containers, in order; a port with
// no protocol is TCP, as the API server defaults it.
func OfPod(pod *corev1.Pod) []Port {
	var out []Port
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
				out = append(out, Port{IP: p.HostIP, Port: p.HostPort, Protocol: proto})
			}
		}
	}
	return out
}

// Wildcard reports whether the port is bound on every address of the node.
func (a Port) Wildcard() bool { return a.IP == "" || a.IP == "0.0.0.0" || a.IP == "::" }

// Key is the port and protocol of a.
func (a Port) Key() Key { return Key{a.Port, a.Protocol} }

// Conflicts reports whether two host ports cannot share a node: same port and protocol, and
// the same IP or either one bound to every address.
func (a Port) Conflicts(b Port) bool {
	return a.Port == b.Port && a.Protocol == b.Protocol && (a.IP == b.IP || a.Wildcard() || b.Wildcard())
}

// FirstConflict returns the first of want that conflicts with used.
func FirstConflict(used, want []Port) (Port, bool) {
	for _, w := range want {
		for _, u := range used {
			if w.Conflicts(u) {
				return w, true
			}
		}
	}
	return Port{}, false
}
