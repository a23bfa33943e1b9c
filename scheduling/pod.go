package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/taints"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/volume"
)

// podInfo is what the solver derives from a pod once: requests as a vector, requirement
// alternatives, host ports and volumes, plus the preferences still in force.
type podInfo struct {
	pod      *corev1.Pod
	key      string // namespace/name
	index    int    // position in the input, for stable output order
	requests resources.Vector
	// requestsKey is requests.Key(), which the bounds and repacking group pods by.
	requestsKey string
	// alternatives are the OR'ed requirement sets of nodeSelector × required node affinity.
	alternatives []requirements.Requirements
	// preferences are preferred node affinity terms, heaviest first; the first prefIndex of
	// them have been relaxed away and preferences[prefIndex] is in force.
	preferences []requirements.PreferredTerm
	prefIndex   int
	// tolerateSoft is set once PreferNoSchedule taints may be tolerated.
	tolerateSoft bool
	hostPorts    []hostport.Port
	volumes      volume.PodVolumes
	// relaxations lists what was given up to place the pod, for explanations.
	relaxations []string

	// effectiveCache is effective() while prefIndex is effectiveFor, and effectiveFlat the
	// same as lists (see matchesAnyList): worked out when the pod converts, which the copies a
	// solve makes of the conversion share.
	effectiveCache []requirements.Requirements
	effectiveFlat  []requirements.Flat
	effectiveFor   int

	// topo is the pod as topology follows it: its spread and pod (anti-)affinity terms, the
	// groups that count it, what it has given up of them.
	topo topology.Member
	// memoClass identifies plain pods (no topology rule counts or binds them, no host port, no
	// volume) that join or fail to join a node alike: same requests, requirements, preferences
	// and tolerations. "" for other pods.
	memoClass string
	// orderKey is the pod's content as far as placing it goes (podOrderKey), which orders the
	// queue before the name does.
	orderKey string
	// plainClass and plainOrderKey are the memoClass and orderKey the pod has when it turns
	// out plain: they depend on the pod alone, so its memoised conversion carries them and a
	// solve need not write them again ("" until worked out).
	plainClass, plainOrderKey string
	// placedAlt is the alternative (with the preference in force) the pod's new node was
	// narrowed by.
	placedAlt requirements.Requirements

	// trace collects placement steps when Options.Trace names the pod (nil otherwise).
	trace *podTrace

	// alone memoises aloneCost (0: not computed yet).
	alone float64
}

// newPodInfo validates and converts a pod; an error makes the pod unschedulable with the
// returned constraint.
func newPodInfo(pod *corev1.Pod, index int, dims *resources.Dims, vols *volume.Index, policy PreferencePolicy) (*podInfo, Constraint, error) {
	p := &podInfo{pod: pod, key: podKey(pod), index: index}
	if len(pod.Spec.Containers) == 0 {
		return p, ConstraintValidation, fmt.Errorf("pod has no containers")
	}
	if err := resources.CheckPod(&pod.Spec); err != nil {
		return p, ConstraintValidation, err
	}
	requests, err := resources.PodRequests(pod, dims)
	if err != nil {
		return p, ConstraintValidation, err
	}
	p.requests = requests
	p.requestsKey = requests.Key()
	alts, err := requirements.PodAlternatives(pod)
	if err != nil {
		return p, ConstraintValidation, err
	}
	for _, alt := range alts {
		if k := restrictedPodKey(alt); k != "" {
			return p, ConstraintValidation, fmt.Errorf("node selector or affinity uses label %q, which no node can be planned to carry (it is set by Karpenter per node)", k)
		}
	}
	p.alternatives = alts
	if policy != PreferencesIgnore {
		p.preferences = requirements.PodPreferences(pod)
	} else {
		p.tolerateSoft = true
	}
	p.hostPorts = hostport.OfPod(pod)
	if vols != nil {
		pv, err := vols.ForPod(pod)
		if err != nil {
			return p, ConstraintVolume, err
		}
		p.volumes = pv
	}
	p.effective()
	return p, "", nil
}

