package app

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodeplan/nodeplan/workloadcost"
)

// clusterView is the cluster at one moment, one column per zone.
type clusterView struct {
	Title, Note string
	Zones       []zoneColumn
	// CountInLegend says the view's pods count in the legend's pod numbers (one view per page
	// does, so that a pod drawn before and after is counted once).
	CountInLegend bool
	// Pending are pods this view has no node for.
	Pending []string
}

type zoneColumn struct {
	Name  string
	Nodes []nodeBox
}

// nodeBox is one node: a box W×H pixels (allocatable cpu × memory) with its pods inside.
type nodeBox struct {
	Name string
	// NameParts are Name cut after each dot, where a long name may wrap.
	NameParts []string
	Class     string // new, existing or removed
	Badge     string
	Lines     []string
	Title     string
	W, H      int
	Pods      []podRect
	// CPU and Mem are the requested shares of allocatable in percent, capped at 100 for bars.
	CPU, Mem         int
	CPUText, MemText string
}

// podRect is one pod drawn in its node: its requests as a rectangle, corner to corner with the
// pods drawn before it (cpu to the right, memory upwards).
type podRect struct {
	Key, Workload, WorkloadLabel string
	Fill, Class, Title           string
	X, Y, W, H                   string
}

// drawnNode is what a view needs to know of a node to draw it.
type drawnNode struct {
	name, zone   string
	class, badge string
	lines        []string
	allocatable  corev1.ResourceList
	daemons      []*corev1.Pod // DaemonSet pods the node would run (drawn first, grey)
	running      []*corev1.Pod // pods already on it
	placed       []*corev1.Pod // pods this plan or command puts on it
}

const (
	maxBoxW, maxBoxH = 220, 150 // the largest node's box, in pixels
	minBox           = 28
	minPod           = 2.0
	tinyPod          = 6.0
	daemonFill       = "#b8bcc2"
	noZone           = "(no zone)"
)

// scale maps millicores and bytes to pixels, the same for every node of a page so that boxes
// compare.
type scale struct {
	pxPerMilli, pxPerByte float64
}

func newScale(groups ...[]drawnNode) scale {
	var maxCPU, maxMem float64
	for _, nodes := range groups {
		for _, n := range nodes {
			cpu, mem := n.capacity()
			maxCPU, maxMem = math.Max(maxCPU, cpu), math.Max(maxMem, mem)
		}
	}
	s := scale{pxPerMilli: 1, pxPerByte: 1}
	if maxCPU > 0 {
		s.pxPerMilli = maxBoxW / maxCPU
	}
	if maxMem > 0 {
		s.pxPerByte = maxBoxH / maxMem
	}
	return s
}

// capacity is the cpu (millicores) and memory (bytes) the box stands for: allocatable, or
// what the pods request when allocatable is unknown.
func (n drawnNode) capacity() (cpu, mem float64) {
	cpu = float64(n.allocatable.Cpu().MilliValue())
	mem = n.allocatable.Memory().AsApproximateFloat64()
	if cpu > 0 && mem > 0 {
		return cpu, mem
	}
	var u usage
	for _, p := range n.pods() {
		u.add(p)
	}
	return math.Max(cpu, float64(u.cpuMilli)), math.Max(mem, float64(u.memory))
}

func (n drawnNode) pods() []*corev1.Pod {
	return slices.Concat(n.daemons, n.running, n.placed)
}

// drawView lays the nodes out by zone (zones sorted, nodes in the given order).
func drawView(title, note string, nodes []drawnNode, sc scale) clusterView {
	v := clusterView{Title: title, Note: note}
	byZone := map[string][]nodeBox{}
	for _, n := range nodes {
		zone := orDefault(n.zone, noZone)
		byZone[zone] = append(byZone[zone], drawNode(n, sc))
	}
	for _, z := range sortedKeys(byZone) {
		v.Zones = append(v.Zones, zoneColumn{Name: z, Nodes: byZone[z]})
	}
	return v
}

