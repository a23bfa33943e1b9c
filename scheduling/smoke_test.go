package scheduling_test

import (
	"encoding/json"
	"fmt"
	"testing"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
	corev1 "k8s.io/api/core/v1"
)

func TestSmoke(t *testing.T) {
	small := tb.Type("small", "2", "8Gi", 29).Offer("zone-a", "on-demand", 0.1).Offer("zone-b", "spot", 0.04).Obj()
	large := tb.Type("large", "8", "32Gi", 58).Offer("zone-a", "on-demand", 0.4).Offer("zone-b", "spot", 0.15).Obj()
	pods := tb.Pod("web").CPU("1").Memory("1Gi").Replicas(10)
	pods = append(pods, tb.Pod("big").CPU("96").Obj())
	pods = append(pods, tb.Pod("gpu").CPU("1").Toleration("x", "", corev1.TaintEffectNoSchedule).Obj())
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: []*scheduling.NodePool{
		tb.NodePool("default", small, large).Obj(),
		tb.NodePool("tainted", small).Taint("x", "y", corev1.TaintEffectNoSchedule).Weight(10).Obj(),
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(plan, "", "  ")
	fmt.Println(string(b))
}
