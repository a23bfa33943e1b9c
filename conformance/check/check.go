package check

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	schedframework "k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/nodeplan/nodeplan/scheduling"
)

// Plugin names used for failures that are not a kube-scheduler plugin's.
const (
	// Accounting: a pod missing from the plan, placed twice, unknown, or a summary that
	// disagrees with the plan.
	Accounting = "Accounting"
	// NodeClaimLabels: a new node whose labels contradict its own fields (hostname, zone,
	// instance type, capacity type, NodePool).
	NodeClaimLabels = "NodeClaimLabels"
	// PreFilterResult: a PreFilter plugin narrowed the candidate nodes to a set without the
	// pod's node.
	PreFilterResult = "PreFilterResult"
)

// Failure is one broken rule: a pod that kube-scheduler would not put on its node, or a plan
// that does not account for its pods.
type Failure struct {
	// Pod is namespace/name ("" for a failure of the plan as a whole).
	Pod string
	// Node is the node the plan put the pod on ("" when it is not about a node).
	Node string
	// Plugin is the kube-scheduler plugin that rejected the pod, or Accounting,
	// NodeClaimLabels or PreFilterResult.
	Plugin string
	// Reason is the plugin's reasons, joined.
	Reason string
}

func (f Failure) String() string {
	var b strings.Builder
	if f.Pod != "" {
		b.WriteString(f.Pod)
		if f.Node != "" {
			b.WriteString(" on " + f.Node)
		}
		b.WriteString(": ")
	} else if f.Node != "" {
		b.WriteString(f.Node + ": ")
	}
	b.WriteString(f.Plugin + ": " + f.Reason)
	return b.String()
}

// Result is what Plan found.
type Result struct {
	// Failures in a deterministic order: accounting first, then pods in plan order.
	Failures []Failure
	// Checked counts the placed pods run through the plugins.
	Checked int
	// Nodes, NewNodes and VirtualNodes count the nodes of the finished state: all of them,
	// those made from NodeClaims and the empty zones.
	Nodes, NewNodes, VirtualNodes int
	// Pods counts the pods of the finished state (running, daemon and placed pods).
	Pods int
	// DaemonPods counts the DaemonSet pods added to new and starting nodes.
	DaemonPods int
	// Staying and Moved count, for Decisions, the checked pods that stay on their node and
	// those that moved.
	Staying, Moved int
	// Pending lists, for Decisions, the pods a forceful command (expiration) evicts with
	// nowhere to go: they wait for new capacity.
	Pending []string
	// Preexisting are, for Decisions, failures of staying pods that the plugins refuse in the
	// cluster as it was too: the decisions did not cause them.
	Preexisting []Failure
}

// ByPlugin counts the failures per plugin.
func (r Result) ByPlugin() map[string]int {
	out := map[string]int{}
	for _, f := range r.Failures {
		out[f.Plugin]++
	}
	return out
}

// Summary is one line for a test log.
func (r Result) Summary() string {
	by := r.ByPlugin()
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s=%d", p, by[p]))
	}
	failures := "none"
	if len(parts) > 0 {
		failures = strings.Join(parts, " ")
	}
	checked := fmt.Sprintf("%d placed pods", r.Checked)
	if r.Staying+r.Moved > 0 {
		checked = fmt.Sprintf("%d pods (%d staying, %d moved)", r.Checked, r.Staying, r.Moved)
	}
	extra := ""
	if len(r.Pending) > 0 {
		extra += fmt.Sprintf("; %d evicted pods left pending", len(r.Pending))
	}
	if len(r.Preexisting) > 0 {
		extra += fmt.Sprintf("; %d staying pods already failing before", len(r.Preexisting))
	}
	return fmt.Sprintf("checked %s on %d nodes (%d new, %d virtual zone nodes; %d pods, %d daemon pods): failures %s%s",
		checked, r.Nodes, r.NewNodes, r.VirtualNodes, r.Pods, r.DaemonPods, failures, extra)
}

// Plan checks plan, which scheduling.Solve returned for in, with kube-scheduler's plugins
// against the finished state the plan leaves (see the package documentation). The error is for
// a framework that cannot be built or run; a plan's faults are Failures.
func Plan(in scheduling.Input, plan scheduling.Plan) (Result, error) {
	res := Result{Failures: accounting(in, plan)}
	st := newState(in, plan)
	err := st.check(&res, st.placed)
	return res, err
}

