package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/scheduling"
)

// exampleDirs lists every example folder with manifests, and each of its .steps/* folders, as
// the examples' own tests load them.
func exampleDirs(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..", "examples")
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".yaml", ".yml", ".json":
			if dir := filepath.Dir(path); !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	slices.Sort(dirs)
	return dirs
}

// Every example's plan, loaded the way the CLI loads it, passes kube-scheduler's plugins.
func TestExamples(t *testing.T) {
	root := filepath.Join("..", "..", "examples")
	for _, dir := range exampleDirs(t) {
		name := strings.TrimPrefix(filepath.ToSlash(dir), filepath.ToSlash(root)+"/")
		t.Run(name, func(t *testing.T) {
			res, err := app.Plan(app.Config{Paths: []string{dir}}, scheduling.Options{})
			require.NoError(t, err)
			requirePlanValid(t, res.Input, res.Plan, 0)
		})
	}
}
