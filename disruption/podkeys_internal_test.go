package disruption

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestComparePodKeys expects pods to compare as their namespace/name keys do as strings,
// including namespaces that are prefixes of each other, names with slashes and the default
// namespace given as "".
func TestComparePodKeys(t *testing.T) {
	pod := func(ns, name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	pods := []*corev1.Pod{
		pod("a", "b"), pod("a-x", "c"), pod("a", "a"), pod("", "web"), pod("default", "web"),
		pod("default", "a"), pod("ab", ""), pod("a", "b/c"), pod("a/b", "c"), pod("b", "a"),
		pod("a", ""), pod("", ""), pod("kube-system", "x"), pod("kube", "system-x"), pod("z", "0"),
	}
	for _, a := range pods {
		for _, b := range pods {
			want := 0
			switch ka, kb := podKey(a), podKey(b); {
			case ka < kb:
				want = -1
			case ka > kb:
				want = 1
			}
			if got := comparePodKeys(a, b); got != want {
				t.Errorf("comparePodKeys(%s, %s) = %d, want %d", podKey(a), podKey(b), got, want)
			}
		}
	}
	sorted := slices.Clone(pods)
	sortPods(sorted)
	if !slices.IsSortedFunc(sorted, func(a, b *corev1.Pod) int { return cmpString(podKey(a), podKey(b)) }) {
		t.Errorf("sortPods left the keys unsorted")
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
