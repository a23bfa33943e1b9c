package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	sigsjson "sigs.k8s.io/json"
)

// requireDecodedAlike fails when decodePodFast takes a document the standard strict decoder
// would decode otherwise: refuse, find an unknown field in, or read into another Pod.
func requireDecodedAlike(t *testing.T, raw []byte) {
	t.Helper()
	fast, ok := decodePodFast(raw)
	if !ok {
		return
	}
	var want corev1.Pod
	strict, err := sigsjson.UnmarshalStrict(raw, &want, sigsjson.DisallowUnknownFields)
	require.NoError(t, err, "the fast decoder took %s", raw)
	require.Empty(t, strict, "the fast decoder took %s", raw)
	// Unexported fields compared too: a Quantity's cached text counts.
	if !reflect.DeepEqual(&want, fast) {
		t.Fatalf("%s decodes otherwise:\nstandard %#v\nfast     %#v", raw, &want, fast)
	}
}

// podSeeds are Pod documents to start from: those of the test inputs and hand-made corner
// cases of encoding/json's semantics (duplicate keys merge, null leaves a value as it is,
// escapes, numbers out of range).
func podSeeds(tb testing.TB) [][]byte {
	seeds := [][]byte{
		[]byte(`{"metadata":{"name":"a","labels":{"x":"1"}},"metadata":{"labels":{"y":"2"}}}`),
		[]byte(`{"spec":{"containers":[{"name":"a"},{"name":"b"}],"containers":[{"image":"c"}]}}`),
		[]byte(`{"spec":{"affinity":{"podAffinity":{}},"affinity":{"nodeAffinity":{}}}}`),
		[]byte(`{"spec":{"terminationGracePeriodSeconds":5,"terminationGracePeriodSeconds":null}}`),
		[]byte(`{"spec":{"containers":[{"resources":{"requests":{"cpu":"1","cpu":null}}}]}}`),
		[]byte(`{"spec":{"containers":[null,{"resources":{"limits":{"memory":1e3}}}]}}`),
		[]byte(`{"spec":{"priority":-0,"overhead":{"cpu":"1"},"overhead":{"memory":"1Gi"}}}`),
		[]byte(`{"spec":{"priority":2147483648}}`),
		[]byte(`{"spec":{"priority":1.0}}`),
		[]byte(`{"metadata":{"name":"\u00e9\ud800\"\\","creationTimestamp":null,"Name":"x"}}`),
		[]byte("{\"metadata\":{\"name\":\"\xff\"}}"),
		[]byte(`{"metadata":{"ownerReferences":[{"controller":true,"kind":"ReplicaSet","uid":"u"}]},"status":{"phase":"Running"}}`),
		[]byte(`{"spec":{"topologySpreadConstraints":[{"maxSkew":1,"labelSelector":{"matchLabels":{"a":"b"}},"whenUnsatisfiable":"DoNotSchedule"}]}}`),
		[]byte(`{"spec":{"tolerations":[{"key":"a","operator":"Exists","tolerationSeconds":5}],"nodeSelector":{"a":null}}}`),
		[]byte(`{"metadata":{"labels":{"a":"1","a":"2","b\u00e9\"":"\n"},"annotations":null},"spec":{"nodeSelector":{}}}`),
		[]byte(`{"metadata":{"labels":{"a":1}}}`),
		[]byte(`{"metadata":{"labels":[]}}`),
		[]byte(`{"metadata":{"labels":{"a":"b"},"labels":null}}`),
	}
	for _, pattern := range []string{"testdata/*.yaml", "testdata/*.json", "testdata/cluster/*.yaml", "testdata/cluster/*.json"} {
		files, err := filepath.Glob(pattern)
		require.NoError(tb, err)
		for _, file := range files {
			data, err := os.ReadFile(file)
			require.NoError(tb, err)
			var w warnings
			docs, err := splitFile(data, file, &w)
			if err != nil {
				continue
			}
			for _, doc := range docs {
				if doc.kind == "Pod" {
					seeds = append(seeds, doc.raw)
				}
			}
		}
	}
	return seeds
}

func TestDecodePodFastDecodesAsTheStrictDecoder(t *testing.T) {
	seeds := podSeeds(t)
	taken := 0
	for _, raw := range seeds {
		requireDecodedAlike(t, raw)
		if _, ok := decodePodFast(raw); ok {
			taken++
		}
	}
	require.Greater(t, taken, len(seeds)/2, "the fast decoder should take most test Pods")
	_, ok := decodePodFast([]byte("{\"metadata\":{\"name\":\"\xff\"}}"))
	require.False(t, ok, "text that is not UTF-8 is left to the standard decoder")
	_, ok = decodePodFast([]byte(`{"metadata":{"Name":"x"}}`))
	require.False(t, ok, "an unknown field is left to the standard decoder, which names it")
}

