package main

import (
	"math"
	"os"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/synthetic"
)

// table splits table output into rows of fields, header first.
func table(t *testing.T, out string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		// Columns are separated by at least three spaces; headers may contain one.
		rows = append(rows, regexp.MustCompile(` {3,}`).Split(strings.TrimSpace(line), -1))
	}
	require.NotEmpty(t, rows)
	require.Equal(t, []string{"NAME", "VCPU", "MEMORY", "ARCH", "PODS", "ALLOC CPU", "ALLOC MEMORY", "ON-DEMAND", "SPOT"}, rows[0])
	return rows
}

func rowOf(rows [][]string, name string) []string {
	for _, r := range rows[1:] {
		if r[0] == name {
			return r
		}
	}
	return nil
}

func TestCatalogAWSDefault(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("catalog")
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stderr)
	rows := table(t, stdout)
	require.Greater(t, len(rows), 500, "us-west-2 has hundreds of types")
	require.Equal(t, []string{"m5.large", "2", "7.4Gi", "amd64", "29", "1930m", "6.7Gi", "$0.0960", "$0.0399"}, rowOf(rows, "m5.large"))
	requireSortedByOnDemand(t, rows, "aws", "")
}

func TestCatalogFile(t *testing.T) {
	code, stdout, stderr := nodeplan("catalog", "--catalog", "testdata/catalog.yaml")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, `NAME        VCPU   MEMORY   ARCH    PODS   ALLOC CPU   ALLOC MEMORY   ON-DEMAND   SPOT
m6g.large   2      7.4Gi    arm64   29     1930m       6.7Gi          $0.0770     -
m5.large    2      7.4Gi    amd64   29     1930m       6.7Gi          $0.0960     $0.0350
spot.only   1      1.0Gi    arm64   8      1           1.0Gi          -           $0.0100
`, stdout)
}

func TestCatalogSelector(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		want     []string // exactly these rows, in order; nil: check arm64 only
		wantArch string
	}{
		{"arch on aws", []string{"-l", "kubernetes.io/arch=arm64"}, nil, "arm64"},
		{"arch on synthetic", []string{"--catalog", "synthetic", "-l", "kubernetes.io/arch=arm64"}, nil, "arm64"},
		{"deprecated arch key", []string{"--catalog", "synthetic", "-l", "beta.kubernetes.io/arch=amd64"}, nil, "amd64"},
		{"instance type", []string{"--catalog", "testdata/catalog.yaml", "-l", "node.kubernetes.io/instance-type=m5.large"}, []string{"m5.large"}, ""},
		{"set-based", []string{"--catalog", "testdata/catalog.yaml", "-l", "karpenter.k8s.aws/instance-family in (m5,m6g)"}, []string{"m6g.large", "m5.large"}, ""},
		{"label absent", []string{"--catalog", "testdata/catalog.yaml", "-l", "!karpenter.k8s.aws/instance-family"}, []string{"spot.only"}, ""},
		{"provider labels on aws", []string{"-l", "kubernetes.io/arch=arm64,karpenter.k8s.aws/instance-family=m7g,karpenter.k8s.aws/instance-size=xlarge"}, []string{"m7g.xlarge"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := nodeplan(append([]string{"catalog"}, tt.args...)...)
			require.Equal(t, exitOK, code, stderr)
			rows := table(t, stdout)
			if tt.want != nil {
				var got []string
				for _, r := range rows[1:] {
					got = append(got, r[0])
				}
				require.Equal(t, tt.want, got)
				return
			}
			require.Greater(t, len(rows), 10)
			for _, r := range rows[1:] {
				require.Equal(t, tt.wantArch, r[3], r[0])
			}
		})
	}
}

func TestCatalogNoMatch(t *testing.T) {
	code, stdout, stderr := nodeplan("catalog", "--catalog", "synthetic", "-l", "kubernetes.io/arch=s390x")
	require.Equal(t, exitOK, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, `No instance types in the test-region catalog match "kubernetes.io/arch=s390x"`)
}

func TestCatalogSynthetic(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("catalog", "--catalog", "synthetic")
	require.Equal(t, exitOK, code, stderr)
	rows := table(t, stdout)
	require.Len(t, rows, 1+len(synthetic.Default().InstanceTypes))
	requireSortedByOnDemand(t, rows, "synthetic", "")

	// Another region gets AWS-style zone names.
	code, stdout, stderr = nodeplan("catalog", "--catalog", "synthetic", "--region", "us-west-2", "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	c, err := instancetype.ParseCatalog([]byte(stdout), "stdout")
	require.NoError(t, err)
	require.Equal(t, "us-west-2", c.Region)
	var zones []string
	for _, o := range c.InstanceTypes[0].Offerings {
		if o.CapacityType == "on-demand" {
			zones = append(zones, o.Zone)
		}
	}
	sort.Strings(zones)
	require.Equal(t, []string{"us-west-2a", "us-west-2b", "us-west-2c"}, zones)
}

// requireSortedByOnDemand checks that the rows list the catalog's types by cheapest on-demand
// price (types without one last), then by name.
func requireSortedByOnDemand(t *testing.T, rows [][]string, catalog, region string) {
	t.Helper()
	c, err := loadCatalog(catalog, region)
	require.NoError(t, err)
	price := map[string]float64{}
	for _, it := range c.InstanceTypes {
		price[it.Name] = math.Inf(1)
		for _, o := range it.Offerings {
			if o.Available && o.CapacityType == "on-demand" && o.Price < price[it.Name] {
				price[it.Name] = o.Price
			}
		}
	}
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[0])
	}
	require.Len(t, got, len(price))
	require.True(t, sort.SliceIsSorted(got, func(i, j int) bool {
		a, b := got[i], got[j]
		if price[a] != price[b] {
			return price[a] < price[b]
		}
		return a < b
	}))
}

