package main

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Output schema: nodeplan/v1 InstanceTypeCatalog (see DESIGN.md, "Instance-type catalog
// file"); the field names are the contract with instancetype.ParseCatalog.
type catalog struct {
	APIVersion    string         `json:"apiVersion"`
	Kind          string         `json:"kind"`
	Region        string         `json:"region"`
	Source        string         `json:"source"`
	InstanceTypes []instanceType `json:"instanceTypes"`
}

type instanceType struct {
	Name               string            `json:"name"`
	Labels             map[string]string `json:"labels"`
	Capacity           map[string]string `json:"capacity"`
	Overhead           overhead          `json:"overhead"`
	VolumeAttachLimits map[string]int    `json:"volumeAttachLimits,omitempty"`
	Offerings          []offering        `json:"offerings"`
}

type overhead struct {
	KubeReserved      map[string]string `json:"kubeReserved"`
	SystemReserved    map[string]string `json:"systemReserved"`
	EvictionThreshold map[string]string `json:"evictionThreshold"`
}

type offering struct {
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	Available    bool    `json:"available"`
}

const (
	labelPrefix = "karpenter.k8s.aws/"

	capacityOnDemand = "on-demand"
	capacitySpot     = "spot"

	// ephemeralStorage is the root EBS volume Karpenter's default EC2NodeClass block device
	// mapping gives a node (20Gi gp3); nodeplan cannot know a user's EC2NodeClass.
	ephemeralStorage = "20Gi"

	// vmMemoryOverheadPermille is Karpenter's default VM_MEMORY_OVERHEAD_PERCENT (7.5%): the
	// memory the hypervisor and firmware keep, so a node reports less than the type's
	// nominal memory. Expressed in permille to stay in integer arithmetic.
	vmMemoryOverheadPermille = 75

	// evictionThresholdMemory is kubelet's default hard eviction threshold
	// (memory.available<100Mi), which the EKS AMI keeps.
	evictionThresholdMemory = "100Mi"

	ebsCSIDriver = "ebs.csi.aws.com"
)

// standardZones are the zone letters used only when the data has no per-AZ information at
// all for a region (the pinned data has it for every embedded region).
var standardZones = map[string][]string{
	"us-east-1":    {"a", "b", "c", "d", "f"},
	"us-east-2":    {"a", "b", "c"},
	"us-west-2":    {"a", "b", "c", "d"},
	"eu-west-1":    {"a", "b", "c"},
	"eu-west-2":    {"a", "b", "c"},
	"eu-central-1": {"a", "b", "c"},
}

// xenFamilies are the current-generation families that run on the Xen hypervisor (AWS
// "Instances built on the Xen hypervisor"; the older ones are previous-generation and
// filtered out anyway, but listing them keeps the rule right if that filter changes).
// The data has no hypervisor field, and its ebs_as_nvme flag is not a usable stand-in: it
// is also false for Nitro types it knows little about (hpc7a, p4de, p5e, trn2).
var xenFamilies = map[string]bool{
	"c1": true, "c3": true, "c4": true, "cc2": true, "cg1": true, "cr1": true, "d2": true,
	"f1": true, "g2": true, "g3": true, "g3s": true, "h1": true, "hi1": true, "hs1": true,
	"i2": true, "i3": true, "m1": true, "m2": true, "m3": true, "m4": true, "p2": true,
	"p3": true, "r3": true, "r4": true, "t1": true, "t2": true, "x1": true, "x1e": true,
}

type buildReport struct {
	offerings int
	notes     []string
}

// buildCatalog turns the raw records into the region's catalog. Records are visited in
// name order so that the output and the report never depend on the input order.
func buildCatalog(region, source string, instances []*rawInstance, maxPods map[string]int) (*catalog, buildReport) {
	var report buildReport
	cat := &catalog{APIVersion: "nodeplan/v1", Kind: "InstanceTypeCatalog", Region: region, Source: source}

	zones, zoneNote := regionZones(region, instances)
	if zoneNote != "" {
		report.notes = append(report.notes, zoneNote)
	}

	sorted := append([]*rawInstance(nil), instances...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].InstanceType < sorted[j].InstanceType })

	skipped := map[string][]string{}
	seen := map[string]bool{}
	for _, in := range sorted {
		name := string(in.InstanceType)
		if seen[name] {
			skipped["duplicate record"] = append(skipped["duplicate record"], name)
			continue
		}
		seen[name] = true
		it, reason := buildType(in, region, zones, maxPods)
		if reason != "" {
			skipped[reason] = append(skipped[reason], name)
			continue
		}
		cat.InstanceTypes = append(cat.InstanceTypes, it)
		report.offerings += len(it.Offerings)
	}

	reasons := make([]string, 0, len(skipped))
	for r := range skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		names := skipped[r]
		// The routine filters are large and uninteresting; list names only for the rest.
		if len(names) > 20 {
			report.notes = append(report.notes, fmt.Sprintf("skipped %d: %s", len(names), r))
		} else {
			report.notes = append(report.notes, fmt.Sprintf("skipped %d: %s: %s", len(names), r, strings.Join(names, " ")))
		}
	}
	var nowhere []string
	for _, it := range cat.InstanceTypes {
		if !anyAvailable(it.Offerings) {
			nowhere = append(nowhere, it.Name)
		}
	}
	if len(nowhere) > 0 {
		report.notes = append(report.notes, fmt.Sprintf("priced but offered in no zone (kept, all offerings unavailable): %s", strings.Join(nowhere, " ")))
	}
	return cat, report
}

