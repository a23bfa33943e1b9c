package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Karpenter's API objects, as far as nodeplan reads them. Fields nodeplan does not use are
// kept as raw JSON so that they are known (no unknown-field warning) but not interpreted.

// Karpenter's defaults for a NodePool (karpenter.sh/v1 CRD).
const (
	DefaultExpireAfter         = 720 * time.Hour
	DefaultConsolidateAfter    = 0 * time.Second
	DefaultBudgetNodes         = "10%"
	DefaultConsolidationPolicy = scheduling.ConsolidationWhenEmptyOrUnderutilized
)

// duration is a Karpenter duration field: a Go duration ("720h", "1h30m", "30s") or "Never".
type duration struct {
	set   bool
	never bool
	d     time.Duration
}

func (d *duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`want a duration such as "720h", "30m", "45s" or "Never", got %s`, b)
	}
	parsed, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// ptr returns the duration, nil for Never, def when unset.
func (d duration) ptr(def *time.Duration) *time.Duration {
	switch {
	case !d.set:
		return def
	case d.never:
		return nil
	}
	v := d.d
	return &v
}

// parseDuration reads a Karpenter duration: "Never", or a non-negative Go duration.
func parseDuration(s string) (duration, error) {
	if s == "Never" {
		return duration{set: true, never: true}, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return duration{}, fmt.Errorf(`%q is not a duration: want e.g. "720h", "30m", "45s" or "Never"`, s)
	}
	if v < 0 {
		return duration{}, fmt.Errorf("%q is negative", s)
	}
	return duration{set: true, d: v}, nil
}

func durationPtr(d time.Duration) *time.Duration { return &d }

type requirementWithMinValues struct {
	Key       string                      `json:"key"`
	Operator  corev1.NodeSelectorOperator `json:"operator"`
	Values    []string                    `json:"values,omitempty"`
	MinValues *int                        `json:"minValues,omitempty"`
}

type templateMetadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type budget struct {
	Nodes    *string   `json:"nodes,omitempty"`
	Schedule *string   `json:"schedule,omitempty"`
	Duration *duration `json:"duration,omitempty"`
	Reasons  []string  `json:"reasons,omitempty"`
}

// nodePoolV1 is a karpenter.sh/v1 NodePool.
type nodePoolV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Template struct {
			Metadata templateMetadata `json:"metadata"`
			Spec     struct {
				Taints                 []corev1.Taint             `json:"taints,omitempty"`
				StartupTaints          []corev1.Taint             `json:"startupTaints,omitempty"`
				Requirements           []requirementWithMinValues `json:"requirements"`
				NodeClassRef           json.RawMessage            `json:"nodeClassRef,omitempty"`
				TerminationGracePeriod *duration                  `json:"terminationGracePeriod,omitempty"`
				ExpireAfter            duration                   `json:"expireAfter"`
			} `json:"spec"`
		} `json:"template"`
		Disruption struct {
			ConsolidateAfter       duration `json:"consolidateAfter"`
			ConsolidationPolicy    string   `json:"consolidationPolicy,omitempty"`
			ConsolidateWhen        string   `json:"consolidateWhen,omitempty"`
			DecisionRatioThreshold *float64 `json:"decisionRatioThreshold,omitempty"`
			Budgets                []budget `json:"budgets,omitempty"`
		} `json:"disruption"`
		Limits   corev1.ResourceList `json:"limits,omitempty"`
		Weight   *int32              `json:"weight,omitempty"`
		Replicas *int64              `json:"replicas,omitempty"`
	} `json:"spec"`
	Status json.RawMessage `json:"status,omitempty"`
}

