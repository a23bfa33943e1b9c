package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// nodeplanStdin runs the CLI with stdin.
func nodeplanStdin(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// golden compares got with testdata/golden/name, or rewrites the file under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./cmd/nodeplan -update to create it")
	require.Equal(t, string(want), got, "differs from %s; if the change is right, run go test ./cmd/nodeplan -update", path)
}

const (
	smallCluster  = "testdata/small"
	smallCatalog  = "testdata/catalog.yaml"
	scaledToZero  = "../../examples/stateful-ebs/.steps/3-scaled-to-zero"
	statefulEBS   = "../../examples/stateful-ebs"
	layeredPinned = "../../examples/layered-constraints"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		golden string
		args   []string
	}{
		{"plan-small.json", []string{"plan", "-f", smallCluster, "--catalog", smallCatalog, "-o", "json"}},
		{"plan-small.yaml", []string{"plan", "-f", smallCluster, "--catalog", smallCatalog, "-o", "yaml"}},
		{"plan-small.txt", []string{"plan", "-f", smallCluster, "--catalog", smallCatalog}},
		{"plan-layered-constraints.json", []string{"plan", "-f", layeredPinned, "-o", "json"}},
		{"consolidate-scaled-to-zero.json", []string{"consolidate", "-f", scaledToZero, "--now", "2026-01-12T10:00:00Z", "-o", "json"}},
		{"consolidate-scaled-to-zero.txt", []string{"consolidate", "-f", scaledToZero, "--now", "2026-01-12T10:00:00Z"}},
		{"consolidate-ha-second-move.txt", []string{"consolidate", "-f", "../../examples/ha-consolidation/.steps/2-after-first-move", "--now", "2026-01-12T12:10:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := nodeplan(tt.args...)
			require.Equal(t, exitOK, code, stderr)
			golden(t, tt.golden, stdout)
		})
	}
}

func TestPlanExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string // substrings of stderr
	}{
		{"unschedulable pods still make a plan", []string{"plan", "-f", smallCluster, "--catalog", smallCatalog}, exitOK,
			[]string{"warning: testdata/small/cluster.yaml: document 6 (Service web)", "skipped"}},
		{"bad manifest", []string{"plan", "-f", "testdata/bad-workload.yaml"}, exitInput,
			[]string{"nodeplan plan: ", "testdata/bad-workload.yaml: document 2 (Deployment shop/inflate): spec.template.spec.containers[0].resources.requests.cpu"}},
		{"missing file", []string{"plan", "-f", "testdata/nope.yaml"}, exitInput, []string{"testdata/nope.yaml", "no such file"}},
		{"unknown region", []string{"plan", "-f", smallCluster, "--region", "mars-1"}, exitUsage, []string{`invalid --region "mars-1"`, "the embedded aws catalog has"}},
		{"zones of two regions", []string{"plan", "-f", "testdata/two-regions.yaml"}, exitInput,
			[]string{"several regions", "eu-west-1 (Node ip-10-1-0-1)", "us-west-2 (Pod default/web)", "--region"}},
		{"no -f", []string{"plan"}, exitUsage, []string{"no input: give manifests with -f PATH", `Run "nodeplan plan -h"`}},
		{"bad -o", []string{"plan", "-f", smallCluster, "-o", "wide"}, exitUsage, []string{`invalid -o "wide": use table, json, yaml or html`}},
		{"bad --preferences", []string{"plan", "-f", smallCluster, "--preferences", "Maybe"}, exitUsage, []string{`invalid --preferences "Maybe"`, "Respect or Ignore"}},
		{"bad --min-values", []string{"plan", "-f", smallCluster, "--min-values", "strict"}, exitUsage, []string{`invalid --min-values "strict"`}},
		{"bad --strategy", []string{"plan", "-f", smallCluster, "--strategy", "fast"}, exitUsage, []string{`invalid --strategy "fast"`, "cheapest or karpenter"}},
		{"unknown flag", []string{"plan", "-f", smallCluster, "--nope"}, exitUsage, []string{"unknown flag --nope"}},
		{"stray argument", []string{"plan", smallCluster}, exitUsage, []string{`unexpected argument "testdata/small": did you mean -f testdata/small?`}},
		{"explain an unknown pod", []string{"plan", "-f", smallCluster, "--catalog", smallCatalog, "--explain", "web-9"}, exitInput,
			[]string{"--explain default/web-9: no pending pod of that name", "pending pods include default/web-0"}},
		{"consolidate: bad --now", []string{"consolidate", "-f", scaledToZero, "--now", "yesterday"}, exitUsage, []string{`invalid --now "yesterday"`, "RFC 3339"}},
		{"consolidate: bad manifest", []string{"consolidate", "-f", "testdata/bad-workload.yaml", "--now", "2026-01-12T10:00:00Z"}, exitInput,
			[]string{"nodeplan consolidate: ", "requests.cpu"}},
		{"consolidate: no -f", []string{"consolidate"}, exitUsage, []string{"no input"}},
		{"contradicting NodePool requirements", []string{"plan", "-f", "../../manifest/testdata/bad/nodepool-contradiction.yaml"}, exitInput,
			[]string{"nodepool-contradiction.yaml: document 1 (NodePool general): spec.template.spec.requirements: the requirements on \"kubernetes.io/arch\""}},
		{"consolidate: a PDB of neither int nor percentage", []string{"consolidate", "-f", "../../manifest/testdata/bad/pdb-max-unavailable.yaml", "--now", "2026-01-12T10:00:00Z"}, exitInput,
			[]string{"pdb-max-unavailable.yaml: document 1 (PodDisruptionBudget shop/web): spec.maxUnavailable: \"one\" is neither an integer nor a percentage"}},
		{"consolidate: an unknown price is a warning", []string{"consolidate", "-f", "app/testdata/consolidate/unknown-type.yaml", "--now", "2026-01-12T10:00:00Z"}, exitOK,
			[]string{"warning: node ip-10-0-0-9: its price is unknown: instance type m99.mega is not among the NodePools' instance types"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := nodeplan(tt.args...)
			require.Equal(t, tt.wantCode, code, stderr)
			if tt.wantCode != exitOK {
				require.Empty(t, stdout)
			}
			for _, want := range tt.want {
				require.Contains(t, stderr, want)
			}
		})
	}
}

