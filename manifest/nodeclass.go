package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Karpenter's AWS node classes, as far as nodeplan reads them: the zones of their subnets, the
// kubelet settings, the volumes. Other fields are known (no warning) but not interpreted.

const (
	groupKarpenterAWS   = "karpenter.k8s.aws"
	kindEC2NodeClass    = "EC2NodeClass"
	kindAWSNodeTemplate = "AWSNodeTemplate"
)

// annotationKubeletCompatibility is where Karpenter's v1 migration keeps a v1beta1 NodePool's
// kubelet settings; when present, they win over the EC2NodeClass's.
const annotationKubeletCompatibility = "compatibility.karpenter.sh/v1beta1-kubelet-conversion"

type blockDeviceMapping struct {
	DeviceName *string `json:"deviceName,omitempty"`
	RootVolume bool    `json:"rootVolume,omitempty"`
	EBS        *struct {
		VolumeSize               *resource.Quantity `json:"volumeSize,omitempty"`
		VolumeType               json.RawMessage    `json:"volumeType,omitempty"`
		IOPS                     json.RawMessage    `json:"iops,omitempty"`
		Throughput               json.RawMessage    `json:"throughput,omitempty"`
		Encrypted                json.RawMessage    `json:"encrypted,omitempty"`
		KMSKeyID                 json.RawMessage    `json:"kmsKeyID,omitempty"`
		DeleteOnTermination      json.RawMessage    `json:"deleteOnTermination,omitempty"`
		SnapshotID               json.RawMessage    `json:"snapshotID,omitempty"`
		VolumeInitializationRate json.RawMessage    `json:"volumeInitializationRate,omitempty"`
	} `json:"ebs,omitempty"`
}

type subnetStatus struct {
	ID     string `json:"id"`
	Zone   string `json:"zone,omitempty"`
	ZoneID string `json:"zoneID,omitempty"`
}

// ec2NodeClass is a karpenter.k8s.aws/v1 or v1beta1 EC2NodeClass.
type ec2NodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		SubnetSelectorTerms              json.RawMessage `json:"subnetSelectorTerms,omitempty"`
		SecurityGroupSelectorTerms       json.RawMessage `json:"securityGroupSelectorTerms,omitempty"`
		CapacityReservationSelectorTerms json.RawMessage `json:"capacityReservationSelectorTerms,omitempty"`
		PlacementGroupSelector           json.RawMessage `json:"placementGroupSelector,omitempty"`
		AssociatePublicIPAddress         json.RawMessage `json:"associatePublicIPAddress,omitempty"`
		IPPrefixCount                    json.RawMessage `json:"ipPrefixCount,omitempty"`
		AMISelectorTerms                 []struct {
			Alias        string          `json:"alias,omitempty"`
			Tags         json.RawMessage `json:"tags,omitempty"`
			ID           json.RawMessage `json:"id,omitempty"`
			Name         json.RawMessage `json:"name,omitempty"`
			Owner        json.RawMessage `json:"owner,omitempty"`
			SSMParameter json.RawMessage `json:"ssmParameter,omitempty"`
		} `json:"amiSelectorTerms,omitempty"`
		AMIFamily           *string              `json:"amiFamily,omitempty"`
		UserData            json.RawMessage      `json:"userData,omitempty"`
		Role                json.RawMessage      `json:"role,omitempty"`
		InstanceProfile     json.RawMessage      `json:"instanceProfile,omitempty"`
		Tags                json.RawMessage      `json:"tags,omitempty"`
		Kubelet             json.RawMessage      `json:"kubelet,omitempty"`
		BlockDeviceMappings []blockDeviceMapping `json:"blockDeviceMappings,omitempty"`
		InstanceStorePolicy *string              `json:"instanceStorePolicy,omitempty"`
		NetworkInterfaces   json.RawMessage      `json:"networkInterfaces,omitempty"`
		DetailedMonitoring  json.RawMessage      `json:"detailedMonitoring,omitempty"`
		MetadataOptions     json.RawMessage      `json:"metadataOptions,omitempty"`
		ConnectionTracking  json.RawMessage      `json:"connectionTracking,omitempty"`
		Context             json.RawMessage      `json:"context,omitempty"`
		CPUOptions          json.RawMessage      `json:"cpuOptions,omitempty"`
	} `json:"spec"`
	Status struct {
		Subnets              []subnetStatus              `json:"subnets,omitempty"`
		SecurityGroups       json.RawMessage             `json:"securityGroups,omitempty"`
		CapacityReservations []capacityReservationStatus `json:"capacityReservations,omitempty"`
		AMIs                 []amiStatus                 `json:"amis,omitempty"`
		InstanceProfile      json.RawMessage             `json:"instanceProfile,omitempty"`
		Conditions           json.RawMessage             `json:"conditions,omitempty"`
	} `json:"status"`
}