// nodePoolV1beta1 is a karpenter.sh/v1beta1 NodePool: expireAfter lives in spec.disruption and
// the underutilized policy is called WhenUnderutilized.
type nodePoolV1beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Template struct {
			Metadata templateMetadata `json:"metadata"`
			Spec     struct {
				Taints        []corev1.Taint             `json:"taints,omitempty"`
				StartupTaints []corev1.Taint             `json:"startupTaints,omitempty"`
				Requirements  []requirementWithMinValues `json:"requirements"`
				Resources     json.RawMessage            `json:"resources,omitempty"`
				Kubelet       json.RawMessage            `json:"kubelet,omitempty"`
				NodeClassRef  json.RawMessage            `json:"nodeClassRef,omitempty"`
			} `json:"spec"`
		} `json:"template"`
		Disruption struct {
			ConsolidateAfter    duration `json:"consolidateAfter"`
			ConsolidationPolicy string   `json:"consolidationPolicy,omitempty"`
			ExpireAfter         duration `json:"expireAfter"`
			Budgets             []budget `json:"budgets,omitempty"`
		} `json:"disruption"`
		Limits corev1.ResourceList `json:"limits,omitempty"`
		Weight *int32              `json:"weight,omitempty"`
	} `json:"spec"`
	Status json.RawMessage `json:"status,omitempty"`
}

// provisionerV1alpha5 is a legacy karpenter.sh/v1alpha5 Provisioner.
type provisionerV1alpha5 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Annotations            map[string]string                `json:"annotations,omitempty"`
		Labels                 map[string]string                `json:"labels,omitempty"`
		Taints                 []corev1.Taint                   `json:"taints,omitempty"`
		StartupTaints          []corev1.Taint                   `json:"startupTaints,omitempty"`
		Requirements           []corev1.NodeSelectorRequirement `json:"requirements,omitempty"`
		KubeletConfiguration   json.RawMessage                  `json:"kubeletConfiguration,omitempty"`
		Provider               json.RawMessage                  `json:"provider,omitempty"`
		ProviderRef            json.RawMessage                  `json:"providerRef,omitempty"`
		TTLSecondsAfterEmpty   *int64                           `json:"ttlSecondsAfterEmpty,omitempty"`
		TTLSecondsUntilExpired *int64                           `json:"ttlSecondsUntilExpired,omitempty"`
		Limits                 *struct {
			Resources corev1.ResourceList `json:"resources,omitempty"`
		} `json:"limits,omitempty"`
		Weight        *int32 `json:"weight,omitempty"`
		Consolidation *struct {
			Enabled *bool `json:"enabled,omitempty"`
		} `json:"consolidation,omitempty"`
	} `json:"spec"`
	Status json.RawMessage `json:"status,omitempty"`
}

// nodeClaimObject is a karpenter.sh/v1 (or v1beta1) NodeClaim.
type nodeClaimObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Taints                 []corev1.Taint             `json:"taints,omitempty"`
		StartupTaints          []corev1.Taint             `json:"startupTaints,omitempty"`
		Requirements           []requirementWithMinValues `json:"requirements,omitempty"`
		Resources              json.RawMessage            `json:"resources,omitempty"`
		Kubelet                json.RawMessage            `json:"kubelet,omitempty"`
		NodeClassRef           json.RawMessage            `json:"nodeClassRef,omitempty"`
		TerminationGracePeriod *duration                  `json:"terminationGracePeriod,omitempty"`
		ExpireAfter            *duration                  `json:"expireAfter,omitempty"`
	} `json:"spec"`
	Status struct {
		NodeName         string              `json:"nodeName,omitempty"`
		ProviderID       string              `json:"providerID,omitempty"`
		ImageID          string              `json:"imageID,omitempty"`
		Capacity         corev1.ResourceList `json:"capacity,omitempty"`
		Allocatable      corev1.ResourceList `json:"allocatable,omitempty"`
		Conditions       []metav1.Condition  `json:"conditions,omitempty"`
		LastPodEventTime *metav1.Time        `json:"lastPodEventTime,omitempty"`
	} `json:"status"`
}