// Decoders built by several goroutines at once, each meeting the types in its own order,
// decode as the standard decoder does (and, under -race, without a data race).
func TestPodJSONBuiltConcurrently(t *testing.T) {
	seeds := podSeeds(t)
	want := make([]*corev1.Pod, len(seeds))
	for i, raw := range seeds {
		if _, ok := decodePodFast(raw); ok {
			want[i] = new(corev1.Pod)
			_, err := sigsjson.UnmarshalStrict(raw, want[i], sigsjson.DisallowUnknownFields)
			require.NoError(t, err)
		}
	}
	fresh := newPodJSON()
	const workers = 4
	got := make([][]*corev1.Pod, workers)
	var wg sync.WaitGroup
	for w := range workers {
		got[w] = make([]*corev1.Pod, len(seeds))
		wg.Go(func() {
			for k := range seeds {
				i := (k + w*len(seeds)/workers) % len(seeds) // each starts elsewhere
				if w%2 == 1 {
					i = len(seeds) - 1 - i // and goes the other way
				}
				if p, ok := fresh.decode(seeds[i]); ok {
					got[w][i] = p
				}
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for i := range seeds {
			require.True(t, reflect.DeepEqual(want[i], got[w][i]), "worker %d, %s", w, seeds[i])
		}
	}
}

// A bad value in a load with enough Pods for the fast decoder is reported as in a load too
// small for it: the standard decoder names the field.
func TestManyPodsBadValueAsFew(t *testing.T) {
	list := func(n int) []byte {
		items := make([]string, n)
		for i := range items {
			cpu := "100m"
			if i == 3 {
				cpu = "a lot"
			}
			items[i] = fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-%d"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":%q}}}]}}`, i, cpu)
		}
		return []byte(`{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",") + `]}`)
	}
	_, few := Parse(list(10), "pods.json")
	require.ErrorContains(t, few, `item 4 (Pod default/p-3): spec.containers[0].resources.requests.cpu`)
	_, many := Parse(list(fastPodsFrom+10), "pods.json")
	require.EqualError(t, many, few.Error())
}

// FuzzDecodePodFast checks that whatever valid JSON the fast decoder takes, it decodes as the
// standard strict decoder does. `go test -fuzz FuzzDecodePodFast` explores.
func FuzzDecodePodFast(f *testing.F) {
	for _, raw := range podSeeds(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) { // every document's raw is valid JSON
			return
		}
		requireDecodedAlike(t, raw)
	})
}

// A load with enough Pods for the fast decoder reads them as loads too small for it do: the
// same Pods, the same warnings (an unknown field is named as the standard decoder names it).
func TestManyPodsLoadAsFew(t *testing.T) {
	var pods []map[string]any
	for _, raw := range podSeeds(t) {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(raw, &obj))
		if status, _ := obj["status"].(map[string]any); obj["kind"] == "Pod" && status["phase"] != "Succeeded" && status["phase"] != "Failed" {
			pods = append(pods, obj)
		}
	}
	require.NotEmpty(t, pods)
	const n, chunk = fastPodsFrom + 50, fastPodsFrom / 2
	items := make([]json.RawMessage, n)
	for i := range items {
		obj := maps.Clone(pods[i%len(pods)])
		meta := maps.Clone(obj["metadata"].(map[string]any))
		meta["name"] = fmt.Sprintf("pod-%d", i)
		obj["metadata"] = meta
		if i == 7 {
			obj["spec"] = map[string]any{"containerz": []any{}, "containers": []any{map[string]any{"name": "c", "image": "i"}}}
		}
		var err error
		items[i], err = json.Marshal(obj)
		require.NoError(t, err)
	}
	list := func(items []json.RawMessage) []byte {
		data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
		require.NoError(t, err)
		return data
	}
	all, err := Parse(list(items), "pods.json")
	require.NoError(t, err)
	var pending, bound []*corev1.Pod
	var warnings []string
	for from := 0; from < n; from += chunk {
		part, err := Parse(list(items[from:min(from+chunk, n)]), "pods.json")
		require.NoError(t, err)
		pending = append(pending, part.Pods...)
		bound = append(bound, part.BoundPods...)
		if from == 0 {
			warnings = part.Warnings
		}
	}
	require.NotEmpty(t, pending)
	require.NotEmpty(t, bound)
	require.True(t, reflect.DeepEqual(pending, all.Pods), "pending pods differ")
	require.True(t, reflect.DeepEqual(bound, all.BoundPods), "bound pods differ")
	// The first warning is the document's own; the others sum up each load.
	require.Contains(t, warnings[0], `item 8 (Pod default/pod-7): unknown field "spec.containerz"`)
	require.Equal(t, warnings[0], all.Warnings[0])
}
