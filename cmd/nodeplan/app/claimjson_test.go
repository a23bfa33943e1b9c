package app

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// appendNodeClaim writes what encoding/json writes for every new node, or declines.
func TestAppendNodeClaimIsMarshal(t *testing.T) {
	res, err := Plan(Config{Paths: []string{"-"}, Stdin: strings.NewReader(manyNodes())}, scheduling.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Plan.NodeClaims)
	base := res.Plan.NodeClaims[0]
	with := func(edit func(nc *scheduling.NodeClaim)) scheduling.NodeClaim {
		nc := base
		nc.Labels = map[string]string{}
		for k, v := range base.Labels {
			nc.Labels[k] = v
		}
		edit(&nc)
		return nc
	}
	claims := map[string]scheduling.NodeClaim{
		"empty":        {},
		"planned":      base,
		"last planned": res.Plan.NodeClaims[len(res.Plan.NodeClaims)-1],
		"html and quotes in labels": with(func(nc *scheduling.NodeClaim) {
			nc.Labels[`a<b>&"c"\d`] = "</script>&amp;"
		}),
		"control characters and unicode": with(func(nc *scheduling.NodeClaim) {
			nc.Labels["tab\tnew\nline"] = "bell\x07 del\x7f é ☃ \u2028\u2029 bad\xff\xfe"
			nc.Name = "nöde-1"
		}),
		"tiny price": with(func(nc *scheduling.NodeClaim) { nc.Price = 1e-7 }),
		"big price": with(func(nc *scheduling.NodeClaim) {
			nc.Price = 3.5e21
		}),
		"negative tiny price": with(func(nc *scheduling.NodeClaim) { nc.Price = -2.5e-9 }),
		"taints, startup taints and notes": with(func(nc *scheduling.NodeClaim) {
			nc.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}, {Key: "spot", Effect: corev1.TaintEffectPreferNoSchedule}}
			nc.StartupTaints = []corev1.Taint{{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoExecute}}
			nc.Notes = []string{"minValues relaxed", `"quoted" <note>`}
		}),
		"nil and empty lists": with(func(nc *scheduling.NodeClaim) {
			nc.InstanceTypeOptions = nil
			nc.Pods = []string{}
			nc.Taints = nil
			nc.StartupTaints = []corev1.Taint{}
			nc.Notes = []string{}
			nc.Labels = nil
			nc.Capacity = corev1.ResourceList{}
			nc.Allocatable = nil
		}),
		"quantities": with(func(nc *scheduling.NodeClaim) {
			nc.Capacity = corev1.ResourceList{"cpu": resource.MustParse("1500m"), "memory": resource.MustParse("1.5Gi"), "nvidia.com/gpu": *resource.NewQuantity(8, resource.DecimalSI), "ephemeral-storage": resource.MustParse("20e9")}
		}),
	}
	for name, nc := range claims {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(nc)
			require.NoError(t, err)
			got, ok := appendNodeClaim([]byte("prefix"), &nc, false, 0)
			require.True(t, ok)
			require.Equal(t, "prefix"+string(want), string(got))
			// Indented as an element depth levels deep, as json.MarshalIndent writes it there.
			for _, depth := range []int{0, 1, 2, 7, 20} {
				var indented bytes.Buffer
				require.NoError(t, json.Indent(&indented, want, strings.Repeat("  ", depth), "  "))
				got, ok := appendNodeClaim([]byte("prefix"), &nc, true, depth)
				require.True(t, ok)
				require.Equal(t, "prefix"+indented.String(), string(got), "depth %d", depth)
			}
		})
	}
	declined := map[string]scheduling.NodeClaim{
		"infinite price": with(func(nc *scheduling.NodeClaim) { nc.Price = math.Inf(1) }),
		"NaN price":      with(func(nc *scheduling.NodeClaim) { nc.Price = math.NaN() }),
		"taint with time": with(func(nc *scheduling.NodeClaim) {
			nc.StartupTaints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule, TimeAdded: &metav1.Time{}}}
		}),
	}
	for name, nc := range declined {
		t.Run(name, func(t *testing.T) {
			for _, indent := range []bool{false, true} {
				got, ok := appendNodeClaim([]byte("prefix"), &nc, indent, 2)
				require.False(t, ok)
				require.Equal(t, "prefix", string(got))
			}
		})
	}
}
