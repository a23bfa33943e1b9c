// Command awscatalog generates the embedded AWS EC2 instance-type catalogs of package
// github.com/nodeplan/nodeplan/instancetype/aws, one gzip'd InstanceTypeCatalog document per
// region, from pinned Go-module data:
//
//   - EC2 specs, per-region prices and per-AZ availability from ec2instances.info, as
//     shipped in data/instances.json of github.com/cristim/ec2-instances-info;
//   - max pods per instance type from misc/eni-max-pods.txt of
//     github.com/aws/amazon-vpc-cni-k8s (the file the EKS AMIs use).
//
// The modules are fetched with `go mod download` and read as data files; they are not
// imported, so they never become dependencies of nodeplan.
//
// Run it from the repository root:
//
//	go run ./hack/awscatalog
//
// The output is deterministic byte for byte: types, offerings and map keys are sorted and
// the gzip header carries no name and no modification time.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Pinned data sources. Bump these (and re-run) to refresh the catalogs.
const (
	ec2Module  = "github.com/cristim/ec2-instances-info"
	ec2Version = "v0.0.0-20250528091325-32acf84f42eb"
	ec2File    = "data/instances.json"

	cniModule  = "github.com/aws/amazon-vpc-cni-k8s"
	cniVersion = "v1.23.2"
	cniFile    = "misc/eni-max-pods.txt"
)

// defaultRegions are the regions whose catalogs are embedded.
var defaultRegions = []string{"eu-central-1", "eu-west-1", "eu-west-2", "us-east-1", "us-east-2", "us-west-2"}

func main() {
	out := flag.String("out", "", "output directory (default: <module root>/instancetype/aws/catalog)")
	regions := flag.String("regions", strings.Join(defaultRegions, ","), "comma-separated regions to generate")
	ec2Path := flag.String("ec2-data", "", "use this instances.json instead of the pinned module's (for experiments; the source string still names the pinned version)")
	cniPath := flag.String("max-pods", "", "use this eni-max-pods.txt instead of the pinned module's")
	flag.Parse()

	if err := run(*out, splitList(*regions), *ec2Path, *cniPath); err != nil {
		fmt.Fprintln(os.Stderr, "awscatalog:", err)
		os.Exit(1)
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func run(outDir string, regions []string, ec2Path, cniPath string) error {
	if len(regions) == 0 {
		return errors.New("no regions given")
	}
	if outDir == "" {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		outDir = filepath.Join(root, "instancetype", "aws", "catalog")
	}
	if ec2Path == "" {
		dir, err := moduleDir(ec2Module, ec2Version)
		if err != nil {
			return err
		}
		ec2Path = filepath.Join(dir, filepath.FromSlash(ec2File))
	}
	if cniPath == "" {
		dir, err := moduleDir(cniModule, cniVersion)
		if err != nil {
			return err
		}
		cniPath = filepath.Join(dir, filepath.FromSlash(cniFile))
	}

	instances, err := readInstances(ec2Path)
	if err != nil {
		return err
	}
	maxPods, err := readMaxPods(cniPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	source := fmt.Sprintf("ec2instances.info data via %s@%s; max pods from %s@%s %s", ec2Module, ec2Version, cniModule, cniVersion, cniFile)
	for _, region := range regions {
		cat, report := buildCatalog(region, source, instances, maxPods)
		if len(cat.InstanceTypes) == 0 {
			return fmt.Errorf("region %s: no instance types (is the region name right?)", region)
		}
		data, err := encode(cat)
		if err != nil {
			return fmt.Errorf("region %s: %w", region, err)
		}
		path := filepath.Join(outDir, region+".json.gz")
		if err := writeFileAtomic(path, data); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: %d instance types, %d offerings, %d bytes -> %s\n", region, len(cat.InstanceTypes), report.offerings, len(data), path)
		for _, line := range report.notes {
			fmt.Fprintf(os.Stderr, "  %s\n", line)
		}
	}
	return nil
}

// moduleDir returns the module cache directory of mod@version, downloading it if needed.
// It runs outside any module (in a temporary directory, with workspaces off) so that
// nodeplan's go.mod and go.sum are never touched.
func moduleDir(mod, version string) (string, error) {
	tmp, err := os.MkdirTemp("", "awscatalog")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "mod", "download", "-json", mod+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, runErr := cmd.Output()
	var info struct {
		Dir   string
		Error string
	}
	// go mod download -json reports module errors in the JSON and exits non-zero, so look
	// at the JSON first: it carries the better message.
	if len(stdout) > 0 {
		if err := json.Unmarshal(stdout, &info); err != nil {
			return "", fmt.Errorf("go mod download %s@%s: decoding output: %w", mod, version, err)
		}
	}
	switch {
	case info.Error != "":
		return "", fmt.Errorf("go mod download %s@%s: %s", mod, version, info.Error)
	case runErr != nil:
		return "", fmt.Errorf("go mod download %s@%s: %w: %s", mod, version, runErr, strings.TrimSpace(stderr.String()))
	case info.Dir == "":
		return "", fmt.Errorf("go mod download %s@%s: no directory in output", mod, version)
	}
	return info.Dir, nil
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the nodeplan module: run from the repository root or pass -out")
	}
	return filepath.Dir(gomod), nil
}

// encode renders the catalog as compact JSON and gzips it without name or timestamp, so
// that equal catalogs give equal bytes.
func encode(cat *catalog) ([]byte, error) {
	doc, err := json.Marshal(cat)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	// The zero Header already has no Name and a zero ModTime; set them anyway to make the
	// determinism requirement visible.
	zw.Name = ""
	zw.ModTime = time.Time{}
	if _, err := zw.Write(doc); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".awscatalog-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
