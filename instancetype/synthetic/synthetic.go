package synthetic

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

const (
	// DefaultRegion is the region of the default catalog.
	DefaultRegion = "test-region"
	// EBSCSIDriver is the CSI driver whose attach limit every type declares.
	EBSCSIDriver = "ebs.csi.aws.com"
	// Source is recorded as the catalog's source.
	Source = "github.com/nodeplan/nodeplan/instancetype/synthetic"

	// Label keys the types carry, named as Karpenter's AWS provider names them.
	LabelInstanceCategory   = "karpenter.k8s.aws/instance-category"
	LabelInstanceFamily     = "karpenter.k8s.aws/instance-family"
	LabelInstanceGeneration = "karpenter.k8s.aws/instance-generation"
	LabelInstanceSize       = "karpenter.k8s.aws/instance-size"
	LabelInstanceCPU        = "karpenter.k8s.aws/instance-cpu"
	LabelInstanceMemory     = "karpenter.k8s.aws/instance-memory" // MiB, before VM overhead
)

// Options choose the catalog. Every empty field takes its default, so Catalog(Options{}) is
// Default(). There is one instance type per category × generation × arch × size, and one
// offering per type × zone × capacity type.
type Options struct {
	// Region is recorded in the catalog; default DefaultRegion.
	Region string
	// Zones default to test-zone-a, test-zone-b, test-zone-c.
	Zones []string
	// CapacityTypes default to on-demand and spot; reserved is allowed (one reservation of 10
	// instances per type and zone, at 60% of the on-demand price).
	CapacityTypes []string
	// Categories set the memory per vCPU: c 2 GiB, m 4 GiB, r 8 GiB, x 16 GiB. Default c, m, r.
	Categories []string
	// Generations default to 4, 5, 6, 7, 8; each newer generation is 3% cheaper.
	Generations []int
	// Archs default to amd64 and arm64; arm64 families get a "g" suffix (m6g) and cost 20% less.
	Archs []string
	// Sizes are vCPU counts; default 1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192.
	Sizes []int
}

// memoryPerCPU is GiB per vCPU of each category.
var memoryPerCPU = map[string]int{"c": 2, "m": 4, "r": 8, "x": 16}

func (o Options) withDefaults() Options {
	if o.Region == "" {
		o.Region = DefaultRegion
	}
	if len(o.Zones) == 0 {
		o.Zones = []string{"test-zone-a", "test-zone-b", "test-zone-c"}
	}
	if len(o.CapacityTypes) == 0 {
		o.CapacityTypes = []string{requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot}
	}
	if len(o.Categories) == 0 {
		o.Categories = []string{"c", "m", "r"}
	}
	if len(o.Generations) == 0 {
		o.Generations = []int{4, 5, 6, 7, 8}
	}
	if len(o.Archs) == 0 {
		o.Archs = []string{requirements.ArchAMD64, requirements.ArchARM64}
	}
	if len(o.Sizes) == 0 {
		o.Sizes = []int{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192}
	}
	return o
}

// check panics on options that cannot make a valid catalog: this package builds test
// fixtures, and a fixture that is wrong should stop the test at once.
func (o Options) check() {
	unique := func(what string, values []string) {
		seen := map[string]bool{}
		for _, v := range values {
			if v == "" || seen[v] {
				panic(fmt.Sprintf("synthetic: %s %q is empty or repeated", what, v))
			}
			seen[v] = true
		}
	}
	unique("zone", o.Zones)
	unique("capacity type", o.CapacityTypes)
	unique("category", o.Categories)
	unique("arch", o.Archs)
	for _, ct := range o.CapacityTypes {
		if ct != requirements.CapacityTypeOnDemand && ct != requirements.CapacityTypeSpot && ct != requirements.CapacityTypeReserved {
			panic(fmt.Sprintf("synthetic: capacity type %q is not on-demand, spot or reserved", ct))
		}
	}
	for _, c := range o.Categories {
		if _, ok := memoryPerCPU[c]; !ok {
			panic(fmt.Sprintf("synthetic: category %q is not one of c, m, r, x", c))
		}
	}
	for _, a := range o.Archs {
		if a != requirements.ArchAMD64 && a != requirements.ArchARM64 {
			panic(fmt.Sprintf("synthetic: arch %q is not amd64 or arm64", a))
		}
	}
	positive := func(what string, values []int) {
		seen := map[int]bool{}
		for _, v := range values {
			if v <= 0 || seen[v] {
				panic(fmt.Sprintf("synthetic: %s %d is not positive or repeated", what, v))
			}
			seen[v] = true
		}
	}
	positive("generation", o.Generations)
	positive("size", o.Sizes)
}

