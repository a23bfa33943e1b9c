package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// FuzzConsolidate runs what "nodeplan consolidate" runs on arbitrary manifests: it must not
// panic, every node must be acted on once or blocked with a reason, every pod of a candidate
// must be evicted (and moved, or noted as left pending by Expiration), and the same input
// must give the same document. The seeds are testdata/consolidate/*.yaml and the CLI's test
// snapshots; `go test -fuzz FuzzConsolidate ./cmd/nodeplan/app` explores.
func FuzzConsolidate(f *testing.F) {
	for _, pattern := range []string{"testdata/consolidate/*.yaml", "../testdata/*.yaml", "../testdata/small/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	now := time.Date(2026, 1, 12, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Workloads of a million replicas are valid but take minutes to expand and decide, not
		// a fuzz iteration: only inputs of a size a test decides quickly are explored.
		for _, m := range workloadSize.FindAllSubmatch(data, -1) {
			if n, err := strconv.Atoi(string(m[2])); err != nil || n > 100 {
				return
			}
		}
		if b, err := manifest.Parse(data, "fuzz.yaml"); err != nil || len(b.Pods)+len(b.BoundPods) > 300 || len(b.Nodes)+len(b.NodeClaims) > 60 {
			return
		}
		run := func() (*Consolidated, []byte) {
			res, err := Consolidate(Config{Paths: []string{"-"}, Stdin: bytes.NewReader(data), Region: DefaultRegion}, now)
			if err != nil {
				return nil, nil
			}
			doc, err := Encode(NewDecisionsDocument(res.Decisions), "json")
			if err != nil {
				t.Fatalf("encoding the decisions: %v", err)
			}
			return res, doc
		}
		res, doc := run()
		if res == nil {
			return // unusable input, reported as an error
		}
		if errs := accounting(res.Input, res.Decisions); len(errs) > 0 {
			t.Fatalf("%s", strings.Join(errs, "\n"))
		}
		if _, again := run(); !bytes.Equal(doc, again) {
			t.Fatalf("the same manifests decide differently:\n%s\n%s", doc, again)
		}
	})
}

// workloadSize finds the fields that multiply pods: replicas, parallelism, completions.
var workloadSize = regexp.MustCompile(`(replicas|parallelism|completions)"?\s*:\s*"?([0-9]+)`)

// accounting checks that every node is a candidate of one command or blocked with a reason,
// and that each command evicts every pod of its candidates that must move, each moved once or
// noted as left pending.
func accounting(in disruption.Input, d disruption.Decisions) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	nodes := map[string]*disruption.Node{}
	for _, n := range in.Nodes {
		nodes[n.Node.Name] = n
	}
	seen := map[string]int{}
	for i, c := range d.Commands {
		evicted := map[string]bool{}
		for _, k := range c.Evictions {
			evicted[k] = true
		}
		moved := map[string]int{}
		for _, m := range c.Moves {
			moved[m.Pod]++
		}
		for _, cand := range c.Candidates {
			seen[cand.Node]++
			n := nodes[cand.Node]
			if n == nil {
				fail("command %d removes %s, which is not an input node", i, cand.Node)
				continue
			}
			for _, p := range n.Pods {
				if k := p.Namespace + "/" + p.Name; mustMove(p) && !evicted[k] {
					fail("command %d removes %s but does not evict its pod %s", i, cand.Node, k)
				}
			}
		}
		for _, k := range c.Evictions {
			if moved[k] > 1 {
				fail("command %d moves %s %d times", i, k, moved[k])
			}
			if moved[k] == 0 && c.Method != disruption.MethodExpiration {
				fail("command %d evicts %s without a move", i, k)
			}
		}
	}
	for _, b := range d.Blocked {
		seen[b.Node]++
		if b.Reason == "" {
			fail("node %s is blocked without a reason", b.Node)
		}
	}
	for name := range nodes {
		if seen[name] != 1 {
			fail("node %s appears %d times among candidates and blocked nodes", name, seen[name])
		}
	}
	return errs
}

// mustMove reports whether a pod has to be rescheduled when its node goes.
func mustMove(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil {
		return false
	}
	if _, ok := p.Annotations["kubernetes.io/config.mirror"]; ok {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" || o.Kind == "Node" {
			return false
		}
	}
	return true
}