// NodeClaim is what a karpenter.sh NodeClaim tells about a node Karpenter launched.
type NodeClaim struct {
	Name string
	// NodePool that launched it (label karpenter.sh/nodepool).
	NodePool string
	// InstanceType, Zone and CapacityType come from the well-known labels, else from a
	// single-valued In requirement.
	InstanceType string
	Zone         string
	CapacityType string
	// NodeName is status.nodeName: the Node the claim registered as; "" while launching.
	NodeName          string
	ProviderID        string
	CreationTimestamp time.Time
	// DeletionTimestamp is set when the claim is being deleted.
	DeletionTimestamp *time.Time
	Labels            map[string]string
	Annotations       map[string]string
	Taints            []corev1.Taint
	StartupTaints     []corev1.Taint
	Requirements      []scheduling.NodeSelectorRequirementWithMinValues
	Capacity          corev1.ResourceList
	Allocatable       corev1.ResourceList
	// ExpireAfter is the claim's own spec.expireAfter (nil: Never or unset, see ExpireAfterSet).
	ExpireAfter    *time.Duration
	ExpireAfterSet bool
	// Initialized is true when the Initialized condition is True (without that condition:
	// when the label karpenter.sh/initialized is "true").
	Initialized bool
	// Consolidatable and Drifted are the conditions of those types, nil when absent.
	Consolidatable *Condition
	Drifted        *Condition
	// LastPodEventTime is status.lastPodEventTime, zero when absent.
	LastPodEventTime time.Time
	// ImageID is status.imageID: the AMI the node was launched from, "" when absent.
	ImageID string
}

// Condition is one status condition of a NodeClaim.
type Condition struct {
	Status             metav1.ConditionStatus
	LastTransitionTime time.Time
	Reason             string
	Message            string
}

// IsTrue reports whether the condition is present and True.
func (c *Condition) IsTrue() bool { return c != nil && c.Status == metav1.ConditionTrue }

func convertNodeClaim(doc *document, o *nodeClaimObject) (*NodeClaim, error) {
	if o.Name == "" {
		return nil, doc.errorf("metadata.name", "required")
	}
	nc := &NodeClaim{
		Name:              o.Name,
		NodePool:          o.Labels[requirements.LabelNodePool],
		InstanceType:      o.Labels[requirements.LabelInstanceType],
		Zone:              o.Labels[requirements.LabelTopologyZone],
		CapacityType:      o.Labels[requirements.LabelCapacityType],
		NodeName:          o.Status.NodeName,
		ProviderID:        o.Status.ProviderID,
		CreationTimestamp: o.CreationTimestamp.Time,
		Labels:            o.Labels,
		Annotations:       o.Annotations,
		Taints:            o.Spec.Taints,
		StartupTaints:     o.Spec.StartupTaints,
		Capacity:          o.Status.Capacity,
		Allocatable:       o.Status.Allocatable,
		ImageID:           o.Status.ImageID,
	}
	if nc.NodePool == "" {
		nc.NodePool = o.Labels["karpenter.sh/provisioner-name"]
	}
	if o.DeletionTimestamp != nil {
		t := o.DeletionTimestamp.Time
		nc.DeletionTimestamp = &t
	}
	if o.Status.LastPodEventTime != nil {
		nc.LastPodEventTime = o.Status.LastPodEventTime.Time
	}
	if o.Spec.ExpireAfter != nil && o.Spec.ExpireAfter.set {
		nc.ExpireAfterSet = true
		nc.ExpireAfter = o.Spec.ExpireAfter.ptr(nil)
	}
	for i, r := range o.Spec.Requirements {
		req := corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values}
		if err := requirements.ValidateNodeSelectorRequirement(req); err != nil {
			return nil, doc.errorf(fmt.Sprintf("spec.requirements[%d]", i), "%v", err)
		}
		nc.Requirements = append(nc.Requirements, scheduling.NodeSelectorRequirementWithMinValues{NodeSelectorRequirement: req, MinValues: r.MinValues})
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			switch requirements.NormalizeKey(r.Key) {
			case requirements.LabelInstanceType:
				nc.InstanceType = cmpOr(nc.InstanceType, r.Values[0])
			case requirements.LabelTopologyZone:
				nc.Zone = cmpOr(nc.Zone, r.Values[0])
			case requirements.LabelCapacityType:
				nc.CapacityType = cmpOr(nc.CapacityType, r.Values[0])
			case requirements.LabelNodePool:
				nc.NodePool = cmpOr(nc.NodePool, r.Values[0])
			}
		}
	}
	// Without an Initialized condition (older claims), the label Karpenter sets decides.
	nc.Initialized = o.Labels[requirements.LabelNodeInitialized] == "true"
	for _, c := range o.Status.Conditions {
		cond := &Condition{Status: c.Status, LastTransitionTime: c.LastTransitionTime.Time, Reason: c.Reason, Message: c.Message}
		switch c.Type {
		case "Initialized":
			nc.Initialized = c.Status == metav1.ConditionTrue
		case "Consolidatable":
			nc.Consolidatable = cond
		case "Drifted":
			nc.Drifted = cond
		}
	}
	return nc, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// DefaultNodePool returns the NodePool nodeplan uses when the input has none: named
