package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README shows the ClusterRole that TestAgainstAPIServer grants, as it is in the file.
func TestREADMEShowsTheClusterRole(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	role, err := os.ReadFile("clusterrole.yaml")
	require.NoError(t, err)
	require.Contains(t, string(readme), "```yaml\n"+string(role)+"```\n")
	require.NotContains(t, string(role), "secrets")
	require.NotContains(t, string(role), "configmaps")
	for _, verb := range []string{"create", "update", "patch", "delete", "watch", "*"} {
		require.NotContains(t, strings.SplitAfter(string(role), "rules:")[1], verb, "get and list only")
	}
}
