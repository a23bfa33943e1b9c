package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// The API server refuses these values; so does nodeplan, naming the field, rather than plan
// for objects that cannot exist. The checks are the API server's (k8s.io/kubernetes
// pkg/apis/core/validation) for the fields planning reads, worded as the rest of the loader.

// validator checks values as the API server does. It remembers the label keys and values
// apimachinery found valid: they repeat across the pods of a snapshot, and its regular
// expressions were a quarter of reading a JSON snapshot.
type validator struct {
	validKeys, validValues, validNamespaces map[string]struct{}
}

func (v *validator) isQualifiedName(s string) []string {
	return v.remember(&v.validKeys, s, validation.IsQualifiedName)
}

func (v *validator) isValidLabelValue(s string) []string {
	return v.remember(&v.validValues, s, validation.IsValidLabelValue)
}

func (v *validator) remember(valid *map[string]struct{}, s string, check func(string) []string) []string {
	if _, ok := (*valid)[s]; ok {
		return nil
	}
	errs := check(s)
	if len(errs) == 0 {
		if *valid == nil {
			*valid = map[string]struct{}{}
		}
		(*valid)[s] = struct{}{}
	}
	return errs
}

// knownValid reports whether every key and value of labels was found valid before.
func (v *validator) knownValid(labels map[string]string) bool {
	for key, value := range labels {
		if _, ok := v.validKeys[key]; !ok {
			return false
		}
		if _, ok := v.validValues[value]; !ok {
			return false
		}
	}
	return true
}

// name checks an object's name and namespace: a Namespace's name is a DNS label
// (at most 63 characters), any other name a DNS subdomain (at most 253).
func (v *validator) name(doc *document, kind string, meta *metav1.ObjectMeta) error {
	check, what := validation.IsDNS1123Subdomain, "DNS subdomain"
	if kind == "Namespace" {
		check, what = validation.IsDNS1123Label, "DNS label"
	}
	if errs := check(meta.Name); len(errs) > 0 {
		return doc.errorf("metadata.name", "%q is not a valid name (a %s): %s", abbreviated(meta.Name), what, strings.Join(errs, "; "))
	}
	if meta.Namespace != "" {
		if errs := v.remember(&v.validNamespaces, meta.Namespace, validation.IsDNS1123Label); len(errs) > 0 {
			return doc.errorf("metadata.namespace", "%q is not a valid namespace name (a DNS label): %s", abbreviated(meta.Namespace), strings.Join(errs, "; "))
		}
	}
	return nil
}

// abbreviated keeps a long value short enough to quote in a message.
func abbreviated(s string) string {
	const most = 64
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}

// validateMetadata checks the labels and annotation keys of an object or a pod template;
// field is the path of its metadata.
func (v *validator) metadata(doc *document, field string, meta *metav1.ObjectMeta) error {
	if err := v.labels(doc, field+".labels", meta.Labels); err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(meta.Annotations)) {
		if errs := validation.IsQualifiedName(strings.ToLower(key)); len(errs) > 0 {
			return doc.errorf(joinKey(field+".annotations", key), "%q is not a valid annotation key: %s", key, strings.Join(errs, "; "))
		}
	}
	return nil
}

// validateLabels checks label keys (qualified names) and values (at most 63 characters of
// letters, digits, '-', '_' and '.', starting and ending with a letter or digit).
func (v *validator) labels(doc *document, field string, labels map[string]string) error {
	valid := true
	for key, value := range labels {
		if len(v.isQualifiedName(key)) > 0 || len(v.isValidLabelValue(value)) > 0 {
			valid = false
			break
		}
	}
	if valid {
		return nil // the common case, without sorting the keys or naming the fields
	}
	for _, key := range slices.Sorted(maps.Keys(labels)) {
		f := joinKey(field, key)
		if errs := v.isQualifiedName(key); len(errs) > 0 {
			return doc.errorf(f, "%q is not a valid label key: %s", key, strings.Join(errs, "; "))
		}
		if errs := v.isValidLabelValue(labels[key]); len(errs) > 0 {
			return doc.errorf(f, "%q is not a valid label value: %s", abbreviated(labels[key]), strings.Join(errs, "; "))
		}
	}
	return nil
}

// validatePodSpec checks the scheduling fields of a pod spec: node selector, tolerations,
// topology spread constraints, affinity. field is the spec's path ("spec" or
// "spec.template.spec").
func (v *validator) podSpec(doc *document, field string, spec *corev1.PodSpec) error {
	if err := v.labels(doc, field+".nodeSelector", spec.NodeSelector); err != nil {
		return err
	}
	if err := v.tolerations(doc, field+".tolerations", spec.Tolerations); err != nil {
		return err
	}
	if err := v.spread(doc, field+".topologySpreadConstraints", spec.TopologySpreadConstraints); err != nil {
		return err
	}
	if err := v.affinity(doc, field+".affinity", spec.Affinity); err != nil {
		return err
	}
	for i, vol := range spec.Volumes {
		if vol.Ephemeral != nil && vol.Ephemeral.VolumeClaimTemplate != nil {
			f := fmt.Sprintf("%s.volumes[%d].ephemeral.volumeClaimTemplate.spec", field, i)
			if err := validateClaimSpec(doc, f, &vol.Ephemeral.VolumeClaimTemplate.Spec); err != nil {
				return err
			}
		}
	}
	return nil
}

