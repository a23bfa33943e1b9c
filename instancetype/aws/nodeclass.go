package aws

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
)

// AMI families, as an EC2NodeClass's spec.amiFamily or the family of its amiSelectorTerms
// alias ("al2023@latest") names them.
const (
	AMIFamilyAL2          = "AL2"
	AMIFamilyAL2023       = "AL2023"
	AMIFamilyBottlerocket = "Bottlerocket"
	AMIFamilyWindows2019  = "Windows2019"
	AMIFamilyWindows2022  = "Windows2022"
	AMIFamilyWindows2025  = "Windows2025"
	AMIFamilyCustom       = "Custom"
)

// AMIFamilies lists the families Karpenter knows, in its documentation's order.
var AMIFamilies = []string{AMIFamilyAL2, AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyWindows2019, AMIFamilyWindows2022, AMIFamilyWindows2025, AMIFamilyCustom}

// InstanceStorePolicyRAID0 puts a node's ephemeral storage on its instance-store disks.
const InstanceStorePolicyRAID0 = "RAID0"

// NodeClass is what an EC2NodeClass (karpenter.k8s.aws/v1 or v1beta1) or a legacy
// AWSNodeTemplate says about the nodes launched with it, as far as that changes where they
// can run and what they offer: the zones of its subnets, the kubelet settings, the volumes.
// The zero value is Karpenter's default node class (AL2023, 20Gi root volume, any zone).
type NodeClass struct {
	// Name is the object's name; Kind is EC2NodeClass or AWSNodeTemplate.
	Name, Kind string
	// AMIFamily is one of AMIFamilies; "" means AL2023 (AL2 for a v1beta1 class or an
	// AWSNodeTemplate, which their readers fill in).
	AMIFamily string
	// Zones are those the class's subnets are in (status.subnets), sorted; empty when the
	// class has no status: then nodes may launch in any zone.
	Zones []string
	// Kubelet holds the kubelet settings nodes launched with the class get.
	Kubelet Kubelet
	// BlockDeviceMappings are the class's volumes; the root volume's size is the node's
	// ephemeral-storage capacity.
	BlockDeviceMappings []BlockDeviceMapping
	// InstanceStorePolicy is InstanceStorePolicyRAID0 or "".
	InstanceStorePolicy string
	// CapacityReservations are the reservations of status.capacityReservations: each adds a
	// reserved offering to its instance type in its zone.
	CapacityReservations []CapacityReservation
	// AMIs are the images of status.amis, in its order; a node's image is the first one whose
	// requirements its instance type meets. Empty when the class has no status.
	AMIs []AMI
	// Hash and HashVersion are the annotations karpenter.k8s.aws/ec2nodeclass-hash and
	// ec2nodeclass-hash-version: the class's spec as Karpenter hashed it, which every NodeClaim
	// launched with it carries too. "" when absent.
	Hash, HashVersion string
}

// AMI is an entry of an EC2NodeClass's status.amis.
type AMI struct {
	ID   string
	Name string
	// Requirements select the instance types the image is for (e.g. kubernetes.io/arch).
	Requirements []corev1.NodeSelectorRequirement
	Deprecated   bool
}

// CapacityReservation is one entry of an EC2NodeClass's status.capacityReservations.
type CapacityReservation struct {
	ID, InstanceType, Zone string
	// Type is "default" or "capacity-block".
	Type string
	// Expiring reservations (state expiring) take no new instances.
	Expiring bool
	// Available is how many more instances it takes (EC2's AvailableInstanceCount), -1 when
	// the snapshot does not say.
	Available int
}

// ReservedPriceDivisor is what Karpenter's AWS provider divides a type's on-demand price by
// to price a reserved offering: next to free, yet ordered like the types for consolidation.
const ReservedPriceDivisor = 10_000_000

// Kubelet holds the kubelet settings that change a node's allocatable resources.
type Kubelet struct {
	MaxPods     *int32
	PodsPerCore *int32
	// SystemReserved and KubeReserved replace the computed reservation of each resource they
	// name.
	SystemReserved corev1.ResourceList
	KubeReserved   corev1.ResourceList
	// EvictionHard thresholds ("memory.available": "5%", "nodefs.available": "1Gi") raise
	// the reserve kubelet keeps before evicting pods.
	EvictionHard map[string]string
	// EvictionSoft is kept for completeness: soft thresholds only warn before evicting, so
	// Karpenter (since v1.9) leaves them out of allocatable, and so does nodeplan.
	EvictionSoft map[string]string
}