// awsProvider is the v1alpha1 AWS provider: an AWSNodeTemplate's spec, or a v1alpha5
// Provisioner's inline spec.provider.
type awsProvider struct {
	AMIFamily             *string              `json:"amiFamily,omitempty"`
	Context               json.RawMessage      `json:"context,omitempty"`
	InstanceProfile       json.RawMessage      `json:"instanceProfile,omitempty"`
	SubnetSelector        json.RawMessage      `json:"subnetSelector,omitempty"`
	SecurityGroupSelector json.RawMessage      `json:"securityGroupSelector,omitempty"`
	Tags                  json.RawMessage      `json:"tags,omitempty"`
	LaunchTemplate        json.RawMessage      `json:"launchTemplate,omitempty"`
	MetadataOptions       json.RawMessage      `json:"metadataOptions,omitempty"`
	BlockDeviceMappings   []blockDeviceMapping `json:"blockDeviceMappings,omitempty"`
	UserData              json.RawMessage      `json:"userData,omitempty"`
	AMISelector           json.RawMessage      `json:"amiSelector,omitempty"`
	DetailedMonitoring    json.RawMessage      `json:"detailedMonitoring,omitempty"`
	APIVersion            json.RawMessage      `json:"apiVersion,omitempty"`
	Kind                  json.RawMessage      `json:"kind,omitempty"`
}

// awsNodeTemplate is a karpenter.k8s.aws/v1alpha1 AWSNodeTemplate, which v1alpha5
// Provisioners name in spec.providerRef.
type awsNodeTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              awsProvider `json:"spec"`
	Status            struct {
		Subnets        []subnetStatus  `json:"subnets,omitempty"`
		SecurityGroups json.RawMessage `json:"securityGroups,omitempty"`
		AMIs           json.RawMessage `json:"amis,omitempty"`
	} `json:"status"`
}

