package karpentercmp

import (
	"context"
	"fmt"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	kscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/logging"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/test"
)

func init() {
	log.SetLogger(logging.NopLogger)
}

// outcome is what one solver launched for a workload.
type outcome struct {
	nodes         int
	cost          float64 // $/h: each node's cheapest compatible offering
	unschedulable int
	took          time.Duration
}

func (o outcome) String() string {
	return fmt.Sprintf("%d nodes, $%.2f/h, %d unschedulable, %s", o.nodes, o.cost, o.unschedulable, o.took.Round(time.Millisecond))
}

// runKarpenter solves pods with Karpenter's provisioning scheduler as its benchmark builds
// it (setupScheduler: one NodePool without requirements, fake.InstanceTypes(400), an empty
// cluster, five concurrent workers), cuts each NodeClaim's options to MaxInstanceTypes as the
// provisioner does, and prices each at its cheapest compatible available offering, the one
// the fake cloud provider's Create launches.
func runKarpenter(pods []*corev1.Pod, opts ...kscheduling.Options) (outcome, error) {
	ctx := options.ToContext(injection.WithControllerName(context.Background(), "provisioner"), test.Options())
	nodePool := test.NodePool(v1.NodePool{Spec: v1.NodePoolSpec{Limits: v1.Limits{
		corev1.ResourceCPU:    resource.MustParse("10000000"),
		corev1.ResourceMemory: resource.MustParse("10000000Gi"),
	}}})
	cp := fake.NewCloudProvider()
	its := fake.InstanceTypes(400)
	cp.InstanceTypes = its
	byPool := map[string][]*cloudprovider.InstanceType{nodePool.Name: its}
	client := fakecr.NewFakeClient()
	clk := &clock.RealClock{}
	cluster := state.NewCluster(clk, client, cp)
	// Karpenter sorts the pods it is given and mutates their copies; give it its own.
	mine := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		mine[i] = p.DeepCopy()
	}
	opts = append(opts, kscheduling.NumConcurrentReconciles(5))
	start := time.Now()
	topology, err := kscheduling.NewTopology(ctx, client, cluster, nil, []*v1.NodePool{nodePool}, byPool, mine, opts...)
	if err != nil {
		return outcome{}, err
	}
	s := kscheduling.NewScheduler(ctx, client, []*v1.NodePool{nodePool}, cluster, nil, topology, byPool, nil,
		events.NewRecorder(&record.FakeRecorder{}), clk, nil, nil, opts...)
	results, err := s.Solve(ctx, mine)
	if err != nil {
		return outcome{}, err
	}
	results = results.TruncateInstanceTypes(ctx, kscheduling.MaxInstanceTypes)
	out := outcome{nodes: len(results.NewNodeClaims), unschedulable: len(results.PodErrors)}
	for _, nc := range results.NewNodeClaims {
		price := math.Inf(1)
		for _, it := range nc.InstanceTypeOptions {
			if ofs := it.Offerings.Available().Compatible(nc.Requirements); len(ofs) > 0 {
				price = min(price, ofs.Cheapest().Price)
			}
		}
		out.cost += price
	}
	out.took = time.Since(start)
	return out, nil
}