// IsZero reports whether no setting is given.
func (k Kubelet) IsZero() bool {
	return k.MaxPods == nil && k.PodsPerCore == nil && len(k.SystemReserved) == 0 && len(k.KubeReserved) == 0 &&
		len(k.EvictionHard) == 0 && len(k.EvictionSoft) == 0
}

// BlockDeviceMapping is one volume of a node class.
type BlockDeviceMapping struct {
	DeviceName string
	// RootVolume marks the volume the AMI boots from (EC2NodeClass rootVolume: true).
	RootVolume bool
	// VolumeSize is the EBS volume's size; nil when not given.
	VolumeSize *resource.Quantity
}

// Eviction signals that change allocatable.
const (
	SignalMemoryAvailable = "memory.available"
	SignalNodeFSAvailable = "nodefs.available"
)

// defaultRootVolume is Karpenter's default EBS root volume (its DefaultEBS).
var defaultRootVolume = resource.MustParse("20Gi")

// family is what Karpenter's provider knows of an AMI family that matters for allocatable.
type family struct {
	// ephemeralDevice is the device of the volume kubelet keeps its data on ("" for
	// Custom, where the last mapping counts).
	ephemeralDevice string
	// defaultEphemeralSize is the size of that volume when no mapping gives one.
	defaultEphemeralSize resource.Quantity
	// eniLimitedMemoryOverhead: kube-reserved memory is computed from the type's
	// ENI-limited pod count whatever maxPods says (the EKS AMI bootstrap's rule).
	eniLimitedMemoryOverhead bool
	// podsPerCore is honoured.
	podsPerCore bool
	// eniLimitedPods: without maxPods, pods are limited by the type's ENIs (else 110).
	eniLimitedPods bool
}

func familyOf(name string) family {
	amazonLinux := family{ephemeralDevice: "/dev/xvda", defaultEphemeralSize: defaultRootVolume, eniLimitedMemoryOverhead: true, podsPerCore: true, eniLimitedPods: true}
	switch name {
	case AMIFamilyBottlerocket:
		// Bottlerocket boots from a 4Gi /dev/xvda and keeps its data on /dev/xvdb (20Gi).
		return family{ephemeralDevice: "/dev/xvdb", defaultEphemeralSize: defaultRootVolume, eniLimitedPods: true}
	case AMIFamilyWindows2019, AMIFamilyWindows2022, AMIFamilyWindows2025:
		return family{ephemeralDevice: "/dev/sda1", defaultEphemeralSize: resource.MustParse("50Gi"), podsPerCore: true}
	case AMIFamilyCustom:
		amazonLinux.ephemeralDevice = ""
		return amazonLinux
	}
	return amazonLinux
}

// defaultMaxPods is kubelet's own default, used where pods are not ENI-limited.
const defaultMaxPods = 110

// InstanceTypes returns the types as nodes launched with the class see them: offerings only in
// the class's zones (types left with none are dropped), and capacity and overhead computed as
// Karpenter's AWS provider does —
//
//   - pods: kubelet maxPods, else the type's ENI-limited pods (its catalog capacity), then at
//     most podsPerCore × vCPUs;
//   - ephemeral-storage: the instance-store NVMe disks with RAID0, else the root volume's size
//     (the mapping marked rootVolume, else the AMI family's data device), else 20Gi;
//   - kube-reserved: cpu 6% of the first core, 1% of the second, 0.5% of the next two, 0.25%
//     of the rest; memory 11Mi per pod + 255Mi, counting the ENI-limited pods on Amazon Linux
//     and the pods kubelet runs on Bottlerocket; ephemeral-storage 1Gi; each replaced by
//     kubelet kubeReserved when given;
//   - system-reserved: kubelet systemReserved;
//   - eviction threshold: memory 100Mi and 10% of ephemeral-storage, replaced by evictionHard
//     memory.available and nodefs.available (a percentage is of capacity).
//
// The input types are not modified; a type's labels, attach limits and offering prices are
// shared with it.
func (nc *NodeClass) InstanceTypes(types []*instancetype.InstanceType) []*instancetype.InstanceType {
	zones := map[string]bool{}
	for _, z := range nc.Zones {
		zones[z] = true
	}
	out := make([]*instancetype.InstanceType, 0, len(types))
	for _, it := range types {
		offerings := it.Offerings
		if len(zones) > 0 {
			offerings = nil
			for _, o := range it.Offerings {
				if zones[o.Zone] {
					offerings = append(offerings, o)
				}
			}
			if len(offerings) == 0 {
				continue
			}
		}
		c := nc.configure(it)
		c.Offerings = append(offerings[:len(offerings):len(offerings)], nc.reservedOfferings(it)...)
		out = append(out, c)
	}
	return out
}