// check runs pods of the state through the plugins, each with itself left out, and adds what
// it finds to res.
func (st *state) check(res *Result, pods []placedPod) error {
	res.Failures = append(res.Failures, st.labelFailures...)
	res.Nodes, res.NewNodes, res.VirtualNodes = len(st.nodes), st.newNodes, st.virtualNodes
	res.Pods, res.DaemonPods = len(st.pods), st.daemonPods

	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	fw, err := newFramework(ctx, st)
	if err != nil {
		cancel()
		return err
	}
	defer func() {
		cancel() // stops the informers and the framework's metrics recorder
		fw.stop()
	}()

	logger := klog.FromContext(ctx)
	for _, p := range pods {
		res.Checked++
		if err := fw.snapshot.RemovePod(logger, p.pod, p.node); err != nil {
			return fmt.Errorf("taking %s out of node %s: %w", p.key, p.node, err)
		}
		if err := fw.recountPorts(p.node); err != nil {
			return err
		}
		if f, bad := fw.check(ctx, p); bad {
			res.Failures = append(res.Failures, f)
		}
		pi, err := schedframework.NewPodInfo(p.pod)
		if err != nil {
			return fmt.Errorf("putting %s back on node %s: %w", p.key, p.node, err)
		}
		if err := fw.snapshot.AddPod(pi, p.node); err != nil {
			return fmt.Errorf("putting %s back on node %s: %w", p.key, p.node, err)
		}
	}
	return nil
}

// placedPod is a pod bound in the finished state: a pending pod the plan placed, or a pod
// running on an existing node.
type placedPod struct {
	key  string
	node string
	pod  *corev1.Pod
}

// check runs PreFilter and Filter for one pod, already out of the snapshot, on its node.
func (fw *checkFramework) check(ctx context.Context, p placedPod) (Failure, bool) {
	fail := func(plugin string, reasons ...string) (Failure, bool) {
		return Failure{Pod: p.key, Node: p.node, Plugin: plugin, Reason: strings.Join(reasons, "; ")}, true
	}
	state := schedframework.NewCycleState()
	result, status, pluginsWithNodes := fw.framework.RunPreFilterPlugins(ctx, state, p.pod)
	if !status.IsSuccess() {
		plugin := status.Plugin()
		if plugin == "" {
			plugin = PreFilterResult
		}
		return fail(plugin, status.Reasons()...)
	}
	if !result.AllNodes() && !result.NodeNames.Has(p.node) {
		return fail(PreFilterResult, fmt.Sprintf("PreFilter of %s allows only nodes %v",
			strings.Join(sets.List(pluginsWithNodes), ", "), sets.List(result.NodeNames)))
	}
	nodeInfo, err := fw.snapshot.NodeInfos().Get(p.node)
	if err != nil {
		return fail(Accounting, fmt.Sprintf("node %s is not in the finished state: %v", p.node, err))
	}
	if status := fw.framework.RunFilterPlugins(ctx, state, p.pod, nodeInfo); !status.IsSuccess() {
		reasons := status.Reasons()
		if status.Plugin() == names.PodTopologySpread {
			reasons = append(reasons, fw.explainSpread(p.pod, nodeInfo.Node()))
		}
		return fail(status.Plugin(), reasons...)
	}
	return Failure{}, false
}

// explainSpread explains a PodTopologySpread rejection from the snapshot (see explainSpread).
func (fw *checkFramework) explainSpread(pod *corev1.Pod, node *corev1.Node) string {
	infos, err := fw.snapshot.NodeInfos().List()
	if err != nil {
		return ""
	}
	nodes := make([]*corev1.Node, 0, len(infos))
	for _, ni := range infos {
		nodes = append(nodes, ni.Node())
	}
	podsOn := func(name string) []*corev1.Pod {
		ni, err := fw.snapshot.NodeInfos().Get(name)
		if err != nil {
			return nil
		}
		var out []*corev1.Pod
		for _, pi := range ni.GetPods() {
			out = append(out, pi.GetPod())
		}
		return out
	}
	return explainSpread(pod, node, nodes, podsOn)
}
