package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		name                               string
		family, size, category, generation string
		metal                              bool
	}{
		{"m5.large", "m5", "large", "m", "5", false},
		{"m7i-flex.large", "m7i-flex", "large", "m", "7", false},
		{"u-6tb1.metal", "u-6tb1", "metal", "u", "1", true},
		{"u7i-12tb.224xlarge", "u7i-12tb", "224xlarge", "u", "7", false},
		{"u7in-32tb.224xlarge", "u7in-32tb", "224xlarge", "u", "7", false},
		{"inf2.48xlarge", "inf2", "48xlarge", "inf", "2", false},
		{"c7i.metal-24xl", "c7i", "metal-24xl", "c", "7", true},
		{"x2iedn.xlarge", "x2iedn", "xlarge", "x", "2", false},
		{"zz.large", "zz", "large", "zz", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := parseName(tc.name)
			require.True(t, ok)
			require.Equal(t, typeName{family: tc.family, size: tc.size, category: tc.category, generation: tc.generation, metal: tc.metal}, n)
		})
	}
	for _, bad := range []string{"", "m5", ".large", "m5.", "9x.large", "a.b.c"} {
		_, ok := parseName(bad)
		require.False(t, ok, bad)
	}
}

func TestOverheads(t *testing.T) {
	for _, tc := range []struct {
		vcpus     int
		reserved  int64
		vmMiB     int64
		nodeMiB   int64
		pods      int
		kubeMemMi int64
	}{
		{1, 60, 1024, 947, 4, 299},
		{2, 70, 8192, 7577, 29, 574},
		{4, 80, 16384, 15155, 58, 893},
		{5, 82, 0, 0, 0, 255}, // 0.25% of one core is 2.5m, truncated
		{8, 90, 32768, 30310, 58, 893},
		{96, 310, 393216, 363724, 737, 8362},
	} {
		require.Equal(t, tc.reserved, kubeReservedCPUMillis(tc.vcpus), "cpu for %d vCPU", tc.vcpus)
		require.Equal(t, tc.nodeMiB, nodeMemoryMiB(tc.vmMiB), "memory for %d MiB", tc.vmMiB)
		require.Equal(t, tc.kubeMemMi, kubeReservedMemoryMiB(tc.pods), "kube-reserved memory for %d pods", tc.pods)
	}
}

func TestZoneName(t *testing.T) {
	for id, want := range map[string]string{
		"usw2-az1": "us-west-2a",
		"usw2-az4": "us-west-2d",
		"use1-az6": "us-west-2f", // the rule ignores the ID's region prefix: the caller passes the region
	} {
		got, ok := zoneName("us-west-2", id)
		require.True(t, ok, id)
		require.Equal(t, want, got, id)
	}
	for _, bad := range []string{"usw2-lax1-az1", "usw2-az0", "usw2-az27", "us-west-2a", ""} {
		_, ok := zoneName("us-west-2", bad)
		require.False(t, ok, bad)
	}
}

