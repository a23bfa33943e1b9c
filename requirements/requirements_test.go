package requirements

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// reqs builds a set from node selector requirements written as key, operator, values.
func reqs(rs ...corev1.NodeSelectorRequirement) Requirements {
	return FromNodeSelectorRequirements(rs...)
}

func nsr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func TestRequirementsIntersects(t *testing.T) {
	tests := []struct {
		name    string
		a, b    Requirements
		wantKey string // "" when they intersect
		wantErr string
	}{
		{"empty sets", nil, nil, "", ""},
		{"disjoint keys always intersect", reqs(nsr("a", opIn, "1")), reqs(nsr("b", opIn, "2")), "", ""},
		{"overlapping In", reqs(nsr("zone", opIn, "a", "b")), reqs(nsr("zone", opIn, "b", "c")), "", ""},
		{"disjoint In", reqs(nsr("zone", opIn, "a")), reqs(nsr("zone", opIn, "b")), "zone", "zone In [a] does not allow zone In [b]"},
		{"In against its NotIn", reqs(nsr("zone", opIn, "a")), reqs(nsr("zone", opNotIn, "a")), "zone", "zone In [a] does not allow zone NotIn [a]"},
		{"Exists against DoesNotExist", reqs(nsr("gpu", opExists)), reqs(nsr("gpu", opDoesNotExist)), "gpu", "gpu Exists does not allow gpu DoesNotExist"},
		{"In against DoesNotExist", reqs(nsr("gpu", opIn, "t4")), reqs(nsr("gpu", opDoesNotExist)), "gpu", "gpu In [t4] does not allow gpu DoesNotExist"},
		{"Gt outside In", reqs(nsr("cpu", opIn, "2", "4")), reqs(nsr("cpu", opGt, "4")), "cpu", "cpu In [2 4] does not allow cpu Gt 4"},
		// Both negative: a node without the label satisfies both, so they agree even though
		// no value does.
		{"NotIn and DoesNotExist", reqs(nsr("team", opNotIn, "a")), reqs(nsr("team", opDoesNotExist)), "", ""},
		{"DoesNotExist and NotIn", reqs(nsr("team", opDoesNotExist)), reqs(nsr("team", opNotIn, "a")), "", ""},
		{"DoesNotExist twice", reqs(nsr("team", opDoesNotExist)), reqs(nsr("team", opDoesNotExist)), "", ""},
		{"NotIn covering each other's complement", reqs(nsr("team", opNotIn, "a")), reqs(nsr("team", opNotIn, "b")), "", ""},
		// A bound needs the label, so a bounded requirement is not negative even with NotIn
		// values.
		{"Gt against DoesNotExist", reqs(nsr("cpu", opGt, "3")), reqs(nsr("cpu", opDoesNotExist)), "cpu", "cpu Gt 3 does not allow cpu DoesNotExist"},
		{"NotIn with a bound against DoesNotExist", reqs(nsr("cpu", opNotIn, "5"), nsr("cpu", opGt, "3")), reqs(nsr("cpu", opDoesNotExist)), "cpu", "cpu NotIn [5] Gt 3 does not allow cpu DoesNotExist"},
		{"the first conflicting key in sorted order is reported",
			reqs(nsr("b", opIn, "1"), nsr("a", opIn, "1"), nsr("c", opIn, "1")),
			reqs(nsr("b", opIn, "2"), nsr("a", opIn, "2"), nsr("c", opIn, "1")),
			"a", "a In [1] does not allow a In [2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, dir := range []struct{ a, b Requirements }{{tt.a, tt.b}, {tt.b, tt.a}} {
				err := dir.a.Intersects(dir.b)
				conflict := dir.a.Conflict(dir.b)
				if tt.wantKey == "" {
					require.NoError(t, err)
					require.Empty(t, conflict)
					continue
				}
				require.Error(t, err)
				var ce *ConflictError
				require.True(t, errors.As(err, &ce))
				require.Equal(t, tt.wantKey, ce.Key)
				require.NotEmpty(t, conflict, "Conflict agrees with Intersects")
			}
			if tt.wantErr != "" {
				require.EqualError(t, tt.a.Intersects(tt.b), tt.wantErr)
			}
		})
	}
}

