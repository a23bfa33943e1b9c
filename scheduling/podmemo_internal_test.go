package scheduling

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// plainPod is a pod of one container asking for cpu, in the default namespace.
func plainPod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
	}
}

// TestPodMemoSharesKeys expects the conversions of pods alike to share one copy of their class
// and order keys, in one convert or the next, and in a memo keeping theirs (see keeping).
func TestPodMemoSharesKeys(t *testing.T) {
	web := func(name string) *corev1.Pod { return plainPod(name, "1") }
	pods := []*corev1.Pod{web("web-0"), web("web-1"), plainPod("db-0", "2")}
	later := web("web-2")
	dims := resources.NewDims(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")})
	m := newPodMemo()
	convs := m.convert(pods, dims, PreferencesRespect)
	again := m.convert([]*corev1.Pod{later}, dims, PreferencesRespect)
	same := func(a, b string) bool { return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b) }
	for _, c := range []*podConversion{convs[1], again[0]} {
		require.True(t, same(convs[0].info.plainClass, c.info.plainClass), "one copy of the class")
		require.True(t, same(convs[0].info.plainOrderKey, c.info.plainOrderKey), "one copy of the order key")
	}
	require.NotEqual(t, convs[0].info.plainClass, convs[2].info.plainClass)

	next := m.keeping(Input{Pods: []*corev1.Pod{later}})
	require.NotSame(t, m, next, "the memo holds more than twice the pods present: only theirs are kept")
	other := next.convert([]*corev1.Pod{web("web-3")}, dims, PreferencesRespect)
	require.True(t, same(convs[0].info.plainOrderKey, other[0].info.plainOrderKey), "the kept memo shares the kept keys")
}

// TestPodMemoKeepsRunningRequests expects the requests of running pods a node conversion
// worked out to serve the next clusters the memo serves, and a memo keeping only the pods
// present (see keeping) to keep theirs and drop the others'.
func TestPodMemoKeepsRunningRequests(t *testing.T) {
	dims := resources.NewDims(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")})
	here, gone := plainPod("here", "1"), plainPod("gone", "2")
	m := newPodMemo()
	for _, p := range []*corev1.Pod{here, gone, plainPod("gone-2", "1"), plainPod("gone-3", "1")} {
		_, err := newExistingNode(&ExistingNode{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n-" + p.Name}}, Pods: []*corev1.Pod{p}}, dims, m, nil)
		require.NoError(t, err)
	}
	v, ok := m.get(here)
	require.True(t, ok, "worked out once")
	next := m.keeping(Input{ExistingNodes: []*ExistingNode{{Pods: []*corev1.Pod{here}}}})
	require.NotSame(t, m, next, "four pods' requests for one pod present: only its are kept")
	kept, ok := next.get(here)
	require.True(t, ok)
	require.Equal(t, v, kept)
	_, ok = next.get(gone)
	require.False(t, ok, "a pod gone is dropped")
}