func decodeEC2NodeClass(d *decoder, doc *document, version string) (any, error) {
	if version != "v1" && version != "v1beta1" {
		d.warnf("%s: %s EC2NodeClass is not supported (use karpenter.k8s.aws/v1 or v1beta1), skipped", doc.where(), doc.apiVersion)
		return nil, nil
	}
	o, err := decodeTyped[ec2NodeClass](d, doc)
	if err != nil {
		return nil, err
	}
	if o.Name == "" {
		return nil, doc.errorf("metadata.name", "required")
	}
	nc := &aws.NodeClass{Name: o.Name, Kind: kindEC2NodeClass}
	switch {
	case o.Spec.AMIFamily != nil:
		nc.AMIFamily = *o.Spec.AMIFamily
	case version == "v1beta1":
		nc.AMIFamily = aws.AMIFamilyAL2 // v1beta1's default
	default:
		for _, term := range o.Spec.AMISelectorTerms {
			if family, _, ok := strings.Cut(term.Alias, "@"); ok {
				nc.AMIFamily = aliasFamily(family)
				break
			}
		}
	}
	if nc.AMIFamily != "" && !slices.Contains(aws.AMIFamilies, nc.AMIFamily) {
		return nil, doc.errorf("spec.amiFamily", "unknown AMI family %q (use one of %s)", nc.AMIFamily, strings.Join(aws.AMIFamilies, ", "))
	}
	if len(o.Spec.Kubelet) > 0 {
		if version == "v1beta1" {
			d.warnf("%s: spec.kubelet is not a v1beta1 EC2NodeClass field (v1beta1 keeps kubelet in the NodePool), ignored", doc.where())
		} else if nc.Kubelet, err = parseKubelet(d, doc, "spec.kubelet", o.Spec.Kubelet); err != nil {
			return nil, err
		}
	}
	if nc.BlockDeviceMappings, err = convertBlockDeviceMappings(doc, o.Spec.BlockDeviceMappings); err != nil {
		return nil, err
	}
	if p := o.Spec.InstanceStorePolicy; p != nil {
		if *p != aws.InstanceStorePolicyRAID0 {
			return nil, doc.errorf("spec.instanceStorePolicy", "unknown policy %q (use RAID0)", *p)
		}
		nc.InstanceStorePolicy = *p
	}
	if nc.Zones, err = subnetZones(doc, o.Status.Subnets); err != nil {
		return nil, err
	}
	if nc.CapacityReservations, err = capacityReservations(doc, o.Status.CapacityReservations); err != nil {
		return nil, err
	}
	if nc.AMIs, err = convertAMIs(doc, o.Status.AMIs); err != nil {
		return nil, err
	}
	nc.Hash, nc.HashVersion = o.Annotations[AnnotationNodeClassHash], o.Annotations[AnnotationNodeClassHashVersion]
	return nc, nil
}

// aliasFamily maps an amiSelectorTerms alias family ("al2023", "bottlerocket",
// "windows2022") to the AMI family's name.
func aliasFamily(alias string) string {
	for _, f := range aws.AMIFamilies {
		if strings.EqualFold(f, alias) {
			return f
		}
	}
	return alias
}

func decodeAWSNodeTemplate(d *decoder, doc *document, version string) (any, error) {
	if version != "v1alpha1" {
		d.warnf("%s: %s AWSNodeTemplate is not supported (use karpenter.k8s.aws/v1alpha1), skipped", doc.where(), doc.apiVersion)
		return nil, nil
	}
	o, err := decodeTyped[awsNodeTemplate](d, doc)
	if err != nil {
		return nil, err
	}
	if o.Name == "" {
		return nil, doc.errorf("metadata.name", "required")
	}
	nc, err := providerNodeClass(doc, "spec", &o.Spec)
	if err != nil {
		return nil, err
	}
	nc.Name, nc.Kind = o.Name, kindAWSNodeTemplate
	if nc.Zones, err = subnetZones(doc, o.Status.Subnets); err != nil {
		return nil, err
	}
	return nc, nil
}

// providerNodeClass reads a v1alpha1 AWS provider (AMI family defaults to AL2).
func providerNodeClass(doc *document, field string, p *awsProvider) (*aws.NodeClass, error) {
	nc := &aws.NodeClass{AMIFamily: aws.AMIFamilyAL2}
	if p.AMIFamily != nil {
		nc.AMIFamily = *p.AMIFamily
		if !slices.Contains(aws.AMIFamilies, nc.AMIFamily) {
			return nil, doc.errorf(field+".amiFamily", "unknown AMI family %q (use one of %s)", nc.AMIFamily, strings.Join(aws.AMIFamilies, ", "))
		}
	}
	var err error
	nc.BlockDeviceMappings, err = convertBlockDeviceMappings(doc, p.BlockDeviceMappings)
	return nc, err
}