func (v *validator) tolerations(doc *document, field string, tolerations []corev1.Toleration) error {
	for i, t := range tolerations {
		f := fmt.Sprintf("%s[%d]", field, i)
		if t.Key != "" {
			if errs := v.isQualifiedName(t.Key); len(errs) > 0 {
				return doc.errorf(f+".key", "%q is not a valid toleration key: %s", t.Key, strings.Join(errs, "; "))
			}
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if t.Key == "" {
				return doc.errorf(f+".operator", "must be Exists when key is empty (a toleration of every taint)")
			}
			if errs := v.isValidLabelValue(t.Value); len(errs) > 0 {
				return doc.errorf(f+".value", "%q is not a valid toleration value: %s", abbreviated(t.Value), strings.Join(errs, "; "))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				return doc.errorf(f+".value", "must be empty when the operator is Exists, got %q", abbreviated(t.Value))
			}
		default:
			return doc.errorf(f+".operator", "unknown toleration operator %q (use Equal or Exists)", t.Operator)
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return doc.errorf(f+".effect", "unknown taint effect %q (use NoSchedule, PreferNoSchedule, NoExecute, or leave it empty for all)", t.Effect)
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			return doc.errorf(f+".effect", "must be NoExecute when tolerationSeconds is set")
		}
	}
	return nil
}

func (v *validator) spread(doc *document, field string, constraints []corev1.TopologySpreadConstraint) error {
	type keyAndAction struct{ key, action string }
	seen := map[keyAndAction]int{}
	for i, c := range constraints {
		f := fmt.Sprintf("%s[%d]", field, i)
		if c.MaxSkew <= 0 {
			return doc.errorf(f+".maxSkew", "must be greater than zero, got %d", c.MaxSkew)
		}
		if err := v.topologyKey(doc, f+".topologyKey", c.TopologyKey); err != nil {
			return err
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			return doc.errorf(f+".whenUnsatisfiable", "unknown action %q (use DoNotSchedule or ScheduleAnyway)", c.WhenUnsatisfiable)
		}
		k := keyAndAction{c.TopologyKey, string(c.WhenUnsatisfiable)}
		if j, ok := seen[k]; ok {
			return doc.errorf(f, "repeats the topologyKey and whenUnsatisfiable of %s[%d] (%s, %s)", field, j, c.TopologyKey, c.WhenUnsatisfiable)
		}
		seen[k] = i
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				return doc.errorf(f+".minDomains", "must be greater than zero, got %d", *c.MinDomains)
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				return doc.errorf(f+".minDomains", "can only be set when whenUnsatisfiable is DoNotSchedule")
			}
		}
		for _, p := range []struct {
			name   string
			policy *corev1.NodeInclusionPolicy
		}{{"nodeAffinityPolicy", c.NodeAffinityPolicy}, {"nodeTaintsPolicy", c.NodeTaintsPolicy}} {
			if p.policy != nil && *p.policy != corev1.NodeInclusionPolicyHonor && *p.policy != corev1.NodeInclusionPolicyIgnore {
				return doc.errorf(f+"."+p.name, "unknown policy %q (use Honor or Ignore)", *p.policy)
			}
		}
		if err := v.selector(doc, f+".labelSelector", c.LabelSelector); err != nil {
			return err
		}
		if err := v.labelKeys(doc, f+".matchLabelKeys", c.MatchLabelKeys); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) affinity(doc *document, field string, a *corev1.Affinity) error {
	if a == nil {
		return nil
	}
	if na := a.NodeAffinity; na != nil {
		if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			f := field + ".nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
			for i, term := range r.NodeSelectorTerms {
				if err := validateNodeSelectorTerm(doc, fmt.Sprintf("%s[%d]", f, i), term); err != nil {
					return err
				}
			}
		}
		for i, p := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			f := fmt.Sprintf("%s.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d]", field, i)
			if err := validateWeight(doc, f+".weight", p.Weight); err != nil {
				return err
			}
			if err := validateNodeSelectorTerm(doc, f+".preference", p.Preference); err != nil {
				return err
			}
		}
	}
	if pa := a.PodAffinity; pa != nil {
		if err := v.podAffinity(doc, field+".podAffinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		if err := v.podAffinity(doc, field+".podAntiAffinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
	}
	return nil
}

func validateNodeSelectorTerm(doc *document, field string, term corev1.NodeSelectorTerm) error {
	for i, r := range term.MatchExpressions {
		if err := requirements.ValidateNodeSelectorRequirement(r); err != nil {
			return doc.errorf(fmt.Sprintf("%s.matchExpressions[%d]", field, i), "%v", err)
		}
	}
	return nil
}

