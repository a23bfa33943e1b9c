package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every malformed manifest of the loader's suite, and what cannot be read as a file, ends
// both commands with exit 1 and a message naming the file and, for a manifest, the document.
func TestBadInputEndsBothCommands(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../manifest/testdata/bad/*")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	paths := append(files, "/dev/zero")
	for _, path := range paths {
		for _, command := range [][]string{{"plan"}, {"consolidate", "--now", "2026-01-12T10:00:00Z"}} {
			code, _, stderr := nodeplanStdin("", append(command, "-f", path)...)
			assert.Equal(t, exitInput, code, "%s %s: %s", command[0], path, stderr)
			want := path + ": "
			if !strings.HasPrefix(path, "/dev/") {
				want = path + ": document "
			}
			assert.Contains(t, stderr, want, "%s %s", command[0], path)
		}
	}
}
