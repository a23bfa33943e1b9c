package synthetic

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

func names(c *instancetype.Catalog) []string {
	var out []string
	for _, it := range c.InstanceTypes {
		out = append(out, it.Name)
	}
	return out
}

func byName(t *testing.T, c *instancetype.Catalog, name string) *instancetype.InstanceType {
	t.Helper()
	for _, it := range c.InstanceTypes {
		if it.Name == name {
			return it
		}
	}
	require.FailNow(t, "no instance type "+name)
	return nil
}

func price(t *testing.T, it *instancetype.InstanceType, zone, capacityType string) float64 {
	t.Helper()
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o.Price
		}
	}
	require.FailNow(t, "no offering", "%s %s %s", it.Name, zone, capacityType)
	return 0
}

func TestCounts(t *testing.T) {
	tests := []struct {
		name      string
		catalog   *instancetype.Catalog
		types     int
		offerings int // per type
	}{
		{"default", Default(), 3 * 5 * 2 * 13, 3 * 2},
		{"zero options are the default", Catalog(Options{}), 390, 6},
		{"small", Small(), 12, 6},
		{"custom", Catalog(Options{Categories: []string{"x"}, Generations: []int{1, 2}, Archs: []string{"arm64"}, Sizes: []int{3, 5, 7}, Zones: []string{"z"}, CapacityTypes: []string{"spot", "on-demand", "reserved"}}), 6, 3},
		{"benchmark scale", Catalog(Options{Categories: []string{"c", "m", "r", "x"}, Generations: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}), 4 * 10 * 2 * 13, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Len(t, tt.catalog.InstanceTypes, tt.types)
			seen := map[string]bool{}
			for i, it := range tt.catalog.InstanceTypes {
				require.False(t, seen[it.Name], "duplicate %s", it.Name)
				seen[it.Name] = true
				if i > 0 {
					require.Less(t, tt.catalog.InstanceTypes[i-1].Name, it.Name, "sorted by name")
				}
				require.Len(t, it.Offerings, tt.offerings, it.Name)
			}
		})
	}
}

func TestSmall(t *testing.T) {
	require.Equal(t, []string{
		"c6-2x", "c6-4x", "c6g-2x", "c6g-4x",
		"m6-2x", "m6-4x", "m6g-2x", "m6g-4x",
		"r6-2x", "r6-4x", "r6g-2x", "r6g-4x",
	}, names(Small()))
}

func TestDeterministic(t *testing.T) {
	a, err := instancetype.EncodeCatalog(Default())
	require.NoError(t, err)
	b, err := instancetype.EncodeCatalog(Default())
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
}

// Every generated type passes the loader's validation, and nothing is lost on the way.
func TestRoundTripThroughLoader(t *testing.T) {
	for name, c := range map[string]*instancetype.Catalog{
		"default":  Default(),
		"reserved": Catalog(Options{CapacityTypes: []string{"reserved", "on-demand"}, Sizes: []int{2}}),
	} {
		t.Run(name, func(t *testing.T) {
			data, err := instancetype.EncodeCatalog(c)
			require.NoError(t, err)
			back, err := instancetype.ParseCatalog(data, "synthetic.json")
			require.NoError(t, err)
			require.Equal(t, c.Region, back.Region)
			require.Equal(t, c.Source, back.Source)
			require.Equal(t, names(c), names(back))
			for i, it := range c.InstanceTypes {
				require.Equal(t, it.Offerings, back.InstanceTypes[i].Offerings, it.Name)
				require.Equal(t, it.Labels, back.InstanceTypes[i].Labels, it.Name)
			}
			again, err := instancetype.EncodeCatalog(back)
			require.NoError(t, err)
			require.Equal(t, string(data), string(again))
		})
	}
}

