package instancetype

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/requirements"
)

func resources(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func offering(zone, capacityType string, price float64) Offering {
	return Offering{Zone: zone, CapacityType: capacityType, Price: price, Available: true}
}

func unavailable(o Offering) Offering {
	o.Available = false
	return o
}

func instanceType(name, arch string, offerings ...Offering) *InstanceType {
	return &InstanceType{
		Name:      name,
		Labels:    map[string]string{requirements.LabelArch: arch, requirements.LabelOS: requirements.OSLinux},
		Capacity:  resources("cpu", "2", "memory", "8Gi", "pods", "29"),
		Offerings: offerings,
	}
}

func reqs(rs ...*requirements.Requirement) requirements.Requirements {
	return requirements.NewRequirements(rs...)
}

func in(key string, values ...string) *requirements.Requirement {
	return requirements.New(key, corev1.NodeSelectorOpIn, values...)
}

func names(types []*InstanceType) []string {
	var out []string
	for _, it := range types {
		out = append(out, it.Name)
	}
	return out
}

// requireQuantities compares resource lists by value, as Quantity's internal form varies.
func requireQuantities(t *testing.T, want, got corev1.ResourceList) {
	t.Helper()
	require.Len(t, got, len(want), "got %v", got)
	for name, w := range want {
		g, ok := got[name]
		require.True(t, ok, "missing %s in %v", name, got)
		require.Zero(t, w.Cmp(g), "%s: want %s, got %s", name, w.String(), g.String())
	}
}

func TestOverheadTotal(t *testing.T) {
	o := Overhead{
		KubeReserved:      resources("cpu", "70m", "memory", "574Mi"),
		SystemReserved:    resources("cpu", "100m", "ephemeral-storage", "1Gi"),
		EvictionThreshold: resources("memory", "100Mi"),
	}
	requireQuantities(t, resources("cpu", "170m", "memory", "674Mi", "ephemeral-storage", "1Gi"), o.Total())
	require.Empty(t, Overhead{}.Total())
}

func TestAllocatable(t *testing.T) {
	tests := []struct {
		name     string
		capacity corev1.ResourceList
		overhead Overhead
		want     corev1.ResourceList
	}{{
		name:     "no overhead",
		capacity: resources("cpu", "2", "memory", "8Gi", "pods", "29"),
		want:     resources("cpu", "2", "memory", "8Gi", "pods", "29"),
	}, {
		name:     "eks m5.large: kube-reserved and eviction threshold",
		capacity: resources("cpu", "2", "memory", "7577Mi", "pods", "29", "ephemeral-storage", "20Gi"),
		overhead: Overhead{
			KubeReserved:      resources("cpu", "70m", "memory", "574Mi"),
			EvictionThreshold: resources("memory", "100Mi"),
		},
		want: resources("cpu", "1930m", "memory", "6903Mi", "pods", "29", "ephemeral-storage", "20Gi"),
	}, {
		name:     "all three parts add up",
		capacity: resources("cpu", "4", "memory", "16Gi"),
		overhead: Overhead{
			KubeReserved:      resources("cpu", "100m", "memory", "1Gi"),
			SystemReserved:    resources("cpu", "100m", "memory", "1Gi"),
			EvictionThreshold: resources("memory", "1Gi"),
		},
		want: resources("cpu", "3800m", "memory", "13Gi"),
	}, {
		name:     "floored at zero",
		capacity: resources("cpu", "1", "memory", "1Gi"),
		overhead: Overhead{KubeReserved: resources("cpu", "2", "memory", "512Mi"), EvictionThreshold: resources("memory", "1Gi")},
		want:     resources("cpu", "0", "memory", "0"),
	}, {
		name:     "overhead on a resource the type lacks is ignored",
		capacity: resources("cpu", "2"),
		overhead: Overhead{KubeReserved: resources("nvidia.com/gpu", "1")},
		want:     resources("cpu", "2"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := &InstanceType{Name: "t", Capacity: tt.capacity, Overhead: tt.overhead}
			requireQuantities(t, tt.want, it.Allocatable())
		})
	}
}

func TestAllocatableDoesNotChangeCapacity(t *testing.T) {
	it := &InstanceType{Name: "t", Capacity: resources("cpu", "2"), Overhead: Overhead{KubeReserved: resources("cpu", "1")}}
	it.Allocatable()
	requireQuantities(t, resources("cpu", "2"), it.Capacity)
}

func TestRequirements(t *testing.T) {
	it := instanceType("m6g.large", requirements.ArchARM64,
		offering("zone-a", requirements.CapacityTypeOnDemand, 0.077),
		offering("zone-a", requirements.CapacityTypeSpot, 0.03),
		offering("zone-b", requirements.CapacityTypeOnDemand, 0.077),
		unavailable(offering("zone-c", requirements.CapacityTypeOnDemand, 0.077)),
		unavailable(offering("zone-c", requirements.CapacityTypeReserved, 0.05)),
	)
	got := it.Requirements()
	require.Equal(t, []string{
		requirements.LabelCapacityType,
		requirements.LabelArch,
		requirements.LabelOS,
		requirements.LabelInstanceType,
		requirements.LabelTopologyZone,
	}, got.Keys())

	tests := []struct {
		key   string
		value string
		want  bool
	}{
		{requirements.LabelArch, "arm64", true},
		{requirements.LabelArch, "amd64", false},
		{requirements.LabelOS, "linux", true},
		{requirements.LabelInstanceType, "m6g.large", true},
		{requirements.LabelInstanceType, "m5.large", false},
		{requirements.LabelTopologyZone, "zone-a", true},
		{requirements.LabelTopologyZone, "zone-b", true},
		{requirements.LabelTopologyZone, "zone-c", false}, // only unavailable offerings there
		{requirements.LabelCapacityType, "on-demand", true},
		{requirements.LabelCapacityType, "spot", true},
		{requirements.LabelCapacityType, "reserved", false}, // unavailable
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			r, ok := got.Get(tt.key)
			require.True(t, ok)
			require.Equal(t, tt.want, r.Has(tt.value))
		})
	}
}