func convertBlockDeviceMappings(doc *document, in []blockDeviceMapping) ([]aws.BlockDeviceMapping, error) {
	var out []aws.BlockDeviceMapping
	roots := 0
	for i, m := range in {
		b := aws.BlockDeviceMapping{RootVolume: m.RootVolume}
		if m.DeviceName != nil {
			b.DeviceName = *m.DeviceName
		}
		if m.RootVolume {
			roots++
			if roots > 1 {
				return nil, doc.errorf(fmt.Sprintf("spec.blockDeviceMappings[%d].rootVolume", i), "only one block device mapping may be the root volume")
			}
		}
		if m.EBS != nil && m.EBS.VolumeSize != nil {
			if m.EBS.VolumeSize.Sign() <= 0 {
				return nil, doc.errorf(fmt.Sprintf("spec.blockDeviceMappings[%d].ebs.volumeSize", i), "must be positive, got %s", m.EBS.VolumeSize.String())
			}
			q := m.EBS.VolumeSize.DeepCopy()
			b.VolumeSize = &q
		}
		out = append(out, b)
	}
	return out, nil
}

// subnetZones returns the sorted zones of a class's subnets: each subnet's zone, else its
// zone ID named as the embedded catalogs name zones.
func subnetZones(doc *document, subnets []subnetStatus) ([]string, error) {
	zones := map[string]bool{}
	for i, s := range subnets {
		switch {
		case s.Zone != "":
			zones[s.Zone] = true
		case s.ZoneID != "":
			name, ok := aws.ZoneName(s.ZoneID)
			if !ok {
				return nil, doc.errorf(fmt.Sprintf("status.subnets[%d].zoneID", i), "%q is not a zone ID of a region nodeplan has a catalog for; give the zone's name in zone", s.ZoneID)
			}
			zones[name] = true
		default:
			return nil, doc.errorf(fmt.Sprintf("status.subnets[%d]", i), "has neither zone nor zoneID")
		}
	}
	return slices.Sorted(maps.Keys(zones)), nil
}

// kubeletObject is the part of Karpenter's kubelet configuration (EC2NodeClass v1
// spec.kubelet, v1beta1 NodePool spec.template.spec.kubelet, v1alpha5 Provisioner
// spec.kubeletConfiguration) that changes allocatable; other kubelet fields are accepted and
// ignored.
type kubeletObject struct {
	MaxPods        json.RawMessage   `json:"maxPods,omitempty"`
	PodsPerCore    *int32            `json:"podsPerCore,omitempty"`
	SystemReserved map[string]string `json:"systemReserved,omitempty"`
	KubeReserved   map[string]string `json:"kubeReserved,omitempty"`
	EvictionHard   map[string]string `json:"evictionHard,omitempty"`
	EvictionSoft   map[string]string `json:"evictionSoft,omitempty"`
}