// A 2 vCPU / 8 GiB generation-5 amd64 type is shaped like an m5.large on EKS.
func TestEKSShape(t *testing.T) {
	it := byName(t, Default(), "m5-2x")
	require.Equal(t, map[string]string{
		"kubernetes.io/arch":                    "amd64",
		"kubernetes.io/os":                      "linux",
		"karpenter.k8s.aws/instance-category":   "m",
		"karpenter.k8s.aws/instance-family":     "m5",
		"karpenter.k8s.aws/instance-generation": "5",
		"karpenter.k8s.aws/instance-size":       "2x",
		"karpenter.k8s.aws/instance-cpu":        "2",
		"karpenter.k8s.aws/instance-memory":     "8192",
	}, it.Labels)
	require.Equal(t, "2", it.Capacity.Cpu().String())
	require.Equal(t, "7577Mi", it.Capacity.Memory().String())
	require.Equal(t, "29", it.Capacity.Pods().String())
	alloc := it.Allocatable()
	require.Equal(t, "1930m", alloc.Cpu().String())
	require.Equal(t, "6903Mi", alloc.Memory().String())
	require.Equal(t, map[string]int{EBSCSIDriver: 24}, it.VolumeAttachLimits)
	require.InDelta(t, 0.0987, price(t, it, "test-zone-a", "on-demand"), 0.002)
}

func TestShapesBySize(t *testing.T) {
	c := Default()
	tests := []struct {
		cpus             int
		pods             int
		kubeReservedCPU  string
		kubeReservedMem  string
		ebsAttachLimit   int
		wantMemoryMiB    int64 // m category: 4 GiB per vCPU, less 7.5%
		wantLabelMemMiB  string
		wantCapacityCPUs string
	}{
		{1, 8, "60m", "343Mi", 25, 3788, "4096", "1"},
		{2, 29, "70m", "574Mi", 24, 7577, "8192", "2"},
		{4, 58, "80m", "893Mi", 23, 15155, "16384", "4"},
		{16, 234, "110m", "2829Mi", 19, 60620, "65536", "16"},
		{192, 737, "550m", "8362Mi", 12, 727449, "786432", "192"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.cpus), func(t *testing.T) {
			it := byName(t, c, "m6-"+strconv.Itoa(tt.cpus)+"x")
			require.Equal(t, tt.wantCapacityCPUs, it.Capacity.Cpu().String())
			require.Equal(t, strconv.FormatInt(tt.wantMemoryMiB, 10)+"Mi", it.Capacity.Memory().String())
			require.Equal(t, tt.wantLabelMemMiB, it.Labels[LabelInstanceMemory])
			require.Equal(t, int64(tt.pods), it.Capacity.Pods().Value())
			require.Equal(t, tt.kubeReservedCPU, it.Overhead.KubeReserved.Cpu().String())
			require.Equal(t, tt.kubeReservedMem, it.Overhead.KubeReserved.Memory().String())
			require.Equal(t, "100Mi", it.Overhead.EvictionThreshold.Memory().String())
			require.Equal(t, tt.ebsAttachLimit, it.VolumeAttachLimits[EBSCSIDriver])
		})
	}
}

