package requirements

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// podWith builds a pod with a nodeSelector and required node affinity terms; terms == nil
// means no required affinity at all.
func podWith(selector map[string]string, terms ...corev1.NodeSelectorTerm) *corev1.Pod {
	pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: selector}}
	if terms != nil {
		pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
	return pod
}

func term(exprs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: exprs}
}

func TestFromNodeSelector(t *testing.T) {
	rs := FromNodeSelector(map[string]string{
		"beta.kubernetes.io/arch": ArchARM64,
		"team":                    "search",
	})
	require.Equal(t, "kubernetes.io/arch In [arm64], team In [search]", rs.String())
	require.Empty(t, FromNodeSelector(nil))
}

func TestFromNodeSelectorRequirements(t *testing.T) {
	rs := FromNodeSelectorRequirements(
		nsr(LabelTopologyZone, opIn, "a", "b", "c"),
		nsr("failure-domain.beta.kubernetes.io/zone", opNotIn, "b"),
		nsr("cpu", OpGte, "4"),
		nsr("cpu", OpLte, "16"),
		nsr("gpu", opDoesNotExist),
	)
	require.Equal(t, "cpu Gt 3 Lt 17, gpu DoesNotExist, topology.kubernetes.io/zone In [a c]", rs.String())
}

func TestFromNodeSelectorTerm(t *testing.T) {
	tests := []struct {
		name    string
		term    corev1.NodeSelectorTerm
		want    string
		wantErr string
	}{
		{"expressions", term(nsr(LabelArch, opIn, ArchAMD64), nsr("cpu", opGt, "2")), "cpu Gt 2, kubernetes.io/arch In [amd64]", ""},
		{"empty term", term(), "", ""},
		{"matchFields", corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{nsr("metadata.name", opIn, "node-1")}}, "",
			"node affinity matchFields (metadata.name) is not supported"},
		{"bad operator", term(nsr("a", opIn, "1"), nsr("b", "Near", "x")), "",
			`matchExpressions[1]: key "b": unknown operator "Near"`},
		{"Gte is NodePool-only", term(nsr("cpu", OpGte, "4")), "",
			`matchExpressions[0]: key "cpu": operator Gte is only valid in a NodePool's requirements; a pod uses Gt or Lt`},
		{"Lte is NodePool-only", term(nsr("cpu", OpLte, "4")), "",
			"operator Lte is only valid in a NodePool's requirements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := FromNodeSelectorTerm(tt.term)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, rs.String())
		})
	}
}