func TestRequirementsCompatible(t *testing.T) {
	nodePool := reqs(
		nsr(LabelArch, opIn, ArchAMD64, ArchARM64),
		nsr(LabelCapacityType, opIn, CapacityTypeSpot),
		nsr("team-name", opIn, "payments", "search"),
		nsr("example.com/tier", opNotIn, "gold"),
	)
	tests := []struct {
		name           string
		pod            Requirements
		allowUndefined func(string) bool
		wantErr        []string // substrings; none means compatible
	}{
		{"no requirements", nil, nil, nil},
		{"custom label the NodePool defines", reqs(nsr("team-name", opIn, "search")), nil, nil},
		{"well-known label the NodePool leaves open", reqs(nsr(LabelTopologyZone, opIn, "us-west-2a")), nil, nil},
		{"well-known instance type left open", reqs(nsr(LabelInstanceType, opIn, "m5.large")), nil, nil},
		{"deprecated well-known key", FromNodeSelector(map[string]string{"failure-domain.beta.kubernetes.io/zone": "us-west-2a"}), nil, nil},
		{"well-known label that conflicts", reqs(nsr(LabelArch, opIn, "s390x")), nil,
			[]string{"kubernetes.io/arch In [amd64 arm64] does not allow kubernetes.io/arch In [s390x]"}},
		{"capacity type that conflicts", reqs(nsr(LabelCapacityType, opIn, CapacityTypeOnDemand)), nil,
			[]string{"karpenter.sh/capacity-type In [spot]"}},
		{"custom label the NodePool does not define", reqs(nsr("gpu", opIn, "t4")), nil,
			[]string{`label "gpu" is not defined by the nodepool`, "add it to the NodePool's labels or requirements"}},
		{"custom Exists the NodePool does not define", reqs(nsr("gpu", opExists)), nil,
			[]string{`label "gpu" is not defined`}},
		{"custom Gt the NodePool does not define", reqs(nsr("gpu-count", opGt, "0")), nil,
			[]string{`label "gpu-count" is not defined`}},
		{"custom NotIn may be undefined", reqs(nsr("gpu", opNotIn, "t4")), nil, nil},
		{"custom DoesNotExist may be undefined", reqs(nsr("gpu", opDoesNotExist)), nil, nil},
		{"negative against negative", reqs(nsr("example.com/tier", opDoesNotExist)), nil, nil},
		{"custom label conflicts", reqs(nsr("team-name", opIn, "ads")), nil,
			[]string{"team-name In [payments search] does not allow team-name In [ads]"}},
		{"typo of a NodePool key", reqs(nsr("team-nmae", opIn, "search")), nil,
			[]string{`label "team-nmae" is not defined`, `did you mean "team-name"?`}},
		{"typo of a well-known key", reqs(nsr("topology.kubernetes.io/zones", opIn, "us-west-2a")), nil,
			[]string{`did you mean "topology.kubernetes.io/zone"?`}},
		{"undefined keys are reported in sorted order", reqs(nsr("zz", opExists), nsr("gpu", opExists)), nil,
			[]string{`label "gpu"`}},
		{"caller allows any undefined key", reqs(nsr("gpu", opIn, "t4")), func(string) bool { return true }, nil},
		{"caller allows none, not even well-known", reqs(nsr(LabelTopologyZone, opIn, "us-west-2a")), func(string) bool { return false },
			[]string{`label "topology.kubernetes.io/zone" is not defined`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := nodePool.Compatible(tt.pod, tt.allowUndefined)
			require.Equal(t, err == nil, nodePool.IsCompatible(tt.pod, tt.allowUndefined), "IsCompatible agrees with Compatible")
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

	t.Run("no hint for an unrelated key", func(t *testing.T) {
		err := nodePool.Compatible(reqs(nsr("example.com/accelerator", opIn, "a100")), nil)
		var ue *UndefinedError
		require.True(t, errors.As(err, &ue))
		require.Equal(t, "example.com/accelerator", ue.Key)
		require.Empty(t, ue.Hint)
		require.NotContains(t, err.Error(), "did you mean")
	})
}

func TestClosestKey(t *testing.T) {
	candidates := []string{"team-name", "example.com/tier", LabelArch}
	tests := []struct{ key, want string }{
		{"team-nmae", "team-name"},
		{"team_name", "team-name"},
		{"teamname", "team-name"},
		{"example.com/teir", "example.com/tier"},
		{"kubernetes.io/arc", LabelArch},
		{"team-name", ""}, // an exact match is no typo
		{"tier", ""},      // too far from anything
		{"abc", ""},       // too short for a confident guess
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			require.Equal(t, tt.want, closestKey(tt.key, candidates))
		})
	}
	require.Equal(t, 3, editDistance("kitten", "sitting"))
	require.Equal(t, 0, editDistance("", ""))
	require.Equal(t, 4, editDistance("", "four"))
}

func TestRequirementsMatches(t *testing.T) {
	labels := map[string]string{
		LabelArch:         ArchARM64,
		LabelTopologyZone: "us-west-2a",
		"cpu":             "8",
		"team":            "search",
	}
	tests := []struct {
		name string
		reqs Requirements
		want bool
	}{
		{"no requirements", nil, true},
		{"In present", reqs(nsr(LabelArch, opIn, ArchARM64, ArchAMD64)), true},
		{"In other value", reqs(nsr(LabelArch, opIn, ArchAMD64)), false},
		{"In absent", reqs(nsr("gpu", opIn, "t4")), false},
		{"NotIn present and excluded", reqs(nsr("team", opNotIn, "search")), false},
		{"NotIn present and allowed", reqs(nsr("team", opNotIn, "ads")), true},
		{"NotIn absent", reqs(nsr("gpu", opNotIn, "t4")), true},
		{"Exists present", reqs(nsr("team", opExists)), true},
		{"Exists absent", reqs(nsr("gpu", opExists)), false},
		{"DoesNotExist present", reqs(nsr("team", opDoesNotExist)), false},
		{"DoesNotExist absent", reqs(nsr("gpu", opDoesNotExist)), true},
		{"Gt present and above", reqs(nsr("cpu", opGt, "4")), true},
		{"Gt present and not above", reqs(nsr("cpu", opGt, "8")), false},
		{"Gt on a non-integer label", reqs(nsr("team", opGt, "1")), false},
		{"Gt absent", reqs(nsr("gpu-count", opGt, "0")), false},
		{"Lt absent", reqs(nsr("gpu-count", opLt, "5")), false},
		{"NotIn with a bound absent", reqs(nsr("gpu-count", opNotIn, "3"), nsr("gpu-count", opLt, "5")), false},
		{"Gte and Lte inclusive", reqs(nsr("cpu", OpGte, "8"), nsr("cpu", OpLte, "8")), true},
		{"deprecated key in the selector", FromNodeSelector(map[string]string{"beta.kubernetes.io/arch": ArchARM64}), true},
		{"every requirement must hold", reqs(nsr(LabelArch, opIn, ArchARM64), nsr("team", opIn, "ads")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.reqs.Matches(labels))
			require.Equal(t, tt.want, tt.reqs.Flat().Matches(labels), "as a list")
		})
	}
}

