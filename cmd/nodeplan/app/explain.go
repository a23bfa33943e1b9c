package app

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/volume"
)

// Explain tells what the plan does with one pod (namespace/name) and why, from the plan and
// the pod's spec: where it goes (node, NodePool, instance type, zone, capacity type, price)
// or the full reason it cannot be scheduled, and every constraint the pod carries, each with
// the value the chosen node has for it and, for topology spread and pod affinity, how the
// matching pods are spread over the domains after the plan. When the plan was solved with
// the pod in Options.Trace, the solver's own steps follow: each node and NodePool tried and
// why it was passed over, preferences relaxed, and where the pod ended.
func Explain(res *Planned, key string) (string, error) {
	var pod *corev1.Pod
	for _, p := range res.Input.Pods {
		if p != nil && podKey(p) == key {
			pod = p
		}
	}
	e := newExplainer(res)
	if pod == nil {
		if node, ok := e.boundNode[key]; ok {
			return fmt.Sprintf("Pod %s is already running on node %s; plan only places pending pods.\n", key, node), nil
		}
		return "", fmt.Errorf("--explain %s: no pending pod of that name in the input%s", key, e.suggest(key))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Pod %s\n", key)
	nodeLabels := e.outcome(&b, key)
	e.constraints(&b, pod, nodeLabels)
	for _, tr := range res.Plan.Traces {
		if tr.Pod != key {
			continue
		}
		fmt.Fprintf(&b, "  Solver steps:\n")
		cordoned := cordonedNodes(res.Input.ExistingNodes)
		for i, step := range tr.Steps {
			fmt.Fprintf(&b, "    %d. %s\n", i+1, withCordoned(step, cordoned))
		}
	}
	return b.String(), nil
}

// explainer indexes the plan: where every pod runs afterwards and with which node labels.
type explainer struct {
	res       *Planned
	nodeOf    map[string]string            // pod key → node name, running and planned
	labelsOf  map[string]map[string]string // node name → labels
	newNode   map[string]*scheduling.NodeClaim
	boundNode map[string]string // running pod key → node
	pods      []*corev1.Pod     // every pod that runs after the plan, running first
}

func newExplainer(res *Planned) *explainer {
	e := &explainer{res: res, nodeOf: map[string]string{}, labelsOf: map[string]map[string]string{},
		newNode: map[string]*scheduling.NodeClaim{}, boundNode: map[string]string{}}
	for _, n := range res.Input.ExistingNodes {
		e.labelsOf[n.Node.Name] = n.Node.Labels
		for _, p := range n.Pods {
			e.nodeOf[podKey(p)] = n.Node.Name
			e.boundNode[podKey(p)] = n.Node.Name
			e.pods = append(e.pods, p)
		}
	}
	pending := podsByKey(res.Input.Pods)
	for i := range res.Plan.NodeClaims {
		nc := &res.Plan.NodeClaims[i]
		e.labelsOf[nc.Name] = nc.Labels
		e.newNode[nc.Name] = nc
		for _, k := range nc.Pods {
			e.nodeOf[k] = nc.Name
			e.pods = append(e.pods, pending[k])
		}
	}
	for _, placement := range res.Plan.ExistingNodes {
		for _, k := range placement.Pods {
			e.nodeOf[k] = placement.Name
			e.pods = append(e.pods, pending[k])
		}
	}
	return e
}

// suggest names a few pending pods, for a name that matches none.
func (e *explainer) suggest(key string) string {
	var names []string
	for _, p := range e.res.Input.Pods {
		if p != nil {
			names = append(names, podKey(p))
		}
	}
	if len(names) == 0 {
		return " (it has no pending pods)"
	}
	sort.SliceStable(names, func(i, j int) bool { return commonPrefix(names[i], key) > commonPrefix(names[j], key) })
	return "; pending pods include " + abbreviate(names, 5)
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// outcome writes where the pod goes and returns the labels of its node (nil when it has none).
func (e *explainer) outcome(b *strings.Builder, key string) map[string]string {
	for _, u := range e.res.Plan.Unschedulable {
		if u.Pod == key {
			fmt.Fprintf(b, "  Outcome:     unschedulable (%s)\n  Reason:      %s\n", u.Constraint, u.Reason)
			return nil
		}
	}
	node := e.nodeOf[key]
	if nc, ok := e.newNode[node]; ok {
		fmt.Fprintf(b, "  Outcome:     new node %s from NodePool %s\n", nc.Name, nc.NodePool)
		fmt.Fprintf(b, "  Offering:    %s in %s, %s, %s/h\n", nc.InstanceType, nc.Zone, nc.CapacityType, price(nc.Price))
		fmt.Fprintf(b, "  Why it:      the cheapest available offering among the node's %s (types that fit its %s, cheapest first): %s\n",
			plural(len(nc.InstanceTypeOptions), "instance-type option"), plural(len(nc.Pods), "pod"), abbreviate(nc.InstanceTypeOptions, 5))
		if others := without(nc.Pods, key); len(others) > 0 {
			fmt.Fprintf(b, "  Shares with: %s\n", abbreviate(others, 5))
		}
		for _, note := range nc.Notes {
			fmt.Fprintf(b, "  Note:        %s\n", note)
		}
		if np := e.nodePool(nc.NodePool); np != nil && len(np.Requirements) > 0 {
			var reqs []string
			for _, r := range np.Requirements {
				text := requirementString(r.NodeSelectorRequirement)
				if slices.Contains(np.DefaultedKeys, r.Key) {
					text += " (v1alpha5 default)"
				}
				reqs = append(reqs, text)
			}
			fmt.Fprintf(b, "  NodePool:    %s requires %s\n", np.Name, strings.Join(reqs, ", "))
		}
		return nc.Labels
	}
	labels := e.labelsOf[node]
	fmt.Fprintf(b, "  Outcome:     existing node %s", node)
	if typ, zone := labels[requirements.LabelInstanceType], labels[requirements.LabelTopologyZone]; typ != "" || zone != "" {
		fmt.Fprintf(b, " (%s in %s)", orDash(typ), orDash(zone))
	}
	b.WriteString("\n  Why it:      existing nodes with room are used before new nodes are launched\n")
	return labels
}

func (e *explainer) nodePool(name string) *scheduling.NodePool {
	for _, np := range e.res.Input.NodePools {
		if np.Name == name {
			return np
		}
	}
	return nil
}

func without(keys []string, key string) []string {
	var out []string
	for _, k := range keys {
		if k != key {
			out = append(out, k)
		}
	}
	return out
}

// constraints lists what the pod's spec asks of its node and its neighbours.
func (e *explainer) constraints(b *strings.Builder, pod *corev1.Pod, node map[string]string) {
	b.WriteString("  Constraints:\n")
	line := func(format string, args ...any) { fmt.Fprintf(b, "    "+format+"\n", args...) }
	line("requests: %s", requestsString(pod))

	if len(pod.Spec.NodeSelector) > 0 {
		keys := sortedKeys(pod.Spec.NodeSelector)
		for _, k := range keys {
			line("nodeSelector %s=%s%s", k, pod.Spec.NodeSelector[k], nodeValue(node, k))
		}
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		if req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			for i, term := range req.NodeSelectorTerms {
				prefix := "required node affinity"
				if len(req.NodeSelectorTerms) > 1 {
					prefix = fmt.Sprintf("required node affinity, term %d of %d (any one suffices)", i+1, len(req.NodeSelectorTerms))
				}
				for _, r := range term.MatchExpressions {
					line("%s: %s%s", prefix, requirementString(r), nodeValue(node, r.Key))
				}
			}
		}
		for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			for _, r := range t.Preference.MatchExpressions {
				line("preferred node affinity (weight %d, relaxed if it cannot be met): %s%s", t.Weight, requirementString(r), nodeValue(node, r.Key))
			}
		}
	}
	for _, t := range pod.Spec.Tolerations {
		line("tolerates %s", tolerationString(t))
	}
	for _, c := range pod.Spec.TopologySpreadConstraints {
		kind := "required"
		if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
			kind = "preferred"
		}
		line("topology spread (%s) over %s, maxSkew %d, pods %s%s", kind, c.TopologyKey, c.MaxSkew, selectorString(c.LabelSelector), nodeValue(node, c.TopologyKey))
		if spread := e.spread(pod.Namespace, nil, c.LabelSelector, c.TopologyKey); spread != "" {
			line("  matching pods per %s after the plan: %s", c.TopologyKey, spread)
		}
	}
	if a := pod.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				e.affinityTerm(line, pod, "pod affinity (required)", t, node)
			}
			for _, t := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
				e.affinityTerm(line, pod, fmt.Sprintf("pod affinity (preferred, weight %d)", t.Weight), t.PodAffinityTerm, node)
			}
		}
		if a.PodAntiAffinity != nil {
			for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				e.affinityTerm(line, pod, "pod anti-affinity (required)", t, node)
			}
			for _, t := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
				e.affinityTerm(line, pod, fmt.Sprintf("pod anti-affinity (preferred, weight %d)", t.Weight), t.PodAffinityTerm, node)
			}
		}
	}
	e.volumes(line, pod, node)
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				line("host port %d/%s (one pod per node)", p.HostPort, orDefault(string(p.Protocol), "TCP"))
			}
		}
	}
}