// "-f -" reads stdin, alone or with files, and plans as if the file were given.
func TestPlanStdin(t *testing.T) {
	t.Parallel()
	manifests, err := os.ReadFile(filepath.Join(smallCluster, "cluster.yaml"))
	require.NoError(t, err)
	_, fromFile, _ := nodeplan("plan", "-f", smallCluster, "--catalog", smallCatalog, "-o", "json")

	code, fromStdin, stderr := nodeplanStdin(string(manifests), "plan", "-f", "-", "--catalog", smallCatalog, "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	require.JSONEq(t, fromFile, fromStdin)
	require.Contains(t, stderr, "warning: stdin: document 6 (Service web)")

	// Comma-separated -f values combine: the NodePool from a file, the rest from stdin.
	parts := strings.SplitN(string(manifests), "\n---\n", 2)
	nodePool := filepath.Join(t.TempDir(), "nodepool.yaml")
	require.NoError(t, os.WriteFile(nodePool, []byte(parts[0]), 0o644))
	code, combined, stderr := nodeplanStdin(parts[1], "plan", "-f", nodePool+",-", "--catalog", smallCatalog, "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	require.JSONEq(t, fromFile, combined)

	// The same objects twice are an error.
	code, twice, stderr := nodeplanStdin(string(manifests), "plan", "-f", "-", "-f", smallCluster, "--catalog", smallCatalog)
	require.Equal(t, exitInput, code)
	require.Empty(t, twice)
	require.Contains(t, stderr, "testdata/small/cluster.yaml: document 1 (NodePool general): NodePool general is already defined in stdin: document 1")
}

func TestPlanTable(t *testing.T) {
	t.Parallel()
	code, stdout, _ := nodeplan("plan", "-f", statefulEBS)
	require.Equal(t, exitOK, code)
	lines := strings.Split(stdout, "\n")
	require.Equal(t, "NEW NODES", lines[0])
	require.Equal(t, []string{"NAME", "NODEPOOL", "TYPE", "ZONE", "CAPACITY", "$/H", "PODS", "CPU%", "MEM%"}, fields(lines[1]))
	require.Equal(t, []string{"default-1", "default", "c6g.large", "us-west-2b", "on-demand", "$0.0680", "3", "78%", "99%"}, fields(lines[2]))
	require.Equal(t, "3 of 3 pending pods placed (3 on 1 new node); new nodes $0.0680/h (lower bound $0.0680/h).", lines[4])
}

// CPU% and MEM% count the DaemonSet pods that would run on the node.
func TestPlanTableDaemonSets(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("plan", "-f", "testdata/daemonsets.yaml")
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(stdout, "\n")
	// m5.xlarge: 3920m cpu allocatable; 2 web pods (1 cpu each) and agent (800m), not picky
	// (it does not tolerate the NodePool's taint): 2800m is 71%.
	require.Equal(t, []string{"np-1", "np", "m5.xlarge", "us-west-2a", "on-demand", "$0.1920", "2", "71%", "22%"}, fields(lines[2]))
}

func fields(line string) []string {
	return regexp.MustCompile(` {3,}`).Split(strings.TrimSpace(line), -1)
}

func TestPlanExplain(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("plan", "-f", statefulEBS, "--explain", "shop/catalog-1")
	require.Equal(t, exitOK, code, stderr)
	for _, want := range []string{
		"Pod shop/catalog-1\n",
		"Outcome:     new node default-1 from NodePool default\n",
		"Offering:    c6g.large in us-west-2b, on-demand, $0.0680/h\n",
		"Why it:      the cheapest available offering among the node's ",
		"Shares with: shop/catalog-0, shop/catalog-2\n",
		"requests: cpu 500m, memory 1Gi\n",
		"claim shop/data (ReadWriteOnce, driver ebs.csi.aws.com)\n",
		"volumes allow nodes with topology.kubernetes.io/zone In [us-west-2b] (node: topology.kubernetes.io/zone=us-west-2b)\n",
	} {
		require.Contains(t, stdout, want)
	}

	code, stdout, stderr = nodeplan("plan", "-f", "../../examples/pod-affinity", "--explain", "api-1")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "pod anti-affinity (preferred, weight 100) over topology.kubernetes.io/zone, pods app=api (node: us-west-2b)\n")
	require.Contains(t, stdout, "matching pods per topology.kubernetes.io/zone after the plan: us-west-2a 1, us-west-2b 1, us-west-2c 1\n")

	code, stdout, stderr = nodeplan("plan", "-f", smallCluster, "--catalog", smallCatalog, "--explain", "big")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "Pod default/big\n  Outcome:     unschedulable (Resources)\n  Reason:      no existing node fits; nodepool general: no instance type has 8 cpu allocatable")

	code, stdout, stderr = nodeplan("plan", "-f", smallCluster, "--catalog", smallCatalog, "--explain", "default/web-0")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "Outcome:     existing node lab-node-1 (m5.large in lab-1a)\n")

	code, stdout, stderr = nodeplan("plan", "-f", smallCluster, "--catalog", smallCatalog, "--explain", "data/db-0")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "Pod data/db-0 is already running on node lab-node-1; plan only places pending pods.\n", stdout)
}

