package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's quick start shows what its main command prints; keep it true.
func TestREADMEQuickStart(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(readme)
	require.Contains(t, text, "go run ./cmd/nodeplan plan -f examples/stateful-ebs\n")

	// The first plain ``` block after the quick start's command block is its output.
	_, after, ok := strings.Cut(text, "The first plans the nodes")
	require.True(t, ok)
	_, block, ok := strings.Cut(after, "```\n")
	require.True(t, ok)
	shown, _, ok := strings.Cut(block, "```")
	require.True(t, ok)

	code, stdout, stderr := nodeplan("plan", "-f", statefulEBS)
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stderr)
	require.Equal(t, shown, stdout, "update the quick start's output in README.md")
}
