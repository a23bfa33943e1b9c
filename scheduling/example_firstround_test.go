package scheduling_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// Consolidation asks whether removing a node works without nodes still starting: FirstRound
// answers from the scheduler's first round on the existing nodes, without planning new ones.
// Removing "leaving" moves web-1 onto "ready"; web-2 then finds room only on "starting".
func ExampleCluster_FirstRound() {
	node := func(name string, initialized bool, pods ...*corev1.Pod) *scheduling.ExistingNode {
		room := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("20")}
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Capacity: room, Allocatable: room}}
		for _, p := range pods {
			p.Spec.NodeName = name
		}
		return &scheduling.ExistingNode{Node: n, Pods: pods, Initialized: initialized}
	}
	pod := func(name, cpu string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "main", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}
	}
	c, err := scheduling.Prepare(scheduling.Input{ExistingNodes: []*scheduling.ExistingNode{
		node("leaving", true, pod("web-1", "1"), pod("web-2", "1")),
		node("ready", true, pod("db-0", "1")),
		node("starting", false),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	round, ok := c.FirstRound(scheduling.Change{RemoveNodes: []string{"leaving"}}, scheduling.Options{StopOnUninitialized: true})
	fmt.Println(ok, round.Stopped)
	// Output: true pod default/web-2 would move to node starting, which is not initialized yet
}