func TestSpotPrice(t *testing.T) {
	num := func(v float64) flexNumber { return flexNumber{V: v, OK: true} }
	for _, tc := range []struct {
		name   string
		price  rawPrice
		od     float64
		want   float64
		wantOK bool
	}{
		{"mean of per-zone list", rawPrice{Spot: []flexNumber{num(0.0366), num(0.0371), num(0.0388), num(0.0472)}, SpotMin: num(0.0366), SpotMax: num(0.0472)}, 0.096, 0.039925, true},
		{"invalid list entries ignored", rawPrice{Spot: []flexNumber{num(0.1), {}, num(0.3)}}, 1, 0.2, true},
		{"midpoint without list", rawPrice{SpotMin: num(0.1), SpotMax: num(0.2)}, 1, 0.15, true},
		{"min only", rawPrice{SpotMin: num(0.1)}, 1, 0.1, true},
		{"capped at on-demand", rawPrice{Spot: []flexNumber{num(2)}}, 1.5, 1.5, true},
		{"none", rawPrice{}, 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := spotPrice(tc.price, tc.od)
			require.Equal(t, tc.wantOK, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestLabelsFromText(t *testing.T) {
	for s, want := range map[string]int64{"25 Gigabit": 25000, "4x 100 Gigabit": 400000, "3.12 Gigabit": 3120, "3200 Gigabit": 3200000} {
		got, ok := networkBandwidthMbps(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"Up to 10 Gigabit", "High", "Moderate", ""} {
		_, ok := networkBandwidthMbps(s)
		require.False(t, ok, s)
	}
	for s, want := range map[string]string{
		"NVIDIA Tesla V100":      "v100",
		"NVIDIA T4G Tensor Core": "t4g",
		"NVIDIA T4 Tensor Core":  "t4",
		"NVIDIA A10G":            "a10g",
		"NVIDIA GRID K520":       "k520",
		"AMD Radeon Pro V520":    "radeon-pro-v520",
		"NVIDIA L40S":            "l40s",
	} {
		require.Equal(t, want, gpuName(s), s)
	}
	mhz, ok := sustainedClockMHz("3.1 GHz")
	require.True(t, ok)
	require.Equal(t, 3100, mhz)
	_, ok = sustainedClockMHz("Up to 3.3 GHz")
	require.False(t, ok)
	require.Equal(t, "aws", cpuManufacturer("AWS Graviton2 Processor"))
	require.Equal(t, "amd", cpuManufacturer("AMD EPYC 7R13 Processor"))
	require.Equal(t, "intel", cpuManufacturer("Intel Xeon Platinum 8175"))
	require.Equal(t, "", cpuManufacturer("Variable"))
}

func TestAttachLimitAndPods(t *testing.T) {
	require.Equal(t, 39, ebsAttachLimit("xen", 2))
	require.Equal(t, 26, ebsAttachLimit("nitro", 0))
	require.Equal(t, 26, ebsAttachLimit("", 0)) // bare metal: Nitro system
	require.Equal(t, 24, ebsAttachLimit("nitro", 2))
	require.Equal(t, 0, ebsAttachLimit("nitro", 30))

	vpc := &rawVPC{MaxENIs: flexNumber{V: 3, OK: true}, IPsPerENI: flexNumber{V: 10, OK: true}}
	n, ok := podsFor("m5.large", vpc, map[string]int{"m5.large": 29})
	require.True(t, ok)
	require.Equal(t, 29, n)
	n, ok = podsFor("new.large", vpc, nil)
	require.True(t, ok)
	require.Equal(t, 29, n, "ENI formula 3×(10−1)+2")
	_, ok = podsFor("new.large", nil, nil)
	require.False(t, ok)
}

func TestTolerantDecoding(t *testing.T) {
	var in rawInstance
	require.NoError(t, json.Unmarshal([]byte(`{
		"instance_type": "x9.large", "generation": "current", "arch": "x86_64",
		"vCPU": "2", "memory": "8 GiB", "GPU": null, "GPU_model": 7,
		"storage": "none", "vpc": [], "ebs_max_bandwidth": "N/A",
		"availability_zones": {"us-west-2": ["usw2-az1"], "eu-west-1": "euw1-az1"},
		"pricing": {"us-west-2": {"linux": {"ondemand": "0.1", "spot": "x", "spot_min": "0.02", "spot_max": "N/A"}}, "eu-west-1": "n/a"}
	}`), &in))
	require.Equal(t, flexString("x9.large"), in.InstanceType)
	require.Equal(t, flexStrings{"x86_64"}, in.Arch)
	require.Equal(t, flexNumber{V: 2, OK: true}, in.VCPU)
	require.Equal(t, flexNumber{V: 8, OK: true}, in.Memory)
	require.False(t, in.GPU.OK)
	require.False(t, in.EBSMaxBandwidth.OK)
	require.Equal(t, flexZoneMap{"us-west-2": {"usw2-az1"}, "eu-west-1": {"euw1-az1"}}, in.AvailabilityZones)
	p := in.Pricing["us-west-2"]
	require.Equal(t, flexNumber{V: 0.1, OK: true}, p.OnDemand)
	require.Equal(t, flexNumber{V: 0.02, OK: true}, p.SpotMin)
	require.False(t, p.SpotMax.OK)
	require.NotContains(t, in.Pricing, "eu-west-1")

	cat, _ := buildCatalog("us-west-2", "test", []*rawInstance{&in}, nil)
	require.Empty(t, cat.InstanceTypes, "no max pods and no ENI data: skipped")
	in.VPC = &rawVPC{MaxENIs: flexNumber{V: 3, OK: true}, IPsPerENI: flexNumber{V: 10, OK: true}}
	cat, _ = buildCatalog("us-west-2", "test", []*rawInstance{&in}, nil)
	require.Len(t, cat.InstanceTypes, 1)
	it := cat.InstanceTypes[0]
	require.Equal(t, map[string]string{"cpu": "2", "memory": "7577Mi", "pods": "29", "ephemeral-storage": "20Gi"}, it.Capacity)
	require.Equal(t, []offering{
		{Zone: "us-west-2a", CapacityType: "on-demand", Price: 0.1, Available: true},
		{Zone: "us-west-2a", CapacityType: "spot", Price: 0.02, Available: true},
	}, it.Offerings)
}

func TestEncodeDeterministic(t *testing.T) {
	cat := &catalog{APIVersion: "nodeplan/v1", Kind: "InstanceTypeCatalog", Region: "r", InstanceTypes: []instanceType{{
		Name:   "a.large",
		Labels: map[string]string{"z": "1", "a": "2", "m": "3"},
	}}}
	a, err := encode(cat)
	require.NoError(t, err)
	b, err := encode(cat)
	require.NoError(t, err)
	require.Equal(t, a, b)
	zr, err := gzip.NewReader(bytes.NewReader(a))
	require.NoError(t, err)
	require.Empty(t, zr.Name)
	require.True(t, zr.ModTime.IsZero())
	doc, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.Contains(t, string(doc), `"labels":{"a":"2","m":"3","z":"1"}`)
}

func TestRegionWithoutZones(t *testing.T) {
	in := &rawInstance{
		InstanceType: "m5.large", Generation: "current", Arch: flexStrings{"x86_64"},
		VCPU: flexNumber{V: 2, OK: true}, Memory: flexNumber{V: 8, OK: true},
		Pricing: flexPricing{"xx-nowhere-1": {OnDemand: flexNumber{V: 0.1, OK: true}}},
	}
	cat, report := buildCatalog("xx-nowhere-1", "test", []*rawInstance{in}, map[string]int{"m5.large": 29})
	require.Empty(t, cat.InstanceTypes)
	require.NotEmpty(t, report.notes)

	// A region without AZ data but with standard zones offers every type in all of them.
	in.Pricing = flexPricing{"eu-west-2": {OnDemand: flexNumber{V: 0.1, OK: true}}}
	cat, _ = buildCatalog("eu-west-2", "test", []*rawInstance{in}, map[string]int{"m5.large": 29})
	require.Len(t, cat.InstanceTypes, 1)
	var zones []string
	for _, o := range cat.InstanceTypes[0].Offerings {
		require.True(t, o.Available)
		zones = append(zones, o.Zone)
	}
	require.Equal(t, []string{"eu-west-2a", "eu-west-2b", "eu-west-2c"}, zones)
}
