package cli

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

const catalogDescription = `
List the instance types of a catalog with their shape, allocatable resources and the
cheapest on-demand and spot price (USD per hour, over all zones), cheapest on-demand first.

-l filters with a Kubernetes label selector over each type's labels (kubernetes.io/arch,
karpenter.k8s.aws/instance-family, …) and node.kubernetes.io/instance-type, e.g.
  nodeplan catalog -l 'kubernetes.io/arch=arm64,karpenter.k8s.aws/instance-cpu in (4,8)'
-o json and -o yaml print the selected types as a nodeplan/v1 InstanceTypeCatalog, the
format --catalog reads.

-f reads manifests (as plan does) for their NodeOverlays (karpenter.sh/v1alpha1) and shows
the prices and extended resources those give every NodePool; the region follows the
manifests' zones unless --region says otherwise.`

func runCatalog(prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet(prog, "catalog", prog+" catalog [--catalog aws|synthetic|FILE] [--region R] [-f PATH...] [-l selector] [-o table|json|yaml]", catalogDescription, stderr)
	catalogFlags := addCatalogFlags(fs, false)
	var paths pathsFlag
	fs.Var(&paths, "f", "manifest `PATH` whose NodeOverlays adjust the catalog: a file, a directory or - for stdin (repeatable)")
	fs.Var(&paths, "filename", "manifest `PATH` (same as -f)")
	var selector, output string
	fs.StringVar(&selector, "l", "", "label `selector` to filter instance types (as kubectl -l)")
	fs.StringVar(&selector, "selector", "", "label `selector` (same as -l)")
	fs.StringVar(&output, "o", "table", "output `format`: table, json or yaml")
	fs.StringVar(&output, "output", "table", "output `format` (same as -o)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if msg := catalogFlags.check(); msg != "" {
		return badFlag(stderr, fs, "%s", msg)
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return badFlag(stderr, fs, "invalid -l selector %q: %v", selector, err)
	}
	if output != "table" && output != "json" && output != "yaml" {
		return badFlag(stderr, fs, "invalid -o %q: use table, json or yaml", output)
	}

	var c *instancetype.Catalog
	if len(paths) > 0 {
		var warnings []string
		c, warnings, err = app.OverlaidCatalog(app.Config{Paths: paths, Stdin: stdin, Catalog: catalogFlags.catalog, Region: catalogFlags.region})
		warn(stderr, warnings)
	} else {
		c, err = catalogFlags.load()
	}
	if err != nil {
		return inputError(stderr, fs, err)
	}
	selected := &instancetype.Catalog{Region: c.Region, Source: c.Source}
	for _, it := range c.InstanceTypes {
		if sel.Matches(selectableLabels(it)) {
			selected.InstanceTypes = append(selected.InstanceTypes, it)
		}
	}

	switch output {
	case "json", "yaml":
		data, err := instancetype.EncodeCatalog(selected)
		if err == nil && output == "yaml" {
			data, err = jsonToYAML(data)
		}
		if err != nil {
			return inputError(stderr, fs, err)
		}
		_, err = stdout.Write(data)
		return outputError(stderr, fs, err)
	}
	if len(selected.InstanceTypes) == 0 {
		fmt.Fprintf(stderr, "No instance types in the %s catalog match %q.\n", describeCatalog(c), selector)
		return ExitOK
	}
	return outputError(stderr, fs, writeCatalogTable(stdout, selected.InstanceTypes))
}

// selectableLabels are the labels -l matches: the type's own, under their current and
// deprecated names, and its instance-type label.
func selectableLabels(it *instancetype.InstanceType) labels.Set {
	set := labels.Set{requirements.LabelInstanceType: it.Name}
	for _, old := range requirements.DeprecatedKeysOf(requirements.LabelInstanceType) {
		set[old] = it.Name
	}
	for k, v := range it.Labels {
		set[k] = v
		for _, old := range requirements.DeprecatedKeysOf(requirements.NormalizeKey(k)) {
			set[old] = v
		}
	}
	return set
}

func describeCatalog(c *instancetype.Catalog) string {
	if c.Region != "" {
		return c.Region
	}
	return c.Source
}

// catalogRow is one line of the table.
type catalogRow struct {
	it             *instancetype.InstanceType
	onDemand, spot float64 // cheapest available price; -1 when there is none
}

var (
	onDemandOnly = requirements.NewRequirements(requirements.New(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, requirements.CapacityTypeOnDemand))
	spotOnly     = requirements.NewRequirements(requirements.New(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, requirements.CapacityTypeSpot))
)

func cheapest(it *instancetype.InstanceType, reqs requirements.Requirements) float64 {
	if o, ok := it.CheapestOffering(reqs); ok {
		return o.Price
	}
	return -1
}

// writeCatalogTable prints types as an aligned table, cheapest on-demand first (types without
// an on-demand offering last), then by name.
func writeCatalogTable(w io.Writer, types []*instancetype.InstanceType) error {
	rows := make([]catalogRow, 0, len(types))
	for _, it := range types {
		rows = append(rows, catalogRow{it: it, onDemand: cheapest(it, onDemandOnly), spot: cheapest(it, spotOnly)})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if (a.onDemand < 0) != (b.onDemand < 0) {
			return b.onDemand < 0
		}
		if a.onDemand != b.onDemand {
			return a.onDemand < b.onDemand
		}
		return a.it.Name < b.it.Name
	})

	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVCPU\tMEMORY\tARCH\tPODS\tALLOC CPU\tALLOC MEMORY\tON-DEMAND\tSPOT")
	for _, r := range rows {
		alloc := r.it.Allocatable()
		arch := r.it.Labels[requirements.LabelArch]
		if arch == "" {
			arch = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.it.Name,
			quantity(r.it.Capacity, corev1.ResourceCPU),
			gibibytes(r.it.Capacity, corev1.ResourceMemory),
			arch,
			quantity(r.it.Capacity, corev1.ResourcePods),
			quantity(alloc, corev1.ResourceCPU),
			gibibytes(alloc, corev1.ResourceMemory),
			dollars(r.onDemand),
			dollars(r.spot),
		)
	}
	return tw.Flush()
}

func quantity(l corev1.ResourceList, name corev1.ResourceName) string {
	q, ok := l[name]
	if !ok {
		return "-"
	}
	return q.String()
}

// gibibytes shows memory in GiB with one decimal, so that sizes line up and compare at a glance.
func gibibytes(l corev1.ResourceList, name corev1.ResourceName) string {
	q, ok := l[name]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.1fGi", float64(q.Value())/float64(1<<30))
}

func dollars(price float64) string {
	if price < 0 {
		return "-"
	}
	return fmt.Sprintf("$%.4f", price)
}
