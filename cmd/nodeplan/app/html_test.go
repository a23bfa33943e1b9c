package app

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

func planHTML(t *testing.T, res *Planned) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WritePlanHTML(&b, res))
	return b.String()
}

// The plan page shows the new node with its pods, the costs and the cost by workload, and the
// same plan gives the same bytes.
func TestPlanHTML(t *testing.T) {
	t.Parallel()
	res, err := Plan(Config{Paths: []string{"../../../examples/stateful-ebs"}}, emptyOptions)
	require.NoError(t, err)
	page := planHTML(t, res)
	require.Equal(t, page, planHTML(t, res), "the page must be deterministic")
	selfContained(t, page)
	for _, want := range []string{
		`<title>nodeplan plan</title>`,
		`<div class="zone" data-zone="us-west-2b">`,
		`<figure class="node new" data-node="default-1">`,
		`c6g.large · on-demand · $0.0680/h`,
		`data-pod="shop/catalog-0"`, `data-pod="shop/catalog-1"`, `data-pod="shop/catalog-2"`,
		"<title>shop/catalog-0\nDeployment shop/catalog\nrequests: cpu 500m, memory 1Gi\ngoes to default-1</title>",
		`<div class="value">$0.0680/h</div><p class="note">$49.64/month (730 h)</p>`,
		`<div class="value">$0.0680/h</div>`,
		`<li>c6g.large: <b>1 node</b></li>`, `<li>on-demand: <b>1 node</b></li>`,
		`CPU 78% · memory 99%`,
		`<tr data-workload="shop/Deployment/catalog"><td>shop</td>`,
		`<td class="num">3</td><td class="num">$0.0680</td><td class="num">$49.64</td><td class="num">100.0%`,
	} {
		require.Contains(t, page, want)
	}
	require.NotContains(t, page, `id="unschedulable"`, "no unschedulable pods, no section")
	require.NotContains(t, page, "ZgotmplZ", "a value html/template refused")
}

// Unschedulable pods, existing nodes (running pods, cordoned) and DaemonSet pods are drawn.
func TestPlanHTMLExistingAndUnschedulable(t *testing.T) {
	t.Parallel()
	res, err := Plan(Config{Paths: []string{"../testdata/small"}, Catalog: "../testdata/catalog.yaml"}, emptyOptions)
	require.NoError(t, err)
	page := planHTML(t, res)
	for _, want := range []string{
		`<figure class="node existing" data-node="lab-node-1">`,
		`<rect class="pod running" data-pod="data/db-0" data-workload="data/Pod/db-0"`,
		`<rect class="pod placed" data-pod="default/web-0" data-workload="default/Deployment/web"`,
		`<tr data-unschedulable="default/big"><td>default/big</td><td>Pod default/big</td><td>Resources</td><td>no existing node fits; nodepool general: no instance type has 8 cpu allocatable`,
	} {
		require.Contains(t, page, want)
	}
	selfContained(t, page)
}

// Every value from the input is escaped, wherever it lands (text, attributes, SVG titles).
func TestPlanHTMLEscapes(t *testing.T) {
	t.Parallel()
	evil := `<script>alert("x")</script>&"'`
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: evil, Namespace: "ns"}}
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}
	res := &Planned{
		Input: scheduling.Input{
			Pods: []*corev1.Pod{pod},
			ExistingNodes: []*scheduling.ExistingNode{{
				Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: evil, Labels: map[string]string{"topology.kubernetes.io/zone": evil}},
					Status: corev1.NodeStatus{Allocatable: alloc}},
				Pods: []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: evil}}},
			}},
		},
		Plan: scheduling.Plan{
			NodeClaims:    []scheduling.NodeClaim{{Name: evil, NodePool: evil, InstanceType: evil, Zone: "z", CapacityType: evil, Price: 1, Allocatable: alloc, Pods: []string{"ns/" + evil}}},
			Unschedulable: []scheduling.Unschedulable{{Pod: evil, Reason: evil, Constraint: scheduling.Constraint(evil)}},
			Summary: scheduling.Summary{Pods: 1, Placed: 1, NewNodes: 1, HourlyCost: 1,
				CostByWorkload: []workloadcost.Cost{{Namespace: evil, Kind: evil, Name: evil, Pods: 1, HourlyCost: 1}}},
		},
	}
	page := planHTML(t, res)
	require.NotContains(t, page, "<script>alert")
	require.NotContains(t, page, `"x"`)
	require.Equal(t, 1, strings.Count(page, "<script>"), "only the page's own script")
	require.Contains(t, page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;&#34;&#39;")
	require.NotContains(t, page, "ZgotmplZ")
}