// reservedOfferings are the offerings the class's capacity reservations add to a type: in the
// reservation's zone, priced at the type's on-demand price / ReservedPriceDivisor, available
// while the reservation takes instances and is not expiring.
func (nc *NodeClass) reservedOfferings(it *instancetype.InstanceType) []instancetype.Offering {
	var out []instancetype.Offering
	for _, r := range nc.CapacityReservations {
		if r.InstanceType != it.Name {
			continue
		}
		onDemand := 0.0
		offered := false
		for _, o := range it.Offerings {
			if o.CapacityType == "on-demand" && (onDemand == 0 || o.Price > onDemand) {
				onDemand = o.Price
			}
			if o.Zone == r.Zone {
				offered = true
			}
		}
		out = append(out, instancetype.Offering{
			Zone:                r.Zone,
			CapacityType:        instancetype.CapacityTypeReserved,
			Price:               onDemand / ReservedPriceDivisor,
			Available:           offered && r.Available > 0 && !r.Expiring,
			ReservationID:       r.ID,
			ReservationCapacity: max(r.Available, 0),
			ReservationType:     r.Type,
			ReservationExpiring: r.Expiring,
		})
	}
	return out
}

// configure returns a copy of it with the class's capacity and overhead.
func (nc *NodeClass) configure(it *instancetype.InstanceType) *instancetype.InstanceType {
	f := familyOf(nc.AMIFamily)
	k := nc.Kubelet
	capacity := make(corev1.ResourceList, len(it.Capacity)+2)
	for name, q := range it.Capacity {
		capacity[name] = q.DeepCopy()
	}
	cpu := capacity[corev1.ResourceCPU]
	vcpus := cpu.Value()
	eniPods := capacity[corev1.ResourcePods]
	pods := eniPods.Value()
	if !f.eniLimitedPods {
		pods = defaultMaxPods
	}
	if k.MaxPods != nil {
		pods = int64(*k.MaxPods)
	}
	if k.PodsPerCore != nil && *k.PodsPerCore > 0 && f.podsPerCore {
		pods = min(pods, int64(*k.PodsPerCore)*vcpus)
	}
	capacity[corev1.ResourcePods] = *resource.NewQuantity(pods, resource.DecimalSI)
	storage := nc.ephemeralStorage(it, f)
	capacity[corev1.ResourceEphemeralStorage] = storage

	memoryPods := pods
	if f.eniLimitedMemoryOverhead {
		memoryPods = eniPods.Value()
	}
	kubeReserved := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(kubeReservedCPUMillis(cpu.MilliValue()), resource.DecimalSI),
		corev1.ResourceMemory:           resource.MustParse(fmt.Sprintf("%dMi", 11*memoryPods+255)),
		corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
	}
	for name, q := range k.KubeReserved {
		kubeReserved[name] = q.DeepCopy()
	}
	systemReserved := corev1.ResourceList{}
	for name, q := range k.SystemReserved {
		systemReserved[name] = q.DeepCopy()
	}
	memory := capacity[corev1.ResourceMemory]
	eviction := corev1.ResourceList{
		corev1.ResourceMemory:           resource.MustParse("100Mi"),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(int64(math.Ceil(float64(storage.Value())/100*10)), resource.DecimalSI),
	}
	if v, ok := k.EvictionHard[SignalMemoryAvailable]; ok {
		if q, err := EvictionThreshold(memory, v); err == nil {
			eviction[corev1.ResourceMemory] = q
		}
	}
	if v, ok := k.EvictionHard[SignalNodeFSAvailable]; ok {
		if q, err := EvictionThreshold(storage, v); err == nil {
			eviction[corev1.ResourceEphemeralStorage] = q
		}
	}
	return &instancetype.InstanceType{
		Name:               it.Name,
		Labels:             it.Labels,
		Capacity:           capacity,
		Overhead:           instancetype.Overhead{KubeReserved: kubeReserved, SystemReserved: systemReserved, EvictionThreshold: eviction},
		VolumeAttachLimits: it.VolumeAttachLimits,
		Offerings:          it.Offerings,
	}
}

