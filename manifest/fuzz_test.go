package manifest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeplan/nodeplan/manifest"
)

// FuzzParse checks that no input makes the loader panic: it returns a Bundle or an error.
// `go test` runs the seeds (every testdata file); `go test -fuzz FuzzParse` explores.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/*.yaml", "testdata/*.json", "testdata/bad/*", "testdata/cluster/*.yaml", "testdata/cluster/*.json"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := manifest.Parse(data, "fuzz.yaml")
		if (b == nil) == (err == nil) {
			t.Fatalf("Parse returned bundle %v and error %v", b != nil, err)
		}
		if b != nil {
			b.ExistingNodes()
			b.SchedulingInput()
		}
	})
}
