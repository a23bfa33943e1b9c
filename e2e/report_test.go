package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/scheduling"
)

// page is a report as the browser sees it.
type page struct {
	Title  string            `json:"title"`
	Nodes  []string          `json:"nodes"`
	Pods   []string          `json:"pods"`
	Zones  []string          `json:"zones"`
	Text   string            `json:"text"`
	Tips   map[string]string `json:"tips"` // pod → its hover text
	Hidden []string          `json:"hidden"`
}

// readPage collects what the tests check in one evaluation.
const readPage = `(() => {
	const attr = (sel, a) => [...document.querySelectorAll(sel)].map(e => e.getAttribute(a));
	const tips = {};
	for (const r of document.querySelectorAll("rect[data-pod]")) {
		const t = r.querySelector("title");
		tips[r.getAttribute("data-pod")] = t ? t.textContent : "";
	}
	// Nodes drawn with no size would be invisible.
	const hidden = [...document.querySelectorAll("figure[data-node] svg")]
		.filter(s => s.getBoundingClientRect().width < 20 || s.getBoundingClientRect().height < 20)
		.map(s => s.closest("figure").getAttribute("data-node"));
	return {title: document.title, nodes: attr("figure[data-node]", "data-node"), pods: attr("rect[data-pod]", "data-pod"),
		zones: attr("[data-zone]", "data-zone"), text: document.body.innerText, tips, hidden};
})()`

// TestPlanReport renders the stateful-ebs example's plan and checks it in Chromium.
func TestPlanReport(t *testing.T) {
	res, err := app.Plan(app.Config{Paths: []string{"../examples/stateful-ebs"}}, scheduling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := app.WritePlanHTML(&html, res); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	p := b.open(t, "plan-stateful-ebs", html.Bytes())

	want(t, p.Title, "nodeplan plan")
	wantAll(t, p.Nodes, "default-1")
	wantAll(t, p.Pods, "shop/catalog-0", "shop/catalog-1", "shop/catalog-2")
	wantAll(t, p.Zones, "us-west-2b")
	for _, s := range []string{"$0.0680/h", "$49.64/month", "$0.0680/h", "c6g.large · on-demand · $0.0680/h", "Cost by workload", "Deployment/catalog", "100.0%"} {
		if !strings.Contains(p.Text, s) {
			t.Errorf("the page does not show %q; it shows:\n%s", s, p.Text)
		}
	}
	want(t, p.Tips["shop/catalog-0"], "shop/catalog-0\nDeployment shop/catalog\nrequests: cpu 500m, memory 1Gi\ngoes to default-1")
	if len(p.Hidden) > 0 {
		t.Errorf("nodes drawn too small to see: %v", p.Hidden)
	}

	// Hovering over a pod highlights its workload (the page's script runs).
	focused := b.hover(t, `rect[data-pod="shop/catalog-1"]`,
		`document.body.classList.contains("focus") && document.querySelectorAll("rect.hl").length === 3 && document.querySelector('#cost-by-workload tr.hl') !== null`)
	if !focused {
		t.Error("hovering over a pod did not highlight its workload's pods and row")
	}
	b.checkQuiet(t)
}

// TestConsolidateReport renders the ha-consolidation example's decisions and checks them.
func TestConsolidateReport(t *testing.T) {
	res, err := app.Consolidate(app.Config{Paths: []string{"../examples/ha-consolidation"}}, time.Date(2026, 1, 12, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := app.WriteDecisionsHTML(&html, res); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	p := b.open(t, "consolidate-ha", html.Bytes())

	const (
		removed = "ip-10-0-1-10.us-west-2.compute.internal"
		kept    = "ip-10-0-2-20.us-west-2.compute.internal"
		target  = "ip-10-0-3-30.us-west-2.compute.internal"
	)
	want(t, p.Title, "nodeplan consolidate")
	// Before: three nodes; after: two.
	wantAll(t, p.Nodes, removed, kept, target, kept, target)
	if n := count(p.Nodes, removed); n != 1 {
		t.Errorf("the removed node is drawn %d times, want once (before only)", n)
	}
	if n := count(p.Pods, "shop/web-5c7d9f8b6-k4m2x"); n != 2 {
		t.Errorf("the moved pod is drawn %d times, want twice (before and after)", n)
	}
	for _, s := range []string{"SingleNodeConsolidation", "Underutilized", "$1.1520/h", "$0.7680/h", "$0.3840/h", "$280.32/month",
		"shop/web-5c7d9f8b6-k4m2x → " + target, "REMOVED BY #1", "Nodes left alone",
		"pod batch/scheduler-leader has karpenter.sh/do-not-disrupt"} {
		if !strings.Contains(p.Text, s) {
			t.Errorf("the page does not show %q; it shows:\n%s", s, p.Text)
		}
	}
	if !strings.Contains(p.Tips["shop/web-5c7d9f8b6-k4m2x"], "goes to "+target) {
		t.Errorf("the moved pod's hover text is %q", p.Tips["shop/web-5c7d9f8b6-k4m2x"])
	}
	b.checkQuiet(t)
}

// TestSnapshotReport renders the real-snapshot example (three zones, DaemonSet pods, two
// workloads); its screenshot is the README's.
func TestSnapshotReport(t *testing.T) {
	res, err := app.Plan(app.Config{Paths: []string{"../examples/real-snapshot"}}, scheduling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := app.WritePlanHTML(&html, res); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	p := b.open(t, "plan-real-snapshot", html.Bytes())
	wantAll(t, p.Zones, "us-west-2a", "us-west-2b", "us-west-2c")
	if len(p.Pods) < len(res.Input.Pods) {
		t.Errorf("%d pods drawn, want at least the %d pending ones", len(p.Pods), len(res.Input.Pods))
	}
	for _, w := range res.Plan.Summary.CostByWorkload {
		if !strings.Contains(p.Text, w.Kind+"/"+w.Name) {
			t.Errorf("the cost by workload table lacks %s/%s", w.Kind, w.Name)
		}
	}
	b.checkQuiet(t)
}

// browser is one headless Chromium tab that records what the page reports.
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	problems []string // exceptions, console errors, requests that left the file
}

// chromiumPath finds Chromium. Without it the tests skip, except in CI (CI=true), where
// they fail: a browser test that never runs protects nothing.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "Chromium is not installed: install it (on Debian or Ubuntu: apt-get install -y chromium) to run the browser tests"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	ctx, cancelBrowser := chromedp.NewContext(ctx, chromedp.WithAllocatorOptions(
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	))
	t.Cleanup(cancelBrowser)
	b := &browser{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		var problem string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problem = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				problem += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == "error" || ev.Type == "assert" {
				problem = fmt.Sprintf("console.%s called", ev.Type)
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				problem = "request to " + u
			}
		}
		if problem != "" {
			b.mu.Lock()
			b.problems = append(b.problems, problem)
			b.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return b
}

// open writes the page to a file, loads it, takes a full-page screenshot and reads the page.
// Screenshots go to $NODEPLAN_SCREENSHOTS when set, else to the test's temporary folder.
func (b *browser) open(t *testing.T, name string, html []byte) page {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name+".html")
	if err := os.WriteFile(file, html, 0o644); err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: file}).String()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("loading %s: %v", u, err)
	}
	shot, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if size := img.Bounds().Size(); size.X < 600 || size.Y < 400 {
		t.Errorf("screenshot is %v, want a full page", size)
	}
	if out := os.Getenv("NODEPLAN_SCREENSHOTS"); out != "" {
		dir = out
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(shot))

	p, err := chromedp.Run(b.ctx, chromedp.Evaluate[page](readPage))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return p
}