// Without --region the input's zones choose the AWS catalog; --region overrides them.
func TestPlanRegion(t *testing.T) {
	t.Parallel()
	pod := `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeSelector: {topology.kubernetes.io/zone: eu-west-1b}
  containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
`
	code, stdout, stderr := nodeplanStdin(pod, "plan", "-f", "-", "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, `"zone": "eu-west-1b"`)

	// In us-west-2 there is no such zone.
	code, stdout, stderr = nodeplanStdin(pod, "plan", "-f", "-", "--region", "us-west-2")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "default/web   NodeAffinity")
}

// -o html writes one page for plan and consolidate; --explain still explains.
func TestHTMLOutput(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("plan", "-f", statefulEBS, "-o", "html")
	require.Equal(t, exitOK, code, stderr)
	require.True(t, strings.HasPrefix(stdout, "<!DOCTYPE html>\n"))
	require.Contains(t, stdout, `data-node="default-1"`)
	require.True(t, strings.HasSuffix(stdout, "</html>\n"))

	code, stdout, stderr = nodeplan("consolidate", "-f", scaledToZero, "--now", "2026-01-12T10:00:00Z", "-o", "html")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "<title>nodeplan consolidate</title>")
	require.Contains(t, stdout, `<figure class="node removed"`)

	// With a document format, --explain writes the document to stdout and the explanation to
	// stderr: neither is dropped.
	code, stdout, stderr = nodeplan("plan", "-f", statefulEBS, "-o", "html", "--explain", "shop/catalog-1")
	require.Equal(t, exitOK, code)
	require.True(t, strings.HasPrefix(stdout, "<!DOCTYPE html>\n"))
	require.True(t, strings.HasPrefix(stderr, "Pod shop/catalog-1\n"), stderr)
	for _, format := range []string{"yaml", "json"} {
		code, stdout, stderr = nodeplan("plan", "-f", statefulEBS, "-o", format, "--explain", "shop/catalog-1")
		require.Equal(t, exitOK, code)
		require.Regexp(t, `"?kind"?: "?Plan`, stdout)
		require.True(t, strings.HasPrefix(stderr, "Pod shop/catalog-1\n"), stderr)
	}
}

