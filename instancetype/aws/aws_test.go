package aws_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
)

// Parsing a region takes a noticeable fraction of a second, so the tests share one parse
// per region (the determinism test parses again on purpose).
var (
	parsedMu sync.Mutex
	parsed   = map[string]*instancetype.Catalog{}
)

func catalog(t *testing.T, region string) *instancetype.Catalog {
	t.Helper()
	parsedMu.Lock()
	defer parsedMu.Unlock()
	if c, ok := parsed[region]; ok {
		return c
	}
	c, err := aws.Catalog(region)
	require.NoError(t, err)
	parsed[region] = c
	return c
}

func find(t *testing.T, c *instancetype.Catalog, name string) *instancetype.InstanceType {
	t.Helper()
	for _, it := range c.InstanceTypes {
		if it.Name == name {
			return it
		}
	}
	require.Failf(t, "instance type missing", "%s has no %s", c.Region, name)
	return nil
}

func TestRegions(t *testing.T) {
	regions := aws.Regions()
	require.True(t, sort.StringsAreSorted(regions))
	for _, r := range []string{"us-east-1", "us-west-2", "eu-west-1", "eu-west-2"} {
		require.Contains(t, regions, r)
	}
}

func TestCounts(t *testing.T) {
	// Roughly what the pinned data holds; a generator change that drops or duplicates
	// types lands outside these ranges.
	for _, tc := range []struct {
		region   string
		min, max int
	}{
		{"us-east-1", 800, 950},
		{"us-west-2", 800, 950},
		{"us-east-2", 700, 900},
		{"eu-west-1", 700, 850},
		{"eu-central-1", 700, 850},
		{"eu-west-2", 500, 650},
	} {
		t.Run(tc.region, func(t *testing.T) {
			c := catalog(t, tc.region)
			require.Equal(t, tc.region, c.Region)
			require.Contains(t, c.Source, "github.com/cristim/ec2-instances-info@")
			require.Contains(t, c.Source, "github.com/aws/amazon-vpc-cni-k8s@v1.23.2")
			require.GreaterOrEqual(t, len(c.InstanceTypes), tc.min)
			require.LessOrEqual(t, len(c.InstanceTypes), tc.max)
		})
	}
}

func TestEveryType(t *testing.T) {
	for _, region := range aws.Regions() {
		t.Run(region, func(t *testing.T) {
			c := catalog(t, region)
			available := 0
			for _, it := range c.InstanceTypes {
				require.Contains(t, []string{"amd64", "arm64"}, it.Labels[corev1.LabelArchStable], it.Name)
				require.Equal(t, "linux", it.Labels[corev1.LabelOSStable], it.Name)
				require.NotEmpty(t, it.Labels["karpenter.k8s.aws/instance-family"], it.Name)
				require.Equal(t, strings.SplitN(it.Name, ".", 2)[1], it.Labels["karpenter.k8s.aws/instance-size"], it.Name)
				for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
					q := it.Allocatable()[r]
					require.Equal(t, 1, q.Sign(), "%s allocatable %s", it.Name, r)
				}
				require.Positive(t, it.VolumeAttachLimits["ebs.csi.aws.com"], it.Name)

				onDemand := map[string]float64{}
				for _, o := range it.Offerings {
					zoneRegion, ok := aws.ZoneRegion(o.Zone)
					require.True(t, ok, o.Zone)
					require.Equal(t, region, zoneRegion, o.Zone)
					if o.CapacityType == "on-demand" {
						require.Positive(t, o.Price, it.Name)
						onDemand[o.Zone] = o.Price
					}
				}
				require.NotEmpty(t, onDemand, "%s has no on-demand offering", it.Name)
				for _, o := range it.Offerings {
					if o.CapacityType == "spot" {
						require.Positive(t, o.Price, it.Name)
						require.LessOrEqual(t, o.Price, onDemand[o.Zone], "%s spot above on-demand in %s", it.Name, o.Zone)
					}
				}
				if _, ok := it.CheapestOffering(nil); ok {
					available++
				}
			}
			// A handful of priced types are offered in no zone (kept for price look-ups).
			require.Greater(t, available, len(c.InstanceTypes)-5)
		})
	}
}