var (
	reservedResources = []string{string(corev1.ResourceCPU), string(corev1.ResourceMemory), string(corev1.ResourceEphemeralStorage), "pid"}
	evictionSignals   = []string{aws.SignalMemoryAvailable, aws.SignalNodeFSAvailable, "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
)

// parseKubelet reads kubelet settings; field is where they are in the document.
func parseKubelet(d *decoder, doc *document, field string, raw json.RawMessage) (aws.Kubelet, error) {
	var k aws.Kubelet
	var o kubeletObject
	if err := json.Unmarshal(raw, &o); err != nil {
		f, msg := locateError(raw, &o)
		return k, doc.errorf(joinField(field, f), "%s", msg)
	}
	if len(o.MaxPods) > 0 && string(o.MaxPods) != "null" {
		var n int32
		var expr string
		switch {
		case json.Unmarshal(o.MaxPods, &n) == nil:
			if n < 0 {
				return k, doc.errorf(field+".maxPods", "must not be negative, got %d", n)
			}
			k.MaxPods = &n
		case json.Unmarshal(o.MaxPods, &expr) == nil:
			d.warnf("%s: %s.maxPods %q is a CEL expression, which nodeplan does not evaluate: the instance type's default max pods are used", doc.where(), field, expr)
		default:
			return k, doc.errorf(field+".maxPods", "got %s, want an integer", o.MaxPods)
		}
	}
	if o.PodsPerCore != nil {
		if *o.PodsPerCore < 0 {
			return k, doc.errorf(field+".podsPerCore", "must not be negative, got %d", *o.PodsPerCore)
		}
		k.PodsPerCore = o.PodsPerCore
	}
	var err error
	if k.SystemReserved, err = reservedList(doc, field+".systemReserved", o.SystemReserved); err != nil {
		return k, err
	}
	if k.KubeReserved, err = reservedList(doc, field+".kubeReserved", o.KubeReserved); err != nil {
		return k, err
	}
	for _, part := range []struct {
		field string
		m     map[string]string
	}{{field + ".evictionHard", o.EvictionHard}, {field + ".evictionSoft", o.EvictionSoft}} {
		for _, signal := range slices.Sorted(maps.Keys(part.m)) {
			if !slices.Contains(evictionSignals, signal) {
				return k, doc.errorf(joinKey(part.field, signal), "unknown eviction signal (use one of %s)", strings.Join(evictionSignals, ", "))
			}
			if _, err := aws.EvictionThreshold(resource.MustParse("1Gi"), part.m[signal]); err != nil {
				return k, doc.errorf(joinKey(part.field, signal), "%v", err)
			}
		}
	}
	k.EvictionHard, k.EvictionSoft = o.EvictionHard, o.EvictionSoft
	return k, nil
}

// reservedList reads systemReserved or kubeReserved; pid is accepted and left out (nodeplan
// does not count process IDs).
func reservedList(doc *document, field string, m map[string]string) (corev1.ResourceList, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := corev1.ResourceList{}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(reservedResources, name) {
			return nil, doc.errorf(joinKey(field, name), "unknown resource (use one of %s)", strings.Join(reservedResources, ", "))
		}
		q, err := resource.ParseQuantity(m[name])
		if err != nil || q.Sign() < 0 {
			return nil, doc.errorf(joinKey(field, name), "%q is not a non-negative quantity", m[name])
		}
		if err := resources.CheckQuantity(q); err != nil {
			return nil, doc.errorf(joinKey(field, name), "%v", err)
		}
		if name != "pid" {
			out[corev1.ResourceName(name)] = q
		}
	}
	return out, nil
}

// nodePoolObject is a NodePool (or Provisioner) with what it says about its node class, which
// scheduling.NodePool does not hold.
type nodePoolObject struct {
	np *scheduling.NodePool
	// ref names the node class: Kind EC2NodeClass or AWSNodeTemplate; Kind "" when none.
	ref struct{ Kind, Name string }
	// kubelet is the NodePool's own kubelet settings (v1beta1, v1alpha5, or v1's
	// compatibility annotation); nil when it has none.
	kubelet *aws.Kubelet
	// provider is a Provisioner's inline spec.provider.
	provider *aws.NodeClass
}