func (e *explainer) affinityTerm(line func(string, ...any), pod *corev1.Pod, what string, t corev1.PodAffinityTerm, node map[string]string) {
	line("%s over %s, pods %s%s", what, t.TopologyKey, selectorString(t.LabelSelector), nodeValue(node, t.TopologyKey))
	if t.NamespaceSelector != nil {
		return // the namespaces a selector picks are not worth recomputing here
	}
	namespaces := t.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{pod.Namespace}
	}
	if spread := e.spread("", namespaces, t.LabelSelector, t.TopologyKey); spread != "" {
		line("  matching pods per %s after the plan: %s", t.TopologyKey, spread)
	}
}

// spread counts the pods matching selector (in namespace, or in namespaces) per domain of key,
// over the running pods and those the plan places.
func (e *explainer) spread(namespace string, namespaces []string, selector *metav1.LabelSelector, key string) string {
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil || selector == nil {
		return ""
	}
	inNamespace := func(ns string) bool {
		if namespaces == nil {
			return ns == namespace
		}
		for _, n := range namespaces {
			if n == ns {
				return true
			}
		}
		return false
	}
	counts := map[string]int{}
	for _, p := range e.pods {
		if p == nil || !inNamespace(p.Namespace) || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		domain, ok := e.labelsOf[e.nodeOf[podKey(p)]][key]
		if !ok {
			continue
		}
		counts[domain]++
	}
	if len(counts) == 0 {
		return ""
	}
	domains := sortedKeys(counts)
	parts := make([]string, len(domains))
	for i, d := range domains {
		parts[i] = fmt.Sprintf("%s %d", d, counts[d])
	}
	return strings.Join(parts, ", ")
}

