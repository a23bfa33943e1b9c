package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Bundle is everything nodeplan read from a set of manifests, converted to library inputs.
type Bundle struct {
	// Pods are the pending pods: input Pods without spec.nodeName and the pods that workloads
	// (Deployments, ReplicaSets, ReplicationControllers, StatefulSets, Jobs) still need, in
	// input order (files in the order given, documents in order, ordinals ascending). The pods
	// of one workload share its template's labels, annotations and the maps, slices and
	// pointers of its spec: treat them as read-only, or copy before changing them.
	Pods []*corev1.Pod
	// BoundPods are input Pods with spec.nodeName: running (or being deleted) on that node.
	BoundPods []*corev1.Pod
	// Nodes sorted by name.
	Nodes []*corev1.Node
	// NodeClaims sorted by name.
	NodeClaims []*NodeClaim
	// NodePools sorted by name, from karpenter.sh/v1 and v1beta1 NodePools and v1alpha5
	// Provisioners. InstanceTypes is nil: the caller assigns the catalog.
	NodePools []*scheduling.NodePool
	// NodeClasses are the EC2NodeClasses and AWSNodeTemplates, sorted by kind and name.
	NodeClasses []*aws.NodeClass
	// NodeClassOf gives, by NodePool name, the node class the NodePool's nodes launch with:
	// the class its nodeClassRef (a Provisioner's providerRef or inline provider) names, with
	// the NodePool's own kubelet settings (v1beta1 spec.template.spec.kubelet, v1alpha5
	// spec.kubeletConfiguration) in place of the class's. A NodePool whose class is not in the
	// input and that has no kubelet settings of its own is absent: the catalog's defaults
	// apply. A NodePool whose class knows its subnets' zones also requires those zones.
	NodeClassOf map[string]*aws.NodeClass
	// NodeOverlays (karpenter.sh/v1alpha1), sorted by name.
	NodeOverlays []*instancetype.Overlay
	// DaemonSets are kept as objects: their pod template is per-node overhead.
	DaemonSets []*appsv1.DaemonSet
	// Namespaces sorted by name: those given and those the objects use, each labelled
	// kubernetes.io/metadata.name as the API server does, for namespaceSelectors.
	Namespaces []*corev1.Namespace
	// PersistentVolumeClaims include those a StatefulSet's volumeClaimTemplates and a pod's
	// ephemeral volumes create; claims without a class get the default StorageClass.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	CSINodes               []*storagev1.CSINode
	PodDisruptionBudgets   []*policyv1.PodDisruptionBudget
	// Warnings are problems that did not stop loading (skipped kinds, unknown fields, old
	// API versions, finished pods, bound pods whose Node is missing), in input order; those
	// about one document name its file and document.
	Warnings []string
}

// StdinPath is the path that Load reads from stdin.
const StdinPath = "-"

// Load reads manifests from files and directories (every *.yaml, *.yml and *.json below
// them, in lexical order) and "-" (stdin), and returns them as one Bundle. Devices, named
// pipes and sockets are refused; a document of stdin may be at most MaxStreamDocument bytes. Files are read in
// the order given. Malformed documents are reported, each naming its file, document, object
// and field: the first MaxProblems of them, then how many more there are.
func Load(paths []string, stdin io.Reader) (*Bundle, error) {
	var docs []*document
	var w warnings
	var errs problems
	seen := map[string]bool{}
	read := func(path, source string) {
		if seen[path] {
			return
		}
		seen[path] = true
		data, err := readFile(path)
		if err != nil {
			errs.add(err)
			return
		}
		ds, err := splitFile(data, source, &w)
		docs = append(docs, ds...)
		errs.add(err)
	}
	for _, p := range paths {
		if p == StdinPath {
			if seen[p] {
				continue
			}
			seen[p] = true
			if stdin == nil {
				errs.add(errors.New("-: no standard input to read"))
				continue
			}
			data, err := readStream(stdin, "stdin", MaxStreamDocument)
			if err != nil {
				errs.add(err)
				continue
			}
			ds, err := splitFile(data, "stdin", &w)
			docs = append(docs, ds...)
			errs.add(err)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			errs.add(err)
			continue
		}
		if err := checkReadable(p, info); err != nil {
			errs.add(err)
			continue
		}
		if !info.IsDir() {
			read(filepath.Clean(p), p)
			continue
		}
		found := 0
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if isManifestFile(path) {
				found++
				read(filepath.Clean(path), path)
			}
			return nil
		})
		if err != nil {
			errs.add(err)
		} else if found == 0 {
			w.add(fmt.Sprintf("%s: no *.yaml, *.yml or *.json files", p))
		}
	}
	// Report the documents of the readable files too, so one run shows every problem.
	return build(docs, &w, &errs)
}

func isManifestFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// Parse reads one file's content (YAML, multi-document YAML, or JSON: one or more values,
// an array of objects); source names it in messages, and a source ending in .json is read
// as JSON only. The result is complete on its own, as if Load had read only that file.
func Parse(data []byte, source string) (*Bundle, error) {
	var w warnings
	docs, err := splitFile(data, source, &w)
	if err != nil {
		return nil, err
	}
	return build(docs, &w, &problems{})
}

// NodePoolsOrDefault returns the bundle's NodePools, or the default NodePool when it has none.
func (b *Bundle) NodePoolsOrDefault() []*scheduling.NodePool {
	if len(b.NodePools) == 0 {
		return []*scheduling.NodePool{DefaultNodePool()}
	}
	return b.NodePools
}

// SchedulingInput returns the bundle as a scheduling.Input: its pending pods, NodePools (the
// default one when none was given; their InstanceTypes are still to be assigned), existing
// nodes, DaemonSets, namespaces and volume objects. Options are left zero.
func (b *Bundle) SchedulingInput() scheduling.Input {
	return scheduling.Input{
		Pods:                   b.Pods,
		NodePools:              b.NodePoolsOrDefault(),
		ExistingNodes:          b.ExistingNodes(),
		DaemonSets:             b.DaemonSets,
		Namespaces:             b.Namespaces,
		PersistentVolumeClaims: b.PersistentVolumeClaims,
		PersistentVolumes:      b.PersistentVolumes,
		StorageClasses:         b.StorageClasses,
	}
}

// AssignInstanceTypes gives each NodePool the catalog's types as its nodes would see them:
// through its node class (NodeClassOf: zones, kubelet, volumes), then through the
// NodeOverlays. It returns a warning per overlay left out because it conflicts with another
// of the same weight (Karpenter marks those ValidationSucceeded=False and ignores them).
func (b *Bundle) AssignInstanceTypes(pools []*scheduling.NodePool, catalog []*instancetype.InstanceType) []string {
	targets := make([]instancetype.OverlayTarget, len(pools))
	for i, np := range pools {
		types := catalog
		if nc := b.NodeClassOf[np.Name]; nc != nil {
			types = nc.InstanceTypes(catalog)
		}
		labels := maps.Clone(np.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[requirements.LabelNodePool] = np.Name
		targets[i] = instancetype.OverlayTarget{Labels: labels, InstanceTypes: types}
	}
	if len(b.NodeOverlays) == 0 {
		for i, np := range pools {
			np.InstanceTypes = targets[i].InstanceTypes
		}
		return nil
	}
	applied, conflicts := instancetype.ApplyOverlays(b.NodeOverlays, targets)
	for i, np := range pools {
		np.InstanceTypes = applied[i]
	}
	warnings := make([]string, len(conflicts))
	for i, name := range conflicts {
		warnings[i] = fmt.Sprintf("NodeOverlay %s conflicts with another overlay of the same weight (both set a price or the same resource of one instance type): not applied", name)
	}
	return warnings
}