func TestKnownTypes(t *testing.T) {
	c := catalog(t, "us-west-2")
	for _, tc := range []struct {
		name        string
		capacity    map[corev1.ResourceName]string
		allocatable map[corev1.ResourceName]string
		labels      map[string]string
		attach      int
	}{
		{
			name:        "m5.large",
			capacity:    map[corev1.ResourceName]string{"cpu": "2", "memory": "7577Mi", "pods": "29", "ephemeral-storage": "20Gi"},
			allocatable: map[corev1.ResourceName]string{"cpu": "1930m", "memory": "6903Mi", "pods": "29"},
			labels: map[string]string{
				"kubernetes.io/arch":                    "amd64",
				"karpenter.k8s.aws/instance-family":     "m5",
				"karpenter.k8s.aws/instance-category":   "m",
				"karpenter.k8s.aws/instance-generation": "5",
				"karpenter.k8s.aws/instance-size":       "large",
				"karpenter.k8s.aws/instance-cpu":        "2",
				"karpenter.k8s.aws/instance-memory":     "8192",
				"karpenter.k8s.aws/instance-hypervisor": "nitro",
			},
			attach: 26,
		},
		{
			name:     "r6gd.xlarge",
			capacity: map[corev1.ResourceName]string{"cpu": "4", "memory": "30310Mi", "pods": "58"},
			labels:   map[string]string{"kubernetes.io/arch": "arm64", "karpenter.k8s.aws/instance-local-nvme": "237"},
			attach:   25, // one NVMe instance-store device
		},
		{
			name:     "m7i-flex.large",
			labels:   map[string]string{"karpenter.k8s.aws/instance-family": "m7i-flex", "karpenter.k8s.aws/instance-category": "m", "karpenter.k8s.aws/instance-generation": "7", "karpenter.k8s.aws/instance-capability-flex": "true"},
			capacity: map[corev1.ResourceName]string{"cpu": "2"},
		},
		{
			name:     "g5.xlarge",
			capacity: map[corev1.ResourceName]string{"nvidia.com/gpu": "1"},
			labels:   map[string]string{"karpenter.k8s.aws/instance-gpu-name": "a10g", "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia", "karpenter.k8s.aws/instance-gpu-count": "1", "karpenter.k8s.aws/instance-gpu-memory": "24576"},
		},
		{
			name:     "g4ad.xlarge",
			capacity: map[corev1.ResourceName]string{"amd.com/gpu": "1"},
			labels:   map[string]string{"karpenter.k8s.aws/instance-gpu-manufacturer": "amd"},
		},
		{
			name:     "inf2.xlarge",
			capacity: map[corev1.ResourceName]string{"aws.amazon.com/neuron": "1"},
			labels:   map[string]string{"karpenter.k8s.aws/instance-accelerator-name": "inferentia2", "karpenter.k8s.aws/instance-accelerator-manufacturer": "aws"},
		},
		{
			name:     "t2.micro",
			capacity: map[corev1.ResourceName]string{"pods": "4"},
			labels:   map[string]string{"karpenter.k8s.aws/instance-hypervisor": "xen"},
			attach:   39,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it := find(t, c, tc.name)
			alloc := it.Allocatable()
			for r, want := range tc.capacity {
				q, ok := it.Capacity[r]
				require.True(t, ok, "capacity %s", r)
				require.Zero(t, q.Cmp(resource.MustParse(want)), "capacity %s = %s, want %s", r, q.String(), want)
			}
			for r, want := range tc.allocatable {
				q := alloc[r]
				require.Zero(t, q.Cmp(resource.MustParse(want)), "allocatable %s = %s, want %s", r, q.String(), want)
			}
			for k, v := range tc.labels {
				require.Equal(t, v, it.Labels[k], k)
			}
			if tc.attach != 0 {
				require.Equal(t, tc.attach, it.VolumeAttachLimits["ebs.csi.aws.com"])
			}
		})
	}
}

func TestOfferedInZone(t *testing.T) {
	for _, tc := range []struct{ region, name, zone string }{
		{"us-west-2", "t4g.2xlarge", "us-west-2a"},
		{"us-west-2", "r6gd.xlarge", "us-west-2a"},
		{"us-west-2", "m5.large", "us-west-2d"},
		{"us-east-1", "m5.large", "us-east-1a"},
		{"eu-west-2", "m5.large", "eu-west-2c"},
	} {
		t.Run(tc.region+"/"+tc.name, func(t *testing.T) {
			it := find(t, catalog(t, tc.region), tc.name)
			found := map[string]bool{}
			for _, o := range it.Offerings {
				if o.Zone == tc.zone && o.Available {
					require.Positive(t, o.Price)
					found[o.CapacityType] = true
				}
			}
			require.True(t, found["on-demand"], "no available on-demand offering in %s", tc.zone)
			require.True(t, found["spot"], "no available spot offering in %s", tc.zone)
		})
	}
}

func TestUnknownRegion(t *testing.T) {
	_, err := aws.Catalog("mars-north-1")
	require.Error(t, err)
	require.Contains(t, err.Error(), `"mars-north-1"`)
	require.Contains(t, err.Error(), strings.Join(aws.Regions(), ", "))
}

func TestDeterministic(t *testing.T) {
	a, err := aws.Catalog("eu-west-2")
	require.NoError(t, err)
	b, err := aws.Catalog("eu-west-2")
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.NotSame(t, a, b, "each call returns its own catalog")
	require.Equal(t, a, catalog(t, "eu-west-2"))
}

func TestZoneRegion(t *testing.T) {
	for _, tc := range []struct {
		zone, region string
		ok           bool
	}{
		{"us-west-2a", "us-west-2", true},
		{"us-east-1f", "us-east-1", true},
		{"eu-west-2c", "eu-west-2", true},
		{"ap-south-1b", "ap-south-1", true}, // well-formed, not embedded
		{"us-gov-west-1a", "us-gov-west-1", true},
		{"us-west-2-lax-1a", "us-west-2", true},
		{"us-east-1-wl1-bos-wlz-1", "us-east-1", true},
		{"ap-south-1-del-1a", "ap-south-1", true},
		{"us-west-2", "", false},
		{"us-west-2ab", "", false},
		{"zone-a", "", false},
		{"", "", false},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			region, ok := aws.ZoneRegion(tc.zone)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.region, region)
		})
	}
}

func ExampleCatalog() {
	cat, err := aws.Catalog("us-west-2")
	if err != nil {
		panic(err)
	}
	for _, it := range cat.InstanceTypes {
		if it.Name != "m5.large" {
			continue
		}
		alloc := it.Allocatable()
		fmt.Println(it.Name, it.Labels["kubernetes.io/arch"], it.Capacity.Cpu(), it.Capacity.Memory(), it.Capacity.Pods())
		fmt.Println("allocatable", alloc.Cpu(), alloc.Memory())
		o, _ := it.CheapestOffering(nil)
		fmt.Println("cheapest", o.Zone, o.CapacityType)
	}
	// Output:
	// m5.large amd64 2 7577Mi 29
	// allocatable 1930m 6903Mi
	// cheapest us-west-2a spot
}
