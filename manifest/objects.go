package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	sigsjson "sigs.k8s.io/json"
)

// groupKind names an API kind independently of its version.
type groupKind struct{ group, kind string }

// kindDecoder decodes one document of a kind into its typed object (or, for Karpenter's
// objects, into nodeplan's converted form).
type kindDecoder func(d *decoder, doc *document, version string) (any, error)

// kinds are the kinds nodeplan reads. Built-in kinds in an older version of their group
// (apps/v1beta2, extensions/v1beta1, policy/v1beta1…) are read as the v1 kind with a warning.
var kinds = map[groupKind]kindDecoder{
	{"", "Pod"}:                   builtin[corev1.Pod],
	{"", "Node"}:                  builtin[corev1.Node],
	{"", "Namespace"}:             builtin[corev1.Namespace],
	{"", "PersistentVolumeClaim"}: builtin[corev1.PersistentVolumeClaim],
	{"", "PersistentVolume"}:      builtin[corev1.PersistentVolume],
	{"", "ReplicationController"}: builtin[corev1.ReplicationController],

	{"apps", "Deployment"}:            builtin[appsv1.Deployment],
	{"apps", "ReplicaSet"}:            builtin[appsv1.ReplicaSet],
	{"apps", "StatefulSet"}:           builtin[appsv1.StatefulSet],
	{"apps", "DaemonSet"}:             builtin[appsv1.DaemonSet],
	{"extensions", "Deployment"}:      builtin[appsv1.Deployment],
	{"extensions", "ReplicaSet"}:      builtin[appsv1.ReplicaSet],
	{"extensions", "DaemonSet"}:       builtin[appsv1.DaemonSet],
	{"batch", "Job"}:                  builtin[batchv1.Job],
	{"policy", "PodDisruptionBudget"}: builtin[policyv1.PodDisruptionBudget],

	{"storage.k8s.io", "StorageClass"}: builtin[storagev1.StorageClass],
	{"storage.k8s.io", "CSINode"}:      builtin[storagev1.CSINode],

	{"karpenter.sh", "NodePool"}:    decodeNodePool,
	{"karpenter.sh", "NodeClaim"}:   decodeNodeClaim,
	{"karpenter.sh", "Provisioner"}: decodeProvisioner,
	{"karpenter.sh", "NodeOverlay"}: decodeNodeOverlay,

	{groupKarpenterAWS, kindEC2NodeClass}:    decodeEC2NodeClass,
	{groupKarpenterAWS, kindAWSNodeTemplate}: decodeAWSNodeTemplate,
}

// servedVersions are the API versions each kind has been served in, current first: what the
// API server, kubectl or Karpenter ever wrote. A document in another version is refused as
// the API server refuses it; one in an older version of a built-in kind is read as the
// current one, with a warning.
var servedVersions = map[groupKind][]string{
	{"", "Pod"}:                   {"v1"},
	{"", "Node"}:                  {"v1"},
	{"", "Namespace"}:             {"v1"},
	{"", "PersistentVolumeClaim"}: {"v1"},
	{"", "PersistentVolume"}:      {"v1"},
	{"", "ReplicationController"}: {"v1"},

	{"apps", "Deployment"}:            {"v1", "v1beta2", "v1beta1"},
	{"apps", "ReplicaSet"}:            {"v1", "v1beta2"},
	{"apps", "StatefulSet"}:           {"v1", "v1beta2", "v1beta1"},
	{"apps", "DaemonSet"}:             {"v1", "v1beta2"},
	{"extensions", "Deployment"}:      {"v1beta1"},
	{"extensions", "ReplicaSet"}:      {"v1beta1"},
	{"extensions", "DaemonSet"}:       {"v1beta1"},
	{"batch", "Job"}:                  {"v1", "v2alpha1"},
	{"policy", "PodDisruptionBudget"}: {"v1", "v1beta1", "v1alpha1"},

	{"storage.k8s.io", "StorageClass"}: {"v1", "v1beta1"},
	{"storage.k8s.io", "CSINode"}:      {"v1", "v1beta1"},

	{"karpenter.sh", "NodePool"}:    {"v1", "v1beta1"},
	{"karpenter.sh", "NodeClaim"}:   {"v1", "v1beta1"},
	{"karpenter.sh", "Provisioner"}: {"v1alpha5"},
	{"karpenter.sh", "NodeOverlay"}: {"v1alpha1"},

	{groupKarpenterAWS, kindEC2NodeClass}:    {"v1", "v1beta1"},
	{groupKarpenterAWS, kindAWSNodeTemplate}: {"v1alpha1"},
}