// Default returns the standard synthetic catalog: c, m and r categories, generations 4–8,
// amd64 and arm64, 13 sizes from 1 to 192 vCPU (390 types), on-demand and spot in three zones
// of test-region.
func Default() *instancetype.Catalog {
	return Catalog(Options{})
}

// Small returns a dozen types for unit tests that read well: categories c, m and r of
// generation 6, amd64 (c6, m6, r6) and arm64 (c6g, m6g, r6g), with 2 and 4 vCPU, on-demand and
// spot in test-zone-a/b/c. Names are <family>-<vCPU>x, e.g. m6g-4x.
func Small() *instancetype.Catalog {
	return Catalog(Options{Generations: []int{6}, Sizes: []int{2, 4}})
}

// Catalog generates the catalog the options describe, types sorted by name as the loader
// sorts them. It panics on options that cannot make a valid catalog (an unknown category or
// arch, a repeated or non-positive size, …).
func Catalog(opts Options) *instancetype.Catalog {
	opts = opts.withDefaults()
	opts.check()
	c := &instancetype.Catalog{Region: opts.Region, Source: Source}
	for _, category := range opts.Categories {
		for _, gen := range opts.Generations {
			for _, arch := range opts.Archs {
				for _, cpus := range opts.Sizes {
					c.InstanceTypes = append(c.InstanceTypes, newType(opts, category, gen, arch, cpus))
				}
			}
		}
	}
	sort.Slice(c.InstanceTypes, func(i, j int) bool { return c.InstanceTypes[i].Name < c.InstanceTypes[j].Name })
	return c
}

func family(category string, gen int, arch string) string {
	f := category + strconv.Itoa(gen)
	if arch == requirements.ArchARM64 {
		f += "g"
	}
	return f
}

func newType(opts Options, category string, gen int, arch string, cpus int) *instancetype.InstanceType {
	fam := family(category, gen, arch)
	size := strconv.Itoa(cpus) + "x"
	memMiB := int64(cpus) * int64(memoryPerCPU[category]) * 1024
	enis, ipsPerENI := networkInterfaces(cpus)
	pods := enis*(ipsPerENI-1) + 2
	return &instancetype.InstanceType{
		Name: fam + "-" + size,
		Labels: map[string]string{
			requirements.LabelArch:  arch,
			requirements.LabelOS:    requirements.OSLinux,
			LabelInstanceCategory:   category,
			LabelInstanceFamily:     fam,
			LabelInstanceGeneration: strconv.Itoa(gen),
			LabelInstanceSize:       size,
			LabelInstanceCPU:        strconv.Itoa(cpus),
			LabelInstanceMemory:     strconv.FormatInt(memMiB, 10),
		},
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:              *resource.NewQuantity(int64(cpus), resource.DecimalSI),
			corev1.ResourceMemory:           mebibytes(nodeMemoryMiB(memMiB)),
			corev1.ResourcePods:             *resource.NewQuantity(int64(pods), resource.DecimalSI),
			corev1.ResourceEphemeralStorage: resource.MustParse("20Gi"),
		},
		Overhead: instancetype.Overhead{
			KubeReserved: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewMilliQuantity(kubeReservedMilliCPU(cpus), resource.DecimalSI),
				corev1.ResourceMemory: mebibytes(11*int64(pods) + 255),
			},
			EvictionThreshold: corev1.ResourceList{corev1.ResourceMemory: mebibytes(100)},
		},
		// Nitro types share 28 attachment slots between ENIs, the root volume and EBS volumes.
		VolumeAttachLimits: map[string]int{EBSCSIDriver: 27 - enis},
		Offerings:          offerings(opts, fam, category, gen, arch, cpus),
	}
}