// "default", no requirements, and Karpenter's defaults for everything else.
func DefaultNodePool() *scheduling.NodePool {
	return &scheduling.NodePool{
		Name:        "default",
		ExpireAfter: durationPtr(DefaultExpireAfter),
		Disruption: scheduling.Disruption{
			ConsolidationPolicy: DefaultConsolidationPolicy,
			ConsolidateAfter:    durationPtr(DefaultConsolidateAfter),
			Budgets:             []scheduling.Budget{{Nodes: DefaultBudgetNodes}},
		},
	}
}

// nodePoolFields are the paths of a NodePool's parts, which differ between API versions.
type nodePoolFields struct {
	labels, annotations, taints, startupTaints, requirements, budgets, limits, weight, policy string
}

var (
	fieldsV1 = nodePoolFields{
		labels:        "spec.template.metadata.labels",
		annotations:   "spec.template.metadata.annotations",
		taints:        "spec.template.spec.taints",
		startupTaints: "spec.template.spec.startupTaints",
		requirements:  "spec.template.spec.requirements",
		budgets:       "spec.disruption.budgets",
		limits:        "spec.limits",
		weight:        "spec.weight",
		policy:        "spec.disruption.consolidationPolicy",
	}
	fieldsV1alpha5 = nodePoolFields{
		labels:        "spec.labels",
		annotations:   "spec.annotations",
		taints:        "spec.taints",
		startupTaints: "spec.startupTaints",
		requirements:  "spec.requirements",
		limits:        "spec.limits.resources",
		weight:        "spec.weight",
	}
)

func convertNodePoolV1(doc *document, o *nodePoolV1) (*scheduling.NodePool, error) {
	s := o.Spec
	t := s.Template
	np := newNodePool(o.Name, t.Metadata, t.Spec.Taints, t.Spec.StartupTaints, s.Limits, s.Weight,
		s.Disruption.ConsolidationPolicy, s.Disruption.ConsolidateAfter, t.Spec.ExpireAfter)
	if r := s.Replicas; r != nil {
		if *r < 0 {
			return nil, doc.errorf("spec.replicas", "must not be negative, got %d", *r)
		}
		if *r > MaxPodsPerWorkload {
			return nil, doc.errorf("spec.replicas", "%d is more nodes than nodeplan plans for one NodePool (at most %d)", *r, MaxPodsPerWorkload)
		}
		np.Replicas = r
	}
	if g := t.Spec.TerminationGracePeriod; g != nil && g.set {
		np.TerminationGracePeriod = g.ptr(nil)
	}
	return np, finishNodePool(doc, np, fieldsV1, t.Spec.Requirements, s.Disruption.Budgets, s.Weight)
}

func convertNodePoolV1beta1(doc *document, o *nodePoolV1beta1) (*scheduling.NodePool, error) {
	s := o.Spec
	t := s.Template
	np := newNodePool(o.Name, t.Metadata, t.Spec.Taints, t.Spec.StartupTaints, s.Limits, s.Weight,
		s.Disruption.ConsolidationPolicy, s.Disruption.ConsolidateAfter, s.Disruption.ExpireAfter)
	return np, finishNodePool(doc, np, fieldsV1, t.Spec.Requirements, s.Disruption.Budgets, s.Weight)
}