// ephemeralStorage is the node's ephemeral-storage capacity (Karpenter's ephemeralStorage).
func (nc *NodeClass) ephemeralStorage(it *instancetype.InstanceType, f family) resource.Quantity {
	if nc.InstanceStorePolicy == InstanceStorePolicyRAID0 {
		if gb, err := strconv.ParseInt(it.Labels[labelPrefix+"instance-local-nvme"], 10, 64); err == nil && gb > 0 {
			return resource.MustParse(fmt.Sprintf("%dG", gb))
		}
	}
	bdms := nc.BlockDeviceMappings
	if len(bdms) > 0 {
		if i := slices.IndexFunc(bdms, func(b BlockDeviceMapping) bool { return b.RootVolume }); i >= 0 && bdms[i].VolumeSize != nil {
			return bdms[i].VolumeSize.DeepCopy()
		}
		if f.ephemeralDevice == "" { // Custom: the last mapping is taken to be the data volume
			if last := bdms[len(bdms)-1]; last.VolumeSize != nil {
				return last.VolumeSize.DeepCopy()
			}
			return defaultRootVolume.DeepCopy()
		}
		if i := slices.IndexFunc(bdms, func(b BlockDeviceMapping) bool { return b.DeviceName == f.ephemeralDevice }); i >= 0 && bdms[i].VolumeSize != nil {
			return bdms[i].VolumeSize.DeepCopy()
		}
	}
	return f.defaultEphemeralSize.DeepCopy()
}

const labelPrefix = "karpenter.k8s.aws/"

// kubeReservedCPUMillis is the EKS AMI's (and Karpenter's) kube-reserved CPU: 6% of the first
// core, 1% of the second, 0.5% of the third and fourth, 0.25% of every further core.
func kubeReservedCPUMillis(milli int64) int64 {
	bands := []struct {
		from, to int64
		share    float64
	}{{0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, 1 << 31, 0.0025}}
	var reserved int64
	for _, b := range bands {
		if milli < b.from {
			break
		}
		reserved += int64(float64(min(milli, b.to)-b.from) * b.share)
	}
	return reserved
}

// EvictionThreshold reads an eviction threshold: a quantity ("500Mi"), or a percentage of
// capacity ("5%", rounded up to whole units; "100%" disables the threshold, as in kubelet).
func EvictionThreshold(capacity resource.Quantity, value string) (resource.Quantity, error) {
	if p, ok := strings.CutSuffix(value, "%"); ok {
		pct, err := strconv.ParseFloat(p, 64)
		if err != nil || pct < 0 || pct > 100 {
			return resource.Quantity{}, fmt.Errorf("%q is not a percentage between 0%% and 100%%", value)
		}
		if pct == 100 {
			pct = 0
		}
		return *resource.NewQuantity(int64(math.Ceil(capacity.AsApproximateFloat64()/100*pct)), resource.DecimalSI), nil
	}
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("%q is neither a quantity nor a percentage", value)
	}
	if q.Sign() < 0 {
		return resource.Quantity{}, fmt.Errorf("%q is negative", value)
	}
	return q, nil
}

// ZoneName names an AWS zone ID ("usw2-az1") as the embedded catalogs name zones: the region
// whose short name prefixes the ID, and the N-th letter for azN (usw2-az1 is us-west-2a,
// use1-az4 is us-east-1d). It knows the regions with an embedded catalog; Local and Wavelength
// Zone IDs ("usw2-lax1-az1") and other regions give false.
func ZoneName(zoneID string) (string, bool) {
	prefix, az, ok := strings.Cut(zoneID, "-az")
	if !ok {
		return "", false
	}
	n, err := strconv.Atoi(az)
	if err != nil || n < 1 || n > 26 {
		return "", false
	}
	for _, region := range embeddedRegions() {
		if regionShortName(region) == prefix {
			return region + string(rune('a'+n-1)), true
		}
	}
	return "", false
}

// regionShortName is the prefix of a region's zone IDs: us-west-2 → usw2, eu-central-1 →
// euc1, ap-southeast-1 → apse1, us-gov-west-1 → usgw1.
func regionShortName(region string) string {
	parts := strings.Split(region, "-")
	if len(parts) < 3 {
		return ""
	}
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1 : len(parts)-1] {
		switch p {
		case "north", "south", "east", "west", "central", "gov":
			b.WriteByte(p[0])
		case "northeast", "northwest", "southeast", "southwest":
			b.WriteByte(p[0])
			b.WriteByte(p[5])
		default:
			b.WriteString(p)
		}
	}
	b.WriteString(parts[len(parts)-1])
	return b.String()
}
