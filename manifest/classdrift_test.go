package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/aws"
)

// Karpenter's AWS provider finds node-class drift from the class hash when both hashes carry
// the same version, else from the AMI status.amis now gives the node's instance type.
func TestNodeClassDrift(t *testing.T) {
	arch := func(a string) []corev1.NodeSelectorRequirement {
		return []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{a}}}
	}
	class := &aws.NodeClass{Name: "default", Kind: "EC2NodeClass", Hash: "111", HashVersion: "v4",
		AMIs: []aws.AMI{{ID: "ami-arm", Requirements: arch("arm64")}, {ID: "ami-new", Name: "al2023-new", Requirements: arch("amd64")}, {ID: "ami-old", Requirements: arch("amd64")}}}
	claim := func(image, hash, version string) *NodeClaim {
		return &NodeClaim{Name: "nc", ImageID: image, Annotations: map[string]string{AnnotationNodeClassHash: hash, AnnotationNodeClassHashVersion: version}}
	}
	amd64 := map[string]string{"kubernetes.io/arch": "amd64"}
	cases := []struct {
		name  string
		claim *NodeClaim
		want  string
	}{
		{"current image and hash", claim("ami-new", "111", "v4"), ""},
		{"another hash of the same version", claim("ami-new", "222", "v4"), "NodeClassDrift: EC2NodeClass default's karpenter.k8s.aws/ec2nodeclass-hash is 111, its NodeClaim nc was launched with 222"},
		{"another hash version: Karpenter re-hashes, no drift", claim("ami-new", "222", "v3"), ""},
		{"an older image still listed", claim("ami-old", "111", "v4"), "AMIDrift: NodeClaim nc runs image ami-old; EC2NodeClass default's status.amis now gives its instance type ami-new (al2023-new)"},
		{"an image no longer listed", claim("ami-gone", "111", "v4"), "AMIDrift: NodeClaim nc runs image ami-gone, which is not among EC2NodeClass default's status.amis (ami-arm, ami-new, ami-old)"},
		{"no image in the claim's status", claim("", "111", "v4"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, nodeClassDrift(c.claim, class, nil, amd64))
		})
	}
	assert.Empty(t, nodeClassDrift(claim("ami-arm", "111", "v4"), class, nil, map[string]string{"kubernetes.io/arch": "arm64"}), "an arm64 node's image is the arm64 one")
	assert.Empty(t, nodeClassDrift(claim("ami-gone", "111", "v4"), &aws.NodeClass{Name: "default"}, nil, amd64), "a class without status.amis says nothing about images")
}