// newNodePool builds the library NodePool from the fields v1 and v1beta1 share (they differ
// only in where expireAfter lives), applying Karpenter's defaults to unset durations.
func newNodePool(name string, meta templateMetadata, taints, startupTaints []corev1.Taint, limits corev1.ResourceList, weight *int32, policy string, consolidateAfter, expireAfter duration) *scheduling.NodePool {
	np := &scheduling.NodePool{
		Name:          name,
		Labels:        meta.Labels,
		Annotations:   meta.Annotations,
		Taints:        taints,
		StartupTaints: startupTaints,
		Limits:        limits,
		ExpireAfter:   expireAfter.ptr(durationPtr(DefaultExpireAfter)),
		Disruption: scheduling.Disruption{
			ConsolidationPolicy: policy,
			ConsolidateAfter:    consolidateAfter.ptr(durationPtr(DefaultConsolidateAfter)),
		},
	}
	if weight != nil {
		np.Weight = *weight
	}
	return np
}

// convertProvisioner maps a v1alpha5 Provisioner to the NodePool Karpenter's migration would
// write: ttlSecondsAfterEmpty → WhenEmpty after that many seconds; consolidation.enabled →
// WhenEmptyOrUnderutilized; neither → nodes are never consolidated (WhenEmpty, Never);
// ttlSecondsUntilExpired → expireAfter, unset → Never (a Provisioner's nodes did not expire).
func convertProvisioner(doc *document, o *provisionerV1alpha5) (*scheduling.NodePool, error) {
	s := o.Spec
	np := &scheduling.NodePool{
		Name:          o.Name,
		Labels:        s.Labels,
		Annotations:   s.Annotations,
		Taints:        s.Taints,
		StartupTaints: s.StartupTaints,
	}
	if s.Limits != nil {
		np.Limits = s.Limits.Resources
	}
	if s.Weight != nil {
		np.Weight = *s.Weight
	}
	if s.TTLSecondsUntilExpired != nil {
		if *s.TTLSecondsUntilExpired < 0 {
			return nil, doc.errorf("spec.ttlSecondsUntilExpired", "must not be negative, got %d", *s.TTLSecondsUntilExpired)
		}
		np.ExpireAfter = durationPtr(time.Duration(*s.TTLSecondsUntilExpired) * time.Second)
	}
	consolidation := s.Consolidation != nil && s.Consolidation.Enabled != nil && *s.Consolidation.Enabled
	switch {
	case consolidation && s.TTLSecondsAfterEmpty != nil:
		return nil, doc.errorf("spec.consolidation.enabled", "cannot be true together with spec.ttlSecondsAfterEmpty (a Provisioner uses one or the other)")
	case consolidation:
		np.Disruption = scheduling.Disruption{ConsolidationPolicy: scheduling.ConsolidationWhenEmptyOrUnderutilized, ConsolidateAfter: durationPtr(0)}
	case s.TTLSecondsAfterEmpty != nil:
		if *s.TTLSecondsAfterEmpty < 0 {
			return nil, doc.errorf("spec.ttlSecondsAfterEmpty", "must not be negative, got %d", *s.TTLSecondsAfterEmpty)
		}
		np.Disruption = scheduling.Disruption{ConsolidationPolicy: scheduling.ConsolidationWhenEmpty, ConsolidateAfter: durationPtr(time.Duration(*s.TTLSecondsAfterEmpty) * time.Second)}
	default:
		np.Disruption = scheduling.Disruption{ConsolidationPolicy: scheduling.ConsolidationWhenEmpty}
	}
	reqs := make([]requirementWithMinValues, len(s.Requirements))
	for i, r := range s.Requirements {
		reqs[i] = requirementWithMinValues{Key: r.Key, Operator: r.Operator, Values: r.Values}
	}
	defaults := provisionerDefaults(s.Requirements, s.Labels)
	for _, r := range defaults {
		np.DefaultedKeys = append(np.DefaultedKeys, r.Key)
	}
	reqs = append(reqs, defaults...)
	return np, finishNodePool(doc, np, fieldsV1alpha5, reqs, nil, s.Weight)
}

var budgetNodesRE = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)