// FuzzPlan runs what "nodeplan plan -o json" runs on arbitrary manifests, on the embedded
// us-west-2 catalog: it must not panic; every pending pod must be on exactly one new node,
// existing node or unschedulable entry (and nothing else there); on every new node, the
// requests of its pods and of the DaemonSet pods it would run must fit its allocatable (pods
// counted too); and the same input must give the same document. The seeds are the CLI's test
// manifests, the examples and testdata/fuzz/FuzzPlan; `go test -fuzz FuzzPlan
// ./cmd/nodeplan/app` explores.
func FuzzPlan(f *testing.F) {
	for _, pattern := range []string{"testdata/consolidate/*.yaml", "../testdata/*.yaml", "../testdata/small/*.yaml", "../../../examples/*/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range workloadSize.FindAllSubmatch(data, -1) {
			if n, err := strconv.Atoi(string(m[2])); err != nil || n > 100 {
				return
			}
		}
		if b, err := manifest.Parse(data, "fuzz.yaml"); err != nil || len(b.Pods)+len(b.BoundPods) > 300 || len(b.Nodes)+len(b.NodeClaims) > 60 {
			return
		}
		run := func() (*Planned, []byte) {
			res, err := Plan(Config{Paths: []string{"-"}, Stdin: bytes.NewReader(data), Region: DefaultRegion}, scheduling.Options{})
			if err != nil {
				return nil, nil
			}
			doc, err := Encode(NewPlanDocument(res.Plan), "json")
			if err != nil {
				t.Fatalf("encoding the plan: %v", err)
			}
			return res, doc
		}
		res, doc := run()
		if res == nil {
			return // unusable input, reported as an error
		}
		if errs := planAccounting(res.Input, res.Plan); len(errs) > 0 {
			t.Fatalf("%s", strings.Join(errs, "\n"))
		}
		if _, again := run(); !bytes.Equal(doc, again) {
			t.Fatalf("the same manifests plan differently:\n%s\n%s", doc, again)
		}
	})
}

// planAccounting checks that every pending pod of the input has exactly one place in the plan
// and that no new node's pods and DaemonSet pods request more than its allocatable.
func planAccounting(in scheduling.Input, p scheduling.Plan) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	pending := podsByKey(in.Pods)
	if len(pending) != len(in.Pods) {
		fail("%d pending pods have only %d distinct names", len(in.Pods), len(pending))
	}
	seen := map[string]int{}
	placed := 0
	for _, nc := range p.NodeClaims {
		used := corev1.ResourceList{}
		add := func(pod *corev1.Pod) {
			for name, q := range resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}) {
				sum := used[name]
				sum.Add(q)
				used[name] = sum
			}
		}
		for _, key := range nc.Pods {
			seen[key]++
			placed++
			if pod := pending[key]; pod != nil {
				add(pod)
			}
		}
		daemons := daemonPods(in.DaemonSets, nc.Labels, nc.Taints)
		for _, pod := range daemons {
			add(pod)
		}
		used[corev1.ResourcePods] = *resource.NewQuantity(int64(len(nc.Pods)+len(daemons)), resource.DecimalSI)
		for name, q := range used {
			if q.Sign() <= 0 {
				continue
			}
			if alloc, ok := nc.Allocatable[name]; !ok || q.Cmp(alloc) > 0 {
				fail("new node %s (%s): its pods and %d DaemonSet pods request %s %s, allocatable %s", nc.Name, nc.InstanceType, len(daemons), q.String(), name, alloc.String())
			}
		}
	}
	for _, e := range p.ExistingNodes {
		for _, key := range e.Pods {
			seen[key]++
			placed++
		}
	}
	for _, u := range p.Unschedulable {
		seen[u.Pod]++
		if u.Reason == "" || u.Constraint == "" {
			fail("pod %s is unschedulable without a reason or constraint", u.Pod)
		}
	}
	for key, n := range seen {
		switch {
		case pending[key] == nil:
			fail("the plan places %s, which is not a pending pod of the input", key)
		case n != 1:
			fail("pod %s appears %d times in the plan", key, n)
		}
	}
	for key := range pending {
		if seen[key] == 0 {
			fail("pod %s is not accounted for", key)
		}
	}
	if p.Summary.Pods != len(in.Pods) || p.Summary.Placed != placed {
		fail("summary: %d pods, %d placed; the plan has %d pending pods, %d placed", p.Summary.Pods, p.Summary.Placed, len(in.Pods), placed)
	}
	return errs
}