func TestRequirementsWithoutAvailableOfferingsAllowNoZone(t *testing.T) {
	it := instanceType("m5.large", "amd64", unavailable(offering("zone-a", "on-demand", 0.096)))
	r := it.Requirements()
	require.Error(t, r.Intersects(reqs(in(requirements.LabelTopologyZone, "zone-a"))))
	require.Error(t, r.Intersects(reqs(in(requirements.LabelCapacityType, "on-demand"))))
}

func TestCompatibleOfferings(t *testing.T) {
	it := instanceType("m5.large", "amd64",
		offering("zone-a", "on-demand", 0.096),
		offering("zone-a", "spot", 0.035),
		offering("zone-b", "on-demand", 0.096),
		offering("zone-b", "spot", 0.031),
		unavailable(offering("zone-c", "spot", 0.020)),
	)
	tests := []struct {
		name string
		reqs requirements.Requirements
		want []Offering
	}{{
		name: "no requirements: every available offering, in catalog order",
		reqs: nil,
		want: []Offering{it.Offerings[0], it.Offerings[1], it.Offerings[2], it.Offerings[3]},
	}, {
		name: "zone",
		reqs: reqs(in(requirements.LabelTopologyZone, "zone-b")),
		want: []Offering{it.Offerings[2], it.Offerings[3]},
	}, {
		name: "capacity type",
		reqs: reqs(in(requirements.LabelCapacityType, "spot")),
		want: []Offering{it.Offerings[1], it.Offerings[3]},
	}, {
		name: "zone and capacity type",
		reqs: reqs(in(requirements.LabelTopologyZone, "zone-a"), in(requirements.LabelCapacityType, "on-demand")),
		want: []Offering{it.Offerings[0]},
	}, {
		name: "NotIn zone",
		reqs: reqs(requirements.New(requirements.LabelTopologyZone, corev1.NodeSelectorOpNotIn, "zone-a")),
		want: []Offering{it.Offerings[2], it.Offerings[3]},
	}, {
		name: "deprecated zone key is normalised",
		reqs: reqs(in("failure-domain.beta.kubernetes.io/zone", "zone-a")),
		want: []Offering{it.Offerings[0], it.Offerings[1]},
	}, {
		name: "only an unavailable offering matches",
		reqs: reqs(in(requirements.LabelTopologyZone, "zone-c")),
		want: nil,
	}, {
		name: "other keys do not affect offerings",
		reqs: reqs(in(requirements.LabelArch, "arm64")),
		want: []Offering{it.Offerings[0], it.Offerings[1], it.Offerings[2], it.Offerings[3]},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, it.CompatibleOfferings(tt.reqs))
		})
	}
}