// restrictedPodKey returns a karpenter.sh key a pod requires that no NodePool can provide.
func restrictedPodKey(reqs requirements.Requirements) string {
	for _, k := range reqs.Keys() {
		switch k {
		case requirements.LabelNodeInitialized, requirements.LabelNodeRegistered, "karpenter.sh/nodeclaim":
			if r := reqs[k]; !r.IsComplement() && len(r.Values()) > 0 {
				return k
			}
		}
	}
	return ""
}

func podKey(pod *corev1.Pod) string {
	ns := pod.Namespace
	if ns == "" {
		ns = corev1.NamespaceDefault
	}
	return ns + "/" + pod.Name
}

// effectiveAlternatives returns the pod's alternatives narrowed by the preferred term in force.
// A preference that contradicts every alternative is ignored, as it could never be met.
func (p *podInfo) effectiveAlternatives() []requirements.Requirements {
	if p.prefIndex >= len(p.preferences) {
		return p.alternatives
	}
	pref := p.preferences[p.prefIndex].Requirements
	var out []requirements.Requirements
	for _, alt := range p.alternatives {
		if alt.Conflict(pref) != "" {
			continue
		}
		merged := alt.Copy()
		merged.AddAll(pref)
		out = append(out, merged)
	}
	if len(out) == 0 {
		return p.alternatives
	}
	return out
}

// relax gives up one preference: preferred node affinity (heaviest first), then preferred pod
// affinity and anti-affinity (heaviest first), then ScheduleAnyway spread, then
// PreferNoSchedule taints (when any node or NodePool has one). It reports false when nothing is left to give up.
func (p *podInfo) relax(softTaints bool) bool {
	if p.prefIndex < len(p.preferences) {
		p.relaxations = append(p.relaxations, fmt.Sprintf("preferred node affinity (weight %d) %s", p.preferences[p.prefIndex].Weight, p.preferences[p.prefIndex].Requirements))
		p.prefIndex++
		return true
	}
	if soft := p.topo.Soft(); p.topo.Relaxed < len(soft) {
		p.relaxations = append(p.relaxations, "preferred "+soft[p.topo.Relaxed].Group.Describe())
		p.topo.Relaxed++
		return true
	}
	if !p.tolerateSoft && softTaints {
		p.tolerateSoft = true
		p.relaxations = append(p.relaxations, "PreferNoSchedule taints")
		return true
	}
	return false
}

// untoleratedTaint returns the first taint the pod does not tolerate. PreferNoSchedule taints
// count until the pod has relaxed them; startup taints are never passed here.
func (p *podInfo) untoleratedTaint(nodeTaints []corev1.Taint) (corev1.Taint, bool) {
	if len(nodeTaints) == 0 {
		return corev1.Taint{}, false // most nodes: the pod's tolerations, far into its object, stay unread
	}
	return taints.FirstUntolerated(p.pod.Spec.Tolerations, nodeTaints, p.tolerateSoft)
}

// setMemoClass gives a plain pod its memoClass: whether it may join a planned node depends
// only on the node and on these, so a failure holds for every pod of the class.
func (p *podInfo) setMemoClass() {
	if p.topo.Constrained() || len(p.hostPorts) > 0 || len(p.volumes.Claims) > 0 || len(p.volumes.Alternatives) > 0 {
		return
	}
	if p.plainClass == "" {
		p.plainClass = p.plainMemoClass()
	}
	p.memoClass = p.plainClass
}

// plainMemoClass is the memoClass of a plain pod: its requests, requirements, preferences and
// tolerations.
func (p *podInfo) plainMemoClass() string {
	var b strings.Builder
	b.WriteString(p.requestsKey)
	for _, alt := range p.alternatives {
		b.WriteString("|")
		b.WriteString(alt.String())
	}
	for _, pref := range p.preferences {
		fmt.Fprintf(&b, "|pref %d %s", pref.Weight, pref.Requirements.String())
	}
	fmt.Fprintf(&b, "|%v", p.pod.Spec.Tolerations)
	return b.String()
}

// setPlainKeys works out plainClass and plainOrderKey, for a conversion to carry.
func (p *podInfo) setPlainKeys() {
	p.plainClass = p.plainMemoClass()
	plain := *p
	plain.memoClass = p.plainClass
	p.plainOrderKey = podOrderKey(&plain)
}