// The explanation's counts of instance-type options agree: the offering line and the last
// solver step count the finished node's options the same way the plan lists them.
func TestPlanExplainOptionCounts(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("plan", "-f", statefulEBS, "--explain", "shop/catalog-1")
	require.Equal(t, exitOK, code, stderr)
	why := regexp.MustCompile(`among the node's (\d+) instance-type options`).FindStringSubmatch(stdout)
	last := regexp.MustCompile(`ends on new node default-1 \(3 pods; (\d+) instance-type option\(s\)\)`).FindStringSubmatch(stdout)
	require.NotNil(t, why, stdout)
	require.NotNil(t, last, stdout)
	require.Equal(t, why[1], last[1])
}

// Leaving out -f is a short error that says what was meant, not the whole usage.
func TestMissingDashF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"plan", statefulEBS}, `nodeplan plan: unexpected argument "` + statefulEBS + `": did you mean -f ` + statefulEBS + `?` + "\n" + `Run "nodeplan plan -h" for usage.` + "\n"},
		{[]string{"plan", statefulEBS, "testdata/daemonsets.yaml", "-o", "json"}, "did you mean -f " + statefulEBS + " -f testdata/daemonsets.yaml?\n"},
		{[]string{"consolidate", scaledToZero}, "did you mean -f " + scaledToZero + "?\n"},
		{[]string{"plan", "missing.yaml"}, "did you mean -f missing.yaml?\n"},
		// Not a path: no hint, but still short.
		{[]string{"catalog", "m5.large"}, `nodeplan catalog: unexpected argument "m5.large"` + "\n" + `Run "nodeplan catalog -h" for usage.` + "\n"},
	}
	for _, tt := range tests {
		code, stdout, stderr := nodeplan(tt.args...)
		require.Equal(t, exitUsage, code, "%v", tt.args)
		require.Empty(t, stdout)
		require.Contains(t, stderr, tt.want, "%v", tt.args)
		require.NotContains(t, stderr, "Flags:", "%v: the error must be short", tt.args)
		require.Equal(t, 2, strings.Count(stderr, "\n"), "%v: %s", tt.args, stderr)
	}
}

// A cordoned node is skipped for being cordoned, not "for lack of room" (the solver models it
// as having no allocatable).
func TestPlanExplainCordoned(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("plan", "-f", "testdata/cordoned.yaml", "--explain", "web-0")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "1. 1 existing node skipped: cordoned (spec.unschedulable, takes no new pods): cordoned-1; 1 other existing node skipped: not enough free room\n")
	require.NotContains(t, stdout, "2 existing node(s) skipped: not enough free room")
}

