package volume

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// pvTopologyLabels are the PersistentVolume labels kube-scheduler's VolumeZone plugin reads:
// in-tree volumes carry their zone and region as labels rather than as node affinity.
var pvTopologyLabels = []string{
	"failure-domain.beta.kubernetes.io/region",
	"failure-domain.beta.kubernetes.io/zone",
	requirements.LabelTopologyRegion,
	requirements.LabelTopologyZone,
}

// pvAlternatives returns the node requirement sets a bound volume accepts: each term of its
// required node affinity is one alternative, narrowed by its zone and region labels. nil means
// any node. A reason is returned when no node can use the volume.
func pvAlternatives(pv *corev1.PersistentVolume) ([]requirements.Requirements, string) {
	labelReqs := pvLabelRequirements(pv)
	var terms []corev1.NodeSelectorTerm
	if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
		terms = na.Required.NodeSelectorTerms
		if len(terms) == 0 {
			return nil, fmt.Sprintf("persistentvolume %s has a required node affinity without terms, so no node can use it", pv.Name)
		}
	} else {
		if len(labelReqs) == 0 {
			return nil, ""
		}
		return []requirements.Requirements{labelReqs}, ""
	}
	var alts []requirements.Requirements
	for i, term := range terms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			continue // an empty term matches no node
		}
		reqs, err := termRequirements(term)
		if err != nil {
			return nil, fmt.Sprintf("persistentvolume %s: node affinity term %d: %v", pv.Name, i, err)
		}
		if reqs.Conflict(labelReqs) != "" {
			continue
		}
		reqs.AddAll(labelReqs)
		alts = append(alts, reqs)
	}
	if len(alts) == 0 {
		return nil, fmt.Sprintf("persistentvolume %s: no term of its required node affinity can match a node (terms are empty or contradict its zone labels)", pv.Name)
	}
	return mergeAlternatives(alts), ""
}

// pvLabelRequirements turns a volume's zone and region labels into requirements; a value may
// list several zones separated by "__".
func pvLabelRequirements(pv *corev1.PersistentVolume) requirements.Requirements {
	var out requirements.Requirements
	for _, key := range pvTopologyLabels {
		v, ok := pv.Labels[key]
		if !ok {
			continue
		}
		var values []string
		for _, z := range strings.Split(v, "__") {
			if z = strings.TrimSpace(z); z != "" {
				values = append(values, z)
			}
		}
		if len(values) == 0 {
			continue
		}
		if out == nil {
			out = requirements.Requirements{}
		}
		out.Add(requirements.New(key, corev1.NodeSelectorOpIn, values...))
	}
	return out
}

// termRequirements converts one node affinity term of a volume. matchFields on metadata.name
// (a node's name) becomes a kubernetes.io/hostname requirement: nodeplan names each new node
// after its hostname, so such a volume stays on the existing node and never suits a new one.
func termRequirements(term corev1.NodeSelectorTerm) (requirements.Requirements, error) {
	var byName []*requirements.Requirement
	for _, f := range term.MatchFields {
		if f.Key != "metadata.name" || (f.Operator != corev1.NodeSelectorOpIn && f.Operator != corev1.NodeSelectorOpNotIn) {
			return nil, fmt.Errorf("matchFields %s %s is not supported (only metadata.name In or NotIn)", f.Key, f.Operator)
		}
		byName = append(byName, requirements.New(requirements.LabelHostname, f.Operator, f.Values...))
	}
	term.MatchFields = nil
	reqs, err := requirements.FromNodeSelectorTerm(term)
	if err != nil {
		return nil, err
	}
	reqs.Add(byName...)
	return reqs, nil
}

// classAlternatives returns the topologies a WaitForFirstConsumer class may provision in: one
// alternative per allowedTopologies term, each expression an In requirement. nil means
// anywhere (no terms, or an empty term).
func classAlternatives(class *storagev1.StorageClass) []requirements.Requirements {
	var alts []requirements.Requirements
	for _, term := range class.AllowedTopologies {
		if len(term.MatchLabelExpressions) == 0 {
			return nil
		}
		reqs := make(requirements.Requirements, len(term.MatchLabelExpressions))
		for _, e := range term.MatchLabelExpressions {
			reqs.Add(requirements.New(e.Key, corev1.NodeSelectorOpIn, e.Values...))
		}
		alts = append(alts, reqs)
	}
	return mergeAlternatives(alts)
}

// mergeAlternatives removes repeated alternatives and, when every alternative is a single In
// requirement on the same key (zones of a class, hostnames of local volumes), folds them into
// one, so that many candidate volumes do not multiply into many alternatives.
func mergeAlternatives(alts []requirements.Requirements) []requirements.Requirements {
	if len(alts) <= 1 {
		return alts
	}
	if key, values, ok := singleKeyIn(alts); ok {
		return []requirements.Requirements{requirements.NewRequirements(requirements.New(key, corev1.NodeSelectorOpIn, values...))}
	}
	seen := make(map[string]bool, len(alts))
	out := alts[:0:0]
	for _, a := range alts {
		s := a.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, a)
		}
	}
	return out
}

func singleKeyIn(alts []requirements.Requirements) (string, []string, bool) {
	key := ""
	var values []string
	for _, a := range alts {
		if len(a) != 1 {
			return "", nil, false
		}
		for k, r := range a {
			if (key != "" && k != key) || r.Operator() != corev1.NodeSelectorOpIn {
				return "", nil, false
			}
			key = k
			values = append(values, r.Values()...)
		}
	}
	return key, values, true
}
