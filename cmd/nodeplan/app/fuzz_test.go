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

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
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
