package manifest

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stream is read whole while each document stays within the limit, whatever its total.
func TestReadStreamCutsDocuments(t *testing.T) {
	doc := "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n" // 50 bytes
	cases := map[string]struct {
		stream string
		err    string
	}{
		"many small YAML documents": {stream: strings.Repeat(doc+"---\n", 100)},
		"one document too large": {
			stream: doc + "---\n" + doc + "---\n# comment\n" + strings.Repeat("x", 200),
			err:    "stdin: document 3 (starting at line 9) is larger than 0 MiB, the most nodeplan reads of one document from a stream",
		},
		"empty documents are not counted": {
			stream: "---\n---\n" + doc + "...\n" + strings.Repeat("y", 200),
			err:    "stdin: document 2 (starting at line 7) is larger than 0 MiB, the most nodeplan reads of one document from a stream",
		},
		"content on the marker line": {
			stream: doc + "--- kind: Pod\n" + strings.Repeat("z", 200),
			err:    "stdin: document 2 (starting at line 4) is larger than 0 MiB, the most nodeplan reads of one document from a stream",
		},
		"many small JSON values": {stream: strings.Repeat(`{"kind": "Namespace", "metadata": {"name": "}{"}}`+"\n", 100)},
		"one JSON value too large": {
			stream: `{"a": 1}` + "\n" + `[{"b": "` + strings.Repeat("]", 200) + `"}]`,
			err:    "stdin: document 2 (starting at line 1) is larger than 0 MiB, the most nodeplan reads of one document from a stream",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			// Read a few bytes at a time, so that lines and values span reads.
			data, err := readStream(&slowReader{r: strings.NewReader(c.stream), n: 7}, "stdin", 120)
			if c.err != "" {
				assert.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.stream, string(data))
		})
	}
}

// An endless stream ends at the limit.
func TestReadStreamEndless(t *testing.T) {
	_, err := readStream(zeros{}, "stdin", 1<<20)
	assert.EqualError(t, err, "stdin: document 1 (starting at line 1) is larger than 1 MiB, the most nodeplan reads of one document from a stream")
}

type slowReader struct {
	r io.Reader
	n int
}

func (s *slowReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.n)]) }

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