// checkVersion refuses a version a kind was never served in.
func checkVersion(doc *document, gk groupKind, version string) error {
	served, known := servedVersions[gk]
	if !known || slices.Contains(served, version) {
		return nil
	}
	names := make([]string, len(served))
	for i, v := range served {
		names[i] = v
		if gk.group != "" {
			names[i] = gk.group + "/" + v
		}
	}
	return doc.errorf("apiVersion", "unknown version %q of %s (known versions: %s)", doc.apiVersion, gk.kind, strings.Join(names, ", "))
}

// clusterScoped are the kinds without a namespace.
var clusterScoped = map[groupKind]bool{
	{"", "Node"}:                             true,
	{"", "Namespace"}:                        true,
	{"", "PersistentVolume"}:                 true,
	{"storage.k8s.io", "StorageClass"}:       true,
	{"storage.k8s.io", "CSINode"}:            true,
	{"karpenter.sh", "NodePool"}:             true,
	{"karpenter.sh", "NodeClaim"}:            true,
	{"karpenter.sh", "Provisioner"}:          true,
	{"karpenter.sh", "NodeOverlay"}:          true,
	{groupKarpenterAWS, kindEC2NodeClass}:    true,
	{groupKarpenterAWS, kindAWSNodeTemplate}: true,
}

// splitAPIVersion returns group and version: "apps/v1" → ("apps", "v1"), "v1" → ("", "v1").
func splitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

// isList reports whether a document is a list of objects: kubectl writes "v1 List"; the API
// returns "<Kind>List" (PodList, DeploymentList…).
func isList(apiVersion, kind string) bool {
	if kind == "List" {
		return true
	}
	base, ok := strings.CutSuffix(kind, "List")
	if !ok {
		return false
	}
	group, _ := splitAPIVersion(apiVersion)
	_, known := kinds[groupKind{group, base}]
	return known
}

// decoder turns documents into typed objects, collecting warnings.
type decoder struct {
	warnings *warnings
	// fastPods, when set, decodes Pods faster.
	fastPods *fastPods
}

func (d *decoder) warnf(format string, args ...any) {
	d.warnings.add(fmt.Sprintf(format, args...))
}

// decode returns the typed object of a document, or nil for a kind nodeplan does not use.
func (d *decoder) decode(doc *document) (any, error) {
	if doc.kind == "" && doc.apiVersion == "" {
		if obj, ok, err := decodeByShape(doc); ok {
			return obj, err
		}
	}
	if doc.kind == "" || doc.apiVersion == "" {
		d.warnf("%s: no apiVersion or kind, skipped", doc.where())
		return nil, nil
	}
	group, version := splitAPIVersion(doc.apiVersion)
	gk := groupKind{group, doc.kind}
	dec, ok := kinds[gk]
	if !ok {
		d.warnf("%s: kind %s (%s) is not used by nodeplan, skipped", doc.where(), doc.kind, doc.apiVersion)
		return nil, nil
	}
	if doc.namespace == "" && !clusterScoped[gk] {
		doc.namespace = "default" // as the object will be named once defaulted
	}
	if err := checkVersion(doc, gk, version); err != nil {
		return nil, err
	}
	if doc.decoded != nil {
		return doc.decoded, nil
	}
	return dec(d, doc, version)
}

// builtin decodes a Kubernetes built-in kind into its v1 type.
func builtin[T any](d *decoder, doc *document, version string) (any, error) {
	if version != "v1" {
		group, _ := splitAPIVersion(doc.apiVersion)
		v1 := "v1"
		if group == "extensions" {
			group = "apps"
		}
		if group != "" {
			v1 = group + "/v1"
		}
		d.warnf("%s: %s is an old API version, read as %s", doc.where(), doc.apiVersion, v1)
	}
	return decodeTyped[T](d, doc)
}

// decodeTyped decodes a document into T, naming the field of a bad value, and warns about
// fields T does not have. Field names are case-sensitive, as for the API server: a field
// spelt otherwise is unknown, and ignored.
func decodeTyped[T any](d *decoder, doc *document) (*T, error) {
	if _, pod := any((*T)(nil)).(*corev1.Pod); pod {
		if p, ok := d.fastPods.decode(doc.raw); ok {
			return any(p).(*T), nil
		}
	}
	obj := new(T)
	strict, err := sigsjson.UnmarshalStrict(doc.raw, obj, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, &badValue{doc: doc, raw: doc.raw, target: func() any { return new(T) }}
	}
	if len(strict) > 0 {
		// Name them as the API server does, with a hint at the field meant.
		for _, f := range unknownFields(doc.raw, obj) {
			d.warnf("%s: unknown field %s, ignored", doc.where(), f)
		}
	}
	return obj, nil
}