func (e *explainer) volumes(line func(string, ...any), pod *corev1.Pod, node map[string]string) {
	in := e.res.Input
	var bound []*corev1.Pod
	for _, n := range in.ExistingNodes {
		bound = append(bound, n.Pods...)
	}
	ix := volume.NewIndex(in.PersistentVolumeClaims, in.PersistentVolumes, in.StorageClasses, bound)
	vols, err := ix.ForPod(pod)
	if err != nil {
		line("volumes: %v", err)
		return
	}
	for _, c := range vols.Claims {
		var notes []string
		if c.ReadWriteOnce {
			notes = append(notes, "ReadWriteOnce")
		}
		if c.ReadWriteOncePod {
			notes = append(notes, "ReadWriteOncePod")
		}
		if c.Driver != "" {
			notes = append(notes, "driver "+c.Driver)
		}
		if c.InUseOn != "" {
			notes = append(notes, "in use on "+c.InUseOn)
		}
		line("claim %s (%s)", c.Key, strings.Join(notes, ", "))
	}
	if len(vols.Alternatives) == 0 {
		return
	}
	alts := make([]string, len(vols.Alternatives))
	var keys []string
	for i, a := range vols.Alternatives {
		alts[i] = a.String()
		keys = append(keys, a.Keys()...)
	}
	sort.Strings(keys)
	keys = compact(keys)
	var values []string
	for _, k := range keys {
		if v, ok := node[k]; ok {
			values = append(values, k+"="+v)
		}
	}
	have := ""
	if len(values) > 0 {
		have = " (node: " + strings.Join(values, ", ") + ")"
	}
	line("volumes allow nodes with %s%s", strings.Join(alts, " or "), have)
}