func TestCatalogJSONAndYAMLRoundTrip(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			code, out, stderr := nodeplan("catalog", "--catalog", "testdata/catalog.yaml", "-l", "kubernetes.io/arch=arm64", "-o", format)
			require.Equal(t, exitOK, code, stderr)
			if format == "yaml" {
				require.True(t, strings.HasPrefix(out, "apiVersion: nodeplan/v1\nkind: InstanceTypeCatalog\nregion: lab-1\n"), out)
			}
			c, err := instancetype.ParseCatalog([]byte(out), "stdout")
			require.NoError(t, err)
			require.Equal(t, "lab-1", c.Region)
			require.Len(t, c.InstanceTypes, 2)
			require.Equal(t, "m6g.large", c.InstanceTypes[0].Name)
			require.Equal(t, "spot.only", c.InstanceTypes[1].Name)

			// What -o writes, --catalog reads back to the same output.
			file := t.TempDir() + "/catalog." + format
			require.NoError(t, writeFile(file, out))
			code, again, stderr := nodeplan("catalog", "--catalog", file, "-o", format)
			require.Equal(t, exitOK, code, stderr)
			require.Equal(t, out, again)
		})
	}
}

func TestCatalogErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"bad selector", []string{"--catalog", "synthetic", "-l", "kubernetes.io/arch in (arm64"}, exitUsage, []string{"invalid -l selector", `"kubernetes.io/arch in (arm64"`, `Run "nodeplan catalog -h"`}},
		{"bad output", []string{"--catalog", "synthetic", "-o", "wide"}, exitUsage, []string{`invalid -o "wide"`, "table, json or yaml"}},
		{"unknown region", []string{"--region", "mars-1"}, exitUsage, []string{`invalid --region "mars-1"`, "the embedded aws catalog has", "us-west-2"}},
		{"missing file", []string{"--catalog", "testdata/nope.yaml"}, exitUsage, []string{"testdata/nope.yaml", "no such file", "aws, synthetic"}},
		{"bad file", []string{"--catalog", "testdata/bad.yaml"}, exitInput, []string{"testdata/bad.yaml", "instanceTypes[0] (m5.large)", "offerings[0].capacityType"}},
		{"file of another region", []string{"--catalog", "testdata/catalog.yaml", "--region", "us-west-2"}, exitInput, []string{"testdata/catalog.yaml", "lab-1", "not us-west-2"}},
		{"empty catalog name", []string{"--catalog", ""}, exitUsage, []string{"--catalog is empty"}},
		{"synthetic region that is no label value", []string{"--catalog", "synthetic", "--region", "a b"}, exitUsage, []string{`--region "a b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := nodeplan(append([]string{"catalog"}, tt.args...)...)
			require.Equal(t, tt.wantCode, code, stderr)
			require.Empty(t, stdout)
			require.True(t, strings.HasPrefix(stderr, "nodeplan catalog: "), stderr)
			for _, want := range tt.want {
				require.Contains(t, stderr, want)
			}
		})
	}
}

func TestLoadCatalog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, catalog, region string
		wantRegion            string
		wantZone              string // of some offering
	}{
		{"aws default region", "aws", "", "us-west-2", "us-west-2a"},
		{"aws region", "aws", "eu-west-1", "eu-west-1", "eu-west-1a"},
		{"synthetic default", "synthetic", "", "test-region", "test-zone-a"},
		{"synthetic default named", "synthetic", "test-region", "test-region", "test-zone-a"},
		{"synthetic elsewhere", "synthetic", "eu-west-1", "eu-west-1", "eu-west-1b"},
		{"file", "testdata/catalog.yaml", "", "lab-1", "lab-1a"},
		{"file with its region", "testdata/catalog.yaml", "lab-1", "lab-1", "lab-1a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadCatalog(tt.catalog, tt.region)
			require.NoError(t, err)
			require.Equal(t, tt.wantRegion, c.Region)
			zones := map[string]bool{}
			for _, it := range c.InstanceTypes {
				for _, o := range it.Offerings {
					zones[o.Zone] = true
				}
			}
			require.True(t, zones[tt.wantZone], "zones: %v", zones)
		})
	}
}

func writeFile(path, content string) error {
	return os.WriteFile(path, []byte(content), 0o644)
}

// A reader that goes away (nodeplan catalog | head) ends the command quietly.
func TestCatalogClosedPipe(t *testing.T) {
	var stderr strings.Builder
	code := run([]string{"catalog", "--catalog", "synthetic"}, strings.NewReader(""), closedPipe{}, &stderr)
	require.Equal(t, exitOK, code)
	require.Empty(t, stderr.String())
}

type closedPipe struct{}

func (closedPipe) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// -f applies the manifests' NodeOverlays to the prices shown (m7i.large on-demand $0.1008 −
// 30%), and the region follows the manifests' zones.
func TestCatalogWithOverlays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/overlay.yaml", []byte(`apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: m7i-savings-plan}
spec:
  requirements:
  - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i]}
  - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
  priceAdjustment: "-30%"
`), 0o644))
	code, stdout, stderr := nodeplan("catalog", "-f", dir, "-l", "karpenter.k8s.aws/instance-family in (m7i,m6i),karpenter.k8s.aws/instance-size=large")
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stderr)
	rows := table(t, stdout)
	require.Equal(t, []string{"m7i.large", "2", "7.4Gi", "amd64", "29", "1930m", "6.7Gi", "$0.0706", "$0.0394"}, rowOf(rows, "m7i.large"), "on-demand only")
	require.Equal(t, "m7i.large", rows[1][0], "now cheaper than m6i.large")
}