// --explain KIND/NAME and NAMESPACE/KIND/NAME explain a workload's first pending pod.
func TestPlanExplainWorkload(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"shop/deployment/catalog", "shop/Deployment/catalog", "shop/deploy/catalog"} {
		code, stdout, stderr := nodeplan("plan", "-f", statefulEBS, "--explain", target)
		require.Equal(t, exitOK, code, stderr)
		require.True(t, strings.HasPrefix(stdout, "Deployment shop/catalog has 3 pending pods; explaining the first, shop/catalog-0.\nPod shop/catalog-0\n"), stdout)
		require.Contains(t, stdout, "Solver steps:")
	}
	// In the default namespace, KIND/NAME; a StatefulSet's first pod is <name>-0.
	code, stdout, stderr := nodeplan("plan", "-f", smallCluster, "--catalog", smallCatalog, "--explain", "deployment/web")
	require.Equal(t, exitOK, code, stderr)
	require.True(t, strings.HasPrefix(stdout, "Deployment default/web has 4 pending pods; explaining the first, default/web-0.\nPod default/web-0\n"), stdout)
	code, stdout, stderr = nodeplan("plan", "-f", "../../examples/statefulset-zone", "--explain", "streaming/sts/kafka")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "explaining the first, streaming/kafka-0.\nPod streaming/kafka-0\n")
	// A bare pod by kind.
	code, stdout, stderr = nodeplan("plan", "-f", smallCluster, "--catalog", smallCatalog, "--explain", "pod/big")
	require.Equal(t, exitOK, code, stderr)
	require.True(t, strings.HasPrefix(stdout, "Pod default/big\n"), stdout)

	for _, tt := range []struct{ target, want string }{
		{"deployment/catalog", "--explain deployment/catalog: no pending pod of Deployment default/catalog (did you mean shop/deployment/catalog?)"},
		{"statefulset/web", "--explain statefulset/web: no pending pod of StatefulSet default/web (no pod of the input belongs to it)"},
		{"shop/widget/catalog", `--explain shop/widget/catalog: "widget" is not a kind nodeplan knows`},
		{"a/b/c/d", "--explain a/b/c/d: use NAMESPACE/POD, KIND/NAME or NAMESPACE/KIND/NAME"},
	} {
		code, stdout, stderr := nodeplan("plan", "-f", statefulEBS, "--explain", tt.target)
		require.Equal(t, exitInput, code, tt.target)
		require.Empty(t, stdout)
		require.Contains(t, stderr, tt.want)
	}
	// A running pod named by kind is still a running pod.
	code, stdout, stderr = nodeplan("plan", "-f", smallCluster, "--catalog", smallCatalog, "--explain", "data/pod/db-0")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "Pod data/db-0 is already running on node lab-node-1; plan only places pending pods.\n", stdout)
}

// --strategy karpenter predicts Karpenter's launch: first-fit fills the node it opened for the
// first pod, on the cheapest type that holds all ten; the cheapest strategy spreads them on
// ten small nodes, which cost less.
func TestPlanStrategy(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("plan", "-f", "testdata/inflate.yaml", "--strategy", "karpenter")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "10 of 10 pending pods placed (10 on 1 new node)")
	code, stdout, stderr = nodeplan("plan", "-f", "testdata/inflate.yaml")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "10 of 10 pending pods placed (10 on 10 new nodes)")
}

// A catalog file is read while the manifests are: the input's error still comes first, and
// the catalog's when the input is good.
func TestPlanInputErrorBeforeCatalogError(t *testing.T) {
	t.Parallel()
	code, _, stderr := nodeplan("plan", "-f", "testdata/bad-workload.yaml", "--catalog", "testdata/bad.yaml")
	require.Equal(t, exitInput, code, stderr)
	require.Contains(t, stderr, "testdata/bad-workload.yaml: document 2")
	require.NotContains(t, stderr, "testdata/bad.yaml")
	code, _, stderr = nodeplan("plan", "-f", smallCluster, "--catalog", "testdata/bad.yaml")
	require.Equal(t, exitInput, code, stderr)
	require.Contains(t, stderr, "testdata/bad.yaml")
	require.Contains(t, stderr, "offerings[0].capacityType")
}
