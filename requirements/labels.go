package requirements

import "sort"

// Well-known label keys. Karpenter and kube-scheduler use the same names, so NodePools and
// workloads written for them work unchanged.
const (
	LabelTopologyZone    = "topology.kubernetes.io/zone"
	LabelTopologyRegion  = "topology.kubernetes.io/region"
	LabelArch            = "kubernetes.io/arch"
	LabelOS              = "kubernetes.io/os"
	LabelInstanceType    = "node.kubernetes.io/instance-type"
	LabelHostname        = "kubernetes.io/hostname"
	LabelWindowsBuild    = "node.kubernetes.io/windows-build"
	LabelCapacityType    = "karpenter.sh/capacity-type"
	LabelNodePool        = "karpenter.sh/nodepool"
	LabelNodeInitialized = "karpenter.sh/initialized"
	LabelNodeRegistered  = "karpenter.sh/registered"

	CapacityTypeSpot     = "spot"
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeReserved = "reserved"

	ArchAMD64 = "amd64"
	ArchARM64 = "arm64"
	OSLinux   = "linux"
	OSWindows = "windows"

	// KarpenterGroup is the label domain Karpenter reserves for itself; a NodePool may not
	// invent new keys under it.
	KarpenterGroup = "karpenter.sh"
)

// wellKnown are the keys a node gets from its instance type, offering or NodePool rather than
// from the NodePool's template labels, so a pod may ask for them even when the NodePool's
// requirements do not mention them.
var wellKnown = map[string]bool{
	LabelTopologyZone:   true,
	LabelTopologyRegion: true,
	LabelArch:           true,
	LabelOS:             true,
	LabelInstanceType:   true,
	LabelWindowsBuild:   true,
	LabelCapacityType:   true,
	LabelNodePool:       true,
}

// IsWellKnown reports whether key is one of the well-known node labels that every node
// planned by nodeplan carries (zone, region, arch, os, instance type, capacity type, NodePool).
func IsWellKnown(key string) bool { return wellKnown[key] }

// WellKnownKeys returns the well-known label keys, sorted.
func WellKnownKeys() []string {
	keys := make([]string, 0, len(wellKnown))
	for k := range wellKnown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// deprecatedKeys maps deprecated or driver-specific label keys to the key that replaced them.
// Nodes still carry some of them, and old manifests still select on them.
var deprecatedKeys = map[string]string{
	"failure-domain.beta.kubernetes.io/zone":   LabelTopologyZone,
	"failure-domain.beta.kubernetes.io/region": LabelTopologyRegion,
	"beta.kubernetes.io/arch":                  LabelArch,
	"beta.kubernetes.io/os":                    LabelOS,
	"beta.kubernetes.io/instance-type":         LabelInstanceType,
	"topology.ebs.csi.aws.com/zone":            LabelTopologyZone,
	"topology.gke.io/zone":                     LabelTopologyZone,
	"karpenter.sh/provisioner-name":            LabelNodePool,
}

// NormalizeKey maps a deprecated label key to its current name and returns other keys as
// they are.
func NormalizeKey(key string) string {
	if k, ok := deprecatedKeys[key]; ok {
		return k
	}
	return key
}

// DeprecatedKeysOf returns the deprecated aliases of a current key, sorted, so a node's labels
// can be written under both names as kubelet does.
func DeprecatedKeysOf(key string) []string {
	var out []string
	for old, current := range deprecatedKeys {
		if current == key {
			out = append(out, old)
		}
	}
	sort.Strings(out)
	return out
}
