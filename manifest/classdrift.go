package manifest

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/requirements"
)

// Annotations Karpenter's AWS provider puts on an EC2NodeClass and on every NodeClaim launched
// with it: the hash of the class's spec and the version of the hashing.
const (
	AnnotationNodeClassHash        = "karpenter.k8s.aws/ec2nodeclass-hash"
	AnnotationNodeClassHashVersion = "karpenter.k8s.aws/ec2nodeclass-hash-version"
)

// amiStatus is an entry of an EC2NodeClass's status.amis.
type amiStatus struct {
	ID           string                           `json:"id"`
	Name         string                           `json:"name,omitempty"`
	Requirements []corev1.NodeSelectorRequirement `json:"requirements,omitempty"`
	Deprecated   bool                             `json:"deprecated,omitempty"`
}

func convertAMIs(doc *document, in []amiStatus) ([]aws.AMI, error) {
	out := make([]aws.AMI, 0, len(in))
	for i, a := range in {
		field := fmt.Sprintf("status.amis[%d]", i)
		if a.ID == "" {
			return nil, doc.errorf(field+".id", "required")
		}
		for j, r := range a.Requirements {
			if err := requirements.ValidateNodeSelectorRequirement(r); err != nil {
				return nil, doc.errorf(fmt.Sprintf("%s.requirements[%d]", field, j), "%v", err)
			}
		}
		out = append(out, aws.AMI{ID: a.ID, Name: a.Name, Requirements: a.Requirements, Deprecated: a.Deprecated})
	}
	return out, nil
}

// nodeClassDrift says how a node's NodeClaim differs from its node class the way Karpenter's
// AWS provider finds it, static fields first: the class's hash differs from the one the claim
// was launched with (when both carry the same hash version; a new version means Karpenter
// re-hashes rather than drifts), or the claim's image is not the one the class's status.amis
// now gives its instance type (the first whose requirements the type meets). "" when neither.
func nodeClassDrift(nc *NodeClaim, class *aws.NodeClass, it *instancetype.InstanceType, nodeLabels map[string]string) string {
	if nc == nil || class == nil {
		return ""
	}
	claimHash, claimVersion := nc.Annotations[AnnotationNodeClassHash], nc.Annotations[AnnotationNodeClassHashVersion]
	if class.Hash != "" && claimHash != "" && class.HashVersion != "" && class.HashVersion == claimVersion && class.Hash != claimHash {
		return fmt.Sprintf("NodeClassDrift: %s %s's %s is %s, its NodeClaim %s was launched with %s", class.Kind, class.Name, AnnotationNodeClassHash, class.Hash, nc.Name, claimHash)
	}
	if nc.ImageID == "" || len(class.AMIs) == 0 {
		return ""
	}
	labels := map[string]string{}
	if it != nil {
		for k, v := range it.Labels {
			labels[requirements.NormalizeKey(k)] = v
		}
	}
	for k, v := range nodeLabels {
		labels[requirements.NormalizeKey(k)] = v
	}
	var current *aws.AMI
	for i, a := range class.AMIs {
		reqs := requirements.Requirements{}
		for _, r := range a.Requirements {
			reqs.Add(requirements.New(r.Key, r.Operator, r.Values...))
		}
		if reqs.Matches(labels) {
			current = &class.AMIs[i]
			break
		}
	}
	if current == nil || current.ID == nc.ImageID {
		return ""
	}
	ids := make([]string, len(class.AMIs))
	for i, a := range class.AMIs {
		ids[i] = a.ID
	}
	if slices.Contains(ids, nc.ImageID) {
		return fmt.Sprintf("AMIDrift: NodeClaim %s runs image %s; %s %s's status.amis now gives its instance type %s", nc.Name, nc.ImageID, class.Kind, class.Name, amiName(current))
	}
	return fmt.Sprintf("AMIDrift: NodeClaim %s runs image %s, which is not among %s %s's status.amis (%s)", nc.Name, nc.ImageID, class.Kind, class.Name, strings.Join(ids, ", "))
}

func amiName(a *aws.AMI) string {
	if a.Name != "" {
		return a.ID + " (" + a.Name + ")"
	}
	return a.ID
}