func (v *validator) podAffinity(doc *document, field string, required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) error {
	for i, term := range required {
		if err := v.podAffinityTerm(doc, fmt.Sprintf("%s.requiredDuringSchedulingIgnoredDuringExecution[%d]", field, i), term); err != nil {
			return err
		}
	}
	for i, w := range preferred {
		f := fmt.Sprintf("%s.preferredDuringSchedulingIgnoredDuringExecution[%d]", field, i)
		if err := validateWeight(doc, f+".weight", w.Weight); err != nil {
			return err
		}
		if err := v.podAffinityTerm(doc, f+".podAffinityTerm", w.PodAffinityTerm); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) podAffinityTerm(doc *document, field string, term corev1.PodAffinityTerm) error {
	if err := v.topologyKey(doc, field+".topologyKey", term.TopologyKey); err != nil {
		return err
	}
	if err := v.selector(doc, field+".labelSelector", term.LabelSelector); err != nil {
		return err
	}
	if err := v.selector(doc, field+".namespaceSelector", term.NamespaceSelector); err != nil {
		return err
	}
	for i, ns := range term.Namespaces {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return doc.errorf(fmt.Sprintf("%s.namespaces[%d]", field, i), "%q is not a valid namespace name (a DNS label): %s", abbreviated(ns), strings.Join(errs, "; "))
		}
	}
	if err := v.labelKeys(doc, field+".matchLabelKeys", term.MatchLabelKeys); err != nil {
		return err
	}
	return v.labelKeys(doc, field+".mismatchLabelKeys", term.MismatchLabelKeys)
}

func validateWeight(doc *document, field string, weight int32) error {
	if weight < 1 || weight > 100 {
		return doc.errorf(field, "must be between 1 and 100, got %d", weight)
	}
	return nil
}

func (v *validator) topologyKey(doc *document, field, key string) error {
	if key == "" {
		return doc.errorf(field, "required")
	}
	if errs := v.isQualifiedName(key); len(errs) > 0 {
		return doc.errorf(field, "%q is not a valid label key: %s", key, strings.Join(errs, "; "))
	}
	return nil
}

func (v *validator) labelKeys(doc *document, field string, keys []string) error {
	for i, key := range keys {
		if errs := v.isQualifiedName(key); len(errs) > 0 {
			return doc.errorf(fmt.Sprintf("%s[%d]", field, i), "%q is not a valid label key: %s", key, strings.Join(errs, "; "))
		}
	}
	return nil
}

// selector checks a label selector with apimachinery's own validation, unless it only
// matches labels already found valid.
func (v *validator) selector(doc *document, path string, s *metav1.LabelSelector) error {
	if s == nil || (len(s.MatchExpressions) == 0 && v.knownValid(s.MatchLabels)) {
		return nil
	}
	errs := metav1validation.ValidateLabelSelector(s, metav1validation.LabelSelectorValidationOptions{}, field.NewPath(path))
	if len(errs) == 0 {
		for key, value := range s.MatchLabels {
			v.isQualifiedName(key)
			v.isValidLabelValue(value)
		}
		return nil
	}
	return doc.errorf(errs[0].Field, "%s", errs[0].ErrorBody())
}

// validateClaimSpec checks a claim's storage request: more than zero when given.
func validateClaimSpec(doc *document, field string, spec *corev1.PersistentVolumeClaimSpec) error {
	for _, list := range []struct {
		name string
		l    corev1.ResourceList
	}{{"requests", spec.Resources.Requests}, {"limits", spec.Resources.Limits}} {
		if q, ok := list.l[corev1.ResourceStorage]; ok && q.Sign() <= 0 {
			return doc.errorf(joinKey(field+".resources."+list.name, string(corev1.ResourceStorage)), "must be greater than zero, got %s", q.String())
		}
	}
	return nil
}

// checkNodeResources checks a Node's or NodeClaim's status: no negative or oversized
// capacity or allocatable and, where the allocatable of a resource exceeds its capacity, a
// warning and the capacity in its place, as the node cannot offer more.
func (d *decoder) checkNodeResources(doc *document, capacity, allocatable corev1.ResourceList) error {
	for _, list := range []struct {
		field string
		l     corev1.ResourceList
	}{{"status.capacity", capacity}, {"status.allocatable", allocatable}} {
		for _, name := range slices.Sorted(maps.Keys(list.l)) {
			if q := list.l[name]; q.Sign() < 0 {
				return doc.errorf(joinKey(list.field, string(name)), "must not be negative, got %s", q.String())
			}
		}
		if name, err := resources.CheckList(list.l); err != nil {
			return doc.errorf(joinKey(list.field, string(name)), "%v", err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(allocatable)) {
		alloc := allocatable[name]
		if c, ok := capacity[name]; ok && alloc.Cmp(c) > 0 {
			d.warnf("%s: %s: %s is more than the capacity %s: using %s", doc.where(), joinKey("status.allocatable", string(name)), alloc.String(), c.String(), c.String())
			allocatable[name] = c.DeepCopy()
		}
	}
	return nil
}