func TestDecisionsHTML(t *testing.T) {
	t.Parallel()
	res, err := Consolidate(Config{Paths: []string{"../../../examples/ha-consolidation"}}, time.Date(2026, 1, 12, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	var a, b bytes.Buffer
	require.NoError(t, WriteDecisionsHTML(&a, res))
	require.NoError(t, WriteDecisionsHTML(&b, res))
	page := a.String()
	require.Equal(t, page, b.String(), "the page must be deterministic")
	selfContained(t, page)
	const removed = "ip-10-0-1-10.us-west-2.compute.internal"
	const target = "ip-10-0-3-30.us-west-2.compute.internal"
	for _, want := range []string{
		`<title>nodeplan consolidate</title>`,
		`<section class="view" data-view="Before">`, `<section class="view" data-view="After">`,
		`<figure class="node removed" data-node="` + removed + `">`,
		`<span class="badge">removed by #1</span>`,
		`<tr data-command="1"><td>1</td><td>SingleNodeConsolidation</td><td>Underutilized</td><td>delete</td>`,
		`<li>shop/web-5c7d9f8b6-k4m2x → ` + target + `</li>`,
		`<td class="num ">$0.3840/h<br><span class="notes">$280.32/month</span></td>`,
		`<tr data-blocked="` + target + `"><td>` + target + `</td><td>pod batch/scheduler-leader has karpenter.sh/do-not-disrupt</td></tr>`,
		`<div class="value">3 → 2</div>`,
		`<div class="value">$1.1520/h</div>`, `<div class="value">$0.7680/h</div>`,
		`decided at 2026-01-12T12:00:00Z`,
		`<section id="cost-by-workload">`,
		`<th colspan="3">Total after the commands (before: $1.1520/h)</th><th class="num">$0.7680/h</th>`,
	} {
		require.Contains(t, page, want)
	}
	// The moved pod is drawn on its new node after, and the removed node is not.
	_, after, ok := strings.Cut(page, `data-view="After"`)
	require.True(t, ok)
	require.NotContains(t, after, `data-node="`+removed+`"`)
	_, onTarget, ok := strings.Cut(after, `data-node="`+target+`"`)
	require.True(t, ok)
	onTarget, _, _ = strings.Cut(onTarget, "</figure>")
	require.Contains(t, onTarget, `<rect class="pod placed" data-pod="shop/web-5c7d9f8b6-k4m2x" data-workload="shop/Deployment/web"`)
}

// selfContained checks that the page needs nothing but itself: no URL, no external script,
// style, font or image.
func selfContained(t *testing.T, page string) {
	t.Helper()
	require.True(t, strings.HasPrefix(page, "<!DOCTYPE html>\n"))
	for _, bad := range []string{"http://", "https://", "//cdn", "src=", "href=", "@import", "url(", "@font-face", "<link", "<img", "<iframe"} {
		require.NotContains(t, page, bad)
	}
	require.Regexp(t, regexp.MustCompile(`(?s)<style>.*</style>`), page)
}

func TestWorkloadColorIsStable(t *testing.T) {
	w := workloadcost.Workload{Namespace: "shop", Kind: "Deployment", Name: "catalog"}
	require.Equal(t, "#94d84b", workloadColor(w), "colours are part of the page: keep them across versions")
	require.NotEqual(t, workloadColor(w), workloadColor(workloadcost.Workload{Namespace: "shop", Kind: "Deployment", Name: "web"}))
	require.Regexp(t, `^#[0-9a-f]{6}$`, workloadColor(workloadcost.Workload{}))
}