// nodeClassRef reads a nodeClassRef or providerRef: {group, kind, name} (v1) or
// {apiVersion, kind, name} (v1beta1, v1alpha5); kind defaults to defaultKind. Classes of
// other groups (KWOKNodeClass…) are not AWS classes: the result has no Kind.
func nodeClassRef(doc *document, field string, raw json.RawMessage, defaultKind string) (kind, name string, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", "", nil
	}
	var ref struct {
		Group      string `json:"group"`
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Name       string `json:"name"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		f, msg := locateError(raw, &ref)
		return "", "", doc.errorf(joinField(field, f), "%s", msg)
	}
	if ref.Name == "" {
		return "", "", doc.errorf(field+".name", "required")
	}
	group := ref.Group
	if group == "" && ref.APIVersion != "" {
		group, _ = splitAPIVersion(ref.APIVersion)
	}
	kind = cmpOr(ref.Kind, defaultKind)
	if (group != "" && group != groupKarpenterAWS) || (kind != kindEC2NodeClass && kind != kindAWSNodeTemplate) {
		return "", "", nil
	}
	return kind, ref.Name, nil
}

// nodeClasses resolves each NodePool's node class (its class's settings with the NodePool's
// own kubelet settings in their place), narrows the NodePool's zones to the class's subnets,
// and warns about classes the input lacks when it has node classes at all.
func (s *builder) nodeClasses() {
	b := s.b
	byRef := map[[2]string]*aws.NodeClass{}
	for _, nc := range b.NodeClasses {
		byRef[[2]string{nc.Kind, nc.Name}] = nc
	}
	missing := map[[2]string][]string{}
	b.NodeClassOf = map[string]*aws.NodeClass{}
	for _, o := range s.pools {
		var nc *aws.NodeClass
		switch {
		case o.ref.Kind != "":
			key := [2]string{o.ref.Kind, o.ref.Name}
			if nc = byRef[key]; nc == nil {
				missing[key] = append(missing[key], o.np.Name)
			}
		case o.provider != nil:
			nc = o.provider
		}
		if nc == nil && o.kubelet == nil {
			continue
		}
		resolved := &aws.NodeClass{}
		if nc != nil {
			c := *nc
			resolved = &c
		}
		if o.kubelet != nil {
			resolved.Kubelet = *o.kubelet
		}
		b.NodeClassOf[o.np.Name] = resolved
		if len(resolved.Zones) > 0 {
			o.np.Requirements = append(o.np.Requirements, scheduling.NodeSelectorRequirementWithMinValues{
				NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: requirements.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: slices.Clone(resolved.Zones)},
			})
		}
	}
	if len(b.NodeClasses) == 0 {
		return // manifests without node classes plan with the catalog's defaults
	}
	keys := slices.SortedFunc(maps.Keys(missing), func(a, b [2]string) int { return strings.Compare(a[0]+"/"+a[1], b[0]+"/"+b[1]) })
	for _, k := range keys {
		s.d.warnf("%s %s is not in the input (named by NodePool %s): its nodes get the catalog's defaults (any zone, default kubelet and volumes)", k[0], k[1], strings.Join(missing[k], ", "))
	}
}

// nodeOverlay is a karpenter.sh/v1alpha1 NodeOverlay.
type nodeOverlay struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Requirements    []corev1.NodeSelectorRequirement `json:"requirements,omitempty"`
		PriceAdjustment *string                          `json:"priceAdjustment,omitempty"`
		Price           *string                          `json:"price,omitempty"`
		Capacity        corev1.ResourceList              `json:"capacity,omitempty"`
		Weight          *int32                           `json:"weight,omitempty"`
	} `json:"spec"`
	Status json.RawMessage `json:"status,omitempty"`
}

func decodeNodeOverlay(d *decoder, doc *document, version string) (any, error) {
	if version != "v1alpha1" {
		d.warnf("%s: %s NodeOverlay is not supported (use karpenter.sh/v1alpha1), skipped", doc.where(), doc.apiVersion)
		return nil, nil
	}
	o, err := decodeTyped[nodeOverlay](d, doc)
	if err != nil {
		return nil, err
	}
	if o.Name == "" {
		return nil, doc.errorf("metadata.name", "required")
	}
	ov := &instancetype.Overlay{Name: o.Name, Requirements: o.Spec.Requirements, Capacity: o.Spec.Capacity}
	if w := o.Spec.Weight; w != nil {
		if *w < 1 || *w > 10000 {
			return nil, doc.errorf("spec.weight", "must be between 1 and 10000, got %d", *w)
		}
		ov.Weight = *w
	}
	if o.Spec.Price != nil {
		ov.Price = *o.Spec.Price
	}
	if o.Spec.PriceAdjustment != nil {
		ov.PriceAdjustment = *o.Spec.PriceAdjustment
	}
	if err := ov.Validate(); err != nil {
		return nil, doc.errorf("", "%v", err)
	}
	return ov, nil
}