func drawNode(n drawnNode, sc scale) nodeBox {
	cpuCap, memCap := n.capacity()
	b := nodeBox{
		Name: n.name, NameParts: strings.SplitAfter(n.name, "."), Class: n.class, Badge: n.badge, Lines: n.lines,
		W: max(minBox, int(math.Round(cpuCap*sc.pxPerMilli))),
		H: max(minBox, int(math.Round(memCap*sc.pxPerByte))),
	}
	// Pixels per unit inside this box, so that the allocatable fills it exactly.
	px, py := 0.0, 0.0
	if cpuCap > 0 {
		px = float64(b.W) / cpuCap
	}
	if memCap > 0 {
		py = float64(b.H) / memCap
	}
	var u usage
	var cumCPU, cumMem float64
	draw := func(p *corev1.Pod, class, status string) {
		req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		cpu, mem := float64(req.Cpu().MilliValue()), req.Memory().AsApproximateFloat64()
		u.add(p)
		w, h := math.Max(minPod, cpu*px), math.Max(minPod, mem*py)
		x := math.Min(cumCPU*px, float64(b.W)-w)
		y := math.Max(float64(b.H)-(cumMem*py)-h, 0)
		cumCPU, cumMem = cumCPU+cpu, cumMem+mem
		wl := workloadcost.Of(p)
		fill := workloadColor(wl)
		if class == "daemon" {
			fill = daemonFill
		}
		if w < tinyPod || h < tinyPod {
			class += " tiny" // no outline, or the outline would hide the pod
		}
		b.Pods = append(b.Pods, podRect{
			Key: podKey(p), Workload: workloadID(wl), WorkloadLabel: workloadLabel(wl),
			Fill: fill, Class: class,
			Title: fmt.Sprintf("%s\n%s\nrequests: %s\n%s", podKey(p), workloadLabel(wl), requestsString(p), status),
			X:     px1(x), Y: px1(y), W: px1(w), H: px1(h),
		})
	}
	for _, p := range n.daemons {
		draw(p, "daemon", "DaemonSet pod on "+n.name)
	}
	for _, p := range n.running {
		draw(p, "running", "running on "+n.name)
	}
	for _, p := range n.placed {
		draw(p, "placed", "goes to "+n.name)
	}
	allocCPU, allocMem := n.allocatable.Cpu().MilliValue(), n.allocatable.Memory().Value()
	b.CPUText, b.MemText = percent(u.cpuMilli, allocCPU), percent(u.memory, allocMem)
	b.CPU, b.Mem = barPercent(u.cpuMilli, allocCPU), barPercent(u.memory, allocMem)
	b.Title = fmt.Sprintf("%s\nallocatable: cpu %s, memory %s\nrequested: cpu %s (%s), memory %s (%s)\n%s",
		n.name, milliString(allocCPU), bytesString(allocMem), milliString(u.cpuMilli), b.CPUText, bytesString(u.memory), b.MemText,
		plural(len(n.running)+len(n.placed), "pod"))
	return b
}

func barPercent(used, total int64) int {
	if total <= 0 {
		return 0
	}
	return int(min(100, (used*100+total/2)/total))
}

func px1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// workloadColor is a colour derived from the workload's namespace, kind and name only, so a
// workload has the same colour in every report: a hue from an FNV hash, with saturation and
// lightness kept where white text and grey outlines stay readable.
func workloadColor(w workloadcost.Workload) string {
	h := fnv.New32a()
	h.Write([]byte(workloadID(w)))
	sum := h.Sum32()
	hue := float64(sum % 360)
	sat := 0.50 + float64((sum>>9)%25)/100
	light := 0.42 + float64((sum>>17)%16)/100
	r, g, b := hslToRGB(hue, sat, light)
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

func hslToRGB(h, s, l float64) (r, g, b uint8) {
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := l - c/2
	var r1, g1, b1 float64
	switch {
	case h < 60:
		r1, g1, b1 = c, x, 0
	case h < 120:
		r1, g1, b1 = x, c, 0
	case h < 180:
		r1, g1, b1 = 0, c, x
	case h < 240:
		r1, g1, b1 = 0, x, c
	case h < 300:
		r1, g1, b1 = x, 0, c
	default:
		r1, g1, b1 = c, 0, x
	}
	to := func(v float64) uint8 { return uint8(math.Round((v + m) * 255)) }
	return to(r1), to(g1), to(b1)
}

// nodeLine is a node's description under its name: type, capacity type, price, NodePool.
func nodeLine(instanceType, capacityType string, hourly float64, nodePool string) []string {
	first := joinNonEmpty(" · ", instanceType, capacityType)
	if hourly > 0 {
		first = joinNonEmpty(" · ", first, price(hourly)+"/h")
	}
	var lines []string
	if first != "" {
		lines = append(lines, first)
	}
	if nodePool != "" {
		lines = append(lines, "NodePool "+nodePool)
	}
	return lines
}

// usageShare is the share of allocatable cpu and memory requested over many nodes.
func usageShare(nodes []drawnNode) (cpu, mem string) {
	var u usage
	var allocCPU, allocMem int64
	for _, n := range nodes {
		for _, p := range n.pods() {
			u.add(p)
		}
		allocCPU += n.allocatable.Cpu().MilliValue()
		allocMem += n.allocatable.Memory().Value()
	}
	return percent(u.cpuMilli, allocCPU), percent(u.memory, allocMem)
}

// nodeCounts are the "nodes by type" and "nodes by capacity type" lists.
func nodeCounts(prefix string, types, capacityTypes []string) []breakdown {
	return []breakdown{
		{Title: prefix + "nodes by type", Items: countsOf(types)},
		{Title: prefix + "nodes by capacity type", Items: countsOf(capacityTypes)},
	}
}

func isDaemonPod(p *corev1.Pod) bool {
	return workloadcost.Of(p).Kind == "DaemonSet"
}

// splitDaemons separates a node's DaemonSet pods from the others.
func splitDaemons(pods []*corev1.Pod) (daemons, others []*corev1.Pod) {
	for _, p := range pods {
		if p == nil {
			continue
		}
		if isDaemonPod(p) {
			daemons = append(daemons, p)
		} else {
			others = append(others, p)
		}
	}
	return daemons, others
}
