package volume

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// MaxAlternatives bounds the node requirement sets one pod's volumes may produce. Beyond it
// the pod is reported unschedulable rather than making the solver try every combination.
const MaxAlternatives = 64

// PodVolumes is what a pod's volumes ask of the node it runs on.
type PodVolumes struct {
	// Alternatives are node requirement sets, any one of which the node must satisfy: the
	// cross product of each volume's alternatives, incompatible combinations removed. Empty
	// means the volumes do not constrain the node. They constrain the node only: do not add
	// them to the pod's own requirements (topology spread counts domains from those). The
	// caller owns the sets and may modify them.
	Alternatives []requirements.Requirements
	// Claims the pod uses, sorted by key, one entry per claim.
	Claims []Claim
}

// Claim is a PersistentVolumeClaim a pod uses, with what the solver needs for access modes and
// attach limits.
type Claim struct {
	// Key is namespace/name.
	Key string
	// Driver is the CSI driver that attaches the volume: the bound volume's spec.csi.driver,
	// else the StorageClass's provisioner; in-tree plugins migrated to CSI (kubernetes.io/aws-ebs,
	// awsElasticBlockStore, …) map to their CSI driver as kube-scheduler counts them. "" for
	// volumes no CSI driver attaches (local, hostPath, NFS); those never count against limits.
	Driver string
	// ReadWriteOnce: the claim is writable from one node only, so every pod using it must run
	// on the same node. ReadWriteOncePod: at most one pod may use it.
	ReadWriteOnce, ReadWriteOncePod bool
	// InUseOn is the existing node where a bound pod already uses the claim ("" if none; the
	// first by name if several). A ReadWriteOnce or ReadWriteOncePod claim pins new users there.
	InUseOn string
}

// ForPod resolves a pod's persistentVolumeClaim and generic ephemeral volumes (whose claim is
// named <pod>-<volume>) into node requirements and claims. Other volume types are ignored.
//
// A generic ephemeral volume whose claim does not exist yet is read from its template, as the
// claim the ephemeral-volume controller will create; so is every ephemeral volume of a pod
// that is already bound (spec.nodeName), since a rescheduled pod gets a new claim. An existing
// claim named like an ephemeral volume's must be controlled by the pod.
//
// The error, when not nil, is an *Error: the pod cannot be scheduled now because of its volumes.
func (ix *Index) ForPod(pod *corev1.Pod) (PodVolumes, error) {
	if pod == nil || len(pod.Spec.Volumes) == 0 {
		return PodVolumes{}, nil
	}
	ns := namespaceOf(pod)
	podKey := objectKey(ns, pod.Name)
	var vols []*resolvedClaim
	for i := range pod.Spec.Volumes {
		r, err := ix.podVolume(pod, ns, &pod.Spec.Volumes[i])
		if err != nil {
			err.Pod = podKey
			return PodVolumes{}, err
		}
		if r == nil || containsClaim(vols, r.claim.Key) {
			continue
		}
		if r.reason != "" {
			return PodVolumes{}, &Error{Pod: podKey, Claims: []string{r.claim.Key}, Reason: r.reason}
		}
		vols = append(vols, r)
	}
	if len(vols) == 0 {
		return PodVolumes{}, nil
	}
	out := PodVolumes{Claims: make([]Claim, len(vols))}
	for i, v := range vols {
		out.Claims[i] = v.claim
	}
	sort.Slice(out.Claims, func(i, j int) bool { return out.Claims[i].Key < out.Claims[j].Key })
	alts, err := combine(vols)
	if err != nil {
		err.Pod = podKey
		return PodVolumes{}, err
	}
	out.Alternatives = alts
	return out, nil
}

// podVolume returns the resolved claim behind one pod volume, nil if it uses none.
func (ix *Index) podVolume(pod *corev1.Pod, ns string, v *corev1.Volume) (*resolvedClaim, *Error) {
	switch {
	case v.PersistentVolumeClaim != nil:
		if v.PersistentVolumeClaim.ClaimName == "" {
			return nil, &Error{Reason: fmt.Sprintf("volume %q names no persistentvolumeclaim", v.Name)}
		}
		key := objectKey(ns, v.PersistentVolumeClaim.ClaimName)
		r, ok := ix.resolved[key]
		if !ok {
			return nil, &Error{Claims: []string{key}, Reason: fmt.Sprintf("persistentvolumeclaim %s not found", key)}
		}
		return r, nil
	case v.Ephemeral != nil:
		name := pod.Name + "-" + v.Name
		key := objectKey(ns, name)
		tmpl := v.Ephemeral.VolumeClaimTemplate
		if pvc, ok := ix.claims[key]; ok && pod.Spec.NodeName == "" {
			if !controlledBy(pvc, pod) {
				return nil, &Error{Claims: []string{key}, Reason: fmt.Sprintf("persistentvolumeclaim %s exists but was not created for pod %s (the pod is not its controller), so the generic ephemeral volume %q cannot use it", key, objectKey(ns, pod.Name), v.Name)}
			}
			return ix.resolved[key], nil
		}
		if tmpl == nil {
			return nil, &Error{Claims: []string{key}, Reason: fmt.Sprintf("generic ephemeral volume %q has no volumeClaimTemplate", v.Name)}
		}
		return ix.resolveUnboundSpec(key, name, tmpl.Annotations, &tmpl.Spec), nil
	}
	return nil, nil
}

