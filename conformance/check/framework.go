package check

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	schedframework "k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// filterPlugins are the plugins whose PreFilter and Filter every placed pod must pass, in
// kube-scheduler's default order.
var filterPlugins = []string{
	names.NodeUnschedulable,
	names.NodeName,
	names.TaintToleration,
	names.NodeAffinity,
	names.NodePorts,
	names.NodeResourcesFit,
	names.VolumeRestrictions,
	names.NodeVolumeLimits,
	names.VolumeBinding,
	names.VolumeZone,
	names.PodTopologySpread,
	names.InterPodAffinity,
}

// checkFramework is a kube-scheduler framework over the finished state.
type checkFramework struct {
	framework schedframework.Framework
	snapshot  *cache.Snapshot
	informers informers.SharedInformerFactory
}

var registerMetrics sync.Once

// newFramework builds kube-scheduler's framework over a snapshot of st, with informers over a
// fake clientset holding st's namespaces and volume objects. It starts the informers (they stop
// with ctx) and the snapshot's mutation session, so pods can be taken out and put back.
func newFramework(ctx context.Context, st *state) (*checkFramework, error) {
	// The framework records metrics through package-level vectors that exist only once
	// registered.
	registerMetrics.Do(metrics.Register)

	cfg, err := latest.Default()
	if err != nil {
		return nil, fmt.Errorf("defaulting the scheduler configuration: %w", err)
	}
	profile := cfg.Profiles[0]
	set := func(ps ...string) config.PluginSet {
		var out config.PluginSet
		for _, p := range ps {
			out.Enabled = append(out.Enabled, config.Plugin{Name: p})
		}
		return out
	}
	profile.Plugins = &config.Plugins{
		QueueSort: set(names.PrioritySort),
		PreFilter: set(filterPlugins...),
		Filter:    set(filterPlugins...),
		Bind:      set(names.DefaultBinder),
	}

	client := fake.NewClientset(st.objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	snapshot := cache.NewSnapshot(st.pods, st.nodes)
	fw, err := frameworkruntime.NewFramework(ctx, plugins.NewInTreeRegistry(), &profile,
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister())),
		frameworkruntime.WithParallelism(runtime.GOMAXPROCS(0)),
	)
	if err != nil {
		return nil, fmt.Errorf("building the scheduler framework: %w", err)
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			factory.Shutdown()
			return nil, fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	if err := snapshot.StartMutations(); err != nil {
		factory.Shutdown()
		return nil, err
	}
	return &checkFramework{framework: fw, snapshot: snapshot, informers: factory}, nil
}

// stop waits for the informers to stop; the caller cancels their context first.
func (fw *checkFramework) stop() {
	fw.informers.Shutdown()
}