func TestKeyNormalisation(t *testing.T) {
	tests := []struct{ deprecated, current string }{
		{"failure-domain.beta.kubernetes.io/zone", LabelTopologyZone},
		{"failure-domain.beta.kubernetes.io/region", LabelTopologyRegion},
		{"beta.kubernetes.io/arch", LabelArch},
		{"beta.kubernetes.io/os", LabelOS},
		{"beta.kubernetes.io/instance-type", LabelInstanceType},
		{"topology.ebs.csi.aws.com/zone", LabelTopologyZone},
		{"topology.gke.io/zone", LabelTopologyZone},
		{"karpenter.sh/provisioner-name", LabelNodePool},
	}
	for _, tt := range tests {
		t.Run(tt.deprecated, func(t *testing.T) {
			require.Equal(t, tt.current, NormalizeKey(tt.deprecated))
			require.Equal(t, tt.current, New(tt.deprecated, opIn, "x").Key)
			require.Contains(t, DeprecatedKeysOf(tt.current), tt.deprecated)
			require.True(t, FromLabels(map[string]string{tt.deprecated: "x"}).Has(tt.current))
			require.True(t, reqs(nsr(tt.deprecated, opExists)).Has(tt.current))
			require.False(t, reqs(nsr(tt.deprecated, opExists)).Has(tt.deprecated))
		})
	}
	require.Equal(t, "example.com/zone", NormalizeKey("example.com/zone"))
	require.Equal(t, LabelTopologyZone, NormalizeKey(LabelTopologyZone))
	require.Equal(t, []string{"failure-domain.beta.kubernetes.io/zone", "topology.ebs.csi.aws.com/zone", "topology.gke.io/zone"}, DeprecatedKeysOf(LabelTopologyZone))
	require.Empty(t, DeprecatedKeysOf("example.com/zone"))

	t.Run("old and new names of one key intersect", func(t *testing.T) {
		same := FromLabels(map[string]string{"beta.kubernetes.io/arch": ArchAMD64, LabelArch: ArchAMD64})
		require.Equal(t, "kubernetes.io/arch In [amd64]", same.String())
		clash := reqs(nsr("beta.kubernetes.io/arch", opIn, ArchAMD64), nsr(LabelArch, opIn, ArchARM64))
		require.Equal(t, "kubernetes.io/arch DoesNotExist", clash.String())
	})
}

