package check

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	schedframework "k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
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

// recountPorts rebuilds a node's used host ports from the pods still on it. NodeInfo keeps
// them as a set, so taking out one of two pods that use the same port forgets the port, and
// the other pod's conflict would go unseen.
func (fw *checkFramework) recountPorts(node string) error {
	info, err := fw.snapshot.NodeInfos().Get(node)
	if err != nil {
		return fmt.Errorf("node %s is not in the finished state: %w", node, err)
	}
	ni, ok := info.(*schedframework.NodeInfo)
	if !ok {
		return fmt.Errorf("node %s: unexpected NodeInfo type %T", node, info)
	}
	ni.UsedPorts = make(fwk.HostPortInfo)
	for _, pi := range ni.Pods {
		for _, port := range schedutil.GetHostPorts(pi.GetPod()) {
			ni.UsedPorts.Add(port.HostIP, string(port.Protocol), port.HostPort)
		}
	}
	return nil
}
