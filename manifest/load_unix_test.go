//go:build unix

package manifest_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/manifest"
)

// What is neither a file nor a directory is refused before it is opened: /dev/zero never
// ends, and opening a named pipe blocks until something writes to it.
func TestLoadRefusesDevicesAndPipes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pods.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for path, what := range map[string]string{"/dev/zero": "a device", fifo: "a named pipe"} {
		_, err := manifest.Load([]string{path}, nil)
		assert.EqualError(t, err, path+": is "+what+", not a file or directory: to read a stream, pipe it to -f - (standard input)")
	}
	// Inside a directory too.
	_, err := manifest.Load([]string{filepath.Dir(fifo)}, nil)
	assert.EqualError(t, err, fifo+": is a named pipe, not a file or directory: to read a stream, pipe it to -f - (standard input)")
}
