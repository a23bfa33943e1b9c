package nodetemplate_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// A compiled typeindex.Filter must give typeindex.Allows' verdict on every type, and the cheapest allowed
// offering a scan of the offerings gives, whatever the requirements: the index is only a
// faster way to ask the same question.
func TestTypeFilterAgreesWithTypeAllows(t *testing.T) {
	catalog, err := aws.Catalog("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	const (
		zone   = requirements.LabelTopologyZone
		ct     = requirements.LabelCapacityType
		it     = requirements.LabelInstanceType
		arch   = requirements.LabelArch
		family = "karpenter.k8s.aws/instance-family"
		cpu    = "karpenter.k8s.aws/instance-cpu"
		gen    = "karpenter.k8s.aws/instance-generation"
		gpu    = "karpenter.k8s.aws/instance-gpu-name"
	)
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	sets := map[string][]corev1.NodeSelectorRequirement{
		"none":                   nil,
		"one zone":               {req(zone, corev1.NodeSelectorOpIn, "us-west-2a")},
		"zone and spot":          {req(zone, corev1.NodeSelectorOpIn, "us-west-2d"), req(ct, corev1.NodeSelectorOpIn, "spot")},
		"zones excluded":         {req(zone, corev1.NodeSelectorOpNotIn, "us-west-2a", "us-west-2b")},
		"unknown zone":           {req(zone, corev1.NodeSelectorOpIn, "eu-west-1a")},
		"on-demand":              {req(ct, corev1.NodeSelectorOpIn, "on-demand")},
		"reserved":               {req(ct, corev1.NodeSelectorOpIn, "reserved")},
		"arm64 in one zone":      {req(arch, corev1.NodeSelectorOpIn, "arm64"), req(zone, corev1.NodeSelectorOpIn, "us-west-2c")},
		"three names":            {req(it, corev1.NodeSelectorOpIn, "m5.large", "c7g.xlarge", "nope.large")},
		"all names but one":      {req(it, corev1.NodeSelectorOpNotIn, "m5.large")},
		"families":               {req(family, corev1.NodeSelectorOpIn, "c7g", "m5")},
		"more than 16 cpu":       {req(cpu, corev1.NodeSelectorOpGt, "16")},
		"small and recent":       {req(cpu, corev1.NodeSelectorOpLt, "4"), req(gen, requirements.OpGte, "6")},
		"gpu":                    {req(gpu, corev1.NodeSelectorOpExists)},
		"no gpu":                 {req(gpu, corev1.NodeSelectorOpDoesNotExist)},
		"a gpu model not on-dem": {req(gpu, corev1.NodeSelectorOpNotIn, "t4"), req(ct, corev1.NodeSelectorOpNotIn, "on-demand")},
		"hostname":               {req(requirements.LabelHostname, corev1.NodeSelectorOpIn, "default-1")},
		"custom key":             {req("example.com/team", corev1.NodeSelectorOpIn, "a")},
		"arch missing":           {req(arch, corev1.NodeSelectorOpDoesNotExist)},
	}
	poolReqs := map[string][]nodepool.NodeSelectorRequirementWithMinValues{
		"open":                 nil,
		"amd64 without spot":   {{NodeSelectorRequirement: req(arch, corev1.NodeSelectorOpIn, "amd64")}, {NodeSelectorRequirement: req(ct, corev1.NodeSelectorOpNotIn, "spot")}},
		"two zones, c7g and m": {{NodeSelectorRequirement: req(zone, corev1.NodeSelectorOpIn, "us-west-2a", "us-west-2b")}, {NodeSelectorRequirement: req(family, corev1.NodeSelectorOpIn, "c7g", "m5", "m6i")}},
	}
	// Zones enough that (zone, capacity type) pairs exceed 64 bits: offerings are then scanned.
	var manyZones []*instancetype.InstanceType
	for i := range 3 {
		mt := &instancetype.InstanceType{
			Name:     fmt.Sprintf("z%d.large", i),
			Labels:   map[string]string{arch: "amd64", requirements.LabelOS: "linux"},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("20")},
		}
		for z := range 40 {
			for _, c := range []string{"spot", "on-demand"} {
				if (z+i)%3 != 0 {
					mt.Offerings = append(mt.Offerings, instancetype.Offering{Zone: fmt.Sprintf("zone-%02d", z), CapacityType: c, Price: float64(1+i) + float64(z)/100, Available: true})
				}
			}
		}
		manyZones = append(manyZones, mt)
	}
	sets["zone 39"] = []corev1.NodeSelectorRequirement{req(zone, corev1.NodeSelectorOpIn, "zone-39")}
	sets["zones 01 and 02 on spot"] = []corev1.NodeSelectorRequirement{req(zone, corev1.NodeSelectorOpIn, "zone-01", "zone-02"), req(ct, corev1.NodeSelectorOpIn, "spot")}

	catalogs := map[string][]*instancetype.InstanceType{"aws us-west-2": catalog.InstanceTypes, "forty zones": manyZones}
	for cname, types := range catalogs {
		for pname, preqs := range poolReqs {
			np := &nodepool.NodePool{Name: "np", Requirements: preqs, InstanceTypes: types}
			pool, err := nodetemplate.New(np, 0, resources.NewDims(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(pool.Types) == 0 {
				continue
			}
			// Forty zones of spot and on-demand offerings are 80 pairs; without spot, 40.
			wantPairs := cname == "aws us-west-2" || pname == "amd64 without spot"
			if pool.TypeIndex.PairsInBits() != wantPairs {
				t.Fatalf("%s/%s: offering pairs in bits = %v, want %v", cname, pname, pool.TypeIndex.PairsInBits(), wantPairs)
			}
			var scratch typeindex.Scratch
			for sname, set := range sets {
				reqs := requirements.FromNodeSelectorRequirements(set...)
				reqs.AddAll(pool.Reqs)
				f := pool.TypeIndex.Compile(reqs, &scratch)
				allowed := 0
				for _, typ := range pool.Types {
					want := typeindex.Allows(&typ.Type, reqs)
					if got := f.Allows(&typ.Type); got != want {
						t.Errorf("%s/%s/%s: %s: filter says %v, Allows %v", cname, pname, sname, typ.InstanceType.Name, got, want)
					}
					if want {
						allowed++
					}
					wantOffering := -1
					for i, o := range typ.Offerings {
						if instancetype.OfferingAllowed(o, reqs) {
							wantOffering = i
							break
						}
					}
					of := typeindex.OfferingFilter(pool.TypeIndex, reqs)
					if got := of.CheapestOffering(&typ.Type); got != wantOffering {
						t.Errorf("%s/%s/%s: %s: cheapest allowed offering %d, want %d", cname, pname, sname, typ.InstanceType.Name, got, wantOffering)
					}
					for i, o := range typ.Offerings {
						if got, want := of.OfferingAllowed(&typ.Type, i), instancetype.OfferingAllowed(o, reqs); got != want {
							t.Errorf("%s/%s/%s: %s offering %d: allowed %v, want %v", cname, pname, sname, typ.InstanceType.Name, i, got, want)
						}
					}
				}
				// The table must exercise both verdicts, or it proves little.
				if sname == "none" && allowed != len(pool.Types) {
					t.Errorf("%s/%s: %d of %d types meet no requirement", cname, pname, allowed, len(pool.Types))
				}
			}
		}
	}
}

// BenchmarkTypesAllowed asks which of the us-west-2 catalog's types meet a node's requirements
// (a zone and capacity type narrowed, an arch chosen), type by type and through the index.
func BenchmarkTypesAllowed(b *testing.B) {
	catalog, err := aws.Catalog("us-west-2")
	if err != nil {
		b.Fatal(err)
	}
	pool, err := nodetemplate.New(&nodepool.NodePool{Name: "default", InstanceTypes: catalog.InstanceTypes}, 0, resources.NewDims(), nil)
	if err != nil {
		b.Fatal(err)
	}
	reqs := requirements.FromNodeSelectorRequirements(
		corev1.NodeSelectorRequirement{Key: requirements.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-west-2a", "us-west-2b"}},
		corev1.NodeSelectorRequirement{Key: requirements.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}},
		corev1.NodeSelectorRequirement{Key: requirements.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}},
	)
	reqs.AddAll(pool.Reqs)
	b.Run("typeAllows", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for _, t := range pool.Types {
				if typeindex.Allows(&t.Type, reqs) {
					n++
				}
			}
		}
	})
	b.Run("typeFilter", func(b *testing.B) {
		var scratch typeindex.Scratch
		for b.Loop() {
			n := 0
			f := pool.TypeIndex.Compile(reqs, &scratch)
			for _, t := range pool.Types {
				if f.Allows(&t.Type) {
					n++
				}
			}
		}
	})
}
