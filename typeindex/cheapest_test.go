package typeindex_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

func TestCheapest(t *testing.T) {
	in := func(key, value string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}
	}
	node := requirements.FromNodeSelectorRequirements
	amd64 := requirements.FromLabels(map[string]string{requirements.LabelArch: "amd64"})
	// Offerings cheapest first, as Type requires.
	types := []*typeindex.Type{
		{Name: "m5.large", Reqs: amd64, Offerings: []instancetype.Offering{
			{Zone: "zone-a", CapacityType: "reserved", Price: 0.05, Available: true, ReservationID: "cr-1", ReservationCapacity: 1},
			{Zone: "zone-b", CapacityType: "spot", Price: 0.08, Available: true},
			{Zone: "zone-a", CapacityType: "on-demand", Price: 0.096, Available: true},
		}},
		{Name: "c5.large", Reqs: amd64, Offerings: []instancetype.Offering{
			{Zone: "zone-b", CapacityType: "spot", Price: 0.08, Available: true},
			{Zone: "zone-a", CapacityType: "on-demand", Price: 0.085, Available: true},
		}},
		{Name: "a1.large", Reqs: amd64, Offerings: []instancetype.Offering{
			{Zone: "zone-b", CapacityType: "spot", Price: 0.08, Available: true},
			{Zone: "zone-c", CapacityType: "on-demand", Price: 0.2, Available: true},
		}},
	}
	typeindex.New(len(types), func(i int) *typeindex.Type { return types[i] })
	at := func(i int) *typeindex.Type { return types[i] }
	cases := []struct {
		name             string
		reqs             requirements.Requirements
		reservationsLeft map[string]int
		wantType         string
		wantZone         string
		wantCapacityType string
		wantPrice        float64 // CheapestPrice of the chosen type, -1 for none
	}{
		{"the reservation is cheapest", nil, nil, "m5.large", "zone-a", "reserved", 0.05},
		{"a used-up reservation is skipped; price ties go to the type name", nil, map[string]int{"cr-1": 0}, "a1.large", "zone-b", "spot", 0.08},
		{"a reservation with instances left is kept", nil, map[string]int{"cr-1": 1}, "m5.large", "zone-a", "reserved", 0.05},
		{"only on-demand in zone-a", node(in(requirements.LabelTopologyZone, "zone-a"), in(requirements.LabelCapacityType, "on-demand")), nil, "c5.large", "zone-a", "on-demand", 0.085},
		{"only zone-c", node(in(requirements.LabelTopologyZone, "zone-c")), nil, "a1.large", "zone-c", "on-demand", 0.2},
		{"no type offers zone-d", node(in(requirements.LabelTopologyZone, "zone-d")), nil, "", "", "", -1},
	}
	for _, c := range cases {
		ti, oi, found := typeindex.Cheapest(len(types), at, c.reqs, c.reservationsLeft)
		if !found {
			if c.wantType != "" {
				t.Errorf("%s: found nothing, want %s", c.name, c.wantType)
			}
			for _, typ := range types {
				if p := typeindex.CheapestPrice(typ, c.reqs); p != -1 {
					t.Errorf("%s: CheapestPrice(%s) = %v with nothing found", c.name, typ.Name, p)
				}
			}
			continue
		}
		typ, o := types[ti], types[ti].Offerings[oi]
		if typ.Name != c.wantType || o.Zone != c.wantZone || o.CapacityType != c.wantCapacityType {
			t.Errorf("%s: got %s %s %s, want %s %s %s", c.name, typ.Name, o.Zone, o.CapacityType, c.wantType, c.wantZone, c.wantCapacityType)
		}
		if c.reservationsLeft == nil {
			if p := typeindex.CheapestPrice(typ, c.reqs); p != c.wantPrice {
				t.Errorf("%s: CheapestPrice(%s) = %v, want %v", c.name, typ.Name, p, c.wantPrice)
			}
		}
	}
	if _, _, found := typeindex.Cheapest(0, at, nil, nil); found {
		t.Errorf("no types: found one")
	}
}

func TestTieLess(t *testing.T) {
	a, b := &typeindex.Type{Name: "a1.large"}, &typeindex.Type{Name: "b1.large"}
	offering := func(zone, capacityType string) instancetype.Offering {
		return instancetype.Offering{Zone: zone, CapacityType: capacityType, Price: 1}
	}
	cases := []struct {
		name   string
		t      *typeindex.Type
		o      instancetype.Offering
		bestT  *typeindex.Type
		bestO  instancetype.Offering
		before bool
	}{
		{"zone first", b, offering("zone-a", "spot"), a, offering("zone-b", "on-demand"), true},
		{"then capacity type", b, offering("zone-a", "on-demand"), a, offering("zone-a", "spot"), true},
		{"then the type name", b, offering("zone-a", "spot"), a, offering("zone-a", "spot"), false},
		{"the same name and offering is not before", a, offering("zone-a", "spot"), a, offering("zone-a", "spot"), false},
	}
	for _, c := range cases {
		if got := typeindex.TieLess(c.t, c.o, c.bestT, c.bestO); got != c.before {
			t.Errorf("%s: got %v, want %v", c.name, got, c.before)
		}
		if c.before && typeindex.TieLess(c.bestT, c.bestO, c.t, c.o) {
			t.Errorf("%s: before both ways", c.name)
		}
	}
}
