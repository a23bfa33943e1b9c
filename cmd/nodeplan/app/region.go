package app

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/requirements"
)

// InferRegion returns the region the zones and regions named in the input imply: node and
// NodeClaim labels, NodePool requirements, pods' node selectors and required node affinity,
// PersistentVolumes' labels and node affinity, and StorageClasses' allowed topologies. Zones
// that are not AWS zone names are ignored. It returns "" when the input names none, and an
// error naming where they come from when it names several regions.
func InferRegion(b *manifest.Bundle) (string, error) {
	f := regionFinder{sources: map[string]string{}}
	for _, n := range b.Nodes {
		f.labels(n.Labels, "Node "+n.Name)
	}
	for _, nc := range b.NodeClaims {
		f.zone(nc.Zone, "NodeClaim "+nc.Name)
		f.labels(nc.Labels, "NodeClaim "+nc.Name)
	}
	for _, np := range b.NodePools {
		for _, r := range np.Requirements {
			f.requirement(r.NodeSelectorRequirement, "NodePool "+np.Name)
		}
	}
	for _, pods := range [][]*corev1.Pod{b.Pods, b.BoundPods} {
		for _, p := range pods {
			f.pod(p)
		}
	}
	for _, pv := range b.PersistentVolumes {
		what := "PersistentVolume " + pv.Name
		f.labels(pv.Labels, what)
		if pv.Spec.NodeAffinity != nil && pv.Spec.NodeAffinity.Required != nil {
			f.nodeSelector(pv.Spec.NodeAffinity.Required, what)
		}
	}
	for _, sc := range b.StorageClasses {
		for _, term := range sc.AllowedTopologies {
			for _, e := range term.MatchLabelExpressions {
				f.requirement(corev1.NodeSelectorRequirement{Key: e.Key, Operator: corev1.NodeSelectorOpIn, Values: e.Values}, "StorageClass "+sc.Name)
			}
		}
	}
	switch len(f.sources) {
	case 0:
		return "", nil
	case 1:
		for region := range f.sources {
			return region, nil
		}
	}
	regions := make([]string, 0, len(f.sources))
	for region := range f.sources {
		regions = append(regions, region)
	}
	sort.Strings(regions)
	named := make([]string, len(regions))
	for i, region := range regions {
		named[i] = fmt.Sprintf("%s (%s)", region, f.sources[region])
	}
	return "", fmt.Errorf("the input names zones of several regions: %s; choose one with --region", strings.Join(named, ", "))
}

// regionFinder collects regions, each with the first object that named it.
type regionFinder struct {
	sources map[string]string
}

func (f *regionFinder) add(region, what string) {
	if region == "" {
		return
	}
	if _, ok := f.sources[region]; !ok {
		f.sources[region] = what
	}
}

func (f *regionFinder) zone(zone, what string) {
	if region, ok := aws.ZoneRegion(zone); ok {
		f.add(region, what)
	}
}

func (f *regionFinder) labels(labels map[string]string, what string) {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first source named is the same on every run
	for _, k := range keys {
		switch requirements.NormalizeKey(k) {
		case requirements.LabelTopologyZone:
			for _, zone := range strings.Split(labels[k], "__") { // PV labels list zones as a__b
				f.zone(zone, what)
			}
		case requirements.LabelTopologyRegion:
			f.add(labels[k], what)
		}
	}
}

func (f *regionFinder) requirement(r corev1.NodeSelectorRequirement, what string) {
	if r.Operator != corev1.NodeSelectorOpIn {
		return
	}
	switch requirements.NormalizeKey(r.Key) {
	case requirements.LabelTopologyZone:
		for _, zone := range r.Values {
			f.zone(zone, what)
		}
	case requirements.LabelTopologyRegion:
		for _, region := range r.Values {
			f.add(region, what)
		}
	}
}

func (f *regionFinder) nodeSelector(s *corev1.NodeSelector, what string) {
	for _, term := range s.NodeSelectorTerms {
		for _, r := range term.MatchExpressions {
			f.requirement(r, what)
		}
	}
}

func (f *regionFinder) pod(p *corev1.Pod) {
	what := "Pod " + p.Namespace + "/" + p.Name
	f.labels(p.Spec.NodeSelector, what)
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		f.nodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, what)
	}
}