// finishNodePool validates and defaults the parts every API version shares.
func finishNodePool(doc *document, np *scheduling.NodePool, f nodePoolFields, reqs []requirementWithMinValues, budgets []budget, weight *int32) error {
	if np.Name == "" {
		return doc.errorf("metadata.name", "required")
	}
	if weight != nil && (*weight < 1 || *weight > 100) {
		return doc.errorf(f.weight, "must be between 1 and 100, got %d", *weight)
	}
	if err := new(validator).labels(doc, f.labels, np.Labels); err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(np.Labels)) {
		if err := requirements.ValidateNodePoolKey(key); err != nil {
			return doc.errorf(joinKey(f.labels, key), "%v", err)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(np.Annotations)) {
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			return doc.errorf(joinKey(f.annotations, key), "%q is not a valid annotation key: %s", key, strings.Join(errs, "; "))
		}
	}
	if err := validateTaints(doc, f.taints, np.Taints); err != nil {
		return err
	}
	if err := validateTaints(doc, f.startupTaints, np.StartupTaints); err != nil {
		return err
	}
	for i, r := range reqs {
		req := corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values}
		if err := requirements.ValidateNodePoolRequirement(req, r.MinValues); err != nil {
			return doc.errorf(fmt.Sprintf("%s[%d]", f.requirements, i), "%v", err)
		}
		np.Requirements = append(np.Requirements, scheduling.NodeSelectorRequirementWithMinValues{NodeSelectorRequirement: req, MinValues: r.MinValues})
	}
	if err := checkContradictions(doc, np, f); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(np.Limits)) {
		if q := np.Limits[name]; q.Sign() < 0 {
			return doc.errorf(joinKey(f.limits, string(name)), "must not be negative, got %s", q.String())
		}
	}
	if name, err := resources.CheckList(np.Limits); err != nil {
		return doc.errorf(joinKey(f.limits, string(name)), "%v", err)
	}
	switch np.Disruption.ConsolidationPolicy {
	case "":
		np.Disruption.ConsolidationPolicy = DefaultConsolidationPolicy
	case scheduling.ConsolidationWhenEmpty, scheduling.ConsolidationWhenEmptyOrUnderutilized:
	case "WhenUnderutilized": // v1beta1's name for it
		np.Disruption.ConsolidationPolicy = scheduling.ConsolidationWhenEmptyOrUnderutilized
	default:
		return doc.errorf(f.policy, "unknown consolidation policy %q (use WhenEmpty or WhenEmptyOrUnderutilized)", np.Disruption.ConsolidationPolicy)
	}
	if budgets == nil {
		np.Disruption.Budgets = []scheduling.Budget{{Nodes: DefaultBudgetNodes}}
	}
	for i, b := range budgets {
		field := fmt.Sprintf("%s[%d]", f.budgets, i)
		out := scheduling.Budget{Nodes: DefaultBudgetNodes}
		if b.Nodes != nil {
			out.Nodes = *b.Nodes
		}
		if !budgetNodesRE.MatchString(out.Nodes) {
			return doc.errorf(field+".nodes", "%q is neither a node count nor a percentage (e.g. \"3\" or \"10%%\")", out.Nodes)
		}
		if (b.Schedule == nil) != (b.Duration == nil || !b.Duration.set) {
			return doc.errorf(field, "schedule and duration must be set together")
		}
		if b.Schedule != nil {
			if err := disruption.ValidateSchedule(*b.Schedule); err != nil {
				return doc.errorf(field+".schedule", "%v", err)
			}
			out.Schedule = *b.Schedule
			if b.Duration.never {
				return doc.errorf(field+".duration", "must be a duration, not Never")
			}
			out.Duration = b.Duration.ptr(nil)
		}
		for j, r := range b.Reasons {
			switch r {
			case scheduling.ReasonEmpty, scheduling.ReasonUnderutilized, scheduling.ReasonDrifted:
			default:
				return doc.errorf(fmt.Sprintf("%s.reasons[%d]", field, j), "unknown disruption reason %q (use Empty, Underutilized or Drifted)", r)
			}
			out.Reasons = append(out.Reasons, r)
		}
		np.Disruption.Budgets = append(np.Disruption.Budgets, out)
	}
	return nil
}