// controlledBy reports whether the pod is the claim's controller: by UID when both have one,
// else by kind and name (manifests often carry no UIDs).
func controlledBy(pvc *corev1.PersistentVolumeClaim, pod *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(pvc)
	if ref == nil || ref.Kind != "Pod" {
		return false
	}
	if ref.UID != "" && pod.UID != "" {
		return ref.UID == pod.UID
	}
	return ref.Name == pod.Name
}

func containsClaim(vols []*resolvedClaim, key string) bool {
	for _, v := range vols {
		if v.claim.Key == key {
			return true
		}
	}
	return false
}

// combine builds the cross product of the volumes' alternatives, dropping incompatible
// combinations and repeats. nil means no constraint.
func combine(vols []*resolvedClaim) ([]requirements.Requirements, *Error) {
	acc := []requirements.Requirements{{}}
	var constrained []*resolvedClaim
	for _, v := range vols {
		if len(v.alts) == 0 {
			continue
		}
		// A volume's own alternatives are distinct, so combining them with the first
		// constraint, or one set with one set, cannot repeat.
		var seen map[string]bool
		if len(constrained) > 0 && len(acc)*len(v.alts) > 1 {
			seen = map[string]bool{}
		}
		var next []requirements.Requirements
		for _, a := range acc {
			for _, b := range v.alts {
				if a.Conflict(b) != "" {
					continue
				}
				m := make(requirements.Requirements, len(a)+len(b))
				m.AddAll(a)
				m.AddAll(b)
				if seen != nil {
					s := m.String()
					if seen[s] {
						continue
					}
					seen[s] = true
				}
				next = append(next, m)
			}
		}
		if len(next) == 0 {
			return nil, conflictError(constrained, v, acc)
		}
		if len(next) > MaxAlternatives {
			return nil, &Error{
				Claims: claimKeys(append(constrained, v)),
				Reason: fmt.Sprintf("the volumes %s allow more than %d combinations of node requirements; nodeplan does not try them all", claimNames(append(constrained, v)), MaxAlternatives),
			}
		}
		constrained = append(constrained, v)
		acc = next
	}
	if len(acc) == 1 && len(acc[0]) == 0 {
		return nil, nil
	}
	return acc, nil
}

// conflictError explains why the claim failing cannot be combined with the claims before it.
// It names a single earlier claim when one alone is incompatible, else all of them.
func conflictError(prior []*resolvedClaim, failing *resolvedClaim, acc []requirements.Requirements) *Error {
	involved := append(append([]*resolvedClaim(nil), prior...), failing)
	key := firstConflictKey(acc, failing.alts)
	for _, p := range prior {
		if !anyCompatible(p.alts, failing.alts) {
			involved = []*resolvedClaim{p, failing}
			key = firstConflictKey(p.alts, failing.alts)
			break
		}
	}
	parts := make([]string, len(involved))
	for i, c := range involved {
		parts[i] = fmt.Sprintf("%s (%s)", c.name, describe(c.alts, key))
	}
	return &Error{
		Claims: claimKeys(involved),
		Reason: fmt.Sprintf("PVCs %s cannot be attached %s", joinAnd(parts), where(key)),
	}
}

func anyCompatible(as, bs []requirements.Requirements) bool {
	for _, a := range as {
		for _, b := range bs {
			if a.Conflict(b) == "" {
				return true
			}
		}
	}
	return false
}

// firstConflictKey returns the key, first in sorted order, on which the first pair of
// alternatives disagrees.
func firstConflictKey(as, bs []requirements.Requirements) string {
	for _, a := range as {
		for _, b := range bs {
			if err := a.Intersects(b); err != nil {
				if ce, ok := err.(*requirements.ConflictError); ok {
					return ce.Key
				}
			}
		}
	}
	return requirements.LabelTopologyZone
}

// describe lists what a claim's alternatives allow for key: the values of In requirements,
// other requirements as written, "any" where an alternative leaves key open.
func describe(alts []requirements.Requirements, key string) string {
	seen := map[string]bool{}
	var out []string
	for _, a := range alts {
		var items []string
		switch r, ok := a[key]; {
		case !ok:
			items = []string{"any " + shortKey(key)}
		case r.Operator() == corev1.NodeSelectorOpIn:
			items = r.Values()
		default:
			items = []string{r.String()}
		}
		for _, it := range items {
			if !seen[it] {
				seen[it] = true
				out = append(out, it)
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func shortKey(key string) string {
	switch key {
	case requirements.LabelTopologyZone:
		return "zone"
	case requirements.LabelTopologyRegion:
		return "region"
	case requirements.LabelHostname:
		return "node"
	}
	return key
}

func where(key string) string {
	switch key {
	case requirements.LabelTopologyZone:
		return "in one zone"
	case requirements.LabelTopologyRegion:
		return "in one region"
	case requirements.LabelHostname:
		return "on one node"
	}
	return fmt.Sprintf("to one node: their %s requirements do not overlap", key)
}

func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func claimKeys(cs []*resolvedClaim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.claim.Key
	}
	sort.Strings(out)
	return out
}

func claimNames(cs []*resolvedClaim) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.name
	}
	return joinAnd(names)
}