func TestWellKnownKeys(t *testing.T) {
	require.Equal(t, []string{
		LabelCapacityType, LabelNodePool, LabelArch, LabelOS,
		LabelInstanceType, LabelWindowsBuild, LabelTopologyRegion, LabelTopologyZone,
	}, WellKnownKeys())
	require.True(t, IsWellKnown(LabelTopologyZone))
	require.False(t, IsWellKnown(LabelHostname), "a new node's hostname is not known in advance")
	require.False(t, IsWellKnown("team-name"))
}

func TestRequirementsAdd(t *testing.T) {
	rs := NewRequirements(New("zone", opIn, "a", "b", "c"))
	rs.Add(New("zone", opNotIn, "b"), New("arch", opIn, ArchARM64))
	require.Equal(t, "arch In [arm64], zone In [a c]", rs.String())

	narrowed := rs.Copy()
	narrowed.Add(New("zone", opIn, "c"))
	require.Equal(t, "arch In [arm64], zone In [c]", narrowed.String())
	require.Equal(t, "arch In [arm64], zone In [a c]", rs.String(), "Copy leaves the original alone")

	narrowed.AddAll(reqs(nsr("zone", opIn, "a")))
	require.Equal(t, "arch In [arm64], zone DoesNotExist", narrowed.String())

	got, ok := rs.Get("zone")
	require.True(t, ok)
	require.Equal(t, []string{"a", "c"}, got.Values())
	_, ok = rs.Get("gpu")
	require.False(t, ok)
	require.Equal(t, []string{"arch", "zone"}, rs.Keys())
}

func TestRequirementsLabels(t *testing.T) {
	rs := reqs(
		nsr(LabelArch, opIn, ArchARM64),
		nsr(LabelTopologyZone, opIn, "a", "b"),
		nsr("team", opExists),
		nsr("tier", opNotIn, "gold"),
		nsr("gpu", opDoesNotExist),
		nsr("cpu", opGt, "3"), nsr("cpu", opLt, "5"),
	)
	require.Equal(t, map[string]string{LabelArch: ArchARM64}, rs.Labels(), "only keys pinned to one value")
}

func TestNodeSelectorRequirementsRoundTrip(t *testing.T) {
	rs := reqs(
		nsr("in", opIn, "b", "a"),
		nsr("notin", opNotIn, "x"),
		nsr("exists", opExists),
		nsr("doesnotexist", opDoesNotExist),
		nsr("gt", opGt, "3"),
		nsr("lt", opLt, "9"),
		nsr("gte", OpGte, "3"),
		nsr("lte", OpLte, "9"),
		nsr("range", opGt, "1"), nsr("range", opLt, "9"), nsr("range", opNotIn, "4", "x"),
	)
	want := []corev1.NodeSelectorRequirement{
		nsr("doesnotexist", opDoesNotExist),
		nsr("exists", opExists),
		nsr("gt", opGt, "3"),
		nsr("gte", opGt, "2"),
		nsr("in", opIn, "a", "b"),
		nsr("lt", opLt, "9"),
		nsr("lte", opLt, "10"),
		nsr("notin", opNotIn, "x"),
		nsr("range", opNotIn, "4"),
		nsr("range", opGt, "1"),
		nsr("range", opLt, "9"),
	}
	got := rs.NodeSelectorRequirements()
	require.Equal(t, want, got)
	require.Equal(t, rs, FromNodeSelectorRequirements(got...), "converting back gives the same set")

	// The returned values are copies: changing them does not change the set.
	got[4].Values[0] = "changed"
	require.Equal(t, []string{"a", "b"}, rs["in"].Values())
}

func TestRequirementsString(t *testing.T) {
	build := func(order []int) Requirements {
		all := []*Requirement{
			New(LabelTopologyZone, opIn, "us-west-2b", "us-west-2a"),
			New(LabelArch, opIn, ArchARM64),
			New("team", opNotIn, "ads"),
			New("cpu", OpGte, "4"),
			New("cpu", opLt, "64"),
			NewWithMinValues(LabelInstanceType, opExists, intPtr(3)),
		}
		rs := Requirements{}
		for _, i := range order {
			rs.Add(all[i])
		}
		return rs
	}
	want := "cpu Gt 3 Lt 64, kubernetes.io/arch In [arm64], node.kubernetes.io/instance-type Exists minValues 3, team NotIn [ads], topology.kubernetes.io/zone In [us-west-2a us-west-2b]"
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {2, 4, 0, 5, 1, 3}} {
		require.Equal(t, want, build(order).String())
	}
	require.Equal(t, "", Requirements(nil).String())
}

func TestRequirementsEqual(t *testing.T) {
	a := FromNodeSelectorRequirements(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"b", "a"}})
	b := FromNodeSelectorRequirements(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}})
	c := FromNodeSelectorRequirements(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a", "b"}})
	require.True(t, a.Equal(b))
	require.False(t, a.Equal(c))
}
