package requirements

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

func TestValidateNodeSelectorRequirement(t *testing.T) {
	tests := []struct {
		name    string
		req     corev1.NodeSelectorRequirement
		wantErr []string // substrings; none means valid
	}{
		{"In", nsr("team", opIn, "a", "b"), nil},
		{"NotIn", nsr("team", opNotIn, "a"), nil},
		{"Exists", nsr("team", opExists), nil},
		{"DoesNotExist", nsr("team", opDoesNotExist), nil},
		{"Gt", nsr("cpu", opGt, "4"), nil},
		{"Lt negative", nsr("cpu", opLt, "-4"), nil},
		{"Gt with a sign", nsr("cpu", opGt, "+4"), nil},
		{"Gte", nsr("cpu", OpGte, "4"), nil},
		{"Lte", nsr("cpu", OpLte, "4"), nil},
		{"empty value is a valid label value", nsr("team", opIn, ""), nil},
		{"prefixed key", nsr("example.com/team", opIn, "a"), nil},

		{"unknown operator", nsr("team", "Equals", "a"),
			[]string{`key "team"`, `unknown operator "Equals"`, "use In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte"}},
		{"empty operator", nsr("team", "", "a"), []string{`unknown operator ""`}},
		{"Gt with a non-integer", nsr("cpu", opGt, "four"), []string{`key "cpu"`, "operator Gt needs an integer value", `got "four"`}},
		{"Lt with a decimal", nsr("cpu", opLt, "1.5"), []string{"operator Lt needs an integer value", `got "1.5"`}},
		{"Gte beyond int64", nsr("cpu", OpGte, "9223372036854775808"), []string{"operator Gte needs an integer value"}},
		{"Gt with two values", nsr("cpu", opGt, "1", "2"), []string{"operator Gt needs exactly one integer value (got 2)"}},
		{"Lte with no value", nsr("cpu", OpLte), []string{"operator Lte needs exactly one integer value (got 0)"}},
		{"In with no values", nsr("team", opIn), []string{`key "team"`, "operator In needs at least one value"}},
		{"NotIn with no values", nsr("team", opNotIn), []string{"operator NotIn needs at least one value"}},
		{"Exists with values", nsr("team", opExists, "a"), []string{`key "team"`, "operator Exists takes no values (got 1)"}},
		{"DoesNotExist with values", nsr("team", opDoesNotExist, "a", "b"), []string{"operator DoesNotExist takes no values (got 2)"}},
		{"invalid key", nsr("my team", opIn, "a"), []string{`key "my team" is not a valid label key`}},
		{"empty key", nsr("", opExists), []string{`key "" is not a valid label key`}},
		{"invalid key prefix", nsr("Example_Com/team", opExists), []string{`key "Example_Com/team" is not a valid label key`}},
		{"invalid value", nsr("team", opIn, "ok", "not ok"), []string{`key "team"`, `value "not ok" is not a valid label value`}},
		{"value too long", nsr("team", opIn, "a234567890123456789012345678901234567890123456789012345678901234"), []string{"is not a valid label value", "63"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateNodeSelectorRequirement(tt.req)
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, want := range tt.wantErr {
				require.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestValidateNodePoolRequirement(t *testing.T) {
	tests := []struct {
		name      string
		req       corev1.NodeSelectorRequirement
		minValues *int
		wantErr   []string // substrings; none means valid
	}{
		{"well-known keys", nsr(LabelTopologyZone, opIn, "us-west-2a"), nil, nil},
		{"instance type", nsr(LabelInstanceType, opIn, "m5.large"), nil, nil},
		{"deprecated zone key", nsr("failure-domain.beta.kubernetes.io/zone", opIn, "us-west-2a"), nil, nil},
		{"allowed karpenter.sh/capacity-type", nsr(LabelCapacityType, opIn, CapacityTypeSpot, CapacityTypeOnDemand), nil, nil},
		{"provider key", nsr("karpenter.k8s.aws/instance-family", opIn, "m7g"), nil, nil},
		{"node.kubernetes.io domain", nsr("node.kubernetes.io/pool", opIn, "a"), nil, nil},
		{"node-restriction.kubernetes.io domain", nsr("node-restriction.kubernetes.io/team", opIn, "a"), nil, nil},
		{"kops.k8s.io domain", nsr("kops.k8s.io/instancegroup", opIn, "a"), nil, nil},
		{"custom key", nsr("team-name", opIn, "a"), nil, nil},
		{"Gte", nsr("karpenter.k8s.aws/instance-cpu", OpGte, "4"), nil, nil},
		{"Gt 0", nsr("karpenter.k8s.aws/instance-gpu-count", opGt, "0"), nil, nil},
		{"negative Gt", nsr("karpenter.k8s.aws/instance-cpu", opGt, "-1"), nil,
			[]string{`key "karpenter.k8s.aws/instance-cpu": operator Gt in a NodePool needs a non-negative integer, got "-1"`}},
		{"negative Lte", nsr("karpenter.k8s.aws/instance-cpu", OpLte, "-8"), nil,
			[]string{"operator Lte in a NodePool needs a non-negative integer"}},
		{"minValues within the values", nsr(LabelInstanceType, opIn, "a", "b", "c"), intPtr(3), nil},
		{"minValues on Exists", nsr(LabelInstanceType, opExists), intPtr(5), nil},
		{"minValues on NotIn", nsr(LabelInstanceType, opNotIn, "a"), intPtr(5), nil},

		{"In with fewer values than minValues", nsr(LabelInstanceType, opIn, "a", "b"), intPtr(3),
			[]string{`key "node.kubernetes.io/instance-type"`, "minValues 3 is more than the 2 distinct values of the In requirement"}},
		{"duplicates do not count towards minValues", nsr(LabelInstanceType, opIn, "a", "a", "b"), intPtr(3),
			[]string{"minValues 3 is more than the 2 distinct values"}},
		{"minValues 0", nsr(LabelInstanceType, opExists), intPtr(0), []string{"minValues must be at least 1, got 0"}},
		{"negative minValues", nsr(LabelInstanceType, opExists), intPtr(-2), []string{"minValues must be at least 1, got -2"}},
		{"general rules first", nsr("team", opIn), nil, []string{"operator In needs at least one value"}},
		{"restricted kubernetes.io/hostname", nsr(LabelHostname, opIn, "ip-10-0-0-1"), nil,
			[]string{`label "kubernetes.io/hostname" is restricted`, "set on each node by Karpenter"}},
		{"restricted karpenter.sh/nodepool", nsr(LabelNodePool, opIn, "default"), nil,
			[]string{`label "karpenter.sh/nodepool" is restricted`}},
		{"restricted deprecated provisioner-name", nsr("karpenter.sh/provisioner-name", opIn, "default"), nil,
			[]string{`label "karpenter.sh/nodepool" is restricted`}},
		{"restricted karpenter.sh/initialized", nsr(LabelNodeInitialized, opExists), nil,
			[]string{`label "karpenter.sh/initialized" is restricted`}},
		{"unknown karpenter.sh/foo", nsr("karpenter.sh/foo", opIn, "bar"), nil,
			[]string{`label "karpenter.sh/foo" is restricted`, "the karpenter.sh domain is reserved for Karpenter", "allowed: karpenter.sh/capacity-type"}},
		{"karpenter.sh subdomain", nsr("team.karpenter.sh/foo", opExists), nil,
			[]string{"the karpenter.sh domain is reserved"}},
		{"kubernetes.io domain", nsr("kubernetes.io/team", opIn, "a"), nil,
			[]string{`label "kubernetes.io/team" is restricted`, "the kubernetes.io domain is reserved"}},
		{"kubernetes.io subdomain", nsr("node-role.kubernetes.io/worker", opExists), nil,
			[]string{`label "node-role.kubernetes.io/worker" is restricted`}},
		{"k8s.io domain", nsr("k8s.io/team", opIn, "a"), nil,
			[]string{`label "k8s.io/team" is restricted`, "the k8s.io domain is reserved"}},
		{"a lookalike domain is not restricted", nsr("notkarpenter.sh/foo", opExists), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateNodePoolRequirement(tt.req, tt.minValues)
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, want := range tt.wantErr {
				require.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestValidateNodePoolKeyAllowsEveryWellKnownKeyButTheNodePool(t *testing.T) {
	for _, key := range WellKnownKeys() {
		err := ValidateNodePoolKey(key)
		if key == LabelNodePool {
			require.Error(t, err, "Karpenter sets karpenter.sh/nodepool itself")
			continue
		}
		require.NoError(t, err, key)
	}
}