func TestPrices(t *testing.T) {
	opts := Options{}.withDefaults()
	c := Default()
	zones := opts.Zones
	for _, category := range opts.Categories {
		for _, gen := range opts.Generations {
			for _, arch := range opts.Archs {
				fam := family(category, gen, arch)
				for _, zone := range zones {
					for _, ct := range opts.CapacityTypes {
						prev := 0.0
						for _, cpus := range opts.Sizes {
							p := price(t, byName(t, c, fam+"-"+strconv.Itoa(cpus)+"x"), zone, ct)
							require.Greater(t, p, prev, "%s-%dx %s %s: price grows with size", fam, cpus, zone, ct)
							prev = p
						}
					}
				}
			}
		}
	}

	for _, it := range c.InstanceTypes {
		for _, zone := range zones {
			od, spot := price(t, it, zone, "on-demand"), price(t, it, zone, "spot")
			require.InDelta(t, 0.35, spot/od, 0.051, "%s %s: spot is 30-40%% of on-demand", it.Name, zone)
		}
	}

	m6, m6g := byName(t, c, "m6-4x"), byName(t, c, "m6g-4x")
	require.Less(t, price(t, m6g, "test-zone-a", "on-demand"), price(t, m6, "test-zone-a", "on-demand"), "arm64 is cheaper")
	m5, m7 := byName(t, c, "m5-4x"), byName(t, c, "m7-4x")
	require.Less(t, price(t, m7, "test-zone-a", "on-demand"), price(t, m5, "test-zone-a", "on-demand"), "newer generations are cheaper")
	c6, r6 := byName(t, c, "c6-4x"), byName(t, c, "r6-4x")
	require.Less(t, price(t, c6, "test-zone-a", "on-demand"), price(t, m6, "test-zone-a", "on-demand"), "less memory is cheaper")
	require.Less(t, price(t, m6, "test-zone-a", "on-demand"), price(t, r6, "test-zone-a", "on-demand"))
}

// Zone choice matters: the cheapest zone differs between families.
func TestZonesDiffer(t *testing.T) {
	cheapestZones := map[string]bool{}
	for _, it := range Default().InstanceTypes {
		o, ok := it.CheapestOffering(requirements.NewRequirements(requirements.New(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, "spot")))
		require.True(t, ok)
		cheapestZones[o.Zone] = true
		prices := map[float64]bool{}
		for _, o := range it.Offerings {
			if o.CapacityType == "on-demand" {
				prices[o.Price] = true
			}
		}
		require.Len(t, prices, 3, "%s: on-demand price differs between zones", it.Name)
	}
	require.Len(t, cheapestZones, 3)
}

func TestRegionAndZones(t *testing.T) {
	c := Catalog(Options{Region: "us-west-2", Zones: []string{"us-west-2a", "us-west-2b"}, Sizes: []int{2}})
	require.Equal(t, "us-west-2", c.Region)
	for _, it := range c.InstanceTypes {
		reqs := it.Requirements()
		zone, ok := reqs.Get(requirements.LabelTopologyZone)
		require.True(t, ok)
		require.Equal(t, []string{"us-west-2a", "us-west-2b"}, zone.Values())
	}
}

func TestReserved(t *testing.T) {
	c := Catalog(Options{CapacityTypes: []string{"on-demand", "reserved"}, Categories: []string{"m"}, Generations: []int{6}, Archs: []string{"amd64"}, Sizes: []int{4}})
	it := byName(t, c, "m6-4x")
	od := price(t, it, "test-zone-b", "on-demand")
	for _, o := range it.Offerings {
		if o.CapacityType == "reserved" && o.Zone == "test-zone-b" {
			require.Equal(t, "cr-m6-4-test-zone-b", o.ReservationID)
			require.Equal(t, 10, o.ReservationCapacity)
			require.InDelta(t, od*0.6, o.Price, 1e-6)
		}
	}
}

func TestBadOptionsPanic(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"unknown category", Options{Categories: []string{"z"}}, `category "z"`},
		{"unknown arch", Options{Archs: []string{"riscv64"}}, `arch "riscv64"`},
		{"zero size", Options{Sizes: []int{0}}, "size 0"},
		{"repeated size", Options{Sizes: []int{2, 2}}, "size 2"},
		{"repeated zone", Options{Zones: []string{"a", "a"}}, `zone "a"`},
		{"empty zone", Options{Zones: []string{""}}, `zone ""`},
		{"unknown capacity type", Options{CapacityTypes: []string{"preemptible"}}, `capacity type "preemptible"`},
		{"negative generation", Options{Generations: []int{-1}}, "generation -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, panicMessage(tt.opts), tt.want)
		})
	}
}

// panicMessage returns what Catalog panics with, or "no panic".
func panicMessage(opts Options) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg, _ = r.(string)
		}
	}()
	Catalog(opts)
	return "no panic"
}

func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		Default()
	}
}
