package manifest_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/manifest"
)

// builtinScheme knows the Go types of the built-in kinds nodeplan reads.
var builtinScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme, storagev1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// objectsOf reads the manifests of a directory as a client would hold them: Unstructured,
// or, with typed, built-in kinds as their Go types with an empty TypeMeta, as an informer
// cache returns them.
func objectsOf(t *testing.T, dir string, typed bool) []runtime.Object {
	t.Helper()
	files := yamlFilesUnder(t, dir)
	require.NotEmpty(t, files)
	var objs []runtime.Object
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, part := range bytes.Split(data, []byte("\n---")) {
			raw, err := yaml.YAMLToJSON(part)
			require.NoError(t, err)
			if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
				continue
			}
			u := &unstructured.Unstructured{}
			require.NoError(t, u.UnmarshalJSON(raw), f)
			var obj runtime.Object = u
			if typed && builtinScheme.Recognizes(u.GroupVersionKind()) {
				o, err := builtinScheme.New(u.GroupVersionKind())
				require.NoError(t, err)
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, o), f)
				o.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
				obj = o
			}
			objs = append(objs, obj)
		}
	}
	return objs
}

// yamlFilesUnder lists the *.yaml files below dir as Load walks it: dot folders skipped.
func yamlFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != dir && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !d.IsDir() && filepath.Ext(path) == ".yaml":
			files = append(files, path)
		}
		return nil
	})
	require.NoError(t, err)
	return files
}

// bundleJSON is a Bundle's library inputs, without its warnings (which name files or
// objects).
func bundleJSON(t *testing.T, b *manifest.Bundle) string {
	t.Helper()
	c := *b
	c.Warnings = nil
	out, err := json.MarshalIndent(c, "", " ")
	require.NoError(t, err)
	return string(out)
}

func TestFromObjectsGivesWhatLoadGives(t *testing.T) {
	dirs, err := filepath.Glob("../examples/*")
	require.NoError(t, err)
	for _, dir := range dirs {
		if len(yamlFilesUnder(t, dir)) == 0 {
			continue
		}
		want, err := manifest.Load([]string{dir}, nil)
		require.NoError(t, err)
		for _, typed := range []bool{false, true} {
			name := filepath.Base(dir) + map[bool]string{false: "/unstructured", true: "/typed"}[typed]
			t.Run(name, func(t *testing.T) {
				objs := objectsOf(t, dir, typed)
				before, err := json.Marshal(objs)
				require.NoError(t, err)
				got, err := manifest.FromObjects(objs)
				require.NoError(t, err)
				assert.Equal(t, bundleJSON(t, want), bundleJSON(t, got))
				assert.Len(t, got.Warnings, len(want.Warnings))
				after, err := json.Marshal(objs)
				require.NoError(t, err)
				assert.Equal(t, string(before), string(after), "FromObjects must not change the caller's objects")
			})
		}
	}
}

func TestFromObjectsLists(t *testing.T) {
	pods := &corev1.PodList{Items: []corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "shop"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}},
	}}
	b, err := manifest.FromObjects([]runtime.Object{pods})
	require.NoError(t, err)
	require.Len(t, b.Pods, 2)
	assert.Equal(t, "default/a", b.Pods[0].Namespace+"/"+b.Pods[0].Name)
	assert.Equal(t, "Pod", b.Pods[0].Kind, "TypeMeta is set as a file has it")
	assert.Empty(t, pods.Items[0].Namespace, "the caller's pod is not defaulted")
}

func TestFromObjectsErrorsNameTheObject(t *testing.T) {
	nodePool := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": "general"},
		"spec":     map[string]any{"weight": "heavy"},
	}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	for _, tc := range []struct {
		name string
		objs []runtime.Object
		want string
	}{
		{"bad field", []runtime.Object{pod, nodePool}, "object 2 (NodePool general): spec.weight"},
		{"nil", []runtime.Object{nil}, "object 1: nil"},
		{"nil pod", []runtime.Object{pod, (*corev1.Pod)(nil)}, "object 2: nil"},
		{"nil in a list", []runtime.Object{&corev1.PodList{Items: []corev1.Pod{*pod}}, &corev1.NodeList{}, (*corev1.PodList)(nil)}, "object 3: nil"},
		{"no kind", []runtime.Object{&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x"}}}}, "object 1: *unstructured.Unstructured has no apiVersion and kind"},
		{"duplicate", []runtime.Object{pod, pod}, "object 2 (Pod default/web): Pod default/web is already defined in object 1 (Pod default/web)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.FromObjects(tc.objs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// BenchmarkFromObjects converts the snapshot of BenchmarkParseSnapshot held in memory, as
// typed objects (an informer cache's) and as Unstructured (a dynamic client's).
func BenchmarkFromObjects(b *testing.B) {
	parsed, err := manifest.Parse(snapshot(2000), "snapshot.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var typed []runtime.Object
	for _, n := range parsed.Nodes {
		typed = append(typed, n)
	}
	for _, p := range parsed.BoundPods {
		typed = append(typed, p)
	}
	var unstructuredObjs []runtime.Object
	for _, o := range typed {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			b.Fatal(err)
		}
		unstructuredObjs = append(unstructuredObjs, &unstructured.Unstructured{Object: m})
	}
	for _, bc := range []struct {
		name string
		objs []runtime.Object
	}{{"typed", typed}, {"unstructured", unstructuredObjs}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				bundle, err := manifest.FromObjects(bc.objs)
				if err != nil {
					b.Fatal(err)
				}
				if len(bundle.BoundPods) != 2000 {
					b.Fatalf("bound %d", len(bundle.BoundPods))
				}
			}
		})
	}
}