func validateTaints(doc *document, field string, taints []corev1.Taint) error {
	for i, t := range taints {
		f := fmt.Sprintf("%s[%d]", field, i)
		if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
			return doc.errorf(f+".key", "%q is not a valid taint key: %s", t.Key, strings.Join(errs, "; "))
		}
		if t.Value != "" {
			if errs := validation.IsValidLabelValue(t.Value); len(errs) > 0 {
				return doc.errorf(f+".value", "%q is not a valid taint value: %s", t.Value, strings.Join(errs, "; "))
			}
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return doc.errorf(f+".effect", "unknown taint effect %q (use NoSchedule, PreferNoSchedule or NoExecute)", t.Effect)
		}
	}
	return nil
}

// provisionerDefaults are the requirements Karpenter's v1alpha5 defaulting webhook added to
// every Provisioner that did not say, in every version: arch amd64 and capacity type
// on-demand (v0.5 to v0.27, skipped when spec.labels or spec.requirements name the key) and,
// from v0.19, os linux. The webhook persisted them, so a snapshot carries them already; they
// are added here for hand-written Provisioners that never went through it. The instance
// category (c, m, r) and generation (> 2) defaults are not added: the webhook wrote them only
// from v0.19 to v0.27.2 (aws/karpenter-provider-aws#2779), and a Provisioner of those
// versions read from a cluster has them in its requirements already.
func provisionerDefaults(given []corev1.NodeSelectorRequirement, labels map[string]string) []requirementWithMinValues {
	has := map[string]bool{}
	for _, r := range given {
		has[requirements.NormalizeKey(r.Key)] = true
	}
	for k := range labels {
		has[requirements.NormalizeKey(k)] = true
	}
	var out []requirementWithMinValues
	add := func(key string, values ...string) {
		if !has[key] {
			out = append(out, requirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values})
		}
	}
	add(requirements.LabelOS, "linux")
	add(requirements.LabelArch, "amd64")
	add(requirements.LabelCapacityType, requirements.CapacityTypeOnDemand)
	return out
}

// checkContradictions refuses a NodePool whose requirements on a key (with its template labels
// and its own name) leave no value while some requirement on that key asks for one: the rule
// by which scheduling refuses it, found here to name the file, document and fields.
func checkContradictions(doc *document, np *scheduling.NodePool, f nodePoolFields) error {
	reqs := requirements.Requirements{}
	for _, r := range np.Requirements {
		reqs.Add(requirements.NewWithMinValues(r.Key, r.Operator, r.MinValues, r.Values...))
	}
	for _, k := range slices.Sorted(maps.Keys(np.Labels)) {
		reqs.Add(requirements.New(k, corev1.NodeSelectorOpIn, np.Labels[k]))
	}
	reqs.Add(requirements.New(requirements.LabelNodePool, corev1.NodeSelectorOpIn, np.Name))
	for _, k := range reqs.Keys() {
		r := reqs[k]
		if r.Len() != 0 || r.IsComplement() || r.Operator() != corev1.NodeSelectorOpDoesNotExist {
			continue
		}
		var parts []string
		positive := false
		for i, q := range np.Requirements {
			if requirements.NormalizeKey(q.Key) != k {
				continue
			}
			positive = positive || q.Operator != corev1.NodeSelectorOpDoesNotExist
			if len(parts) == 0 {
				parts = append(parts, fmt.Sprintf("%s[%d]", f.requirements, i))
			} else {
				parts = append(parts, fmt.Sprintf("[%d]", i))
			}
		}
		if !positive {
			continue
		}
		for _, l := range slices.Sorted(maps.Keys(np.Labels)) {
			if requirements.NormalizeKey(l) == k {
				parts = append(parts, joinKey(f.labels, l))
			}
		}
		return doc.errorf(f.requirements, "the requirements on %q (%s) contradict each other: no value satisfies all of them", k, joinAnd(parts))
	}
	return nil
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
