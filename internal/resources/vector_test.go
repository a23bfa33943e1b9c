package resources_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/resources"
)

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func TestDimsAndVectors(t *testing.T) {
	dims := resources.NewDims(list("nvidia.com/gpu", "1", "cpu", "2"), list("example.com/fpga", "1"))
	require.Equal(t, 6, dims.Len())
	require.Equal(t, corev1.ResourceName("example.com/fpga"), dims.Name(4), "extended resources follow the fixed four, sorted")
	v := dims.Vector(list("cpu", "500m", "memory", "1Gi", "nvidia.com/gpu", "1", "unknown.io/x", "3"))
	require.Equal(t, int64(500), v[resources.CPU])
	require.Equal(t, int64(1<<30)*1000, v[resources.Memory])
	back := dims.List(v)
	require.Equal(t, "500m", back.Cpu().String())
	require.Equal(t, "1Gi", back.Memory().String())
	gpu := back["nvidia.com/gpu"]
	require.Equal(t, "1", gpu.String())

	capacity := dims.Vector(list("cpu", "1", "memory", "2Gi", "nvidia.com/gpu", "1"))
	require.True(t, resources.FitsSum(v, v, dims.Vector(list("cpu", "1", "memory", "2Gi", "nvidia.com/gpu", "2"))))
	require.False(t, resources.FitsSum(v, v, capacity), "two gpus do not fit one")
	gpuDim, _ := dims.Index("nvidia.com/gpu")
	require.Equal(t, gpuDim, resources.FirstExceeded(v, v, capacity))
}

func TestCheckQuantity(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want string
	}{
		{"4", ""},
		{"4e15", ""},
		{"-4e15", ""},
		{"3.5Pi", ""},
		{"4000000000000001", "4000000000000001 is too large (at most 4e15)"},
		{"1e30", "1e30 is too large (at most 4e15)"},
		{"-1e30", "-1e30 is too large (at most 4e15)"},
		{"8Ei", "9223372036854775807 is too large (at most 4e15)"}, // the API machinery clamps 8Ei to the largest int64
		{"9223372036854776", "9223372036854776 is too large (at most 4e15)"},
		{"1e1000", "10e999 is too large (at most 4e15)"}, // canonical form
		{"0e1000", ""},
		// Comparing these would compute 10^33330000: refused at once, even the zero.
		{"e33330000", "has a decimal exponent of 33330000 (at most 1000)"},
		{"-7e33330000", "has a decimal exponent of 33330000 (at most 1000)"},
	} {
		err := resources.CheckQuantity(resource.MustParse(tc.q))
		if tc.want == "" {
			require.NoError(t, err, tc.q)
		} else {
			require.EqualError(t, err, tc.want, tc.q)
		}
	}
	name, ok := resources.CheckSum(corev1.ResourceList{"cpu": resource.MustParse("3e15")}, corev1.ResourceList{"cpu": resource.MustParse("3e15"), "memory": resource.MustParse("1Gi")})
	require.False(t, ok)
	require.Equal(t, corev1.ResourceCPU, name)
}

func TestVectorKey(t *testing.T) {
	cases := []struct {
		name  string
		a, b  resources.Vector
		equal bool
	}{
		{"equal vectors", resources.Vector{500, 1 << 30, 1, 0}, resources.Vector{500, 1 << 30, 1, 0}, true},
		{"one dimension differs", resources.Vector{500, 1 << 30, 1, 0}, resources.Vector{500, 1 << 30, 2, 0}, false},
		{"digits do not run into the next dimension", resources.Vector{1, 23}, resources.Vector{12, 3}, false},
		{"negative values", resources.Vector{-1, 0}, resources.Vector{1, 0}, false},
	}
	for _, c := range cases {
		if got := c.a.Key() == c.b.Key(); got != c.equal {
			t.Errorf("%s: keys %q and %q equal: %v, want %v", c.name, c.a.Key(), c.b.Key(), got, c.equal)
		}
	}
}