func anyAvailable(offerings []offering) bool {
	for _, o := range offerings {
		if o.Available {
			return true
		}
	}
	return false
}

// zone is one availability zone of the region: its ID in the data and the name we give it.
type zone struct{ id, name string }

// regionZones returns the region's zones, sorted by name: every zone ID any record lists
// for the region, named by zoneName. Only if no record has AZ data for the region does it
// fall back to standardZones (and then every type is offered in every zone).
func regionZones(region string, instances []*rawInstance) ([]zone, string) {
	byName := map[string]zone{}
	var bad []string
	for _, in := range instances {
		for _, id := range in.AvailabilityZones[region] {
			name, ok := zoneName(region, id)
			if !ok {
				bad = append(bad, id)
				continue
			}
			if z, dup := byName[name]; dup && z.id != id {
				bad = append(bad, id)
				continue
			}
			byName[name] = zone{id: id, name: name}
		}
	}
	var note string
	if len(bad) > 0 {
		sort.Strings(bad)
		note = fmt.Sprintf("ignored zone IDs: %s", strings.Join(dedupe(bad), " "))
	}
	if len(byName) == 0 {
		for _, letter := range standardZones[region] {
			byName[region+letter] = zone{name: region + letter}
		}
		note = strings.TrimSpace(note + " no per-AZ data: every type offered in the standard zones")
	}
	out := make([]zone, 0, len(byName))
	for _, z := range byName {
		out = append(out, z)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, note
}

func dedupe(sorted []string) []string {
	var out []string
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

var zoneIDPattern = regexp.MustCompile(`^[a-z0-9]+-az([0-9]+)$`)

// zoneName names a zone ID ("usw2-az1") the way nodeplan's catalogs do: az1 → <region>a,
// az2 → <region>b, and so on. AWS maps zone IDs to zone names per account (randomly in the
// older regions), so no mapping is "the" right one; this one is deterministic, needs no
// account, and for the regions embedded here matches the zone letters users see in most
// accounts closely enough for planning. Local- and Wavelength-zone IDs (an extra
// "-lax1"-style segment) are not regular AZs and are rejected.
func zoneName(region, id string) (string, bool) {
	m := zoneIDPattern.FindStringSubmatch(id)
	if m == nil {
		return "", false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 || n > 26 {
		return "", false
	}
	return region + string(rune('a'+n-1)), true
}

// buildType converts one record; a non-empty reason says why the type is left out.
func buildType(in *rawInstance, region string, zones []zone, maxPods map[string]int) (instanceType, string) {
	name := string(in.InstanceType)
	if !strings.EqualFold(string(in.Generation), "current") {
		return instanceType{}, "previous generation"
	}
	arch, ok := kubeArch(in.Arch)
	if !ok {
		return instanceType{}, "architecture not amd64/arm64 (e.g. mac)"
	}
	price, ok := in.Pricing[region]
	if !ok || !price.OnDemand.OK || price.OnDemand.V <= 0 {
		return instanceType{}, "no Linux on-demand price in region"
	}
	if len(zones) == 0 {
		return instanceType{}, "no zones known for the region (no AZ data, no standard zones)"
	}
	n, ok := parseName(name)
	if !ok {
		return instanceType{}, "unparseable name"
	}
	vcpus, ok := wholePositive(in.VCPU)
	if !ok {
		return instanceType{}, "no vCPU count"
	}
	if !in.Memory.OK || in.Memory.V <= 0 {
		return instanceType{}, "no memory size"
	}
	// The data gives GiB as a float; the API's MiB are whole, so rounding recovers them.
	memMiB := int64(math.Round(in.Memory.V * 1024))
	pods, ok := podsFor(name, in.VPC, maxPods)
	if !ok {
		return instanceType{}, "no max pods (not in eni-max-pods.txt, no ENI limits in data)"
	}

	labels := map[string]string{
		"kubernetes.io/arch":                     arch,
		"kubernetes.io/os":                       "linux",
		labelPrefix + "instance-family":          n.family,
		labelPrefix + "instance-size":            n.size,
		labelPrefix + "instance-cpu":             strconv.Itoa(vcpus),
		labelPrefix + "instance-memory":          strconv.FormatInt(memMiB, 10),
		labelPrefix + "instance-capability-flex": strconv.FormatBool(strings.HasSuffix(n.family, "-flex")),
	}
	if n.category != "" {
		labels[labelPrefix+"instance-category"] = n.category
	}
	if n.generation != "" {
		labels[labelPrefix+"instance-generation"] = n.generation
	}
	hypervisor := hypervisorOf(n)
	if hypervisor != "" {
		labels[labelPrefix+"instance-hypervisor"] = hypervisor
	}
	if m := cpuManufacturer(string(in.PhysicalProcessor)); m != "" {
		labels[labelPrefix+"instance-cpu-manufacturer"] = m
	}
	if mhz, ok := sustainedClockMHz(string(in.ClockSpeedGHz)); ok {
		labels[labelPrefix+"instance-cpu-sustained-clock-speed-mhz"] = strconv.Itoa(mhz)
	}
	if in.EBSMaxBandwidth.OK && in.EBSMaxBandwidth.V > 0 {
		labels[labelPrefix+"instance-ebs-bandwidth"] = strconv.FormatInt(int64(math.Round(in.EBSMaxBandwidth.V)), 10)
	}
	if mbps, ok := networkBandwidthMbps(string(in.NetworkPerformance)); ok {
		labels[labelPrefix+"instance-network-bandwidth"] = strconv.FormatInt(mbps, 10)
	}
	devices, nvmeGB := instanceStore(in.Storage)
	if nvmeGB > 0 {
		labels[labelPrefix+"instance-local-nvme"] = strconv.FormatInt(nvmeGB, 10)
	}

	capacity := map[string]string{
		"cpu":               strconv.Itoa(vcpus),
		"memory":            fmt.Sprintf("%dMi", nodeMemoryMiB(memMiB)),
		"pods":              strconv.Itoa(pods),
		"ephemeral-storage": ephemeralStorage,
	}
	if acc, ok := accelerators(in, n); ok {
		capacity[acc.resource] = strconv.Itoa(acc.count)
		for k, v := range acc.labels {
			labels[k] = v
		}
	}

	return instanceType{
		Name:     name,
		Labels:   labels,
		Capacity: capacity,
		Overhead: overhead{
			KubeReserved: map[string]string{
				"cpu":    fmt.Sprintf("%dm", kubeReservedCPUMillis(vcpus)),
				"memory": fmt.Sprintf("%dMi", kubeReservedMemoryMiB(pods)),
			},
			SystemReserved:    map[string]string{},
			EvictionThreshold: map[string]string{"memory": evictionThresholdMemory},
		},
		VolumeAttachLimits: map[string]int{ebsCSIDriver: ebsAttachLimit(hypervisor, devices)},
		Offerings:          offerings(in, region, zones, price),
	}, ""
}

// kubeArch maps the data's architectures to kubernetes.io/arch. Records list i386 beside
// x86_64 for old types that run both; the Mac types ("x86_64_mac", "arm64_mac") cannot
// be EKS nodes and do not match.
func kubeArch(archs []string) (string, bool) {
	has := map[string]bool{}
	for _, a := range archs {
		has[strings.ToLower(a)] = true
	}
	switch {
	case has["arm64"]:
		return "arm64", true
	case has["x86_64"]:
		return "amd64", true
	}
	return "", false
}

func wholePositive(n flexNumber) (int, bool) {
	if !n.OK || n.V < 1 || n.V != math.Trunc(n.V) || n.V > math.MaxInt32 {
		return 0, false
	}
	return int(n.V), true
}

type typeName struct {
	family, size, category, generation string
	metal                              bool
}

// parseName splits "<family>.<size>" and derives Karpenter's category and generation from
// the family. The category is the leading letters ("m" of m7i-flex, "inf" of inf2, "u" of
// u-6tb1); the generation is the number that follows, after skipping the "-<n>tb" memory
// marker of the older high-memory family names (u-6tb1 → 1), so u7i-12tb gives 7. A family
// without such a number gets no generation rather than a wrong one.
func parseName(name string) (typeName, bool) {
	family, size, ok := strings.Cut(name, ".")
	if !ok || family == "" || size == "" || strings.Contains(size, ".") {
		return typeName{}, false
	}
	n := typeName{family: family, size: size}
	// Bare-metal sizes are "metal" or "metal-<n>xl" (c7i.metal-24xl).
	n.metal = size == "metal" || strings.HasPrefix(size, "metal-")
	i := 0
	for i < len(family) && family[i] >= 'a' && family[i] <= 'z' {
		i++
	}
	n.category = family[:i]
	rest := family[i:]
	if m := tbMarker.FindString(rest); m != "" {
		rest = rest[len(m):]
	}
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n.generation = rest[:j]
	return n, n.category != ""
}

var tbMarker = regexp.MustCompile(`^-[0-9]+tb`)

// hypervisorOf gives Karpenter's instance-hypervisor value. Bare-metal types run no
// hypervisor; AWS reports none for them, so they get no label.
func hypervisorOf(n typeName) string {
	switch {
	case n.metal:
		return ""
	case xenFamilies[n.family]:
		return "xen"
	default:
		return "nitro"
	}
}

// cpuManufacturer reads the processor description ("Intel Xeon Platinum 8175", "AMD EPYC
// 7R13 Processor", "AWS Graviton2 Processor") into Karpenter's intel/amd/aws values.
func cpuManufacturer(processor string) string {
	p := strings.ToLower(processor)
	switch {
	case strings.Contains(p, "intel"):
		return "intel"
	case strings.Contains(p, "amd"):
		return "amd"
	case strings.Contains(p, "graviton"), strings.HasPrefix(p, "aws"):
		return "aws"
	}
	return ""
}

// sustainedClockMHz parses "3.1 GHz". Values written "Up to 3.7 GHz" (burstable types) are
// turbo peaks, not the sustained clock the label means, so they give none.
func sustainedClockMHz(s string) (int, bool) {
	if s == "" || strings.HasPrefix(strings.ToLower(s), "up to") {
		return 0, false
	}
	v, ok := leadingNumber(s)
	if !ok || v <= 0 {
		return 0, false
	}
	return int(math.Round(v * 1000)), true
}

var fixedBandwidth = regexp.MustCompile(`^(?:([0-9]+)x\s*)?([0-9]+(?:\.[0-9]+)?)\s*Gigabit$`)

// networkBandwidthMbps converts a fixed network performance ("25 Gigabit", "4x 100
// Gigabit") to Mbps. Karpenter's label is the baseline bandwidth; for "Up to N Gigabit"
// types the baseline is far below N and not in the data, and "High"/"Moderate" are not
// numbers, so those types get no label rather than a misleading one.
func networkBandwidthMbps(s string) (int64, bool) {
	m := fixedBandwidth.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false
	}
	mult := 1.0
	if m[1] != "" {
		mult, _ = strconv.ParseFloat(m[1], 64)
	}
	gbit, err := strconv.ParseFloat(m[2], 64)
	if err != nil || gbit <= 0 || mult <= 0 {
		return 0, false
	}
	return int64(math.Round(mult * gbit * 1000)), true
}

// instanceStore returns the number of instance-store devices and, when they are NVMe
// SSDs, their total size in GB (Karpenter's instance-local-nvme is the API's TotalSizeInGB).
func instanceStore(st *rawStorage) (devices int, nvmeGB int64) {
	if st == nil {
		return 0, 0
	}
	d, ok := wholePositive(st.Devices)
	if !ok {
		return 0, 0
	}
	if !bool(st.NVMeSSD) || !st.Size.OK || st.Size.V <= 0 {
		return d, 0
	}
	size := st.Size.V
	switch strings.ToUpper(string(st.SizeUnit)) {
	case "TB":
		size *= 1000
	case "", "GB", "GIB":
	default:
		return d, 0
	}
	return d, int64(math.Round(size * float64(d)))
}

// podsFor returns the type's max pods: the EKS AMI's eni-max-pods.txt value when listed
// (used as is, never capped: that is what an EKS node registers with), else the ENI
// formula the file itself is computed with: each ENI's primary IP is not for pods, and two
// host-network pods (aws-node, kube-proxy) are added.
func podsFor(name string, vpc *rawVPC, maxPods map[string]int) (int, bool) {
	if n, ok := maxPods[name]; ok {
		return n, true
	}
	if vpc == nil {
		return 0, false
	}
	enis, ok1 := wholePositive(vpc.MaxENIs)
	ips, ok2 := wholePositive(vpc.IPsPerENI)
	if !ok1 || !ok2 || ips < 2 {
		return 0, false
	}
	return enis*(ips-1) + 2, true
}

// nodeMemoryMiB is the memory a node of the type reports: the nominal VM memory less
// Karpenter's VM overhead, rounded up in the overhead's favour so the node never claims
// memory it may not have.
func nodeMemoryMiB(vmMiB int64) int64 {
	overheadMiB := (vmMiB*vmMemoryOverheadPermille + 999) / 1000
	return vmMiB - overheadMiB
}

// kubeReservedCPUMillis is the EKS AMI's (and Karpenter's) kube-reserved CPU: 6% of the
// first core, 1% of the second, 0.5% of the third and fourth, 0.25% of every further core.
// Each band is truncated to whole millicores on its own, as the AMI's bootstrap does.
func kubeReservedCPUMillis(vcpus int) int64 {
	milli := int64(vcpus) * 1000
	bands := []struct{ from, to, perTenThousand int64 }{
		{0, 1000, 600},
		{1000, 2000, 100},
		{2000, 4000, 50},
		{4000, math.MaxInt64, 25},
	}
	var reserved int64
	for _, b := range bands {
		if milli <= b.from {
			break
		}
		width := min(milli, b.to) - b.from
		reserved += width * b.perTenThousand / 10000
	}
	return reserved
}

// kubeReservedMemoryMiB is the EKS AMI's kube-reserved memory: 11Mi per pod the node can
// run plus 255Mi.
func kubeReservedMemoryMiB(maxPods int) int64 {
	return 11*int64(maxPods) + 255
}

// ebsAttachLimit is the EBS CSI driver's default per-node volume limit. Xen types have 39
// attachment slots for EBS alone (the driver's default for non-Nitro types). Nitro types
// share 28 attachment slots among ENIs, EBS volumes and instance-store NVMe devices: the
// driver subtracts the primary ENI, every instance-store device (on Nitro they are all
// NVMe-attached, SSD or HDD) and the root volume, the rest being for PVs. Extra ENIs a node
// may attach later are not subtracted (the driver counts those present at start, which is
// just the primary one), and the newer types with a dedicated EBS attachment budget are
// treated like the rest: the common, documented default, slightly conservative for them.
func ebsAttachLimit(hypervisor string, instanceStoreDevices int) int {
	if hypervisor == "xen" {
		return 39
	}
	return max(28-1-instanceStoreDevices-1, 0)
}

type accelerator struct {
	resource string
	count    int
	labels   map[string]string
}

// offerings lists, for every zone of the region in name order, an on-demand offering and
// (when the data has a spot price) a spot offering. A zone where the data does not list the
// type gets unavailable offerings rather than none, as Karpenter models it, so that prices
// of nodes already running there can still be looked up.
func offerings(in *rawInstance, region string, zones []zone, price rawPrice) []offering {
	offered := map[string]bool{}
	for _, id := range in.AvailabilityZones[region] {
		offered[id] = true
	}
	everywhere := zones[0].id == "" // standardZones fallback: no per-AZ data at all
	od := roundPrice(price.OnDemand.V)
	spot, hasSpot := spotPrice(price, od)
	var out []offering
	for _, z := range zones {
		avail := everywhere || offered[z.id]
		out = append(out, offering{Zone: z.name, CapacityType: capacityOnDemand, Price: od, Available: avail})
		if hasSpot {
			out = append(out, offering{Zone: z.name, CapacityType: capacitySpot, Price: spot, Available: avail})
		}
	}
	return out
}

// spotPrice picks one spot price for the region. The data's "spot" list holds one recent
// price per zone, but sorted and without zone names, so prices cannot be attributed to
// zones; every zone gets the mean of that list, the expected price of a zone picked at
// random. spot_min would understate every zone but the cheapest, and the min/max midpoint
// leans towards a single outlier zone. The data's spot_avg is not used: it is not the
// average of the listed prices (it is sometimes below spot_min). Without a list the
// min/max midpoint (or whichever exists) is used. A spot price is capped at on-demand,
// which is what an unset spot max price pays at most.
func spotPrice(p rawPrice, onDemand float64) (float64, bool) {
	var sum float64
	var n int
	for _, v := range p.Spot {
		if v.OK && v.V > 0 {
			sum += v.V
			n++
		}
	}
	var spot float64
	switch {
	case n > 0:
		spot = sum / float64(n)
	case p.SpotMin.OK && p.SpotMin.V > 0 && p.SpotMax.OK && p.SpotMax.V > 0:
		spot = (p.SpotMin.V + p.SpotMax.V) / 2
	case p.SpotMin.OK && p.SpotMin.V > 0:
		spot = p.SpotMin.V
	case p.SpotMax.OK && p.SpotMax.V > 0:
		spot = p.SpotMax.V
	default:
		return 0, false
	}
	spot = roundPrice(min(spot, onDemand))
	return spot, spot > 0
}

// roundPrice keeps six decimals, the data's own precision, so means do not carry float
// noise into the files.
func roundPrice(v float64) float64 {
	return math.Round(v*1e6) / 1e6
}
