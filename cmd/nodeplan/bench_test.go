package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeBench, when set, makes TestWriteBenchInputs write the benchmarks' manifests to that
// folder, to time the built binary on them:
//
//	go test ./cmd/nodeplan -run TestWriteBenchInputs -bench-inputs /tmp/np
//	/usr/bin/time -v nodeplan plan -f /tmp/np/deployments-100000.yaml -o json >/dev/null
var writeBench = flag.String("bench-inputs", "", "write the benchmark manifests to this `folder`")

// benchCPUs and benchMemories are the requests the generated workloads draw from.
var (
	benchCPUs     = []string{"100m", "250m", "500m", "750m", "1", "1500m", "2"}
	benchMemories = []string{"128Mi", "256Mi", "512Mi", "1Gi", "1536Mi", "2Gi", "4Gi"}
)

// deploymentsManifest is 50 Deployments of varied requests (and a few node selectors and
// labels) with pods/50 replicas each: the "50 Deployments" workload.
func deploymentsManifest(pods int) []byte {
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%d
  namespace: team-%d
  labels: {app: app-%d}
spec:
  replicas: %d
  selector: {matchLabels: {app: app-%d}}
  template:
    metadata:
      labels: {app: app-%d, tier: t%d}
      annotations: {example.com/owner: team-%d}
    spec:
`, i, i%5, i, pods/50, i, i, i%3, i%5)
		if i%7 == 3 {
			b.WriteString("      nodeSelector: {kubernetes.io/arch: arm64}\n")
		} else if i%11 == 5 {
			b.WriteString("      nodeSelector: {karpenter.sh/capacity-type: on-demand}\n")
		}
		fmt.Fprintf(&b, `      containers:
      - name: app
        image: registry.example.com/app-%d:1.0
        ports: [{containerPort: 8080, name: http}]
        env: [{name: MODE, value: production}, {name: WORKERS, value: "4"}]
        resources:
          requests: {cpu: %s, memory: %s}
          limits: {memory: %s}
        readinessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 5}
`, i, benchCPUs[i%len(benchCPUs)], benchMemories[(i*3)%len(benchMemories)], benchMemories[(i*3)%len(benchMemories)])
		if i%4 == 0 {
			b.WriteString("      - name: sidecar\n        image: registry.example.com/proxy:2.1\n        resources: {requests: {cpu: 50m, memory: 64Mi}}\n")
		}
	}
	return []byte(b.String())
}

// diverseManifest is n Pods shaped like Karpenter's scheduling benchmark (and the conformance
// module's workload.Diverse): five equal groups (plain; zonal spread; hostname spread; required
// zonal pod affinity; required hostname anti-affinity), each pod with a random my-label value
// and each rule selecting a random value.
func diverseManifest(n int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), 5))
	value := func() string { return string(rune('a' + r.IntN(7))) }
	cpus := []string{"100m", "250m", "500m", "1", "1500m"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	groups := []string{"plain", "zone-spread", "host-spread", "zone-affinity", "host-anti"}
	var b strings.Builder
	for i := range n {
		g := groups[i%len(groups)]
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Pod
metadata:
  name: %s-%d
  labels: {my-label: %s, group: %s}
spec:
  containers:
  - name: app
    image: registry.k8s.io/pause:3.10
    resources: {requests: {cpu: %s, memory: %s}}
`, g, i/len(groups), value(), g, cpus[r.IntN(len(cpus))], mems[r.IntN(len(mems))])
		sel := value()
		switch g {
		case "zone-spread", "host-spread":
			key := "topology.kubernetes.io/zone"
			if g == "host-spread" {
				key = "kubernetes.io/hostname"
			}
			fmt.Fprintf(&b, "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: %s, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {my-label: %s}}}\n", key, sel)
		case "zone-affinity":
			fmt.Fprintf(&b, "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {my-label: %s}}}\n", sel)
		case "host-anti":
			fmt.Fprintf(&b, "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {my-label: %s}}}\n", sel)
		}
	}
	return []byte(b.String())
}

// benchInputs are the generated manifests, by file name.
func benchInputs() map[string]func() []byte {
	in := map[string]func() []byte{"diverse-5000.yaml": func() []byte { return diverseManifest(5000) }}
	for _, n := range []int{10_000, 50_000, 100_000} {
		in[fmt.Sprintf("deployments-%d.yaml", n)] = func() []byte { return deploymentsManifest(n) }
	}
	return in
}

func TestWriteBenchInputs(t *testing.T) {
	if *writeBench == "" {
		t.Skip("-bench-inputs not set")
	}
	if err := os.MkdirAll(*writeBench, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, gen := range benchInputs() {
		if err := os.WriteFile(filepath.Join(*writeBench, name), gen(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// benchmarkCLI runs "nodeplan plan -f FILE -o json" on generated manifests, the whole command:
// read, plan, write.
func benchmarkCLI(b *testing.B, data []byte, pods int) {
	file := filepath.Join(b.TempDir(), "input.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if code := run([]string{"plan", "-f", file, "-o", "json"}, nil, io.Discard, io.Discard); code != exitOK {
			var stderr strings.Builder
			run([]string{"plan", "-f", file, "-o", "json"}, nil, io.Discard, &stderr)
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
	b.ReportMetric(float64(pods)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// BenchmarkPlanCLI is "nodeplan plan -o json" on the embedded us-west-2 catalog over 50
// Deployments of varied requests.
func BenchmarkPlanCLI(b *testing.B) {
	for _, n := range []int{10_000, 50_000, 100_000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) { benchmarkCLI(b, deploymentsManifest(n), n) })
	}
}

// BenchmarkPlanCLIDiverse is "nodeplan plan -o json" over 5,000 Pods shaped like Karpenter's
// scheduling benchmark.
func BenchmarkPlanCLIDiverse(b *testing.B) {
	b.Run("pods=5000", func(b *testing.B) { benchmarkCLI(b, diverseManifest(5000), 5000) })
}

// The whole command writes the same bytes whatever the number of CPUs decoding and encoding.
func TestPlanSameBytesWhateverGOMAXPROCS(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{"deployments.yaml": deploymentsManifest(3000), "diverse.yaml": diverseManifest(600)}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var first string
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		var out, errOut strings.Builder
		code := run([]string{"plan", "-f", dir, "-o", "json"}, nil, &out, &errOut)
		runtime.GOMAXPROCS(prev)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if first == "" {
			first = out.String()
		} else if out.String() != first {
			t.Fatalf("GOMAXPROCS=%d writes another plan", procs)
		}
	}
}