func compact(sorted []string) []string {
	var out []string
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// nodeValue shows the chosen node's value for a label key.
func nodeValue(node map[string]string, key string) string {
	if node == nil {
		return ""
	}
	if v, ok := node[key]; ok {
		return " (node: " + v + ")"
	}
	if v, ok := node[requirements.NormalizeKey(key)]; ok {
		return " (node: " + v + ")"
	}
	return " (node: no such label)"
}

func requestsString(pod *corev1.Pod) string {
	var u usage
	u.add(pod)
	if u.cpuMilli == 0 && u.memory == 0 {
		return "none (the pod only takes a pod slot)"
	}
	return "cpu " + milliString(u.cpuMilli) + ", memory " + bytesString(u.memory)
}

func milliString(m int64) string {
	if m%1000 == 0 {
		return fmt.Sprintf("%d", m/1000)
	}
	return fmt.Sprintf("%dm", m)
}

func bytesString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGi", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMi", n>>20)
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGi", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMi", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d", n)
}

func requirementString(r corev1.NodeSelectorRequirement) string {
	switch r.Operator {
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		return r.Key + " " + string(r.Operator)
	}
	return fmt.Sprintf("%s %s [%s]", r.Key, r.Operator, strings.Join(r.Values, " "))
}

func tolerationString(t corev1.Toleration) string {
	s := t.Key
	if s == "" {
		s = "every taint"
	}
	if t.Operator == corev1.TolerationOpExists && t.Key != "" {
		s += " (any value)"
	} else if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	return s
}

func selectorString(s *metav1.LabelSelector) string {
	if s == nil {
		return "(none)"
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return "(invalid selector)"
	}
	if str := sel.String(); str != "" {
		return str
	}
	return "(all)"
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// skippedForRoom is the solver's note on the existing nodes it did not try for lack of free
// room. The solver models a cordoned node as having no allocatable, so cordoned nodes are
// among them.
var skippedForRoom = regexp.MustCompile(`^(\d+) existing node\(s\) skipped: not enough free room$`)

// withCordoned tells the cordoned nodes apart in the solver's note on skipped existing nodes:
// they were passed over for being cordoned, whatever room they have.
func withCordoned(step string, cordoned []string) string {
	m := skippedForRoom.FindStringSubmatch(step)
	if m == nil || len(cordoned) == 0 {
		return step
	}
	skipped, err := strconv.Atoi(m[1])
	if err != nil || skipped < len(cordoned) {
		return step
	}
	text := fmt.Sprintf("%s skipped: cordoned (spec.unschedulable, takes no new pods): %s",
		plural(len(cordoned), "existing node"), abbreviate(cordoned, 5))
	if full := skipped - len(cordoned); full > 0 {
		text += fmt.Sprintf("; %s skipped: not enough free room", plural(full, "other existing node"))
	}
	return text
}

// cordonedNodes names the cordoned existing nodes, sorted.
func cordonedNodes(nodes []*scheduling.ExistingNode) []string {
	var out []string
	for _, n := range nodes {
		if n != nil && n.Node != nil && n.Node.Spec.Unschedulable {
			out = append(out, n.Node.Name)
		}
	}
	sort.Strings(out)
	return out
}
