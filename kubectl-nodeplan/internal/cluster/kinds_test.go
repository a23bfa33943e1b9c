package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/nodeplan/nodeplan/manifest"
)

// The reader lists every kind the manifest loader reads, but for the old groups of built-in
// kinds that a cluster serves under apps, and never Secrets or ConfigMaps.
func TestKindsAreWhatTheLoaderReads(t *testing.T) {
	var want []schema.GroupKind
	for _, gk := range manifest.Kinds() {
		if gk.Group != "extensions" {
			want = append(want, gk)
		}
	}
	var got []schema.GroupKind
	for _, k := range kinds {
		got = append(got, k.GroupKind)
		require.NotContains(t, []string{"Secret", "ConfigMap"}, k.Kind)
	}
	require.ElementsMatch(t, want, got)
}