func TestCheapestOffering(t *testing.T) {
	tests := []struct {
		name      string
		offerings []Offering
		reqs      requirements.Requirements
		want      Offering
		wantOK    bool
	}{{
		name:      "cheapest wins",
		offerings: []Offering{offering("zone-a", "on-demand", 0.096), offering("zone-b", "spot", 0.031), offering("zone-a", "spot", 0.035)},
		want:      offering("zone-b", "spot", 0.031),
		wantOK:    true,
	}, {
		name:      "unavailable offerings are skipped",
		offerings: []Offering{unavailable(offering("zone-a", "spot", 0.01)), offering("zone-a", "on-demand", 0.096)},
		want:      offering("zone-a", "on-demand", 0.096),
		wantOK:    true,
	}, {
		name:      "requirements narrow the choice",
		offerings: []Offering{offering("zone-a", "spot", 0.03), offering("zone-a", "on-demand", 0.096), offering("zone-b", "on-demand", 0.090)},
		reqs:      reqs(in(requirements.LabelCapacityType, "on-demand")),
		want:      offering("zone-b", "on-demand", 0.090),
		wantOK:    true,
	}, {
		name:      "price tie goes to the smaller zone, whatever the input order",
		offerings: []Offering{offering("zone-c", "spot", 0.03), offering("zone-a", "spot", 0.03), offering("zone-b", "spot", 0.03)},
		want:      offering("zone-a", "spot", 0.03),
		wantOK:    true,
	}, {
		name:      "price and zone tie goes to the smaller capacity type",
		offerings: []Offering{offering("zone-a", "spot", 0.05), offering("zone-a", "on-demand", 0.05)},
		want:      offering("zone-a", "on-demand", 0.05),
		wantOK:    true,
	}, {
		name:      "price, zone and capacity type tie goes to the smaller reservation",
		offerings: []Offering{{Zone: "zone-a", CapacityType: "reserved", Price: 0.05, Available: true, ReservationID: "cr-2"}, {Zone: "zone-a", CapacityType: "reserved", Price: 0.05, Available: true, ReservationID: "cr-1"}},
		want:      Offering{Zone: "zone-a", CapacityType: "reserved", Price: 0.05, Available: true, ReservationID: "cr-1"},
		wantOK:    true,
	}, {
		name:      "nothing allowed",
		offerings: []Offering{offering("zone-a", "spot", 0.03)},
		reqs:      reqs(in(requirements.LabelTopologyZone, "zone-b")),
		wantOK:    false,
	}, {
		name:   "no offerings",
		wantOK: false,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := instanceType("t", "amd64", tt.offerings...)
			got, ok := it.CheapestOffering(tt.reqs)
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestSortByPrice(t *testing.T) {
	types := func() []*InstanceType {
		return []*InstanceType{
			instanceType("spot-only", "amd64", offering("zone-a", "spot", 0.02)),
			instanceType("expensive", "amd64", offering("zone-a", "on-demand", 0.5)),
			instanceType("none", "amd64", unavailable(offering("zone-a", "on-demand", 0.01))),
			instanceType("b-cheap", "amd64", offering("zone-a", "on-demand", 0.1), offering("zone-b", "spot", 0.04)),
			instanceType("a-cheap", "amd64", offering("zone-b", "on-demand", 0.1)),
			instanceType("also-none", "amd64"),
		}
	}
	tests := []struct {
		name string
		reqs requirements.Requirements
		want []string
	}{{
		name: "cheapest offering of each, ties by name, types without an offering last",
		want: []string{"spot-only", "b-cheap", "a-cheap", "expensive", "also-none", "none"},
	}, {
		name: "on-demand only",
		reqs: reqs(in(requirements.LabelCapacityType, "on-demand")),
		want: []string{"a-cheap", "b-cheap", "expensive", "also-none", "none", "spot-only"},
	}, {
		name: "zone-b only",
		reqs: reqs(in(requirements.LabelTopologyZone, "zone-b")),
		want: []string{"b-cheap", "a-cheap", "also-none", "expensive", "none", "spot-only"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := types()
			SortByPrice(got, tt.reqs)
			require.Equal(t, tt.want, names(got))
		})
	}
}

func TestFilter(t *testing.T) {
	types := []*InstanceType{
		instanceType("m5.large", "amd64", offering("zone-a", "on-demand", 0.096), offering("zone-b", "spot", 0.03)),
		instanceType("m6g.large", "arm64", offering("zone-a", "on-demand", 0.077)),
		instanceType("c5.large", "amd64", unavailable(offering("zone-a", "on-demand", 0.085))),
	}
	types[1].Labels["karpenter.k8s.aws/instance-family"] = "m6g"
	tests := []struct {
		name string
		reqs requirements.Requirements
		want []string
	}{
		{"no requirements keeps types with an available offering", nil, []string{"m5.large", "m6g.large"}},
		{"arch", reqs(in(requirements.LabelArch, "arm64")), []string{"m6g.large"}},
		{"instance type", reqs(in(requirements.LabelInstanceType, "m5.large", "c5.large")), []string{"m5.large"}},
		{"zone of an offering", reqs(in(requirements.LabelTopologyZone, "zone-b")), []string{"m5.large"}},
		{"capacity type", reqs(in(requirements.LabelCapacityType, "spot")), []string{"m5.large"}},
		{"zone and capacity type must meet in one offering", reqs(in(requirements.LabelTopologyZone, "zone-a"), in(requirements.LabelCapacityType, "spot")), nil},
		{"provider label", reqs(in("karpenter.k8s.aws/instance-family", "m6g")), []string{"m5.large", "m6g.large"}}, // undefined keys do not conflict, as in Karpenter
		{"provider label NotIn", reqs(requirements.New("karpenter.k8s.aws/instance-family", corev1.NodeSelectorOpNotIn, "m6g")), []string{"m5.large"}},
		{"unknown zone", reqs(in(requirements.LabelTopologyZone, "zone-x")), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, names(Filter(types, tt.reqs)))
		})
	}
}

func TestFits(t *testing.T) {
	it := &InstanceType{
		Name:     "m5.large",
		Capacity: resources("cpu", "2", "memory", "7577Mi", "pods", "29"),
		Overhead: Overhead{KubeReserved: resources("cpu", "70m", "memory", "574Mi"), EvictionThreshold: resources("memory", "100Mi")},
	}
	tests := []struct {
		name     string
		requests corev1.ResourceList
		wantName corev1.ResourceName
		wantOK   bool
	}{
		{"nothing", nil, "", true},
		{"exactly allocatable", resources("cpu", "1930m", "memory", "6903Mi", "pods", "29"), "", true},
		{"one millicore too many", resources("cpu", "1931m"), corev1.ResourceCPU, false},
		{"memory over allocatable but under capacity", resources("memory", "7Gi"), corev1.ResourceMemory, false},
		{"first failing resource by name", resources("pods", "30", "memory", "8Gi", "cpu", "3"), corev1.ResourceCPU, false},
		{"resource the type lacks", resources("nvidia.com/gpu", "1"), "nvidia.com/gpu", false},
		{"zero of a resource the type lacks", resources("nvidia.com/gpu", "0"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, ok := it.Fits(tt.requests)
			require.Equal(t, tt.wantOK, ok)
			require.Equal(t, tt.wantName, name)
		})
	}
}