// badValue is a document that does not decode. Its message, which names the field, is worked
// out only when asked for: loading keeps only the first MaxProblems errors.
type badValue struct {
	doc    *document
	raw    []byte
	target func() any
	once   sync.Once
	msg    string
}

func (e *badValue) Error() string {
	e.once.Do(func() {
		field, msg := locateError(e.raw, e.target())
		e.msg = e.doc.errorf(field, "%s", msg).Error()
	})
	return e.msg
}

func decodeNodePool(d *decoder, doc *document, version string) (any, error) {
	switch version {
	case "v1":
		o, err := decodeTyped[nodePoolV1](d, doc)
		if err != nil {
			return nil, err
		}
		np, err := convertNodePoolV1(doc, o)
		if err != nil {
			return nil, err
		}
		obj := &nodePoolObject{np: np}
		if obj.ref.Kind, obj.ref.Name, err = nodeClassRef(doc, "spec.template.spec.nodeClassRef", o.Spec.Template.Spec.NodeClassRef, kindEC2NodeClass); err != nil {
			return nil, err
		}
		if raw, ok := o.Annotations[annotationKubeletCompatibility]; ok {
			k, err := parseKubelet(d, doc, joinKey("metadata.annotations", annotationKubeletCompatibility), json.RawMessage(raw))
			if err != nil {
				return nil, err
			}
			obj.kubelet = &k
		}
		return obj, nil
	case "v1beta1":
		o, err := decodeTyped[nodePoolV1beta1](d, doc)
		if err != nil {
			return nil, err
		}
		np, err := convertNodePoolV1beta1(doc, o)
		if err != nil {
			return nil, err
		}
		obj := &nodePoolObject{np: np}
		if obj.ref.Kind, obj.ref.Name, err = nodeClassRef(doc, "spec.template.spec.nodeClassRef", o.Spec.Template.Spec.NodeClassRef, kindEC2NodeClass); err != nil {
			return nil, err
		}
		if raw := o.Spec.Template.Spec.Kubelet; len(raw) > 0 && string(raw) != "null" {
			k, err := parseKubelet(d, doc, "spec.template.spec.kubelet", raw)
			if err != nil {
				return nil, err
			}
			obj.kubelet = &k
		}
		return obj, nil
	}
	d.warnf("%s: %s NodePool is not supported (use karpenter.sh/v1 or v1beta1), skipped", doc.where(), doc.apiVersion)
	return nil, nil
}

func decodeProvisioner(d *decoder, doc *document, version string) (any, error) {
	if version != "v1alpha5" {
		d.warnf("%s: %s Provisioner is not supported (use karpenter.sh/v1alpha5), skipped", doc.where(), doc.apiVersion)
		return nil, nil
	}
	o, err := decodeTyped[provisionerV1alpha5](d, doc)
	if err != nil {
		return nil, err
	}
	np, err := convertProvisioner(doc, o)
	if err != nil {
		return nil, err
	}
	obj := &nodePoolObject{np: np}
	if obj.ref.Kind, obj.ref.Name, err = nodeClassRef(doc, "spec.providerRef", o.Spec.ProviderRef, kindAWSNodeTemplate); err != nil {
		return nil, err
	}
	if raw := o.Spec.Provider; len(raw) > 0 && string(raw) != "null" {
		p, err := decodeProvider(doc, raw)
		if err != nil {
			return nil, err
		}
		if obj.provider, err = providerNodeClass(doc, "spec.provider", p); err != nil {
			return nil, err
		}
	}
	if raw := o.Spec.KubeletConfiguration; len(raw) > 0 && string(raw) != "null" {
		k, err := parseKubelet(d, doc, "spec.kubeletConfiguration", raw)
		if err != nil {
			return nil, err
		}
		obj.kubelet = &k
	}
	return obj, nil
}

// decodeProvider reads a Provisioner's inline spec.provider.
func decodeProvider(doc *document, raw json.RawMessage) (*awsProvider, error) {
	var p awsProvider
	if err := json.Unmarshal(raw, &p); err != nil {
		f, msg := locateError(raw, &p)
		return nil, doc.errorf(joinField("spec.provider", f), "%s", msg)
	}
	return &p, nil
}

func decodeNodeClaim(d *decoder, doc *document, version string) (any, error) {
	if version != "v1" && version != "v1beta1" {
		d.warnf("%s: %s NodeClaim is not supported (use karpenter.sh/v1 or v1beta1), skipped", doc.where(), doc.apiVersion)
		return nil, nil
	}
	o, err := decodeTyped[nodeClaimObject](d, doc)
	if err != nil {
		return nil, err
	}
	return convertNodeClaim(doc, o)
}
