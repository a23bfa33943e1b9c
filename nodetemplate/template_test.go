package nodetemplate_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
)

func large() *testbuild.TypeBuilder {
	return testbuild.Type("m.large", "2", "8Gi", 30).Offer("test-1a", "on-demand", 0.10)
}

// Prepare orders NodePools by weight, then name, and refuses what a NodePool cannot be.
func TestPrepare(t *testing.T) {
	tests := []struct {
		name      string
		nodePools []*nodepool.NodePool
		want      []string
		wantErr   string
	}{
		{name: "heaviest first, ties by name",
			nodePools: []*nodepool.NodePool{testbuild.NodePool("b", large().Obj()).Obj(), testbuild.NodePool("c", large().Obj()).Weight(10).Obj(), testbuild.NodePool("a", large().Obj()).Obj()},
			want:      []string{"c", "a", "b"}},
		{name: "nil", nodePools: []*nodepool.NodePool{nil}, wantErr: "nodepools[0] is nil"},
		{name: "unnamed", nodePools: []*nodepool.NodePool{testbuild.NodePool("", large().Obj()).Obj()}, wantErr: "nodepools[0]: name must be set"},
		{name: "twice",
			nodePools: []*nodepool.NodePool{testbuild.NodePool("a", large().Obj()).Obj(), testbuild.NodePool("a", large().Obj()).Weight(5).Obj()},
			wantErr:   `nodepool "a" is given twice`},
		{name: "contradicting requirements",
			nodePools: []*nodepool.NodePool{testbuild.NodePool("a", large().Obj()).Requirement("team", corev1.NodeSelectorOpIn, "x").Requirement("team", corev1.NodeSelectorOpDoesNotExist).Obj()},
			wantErr:   `nodepool "a": requirements on "team" contradict each other`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			templates, err := nodetemplate.Prepare(tt.nodePools, resources.NewDims(), nil)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			var got []string
			for i, tpl := range templates {
				require.Equal(t, i, tpl.Index)
				got = append(got, tpl.NodePool.Name)
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// A Template's options are the types its requirements allow, with an available offering they
// allow, cheapest first; the room of each is allocatable less the daemons that run on the
// pool's nodes.
func TestTemplateOptions(t *testing.T) {
	arm := testbuild.Type("c.arm", "2", "4Gi", 30).Arch("arm64").Offer("test-1a", "spot", 0.03).Obj()
	cheap := testbuild.Type("c.large", "2", "4Gi", 30).Offer("test-1a", "spot", 0.04).Offer("test-1b", "on-demand", 0.08).Obj()
	gone := testbuild.Type("c.gone", "2", "4Gi", 30).Unavailable("test-1a", "spot", 0.01).Obj()
	ports := testbuild.DaemonSet(testbuild.Pod("proxy").CPU("250m").HostPort(9100).Obj())
	tainted := testbuild.DaemonSet(testbuild.Pod("gpu-agent").CPU("1").Obj()) // keeps off tainted nodes
	tests := []struct {
		name      string
		pool      *nodepool.NodePool
		wantTypes []string
		wantCPU   []int64 // each option's room, millicores
		wantPorts int
	}{
		{name: "amd64 only, both daemons",
			pool:      testbuild.NodePool("default", large().Obj(), arm, cheap, gone).Requirement(requirements.LabelArch, corev1.NodeSelectorOpIn, "amd64").Obj(),
			wantTypes: []string{"c.large", "m.large"}, wantCPU: []int64{750, 750}, wantPorts: 1},
		{name: "tainted: the untolerating daemons stay off",
			pool:      testbuild.NodePool("gpu", large().Obj(), arm).Taint("gpu", "true", corev1.TaintEffectNoSchedule).Obj(),
			wantTypes: []string{"c.arm", "m.large"}, wantCPU: []int64{2000, 2000}, wantPorts: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dims := resources.NewDims()
			tpl, err := nodetemplate.New(tt.pool, 0, dims, daemonset.Templates([]*appsv1.DaemonSet{ports, tainted}, dims))
			require.NoError(t, err)
			var names []string
			var cpu []int64
			for i, o := range tpl.Types {
				require.Equal(t, i, o.Index)
				names = append(names, o.InstanceType.Name)
				cpu = append(cpu, o.Room[resources.CPU])
			}
			require.Equal(t, tt.wantTypes, names)
			require.Equal(t, tt.wantCPU, cpu)
			require.Len(t, tpl.DaemonPorts, tt.wantPorts)
		})
	}
}

// A pod may require a key only the NodePool or its types define; minValues counts the values
// its options keep.
func TestTemplateAdmitsAndMinValues(t *testing.T) {
	gpu := testbuild.Type("g.large", "4", "16Gi", 30).Label("example.com/gpu", "t4").Offer("test-1a", "on-demand", 0.5).Offer("test-1b", "on-demand", 0.5).Obj()
	np := testbuild.NodePool("default", large().Obj(), gpu).Label("team", "web").MinValues(requirements.LabelTopologyZone, 2, corev1.NodeSelectorOpExists).Obj()
	tpl, err := nodetemplate.New(np, 0, resources.NewDims(), nil)
	require.NoError(t, err)
	require.Equal(t, []nodetemplate.MinValuesRule{{Key: requirements.LabelTopologyZone, Min: 2}}, tpl.MinValues)
	for _, tt := range []struct {
		key  string
		want bool
	}{{"team", true}, {"example.com/gpu", true}, {"example.com/other", false}} {
		alt := requirements.Requirements{}
		alt.Add(requirements.New(tt.key, corev1.NodeSelectorOpExists))
		require.Equal(t, tt.want, tpl.Admits(tpl.Reqs, alt), tt.key)
		require.Equal(t, tt.want, tpl.WhyNot(tpl.Reqs, alt) == nil, tt.key)
	}
	require.Equal(t, 2, nodetemplate.DistinctValues(requirements.LabelTopologyZone, tpl.Types, tpl.Reqs))
	require.Equal(t, 1, nodetemplate.DistinctValues(requirements.LabelTopologyZone, tpl.Types[:1], tpl.Reqs))
}

// A Set is reused only for the same NodePool and DaemonSet objects and resources: a pod naming
// a resource the Set does not know needs a new one.
func TestSetReuse(t *testing.T) {
	np := testbuild.NodePool("default", large().Obj()).Obj()
	dims := resources.NewDims()
	set, err := nodetemplate.NewSet([]*nodepool.NodePool{np}, nil, dims)
	require.NoError(t, err)
	require.True(t, set.Of([]*nodepool.NodePool{np}, nil))
	require.False(t, set.Of([]*nodepool.NodePool{testbuild.NodePool("default", large().Obj()).Obj()}, nil), "another object")
	require.True(t, set.SameDims(resources.NewDims()))
	require.False(t, set.SameDims(resources.NewDims(corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")})))
	require.Equal(t, map[string][]string{requirements.LabelTopologyZone: {"test-1a"}}, set.Launchable)

	names := set.Names()
	names.Visit(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")})
	require.True(t, names.All())
	names.Visit(corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")})
	require.False(t, names.All())
}

// A full memo starts over rather than growing without bound.
func TestMemoStartsOverWhenFull(t *testing.T) {
	var m nodetemplate.Memo[int]
	m.Put("first", 1)
	for i := range 1 << 12 {
		m.Put(string(rune('a'+i%26))+string(rune(i)), i)
	}
	_, ok := m.Get("first")
	require.False(t, ok, "the first entry is forgotten once the memo filled up")
	m.Put("last", 2)
	v, ok := m.Get("last")
	require.True(t, ok)
	require.Equal(t, 2, v)
}

// VaryingDims are the resources in which the NodePool's types offer pods different room: two
// types of the same cpu differ in memory and pods alone; with a third of other cpu, cpu varies
// too. Ephemeral storage, the same on every type, never does.
func TestVaryingDims(t *testing.T) {
	dims := resources.NewDims()
	for _, tt := range []struct {
		name  string
		types []*testbuild.TypeBuilder
		want  []int
	}{
		{"one type", []*testbuild.TypeBuilder{large()}, nil},
		{"same cpu", []*testbuild.TypeBuilder{large(), testbuild.Type("r.large", "2", "16Gi", 40).Offer("test-1a", "on-demand", 0.12)},
			[]int{resources.Memory, resources.Pods}},
		{"other cpu", []*testbuild.TypeBuilder{large(), testbuild.Type("r.large", "2", "16Gi", 40).Offer("test-1a", "on-demand", 0.12),
			testbuild.Type("m.xlarge", "4", "8Gi", 30).Offer("test-1a", "on-demand", 0.20)},
			[]int{resources.CPU, resources.Memory, resources.Pods}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var types []*instancetype.InstanceType
			for _, b := range tt.types {
				types = append(types, b.Obj())
			}
			templates, err := nodetemplate.Prepare([]*nodepool.NodePool{testbuild.NodePool("a", types...).Obj()}, dims, nil)
			require.NoError(t, err)
			require.Equal(t, tt.want, templates[0].VaryingDims)
		})
	}
}
