package nodetemplate

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Set is NodePools prepared once as Templates, with the DaemonSets and the resources they
// were prepared for, for callers that solve many times over the same NodePools (a replay
// deciding every few seconds). A Set is never modified, apart from its templates' memos, and
// may be shared by goroutines.
type Set struct {
	nodePools  []*nodepool.NodePool
	daemonSets []*appsv1.DaemonSet
	Dims       *resources.Dims
	Daemons    []*daemonset.Template
	Templates  []*Template
	// Launchable is LaunchableDomains of the templates, which every plan over them reports.
	Launchable map[string][]string
	// named marks the dimensions the NodePools and DaemonSets name (Names).
	named []bool
}

// NewSet prepares the NodePools (Prepare) with the DaemonSets for the resources dims.
func NewSet(nodePools []*nodepool.NodePool, daemonSets []*appsv1.DaemonSet, dims *resources.Dims) (*Set, error) {
	daemons := daemonset.Templates(daemonSets, dims)
	templates, err := Prepare(nodePools, dims, daemons)
	if err != nil {
		return nil, err
	}
	return &Set{nodePools: slices.Clone(nodePools), daemonSets: slices.Clone(daemonSets), Dims: dims, Daemons: daemons, Templates: templates,
		Launchable: LaunchableDomains(len(templates), func(i int) *Template { return templates[i] }),
		named:      namedBy(nodePools, daemonSets, dims)}, nil
}

// Of reports whether s was prepared from these NodePool and DaemonSet objects, in this order
// (objects are never modified, so the same object means the same content).
func (s *Set) Of(nodePools []*nodepool.NodePool, daemonSets []*appsv1.DaemonSet) bool {
	return s != nil && slices.Equal(s.nodePools, nodePools) && slices.Equal(s.daemonSets, daemonSets)
}

// SameDims reports whether dims name the resources of s.Dims, in the same order.
func (s *Set) SameDims(dims *resources.Dims) bool {
	if s.Dims.Len() != dims.Len() {
		return false
	}
	for i := range dims.Len() {
		if s.Dims.Name(i) != dims.Name(i) {
			return false
		}
	}
	return true
}

// Names tells whether the resources of a solve's other objects (nodes, pods), together with
// those the Set's NodePools and DaemonSets name, are exactly the Set's Dims: then collecting
// them would give the Set's Dims again, and is not needed. Visit each resource list, then ask
// All.
type Names struct {
	dims    *resources.Dims
	named   []bool
	unknown bool
}

// Names starts a Names over the Set's own resources.
func (s *Set) Names() Names {
	return Names{dims: s.Dims, named: slices.Clone(s.named)}
}

// Visit counts the resources l names ("nodes", a limit only, aside).
func (n *Names) Visit(l corev1.ResourceList) {
	for name := range l {
		if name == "nodes" {
			continue
		}
		i, ok := n.dims.Index(name)
		if !ok {
			n.unknown = true
			return
		}
		n.named[i] = true
	}
}

// All reports whether the visited resources and the Set's are exactly its Dims.
func (n *Names) All() bool { return !n.unknown && n.dims.NamesAll(n.named) }

// namedBy marks the dimensions the NodePools (their limits and instance types) and the
// DaemonSets name.
func namedBy(nodePools []*nodepool.NodePool, daemonSets []*appsv1.DaemonSet, dims *resources.Dims) []bool {
	named := make([]bool, dims.Len())
	visit := func(l corev1.ResourceList) {
		for name := range l {
			if i, ok := dims.Index(name); ok {
				named[i] = true
			}
		}
	}
	for _, np := range nodePools {
		if np == nil {
			continue
		}
		visit(np.Limits)
		for _, it := range np.InstanceTypes {
			if it != nil {
				visit(it.Capacity)
			}
		}
	}
	for _, ds := range daemonSets {
		if ds != nil {
			resources.VisitPodSpec(&ds.Spec.Template.Spec, visit)
		}
	}
	return named
}