// networkInterfaces returns ENIs and IPv4 addresses per ENI by size, as on m5 types; max pods
// follow the VPC CNI's rule ENIs × (IPs − 1) + 2 (8, 29, 58, 234 or 737).
func networkInterfaces(cpus int) (enis, ips int) {
	switch {
	case cpus <= 1:
		return 2, 4
	case cpus <= 2:
		return 3, 10
	case cpus <= 8:
		return 4, 15
	case cpus <= 48:
		return 8, 30
	default:
		return 15, 50
	}
}

// nodeMemoryMiB is the memory a node reports: the nominal memory less 7.5% the hypervisor
// keeps (Karpenter's VM_MEMORY_OVERHEAD_PERCENT default), rounded up.
func nodeMemoryMiB(nominal int64) int64 {
	return nominal - (nominal*75+999)/1000
}

// kubeReservedMilliCPU is the EKS AMI's kube-reserved CPU: 6% of the first core, 1% of the
// second, 0.5% of the third and fourth, 0.25% of every other.
func kubeReservedMilliCPU(cpus int) int64 {
	var m float64
	for core := 1; core <= cpus; core++ {
		switch {
		case core == 1:
			m += 60
		case core == 2:
			m += 10
		case core <= 4:
			m += 5
		default:
			m += 2.5
		}
	}
	return int64(math.Round(m))
}

func mebibytes(n int64) resource.Quantity {
	return resource.MustParse(strconv.FormatInt(n, 10) + "Mi")
}

// Price formula, calibrated so that a 2 vCPU / 8 GiB amd64 type of generation 5 costs about
// what m5.large does on demand (≈ $0.099/h).
const (
	pricePerCPU    = 0.0357 // USD per vCPU-hour
	pricePerGiB    = 0.0034 // USD per GiB-hour
	genDiscount    = 0.97   // each generation after 5 costs 3% less (before 5, 3% more)
	armDiscount    = 0.80
	reservedFactor = 0.60
)

// offerings prices the type in every zone and capacity type. The on-demand price varies by
// 0–2% from zone to zone and the spot price is 30–40% of it; both variations are fixed per
// family and zone, so zone choice matters while prices still grow with size within a family.
func offerings(opts Options, fam, category string, gen int, arch string, cpus int) []instancetype.Offering {
	base := float64(cpus) * (pricePerCPU + pricePerGiB*float64(memoryPerCPU[category]))
	base *= math.Pow(genDiscount, float64(gen-5))
	if arch == requirements.ArchARM64 {
		base *= armDiscount
	}
	var out []instancetype.Offering
	for _, zone := range opts.Zones {
		onDemand := base * (1 + 0.02*unit(fam, zone, "on-demand"))
		for _, ct := range opts.CapacityTypes {
			o := instancetype.Offering{Zone: zone, CapacityType: ct, Available: true}
			switch ct {
			case requirements.CapacityTypeOnDemand:
				o.Price = roundPrice(onDemand)
			case requirements.CapacityTypeSpot:
				o.Price = roundPrice(onDemand * (0.30 + 0.10*unit(fam, zone, "spot")))
			case requirements.CapacityTypeReserved:
				o.Price = roundPrice(onDemand * reservedFactor)
				o.ReservationID = fmt.Sprintf("cr-%s-%d-%s", fam, cpus, zone)
				o.ReservationCapacity = 10
			}
			out = append(out, o)
		}
	}
	instancetype.SortOfferings(out)
	return out
}

// unit maps its inputs to a fixed number in [0, 1): a deterministic stand-in for the market.
func unit(parts ...string) float64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return float64(h.Sum64()%1_000_000) / 1_000_000
}

func roundPrice(p float64) float64 {
	return math.Round(p*1e6) / 1e6
}
