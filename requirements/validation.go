package requirements

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplan/nodeplan/internal/textdist"
)

// restrictedKeys may not appear in a NodePool's requirements or labels: the node's name is
// chosen at launch, and Karpenter owns these.
var restrictedKeys = map[string]bool{
	LabelHostname:            true,
	LabelNodeInitialized:     true,
	LabelNodeRegistered:      true,
	LabelNodePool:            true,
	"karpenter.sh/nodeclaim": true,
}

// karpenterKeys are the karpenter.sh/* keys a NodePool may constrain.
var karpenterKeys = map[string]bool{
	LabelCapacityType: true,
}

// ValidateNodeSelectorRequirement checks the shape of one requirement as the API server and
// Karpenter would: a known operator, values where the operator needs them, integers for
// Gt/Lt/Gte/Lte, valid label keys and values.
func ValidateNodeSelectorRequirement(r corev1.NodeSelectorRequirement) error {
	return validate(r.Key, r.Operator, r.Values, nil)
}

// ValidateNodePoolRequirement checks a NodePool requirement: the general rules, minValues
// (at least 1, and not more than the values of an In), and keys a NodePool may not set.
func ValidateNodePoolRequirement(r corev1.NodeSelectorRequirement, minValues *int) error {
	if err := validate(r.Key, r.Operator, r.Values, minValues); err != nil {
		return err
	}
	switch r.Operator {
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, OpGte, OpLte:
		if n, _, _ := parseInt(r.Values[0]); n < 0 {
			return fmt.Errorf("key %q: operator %s in a NodePool needs a non-negative integer, got %q", r.Key, r.Operator, r.Values[0])
		}
	}
	return ValidateNodePoolKey(r.Key)
}

// ValidateNodePoolKey rejects label keys a NodePool may not require or set: the ones Karpenter
// sets on each node, unknown karpenter.sh keys, and keys in the kubernetes.io and k8s.io
// domains other than the well-known labels and the node.kubernetes.io,
// node-restriction.kubernetes.io and kops.k8s.io domains, as Karpenter's NodePool validation
// does.
func ValidateNodePoolKey(key string) error {
	key = NormalizeKey(key)
	if restrictedKeys[key] {
		return fmt.Errorf("label %q is restricted: it is set on each node by Karpenter, remove it from the NodePool", key)
	}
	domain, _, ok := strings.Cut(key, "/")
	if !ok || IsWellKnown(key) {
		return nil
	}
	switch {
	case inDomain(domain, KarpenterGroup) && !karpenterKeys[key]:
		return fmt.Errorf("label %q is restricted: the %s domain is reserved for Karpenter (allowed: %s)", key, KarpenterGroup, LabelCapacityType)
	case inDomain(domain, "kubernetes.io") && !inDomain(domain, "node.kubernetes.io") && !inDomain(domain, "node-restriction.kubernetes.io"):
		return fmt.Errorf("label %q is restricted: the kubernetes.io domain is reserved for Kubernetes (allowed: the well-known labels %s, and the node.kubernetes.io and node-restriction.kubernetes.io domains)", key, strings.Join(WellKnownKeys(), ", "))
	case inDomain(domain, "k8s.io") && !inDomain(domain, "kops.k8s.io"):
		return fmt.Errorf("label %q is restricted: the k8s.io domain is reserved for Kubernetes (allowed: the kops.k8s.io domain)", key)
	}
	return nil
}

// inDomain reports whether domain is parent or one of its subdomains.
func inDomain(domain, parent string) bool {
	return domain == parent || strings.HasSuffix(domain, "."+parent)
}

func validate(key string, op corev1.NodeSelectorOperator, values []string, minValues *int) error {
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return fmt.Errorf("key %q is not a valid label key: %s", key, strings.Join(errs, "; "))
	}
	switch op {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(values) == 0 {
			return fmt.Errorf("key %q: operator %s needs at least one value", key, op)
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(values) > 0 {
			return fmt.Errorf("key %q: operator %s takes no values (got %d)", key, op, len(values))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, OpGte, OpLte:
		if len(values) != 1 {
			return fmt.Errorf("key %q: operator %s needs exactly one integer value (got %d)", key, op, len(values))
		}
		if _, _, ok := parseInt(values[0]); !ok {
			return fmt.Errorf("key %q: operator %s needs an integer value, got %q", key, op, values[0])
		}
		// An integer bound is not a label value: "-4" is a valid Gt bound.
		values = nil
	default:
		return fmt.Errorf("key %q: unknown operator %q (use In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte)", key, op)
	}
	for _, v := range values {
		if err := validateValue(v); err != nil {
			return fmt.Errorf("key %q: %w", key, err)
		}
	}
	if minValues != nil {
		if *minValues < 1 {
			return fmt.Errorf("key %q: minValues must be at least 1, got %d", key, *minValues)
		}
		if n := len(sortedUnique(values)); op == corev1.NodeSelectorOpIn && n < *minValues {
			return fmt.Errorf("key %q: minValues %d is more than the %d distinct values of the In requirement", key, *minValues, n)
		}
	}
	return nil
}

func validateValue(v string) error {
	if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
		return fmt.Errorf("value %q is not a valid label value: %s", v, strings.Join(errs, "; "))
	}
	return nil
}

// closestKey returns the candidate nearest to key by edit distance when it is close enough to
// be a likely typo, else "".
func closestKey(key string, candidates []string) string {
	best, bestDist := "", 0
	for _, c := range candidates {
		d := editDistance(key, c)
		if best == "" || d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" || bestDist == 0 || bestDist > 3 || bestDist*4 > len(key) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int { return textdist.Levenshtein(a, b) }
