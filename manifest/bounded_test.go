package manifest_test

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/manifest"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// peakHeap returns the most heap seen (sampled each millisecond) while f runs, beyond what was
// live before. That heap holds garbage not yet collected too, as much as the collector's pacing
// lets grow, and more when a busy machine slows its marking: f runs at GOGC 50, not 100, so
// the figure is mostly what f keeps.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var most uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			most = max(most, read())
			select {
			case <-done:
				peak <- most
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	return max(<-peak, base) - base
}

// A file of millions of duplicate keys is refused with the first problems and a count of the
// rest, in time and memory proportional to the file, not to the number of problems.
func TestDuplicateKeysAreBounded(t *testing.T) {
	const dups = 400_000
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels:\n")
	for range dups + 1 {
		b.WriteString("    app: web\n")
	}
	data := []byte(b.String())
	var err error
	used := allocated(func() { _, err = manifest.Parse(data, "dups.yaml") })
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 2+manifest.MaxProblems, "a first line, %d problems and the count of the rest", manifest.MaxProblems)
	assert.Equal(t, "dups.yaml: document 1 (starting at line 1): invalid YAML: unmarshal errors:", lines[0])
	assert.Equal(t, `  line 7: key "app" already set in map`, lines[1])
	assert.Equal(t, fmt.Sprintf("  … and %d more", dups-manifest.MaxProblems), lines[len(lines)-1])
	assert.Less(t, used, uint64(4*len(data)), "allocated %d bytes for a %d-byte file", used, len(data))
}

// The same with keys of several words, as in "yes 'abc def: ghi' | head -n 1000000".
func TestDuplicateKeysOfWordsAreBounded(t *testing.T) {
	data := []byte(strings.Repeat("abc def: ghi\n", 1_000_000))
	var err error
	used := allocated(func() { _, err = manifest.Parse(data, "words.yaml") })
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 2+manifest.MaxProblems)
	assert.Equal(t, `  line 2: key "abc def" already set in map`, lines[1])
	assert.Equal(t, "  … and 999979 more", lines[len(lines)-1])
	assert.Less(t, used, uint64(len(data)/10), "allocated %d bytes for a %d-byte file", used, len(data))
}

// Cut mid-line, as "yes … | head -c 200000000" leaves it, the last line is YAML the quick scan
// does not follow; the duplicates before it are still reported without the parser.
func TestDuplicateKeysBeforeATruncatedLine(t *testing.T) {
	data := []byte(strings.Repeat("abc def: ghi\n", 1_000_000) + "abc d")
	var err error
	used := allocated(func() { _, err = manifest.Parse(data, "cut.yaml") })
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 2+manifest.MaxProblems)
	assert.Equal(t, "  … and at least 999978 more", lines[len(lines)-1])
	assert.Less(t, used, uint64(len(data)/10), "allocated %d bytes for a %d-byte file", used, len(data))
}

// A few duplicate keys are all reported, as the YAML parser words them.
func TestFewDuplicateKeys(t *testing.T) {
	_, err := manifest.Parse([]byte("apiVersion: v1\nkind: Pod\nkind: Pod\nmetadata: {name: x}\nmetadata: {name: y}\n"), "two.yaml")
	assert.EqualError(t, err, "two.yaml: document 1 (starting at line 1): invalid YAML: unmarshal errors:\n"+
		"  line 3: key \"kind\" already set in map\n  line 5: key \"metadata\" already set in map")
}

// Duplicates the quick scan cannot judge (here in a flow mapping) still go to the parser,
// whose errors are bounded too.
func TestDuplicateKeysInFlowStyleAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: x, labels: {")
	for i := range 30 {
		fmt.Fprintf(&b, "a: %d, ", i)
	}
	b.WriteString("}}\n")
	_, err := manifest.Parse([]byte(b.String()), "flow.yaml")
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 2+manifest.MaxProblems)
	assert.Equal(t, "  … and 9 more", lines[len(lines)-1])
}

// Many bad documents: the first MaxProblems errors, then how many more there are.
func TestManyBadDocumentsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-%d}\nspec: {replicas: many}\n", i)
	}
	data := []byte(b.String())
	var err error
	used := peakHeap(func() { _, err = manifest.Parse(data, "bad.yaml") })
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, manifest.MaxProblems+1)
	assert.Equal(t, "bad.yaml: document 1 (Deployment default/web-0): spec.replicas: got a string, want an integer", lines[0])
	assert.Equal(t, "… and 19980 more problems", lines[len(lines)-1])
	// The documents (header and JSON, some 2.5 times their YAML) and the garbage the collector
	// lets grow to half as much again.
	assert.Less(t, used, uint64(16*len(data)), "a live heap of %d bytes for a %d-byte file", used, len(data))
}

// Warnings are bounded the same way.
func TestManyWarningsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-%d}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p-%d}\nspec: {containers: [{name: a, image: pause}], colour: blue}\n", i, i)
	}
	bundle, err := manifest.Parse([]byte(b.String()), "warn.yaml")
	require.NoError(t, err)
	require.Len(t, bundle.Warnings, manifest.MaxProblems+1)
	assert.Equal(t, "warn.yaml: document 1 (ConfigMap c-0): kind ConfigMap (v1) is not used by nodeplan, skipped", bundle.Warnings[0])
	assert.Equal(t, "… and 1980 more warnings", bundle.Warnings[manifest.MaxProblems])
}

// Loading gives the same Bundle, warnings and errors whatever the number of CPUs decoding.
func TestLoadSameWhateverGOMAXPROCS(t *testing.T) {
	paths := []string{"testdata/cluster", "testdata/workloads.yaml", "testdata/multidoc.yaml", "testdata/requests.yaml", "testdata/storage.yaml",
		"testdata/nodepool-v1.yaml", "testdata/provisioner.yaml", "testdata/nodepool-v1beta1.yaml", "testdata/list.json"}
	bad := []string{"testdata/bad", "testdata/workloads.yaml"}
	var want, wantErr string
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		b, err := manifest.Load(paths, nil)
		_, errBad := manifest.Load(bad, nil)
		runtime.GOMAXPROCS(prev)
		require.NoError(t, err)
		require.Error(t, errBad)
		got := mustJSON(t, b) + mustJSON(t, b.Warnings)
		if want == "" {
			want, wantErr = got, errBad.Error()
			continue
		}
		assert.Equal(t, want, got, "GOMAXPROCS=%d", procs)
		assert.Equal(t, wantErr, errBad.Error(), "GOMAXPROCS=%d", procs)
	}
}
