package app

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

// ExplainPlan plans as Plan does, following one pod through the solver, and explains where it
// goes and why (see Explain). target names the pod: NAMESPACE/POD, or POD in the default
// namespace; or a workload: KIND/NAME or NAMESPACE/KIND/NAME (deployment/web,
// shop/statefulset/db, with kubectl's short kinds too), whose first pending pod in input order
// is explained (generated pods are named <workload>-<ordinal>, so that is <workload>-0 unless
// it runs already). The error is for unusable input or a target that names no pending pod.
func ExplainPlan(cfg Config, opts scheduling.Options, target string) (*Planned, string, error) {
	b, cat, err := cfg.load()
	if err != nil {
		return partial(b), "", err
	}
	in := b.SchedulingInput()
	key, intro, err := resolveExplainTarget(in.Pods, b.BoundPods, target)
	if err != nil {
		return partial(b), "", err
	}
	opts.Trace = append(opts.Trace, key)
	in.Options = opts
	withInstanceTypes(b, in.NodePools, cat)
	plan, err := scheduling.Solve(in)
	if err != nil {
		return partial(b), "", err
	}
	res := &Planned{Bundle: b, Catalog: cat, Input: in, Plan: plan}
	text, err := Explain(res, key)
	if err != nil {
		return res, "", err
	}
	return res, intro + text, nil
}

// workloadKinds maps the names kubectl accepts for a kind (lower case) to the kind.
var workloadKinds = map[string]string{
	"pod": "Pod", "pods": "Pod", "po": "Pod",
	"deployment": "Deployment", "deployments": "Deployment", "deploy": "Deployment",
	"statefulset": "StatefulSet", "statefulsets": "StatefulSet", "sts": "StatefulSet",
	"replicaset": "ReplicaSet", "replicasets": "ReplicaSet", "rs": "ReplicaSet",
	"job": "Job", "jobs": "Job",
	"replicationcontroller": "ReplicationController", "replicationcontrollers": "ReplicationController", "rc": "ReplicationController",
	"daemonset": "DaemonSet", "daemonsets": "DaemonSet", "ds": "DaemonSet",
}

// resolveExplainTarget turns --explain's argument into a pod key. For a workload it also
// returns a line saying which of its pods is explained. A two-part name is a pod when such a
// pod exists (pending or running), else a workload when its first part is a kind.
func resolveExplainTarget(pending, bound []*corev1.Pod, target string) (key, intro string, err error) {
	parts := strings.Split(target, "/")
	for _, p := range parts {
		if p == "" {
			return "", "", fmt.Errorf("--explain %s: use NAMESPACE/POD, KIND/NAME or NAMESPACE/KIND/NAME", target)
		}
	}
	var w workloadcost.Workload
	switch len(parts) {
	case 1:
		return "default/" + target, "", nil
	case 2:
		if podExists(pending, target) || podExists(bound, target) {
			return target, "", nil
		}
		kind, ok := workloadKinds[strings.ToLower(parts[0])]
		if !ok {
			return target, "", nil // a pod that does not exist: Explain says so
		}
		w = workloadcost.Workload{Namespace: "default", Kind: kind, Name: parts[1]}
	case 3:
		kind, ok := workloadKinds[strings.ToLower(parts[1])]
		if !ok {
			return "", "", fmt.Errorf("--explain %s: %q is not a kind nodeplan knows (deployment, statefulset, replicaset, job, replicationcontroller, daemonset, pod); use NAMESPACE/POD, KIND/NAME or NAMESPACE/KIND/NAME", target, parts[1])
		}
		w = workloadcost.Workload{Namespace: parts[0], Kind: kind, Name: parts[2]}
	default:
		return "", "", fmt.Errorf("--explain %s: use NAMESPACE/POD, KIND/NAME or NAMESPACE/KIND/NAME", target)
	}
	if w.Kind == "Pod" {
		return w.Namespace + "/" + w.Name, "", nil
	}
	var mine []*corev1.Pod
	for _, p := range pending {
		if p != nil && belongsTo(p, w) {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		running := 0
		for _, p := range bound {
			if p != nil && belongsTo(p, w) {
				running++
			}
		}
		why := "no pod of the input belongs to it"
		if ns := namespacesWith(pending, w); len(ns) > 0 {
			why = fmt.Sprintf("did you mean %s/%s/%s?", ns[0], strings.ToLower(w.Kind), w.Name)
		}
		switch {
		case w.Kind == "DaemonSet":
			why = "a DaemonSet's pods are overhead on every node, not pods to place"
		case running == 1:
			why = "its pod is already running; plan only places pending pods"
		case running > 1:
			why = fmt.Sprintf("its %d pods are already running; plan only places pending pods", running)
		}
		return "", "", fmt.Errorf("--explain %s: no pending pod of %s (%s)", target, workloadLabel(w), why)
	}
	key = podKey(mine[0])
	if len(mine) == 1 {
		return key, fmt.Sprintf("%s has 1 pending pod: %s.\n", workloadLabel(w), key), nil
	}
	return key, fmt.Sprintf("%s has %d pending pods; explaining the first, %s.\n", workloadLabel(w), len(mine), key), nil
}

func podExists(pods []*corev1.Pod, key string) bool {
	for _, p := range pods {
		if p != nil && podKey(p) == key {
			return true
		}
	}
	return false
}

// belongsTo says whether the pod is one of the workload's: its workload as the cost by
// workload counts it (a Deployment's ReplicaSets count as the Deployment), or its direct
// controller (so replicaset/NAME finds a Deployment's ReplicaSet's pods too).
func belongsTo(p *corev1.Pod, w workloadcost.Workload) bool {
	if p.Namespace != w.Namespace {
		return false
	}
	if workloadcost.Of(p) == w {
		return true
	}
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller && r.Kind == w.Kind && r.Name == w.Name {
			return true
		}
	}
	return false
}

// namespacesWith lists the namespaces, sorted, where a workload of w's kind and name has
// pending pods.
func namespacesWith(pending []*corev1.Pod, w workloadcost.Workload) []string {
	found := map[string]bool{}
	for _, p := range pending {
		if p == nil {
			continue
		}
		if other := (workloadcost.Workload{Namespace: p.Namespace, Kind: w.Kind, Name: w.Name}); belongsTo(p, other) {
			found[p.Namespace] = true
		}
	}
	return sortedKeys(found)
}
