package hostport_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/hostport"
)

func podWithPort(ip string, port int32, protocol corev1.Protocol) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Ports: []corev1.ContainerPort{{HostIP: ip, HostPort: port, ContainerPort: port, Protocol: protocol}},
	}}}}
}

// A node runs an agent on 10.0.0.1:9100/TCP. A pod on every address of 9100/TCP clashes with
// it; one on another address, or on 9100/UDP, does not.
func Example() {
	used := hostport.OfPod(podWithPort("10.0.0.1", 9100, ""))
	for _, pod := range []*corev1.Pod{
		podWithPort("", 9100, corev1.ProtocolTCP),
		podWithPort("10.0.0.2", 9100, corev1.ProtocolTCP),
		podWithPort("0.0.0.0", 9100, corev1.ProtocolUDP),
	} {
		want := hostport.OfPod(pod)
		_, clash := hostport.FirstConflict(used, want)
		fmt.Printf("%q %d/%s clashes: %v\n", want[0].IP, want[0].Port, want[0].Protocol, clash)
	}
	// Output:
	// "" 9100/TCP clashes: true
	// "10.0.0.2" 9100/TCP clashes: false
	// "0.0.0.0" 9100/UDP clashes: false
}

func ExampleTaken() {
	var taken hostport.Taken
	ports := hostport.OfPod(podWithPort("", 8080, corev1.ProtocolTCP)) // every address
	taken.Note(ports, 0)
	taken.Note(ports, 2)
	skip := taken.Skip(ports)
	fmt.Println("first node free of port 8080:", skip.Find(0))
	fmt.Println("next one after node 1:", skip.Find(2))
	// Output:
	// first node free of port 8080: 1
	// next one after node 1: 3
}
