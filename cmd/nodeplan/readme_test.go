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
	_, after, ok := strings.Cut(text, "The first command plans the nodes")
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

// The quick start says what the first run costs instead of promising a time it cannot keep,
// and shows the HTML page it mentions.
func TestREADMEFirstRun(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(readme)
	quickStart, _, ok := strings.Cut(text, "## Using the CLI")
	require.True(t, ok)
	require.NotContains(t, quickStart, "30 seconds")
	require.Contains(t, quickStart, "On the first run Go downloads and compiles nodeplan's modules")
	require.Contains(t, quickStart, "after that a plan takes about a second")

	// The screenshot the README shows is there and small.
	require.Contains(t, text, "](docs/plan-real-snapshot.png)")
	info, err := os.Stat("../../docs/plan-real-snapshot.png")
	require.NoError(t, err)
	require.Less(t, info.Size(), int64(300<<10))
}