// hover moves the mouse over the element and reports whether check then holds.
func (b *browser) hover(t *testing.T, selector, check string) bool {
	t.Helper()
	type point struct{ X, Y float64 }
	at, err := chromedp.Run(b.ctx, chromedp.Evaluate[point](fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect();
		return {X: r.x + r.width / 2, Y: r.y + r.height / 2};
	})()`, selector)))
	if err != nil {
		t.Fatalf("finding %s: %v", selector, err)
	}
	if err := chromedp.Do(b.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at.X, at.Y)); err != nil {
		t.Fatalf("hovering over %s: %v", selector, err)
	}
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](check))
	if err != nil {
		t.Fatalf("checking the hover: %v", err)
	}
	return ok
}

// checkQuiet fails the test for any script error, console error or network request.
func (b *browser) checkQuiet(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("the page reported: %s", p)
	}
}

func want(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// wantAll checks that got holds every wanted value, as often as wanted lists it.
func wantAll(t *testing.T, got []string, wanted ...string) {
	t.Helper()
	for _, w := range wanted {
		if count(got, w) < count(wanted, w) {
			t.Errorf("%q appears %d times in %v, want at least %d", w, count(got, w), got, count(wanted, w))
		}
	}
}

func count(values []string, v string) int {
	n := 0
	for _, x := range values {
		if x == v {
			n++
		}
	}
	return n
}

// The harness itself: a page with a script error, a console error and a request for a
// network resource must be caught, or the checks above prove nothing.
func TestBrowserCatchesProblems(t *testing.T) {
	b := newBrowser(t)
	b.open(t, "broken", []byte(`<!DOCTYPE html><html><head><title>broken</title></head><body>
<img src="http://127.0.0.1:9/x.png" alt=""><footer>end</footer>
<script>console.error("bad"); throw new Error("boom");</script></body></html>`))
	b.mu.Lock()
	defer b.mu.Unlock()
	joined := strings.Join(b.problems, "\n")
	for _, want := range []string{"boom", "console.error", "request to http://127.0.0.1:9/x.png"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the harness missed %q; it saw:\n%s", want, joined)
		}
	}
}