func TestPodAlternatives(t *testing.T) {
	selector := map[string]string{LabelArch: ArchARM64}
	tests := []struct {
		name    string
		pod     *corev1.Pod
		want    []string // String of each alternative
		wantErr string
	}{
		{"nothing", podWith(nil), []string{""}, ""},
		{"nodeSelector only", podWith(selector), []string{"kubernetes.io/arch In [arm64]"}, ""},
		{"affinity without required terms", &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: selector, Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}}},
			[]string{"kubernetes.io/arch In [arm64]"}, ""},
		{"one term joins the nodeSelector", podWith(selector, term(nsr(LabelTopologyZone, opIn, "a"))),
			[]string{"kubernetes.io/arch In [arm64], topology.kubernetes.io/zone In [a]"}, ""},
		{"OR'ed terms give one alternative each, in order", podWith(selector,
			term(nsr(LabelTopologyZone, opIn, "b")),
			term(nsr(LabelTopologyZone, opIn, "a"), nsr(LabelCapacityType, opIn, CapacityTypeSpot)),
		), []string{
			"kubernetes.io/arch In [arm64], topology.kubernetes.io/zone In [b]",
			"karpenter.sh/capacity-type In [spot], kubernetes.io/arch In [arm64], topology.kubernetes.io/zone In [a]",
		}, ""},
		{"a term narrowing the nodeSelector", podWith(selector, term(nsr(LabelArch, opIn, ArchARM64, ArchAMD64))),
			[]string{"kubernetes.io/arch In [arm64]"}, ""},
		{"a term conflicting with the nodeSelector is dropped", podWith(selector,
			term(nsr(LabelArch, opIn, ArchAMD64)),
			term(nsr(LabelTopologyZone, opIn, "a")),
		), []string{"kubernetes.io/arch In [arm64], topology.kubernetes.io/zone In [a]"}, ""},
		{"an empty term matches nothing and is dropped", podWith(selector, term(), term(nsr("team", opExists))),
			[]string{"kubernetes.io/arch In [arm64], team Exists"}, ""},
		{"every term conflicts", podWith(selector,
			term(nsr(LabelArch, opIn, ArchAMD64)),
			term(nsr(LabelArch, opDoesNotExist)),
		), nil, "no required node affinity term is compatible with the pod's nodeSelector (term 0: kubernetes.io/arch In [arm64] does not allow kubernetes.io/arch In [amd64]; term 1: kubernetes.io/arch In [arm64] does not allow kubernetes.io/arch DoesNotExist)"},
		{"every term is empty", podWith(selector, term(), term()), nil, "every required node affinity term is empty, so no node can match"},
		{"an empty list of terms", podWith(selector, []corev1.NodeSelectorTerm{}...), nil,
			"required node affinity has no nodeSelectorTerms, so no node can match"},
		{"matchFields", podWith(nil, corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{nsr("metadata.name", opIn, "n1")}}), nil,
			"required node affinity term 0: node affinity matchFields (metadata.name) is not supported"},
		{"invalid expression", podWith(nil, term(nsr("team", opIn, "a")), term(nsr("cpu", opGt, "many"))), nil,
			`required node affinity term 1: matchExpressions[0]: key "cpu": operator Gt needs an integer value, got "many"`},
		{"invalid nodeSelector value", podWith(map[string]string{"team": "not a value"}), nil,
			`nodeSelector: key "team": value "not a value" is not a valid label value`},
		{"invalid nodeSelector key", podWith(map[string]string{"bad key": "x"}), nil,
			`nodeSelector: key "bad key" is not a valid label key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alts, err := PodAlternatives(tt.pod)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, alt := range alts {
				got = append(got, alt.String())
			}
			require.Equal(t, tt.want, got)
		})
	}

	t.Run("alternatives do not share the nodeSelector's map", func(t *testing.T) {
		alts, err := PodAlternatives(podWith(selector, term(nsr("a", opExists)), term(nsr("b", opExists))))
		require.NoError(t, err)
		require.Len(t, alts, 2)
		alts[0].Add(New(LabelArch, opIn, ArchAMD64))
		require.Equal(t, "b Exists, kubernetes.io/arch In [arm64]", alts[1].String())
	})
}

func TestPodPreferences(t *testing.T) {
	pref := func(weight int32, exprs ...corev1.NodeSelectorRequirement) corev1.PreferredSchedulingTerm {
		return corev1.PreferredSchedulingTerm{Weight: weight, Preference: term(exprs...)}
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
			pref(10, nsr(LabelTopologyZone, opIn, "a")),
			pref(50, nsr(LabelCapacityType, opIn, CapacityTypeSpot)),
			pref(10, nsr(LabelTopologyZone, opIn, "b")),
			pref(80, nsr("cpu", OpGte, "4")), // invalid in a pod: skipped
			pref(90),                         // empty: skipped
			pref(100, nsr(LabelArch, opIn, ArchARM64)),
		},
	}}}}
	got := PodPreferences(pod)
	var summary []string
	for _, p := range got {
		summary = append(summary, p.Requirements.String())
	}
	require.Equal(t, []string{
		"kubernetes.io/arch In [arm64]",
		"karpenter.sh/capacity-type In [spot]",
		"topology.kubernetes.io/zone In [a]", // equal weights keep the pod's order
		"topology.kubernetes.io/zone In [b]",
	}, summary)
	require.Equal(t, []int32{100, 50, 10, 10}, []int32{got[0].Weight, got[1].Weight, got[2].Weight, got[3].Weight})
	require.Equal(t, int32(10), pod.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight,
		"the pod's own list is not reordered")

	require.Nil(t, PodPreferences(podWith(nil)))
	require.Nil(t, PodPreferences(podWith(nil, term(nsr("a", opExists)))))
}
