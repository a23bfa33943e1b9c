package instancetype

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoadCatalogFile(t *testing.T) {
	for _, file := range []string{"testdata/catalog.yaml", "testdata/catalog.json"} {
		t.Run(file, func(t *testing.T) {
			c, err := LoadCatalogFile(file)
			require.NoError(t, err)
			require.Equal(t, "us-west-2", c.Region)
			require.Equal(t, "hand-written for tests", c.Source)
			require.Equal(t, []string{"m5.large", "m6g.large"}, names(c.InstanceTypes), "sorted by name")

			m5 := c.InstanceTypes[0]
			require.Equal(t, map[string]string{"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}, m5.Labels)
			requireQuantities(t, resources("cpu", "2", "memory", "8Gi", "pods", "29", "ephemeral-storage", "20Gi"), m5.Capacity)
			requireQuantities(t, resources("cpu", "1930m", "memory", "7518Mi", "pods", "29", "ephemeral-storage", "20Gi"), m5.Allocatable())
			require.Nil(t, m5.VolumeAttachLimits)
			require.Equal(t, []Offering{
				{Zone: "us-west-2a", CapacityType: "spot", Price: 0.035, Available: true},
				{Zone: "us-west-2a", CapacityType: "reserved", Price: 0.06, Available: true, ReservationID: "cr-0123", ReservationCapacity: 3},
				{Zone: "us-west-2a", CapacityType: "on-demand", Price: 0.096, Available: true},
			}, m5.Offerings, "offerings sorted by price")

			m6g := c.InstanceTypes[1]
			require.Equal(t, "m6g", m6g.Labels["karpenter.k8s.aws/instance-family"])
			requireQuantities(t, resources("cpu", "1930m", "memory", "6903Mi", "pods", "29", "ephemeral-storage", "20Gi"), m6g.Allocatable())
			require.Equal(t, map[string]int{"ebs.csi.aws.com": 26}, m6g.VolumeAttachLimits)
			require.Equal(t, []Offering{
				{Zone: "us-west-2a", CapacityType: "spot", Price: 0.029, Available: false},
				{Zone: "us-west-2b", CapacityType: "spot", Price: 0.031, Available: true}, // available defaults to true
				{Zone: "us-west-2a", CapacityType: "on-demand", Price: 0.077, Available: true},
			}, m6g.Offerings)
		})
	}
}

func TestLoadCatalogFileMissing(t *testing.T) {
	_, err := LoadCatalogFile(filepath.Join(t.TempDir(), "nope.yaml"))
	require.ErrorContains(t, err, "nope.yaml")
	require.ErrorIs(t, err, os.ErrNotExist)
}

// catalogWith returns a catalog document whose instance types are the given YAML items.
func catalogWith(items ...string) []byte {
	doc := "apiVersion: nodeplan/v1\nkind: InstanceTypeCatalog\ninstanceTypes:\n"
	for _, item := range items {
		doc += item
	}
	return []byte(doc)
}

const goodType = `
- name: m5.large
  labels: {kubernetes.io/arch: amd64}
  capacity: {cpu: "2", memory: 8Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.096}]
`

func TestParseCatalogErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  []byte
		// want are substrings the error must contain: the source, and where there is one, the
		// instance type and the field.
		want []string
	}{{
		name: "wrong kind",
		doc:  []byte("apiVersion: nodeplan/v1\nkind: Plan\ninstanceTypes: []\n"),
		want: []string{"bad.yaml", "kind", `"Plan"`, "InstanceTypeCatalog"},
	}, {
		name: "wrong apiVersion",
		doc:  []byte("apiVersion: v1\nkind: InstanceTypeCatalog\n"),
		want: []string{"bad.yaml", "apiVersion", `"v1"`, "nodeplan/v1"},
	}, {
		name: "not yaml",
		doc:  []byte("instanceTypes: [\n"),
		want: []string{"bad.yaml", "not a valid instance-type catalog"},
	}, {
		name: "no instance types",
		doc:  catalogWith(),
		want: []string{"bad.yaml", "instanceTypes", "empty"},
	}, {
		name: "unknown top-level field",
		doc:  append(catalogWith(goodType), "regions: [a]\n"...),
		want: []string{"bad.yaml", `unknown field "regions"`},
	}, {
		name: "unknown field in an instance type",
		doc: catalogWith(goodType, `
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  maxPods: 29
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[1] (c5.large)", `unknown field "maxPods"`},
	}, {
		name: "unknown field in an offering",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}, {zone: zone-b, capacityType: on-demand, cost: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings[1]", `unknown field "cost"`},
	}, {
		name: "a capacity too large for milli-units",
		doc: catalogWith(`
- name: huge
  capacity: {cpu: "1e16", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (huge)", "capacity.cpu", "is too large (at most 4e15)"},
	}, {
		name: "an overhead too large for milli-units",
		doc: catalogWith(`
- name: huge
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  overhead: {kubeReserved: {memory: 8Ei}}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (huge)", "overhead.kubeReserved.memory", "is too large (at most 4e15)"},
	}, {
		name: "wrong type of a field",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: cheap}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings[0]", "price"},
	}, {
		name: "unknown field in a JSON document",
		doc:  []byte(`{"apiVersion": "nodeplan/v1", "kind": "InstanceTypeCatalog", "instanceTypes": [{"name": "c5.large", "capacity": {"cpu": "2", "memory": "4Gi", "pods": "29"}, "offerings": [{"zone": "a", "capacityType": "spot", "price": 0.03, "availble": true}]}]}`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings[0]", `unknown field "availble"`},
	}, {
		name: "content after a JSON document",
		doc:  []byte(`{"apiVersion": "nodeplan/v1", "kind": "InstanceTypeCatalog"} {}`),
		want: []string{"bad.yaml", "unexpected content after the JSON document"},
	}, {
		name: "missing name",
		doc: catalogWith(goodType, `
- capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[1] (#1)", "name: must be set"},
	}, {
		name: "duplicate name",
		doc:  catalogWith(goodType, goodType),
		want: []string{"bad.yaml", "instanceTypes[1] (m5.large)", "name:", "already used by instanceTypes[0]"},
	}, {
		name: "missing cpu",
		doc: catalogWith(`
- name: c5.large
  capacity: {memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "capacity.cpu", "must be set"},
	}, {
		name: "zero pods",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "0"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "capacity.pods", "positive"},
	}, {
		name: "bad quantity",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4 gigs, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "capacity.memory", "quantities must match"},
	}, {
		name: "bad overhead quantity",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  overhead: {kubeReserved: {cpu: lots}}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "overhead.kubeReserved.cpu", "quantities must match"},
	}, {
		name: "negative overhead",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  overhead: {systemReserved: {memory: -1Gi}}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "overhead.systemReserved.memory", "negative"},
	}, {
		name: "negative price",
		doc: catalogWith(goodType, `
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}, {zone: zone-a, capacityType: spot, price: -0.01}]
`),
		want: []string{"bad.yaml", "instanceTypes[1] (c5.large)", "offerings[1].price", "negative", "-0.01"},
	}, {
		name: "missing price",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings[0].price", "must be set"},
	}, {
		name: "bad capacityType",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: ondemand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings[0].capacityType", `"ondemand"`, "on-demand, spot, reserved"},
	}, {
		name: "missing zone",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{capacityType: spot, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings[0].zone", "must be set"},
	}, {
		name: "duplicate offering",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: spot, price: 0.03}, {zone: zone-a, capacityType: spot, price: 0.04}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings[1]", "already offered by offerings[0]"},
	}, {
		name: "negative reservation capacity",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: reserved, price: 0.03, reservationID: cr-1, reservationCapacity: -2}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings[0].reservationCapacity", "negative"},
	}, {
		name: "no offerings",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: []
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "offerings", "at least one offering"},
	}, {
		name: "invalid label key",
		doc: catalogWith(`
- name: c5.large
  labels: {"example.com/bad key": x}
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "labels", `"example.com/bad key"`, "not a valid label key"},
	}, {
		name: "invalid label value",
		doc: catalogWith(`
- name: c5.large
  labels: {example.com/team: "-bad-"}
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "labels", `"-bad-"`, "not a valid label value"},
	}, {
		name: "zone label on the type",
		doc: catalogWith(`
- name: c5.large
  labels: {topology.kubernetes.io/zone: zone-a}
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "labels.topology.kubernetes.io/zone", "offering"},
	}, {
		name: "instance-type label that disagrees with the name",
		doc: catalogWith(`
- name: c5.large
  labels: {node.kubernetes.io/instance-type: c5.xlarge}
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "labels.node.kubernetes.io/instance-type", `"c5.xlarge"`},
	}, {
		name: "negative volume attach limit",
		doc: catalogWith(`
- name: c5.large
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  volumeAttachLimits: {ebs.csi.aws.com: -1}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`),
		want: []string{"bad.yaml", "instanceTypes[0] (c5.large)", "volumeAttachLimits.ebs.csi.aws.com", "negative"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCatalog(tt.doc, "bad.yaml")
			require.Error(t, err)
			require.Nil(t, c)
			for _, want := range tt.want {
				require.ErrorContains(t, err, want)
			}
		})
	}
}

// A document may start with "{" and still be YAML rather than JSON.
func TestParseCatalogYAMLFlowMapping(t *testing.T) {
	c, err := ParseCatalog([]byte(`{apiVersion: nodeplan/v1, kind: InstanceTypeCatalog, instanceTypes: [
  {name: c5.large, capacity: {cpu: "2", memory: 4Gi, pods: "29"}, offerings: [{zone: a, capacityType: spot, price: 0.03}]}]}`), "flow.yaml")
	require.NoError(t, err)
	require.Equal(t, []string{"c5.large"}, names(c.InstanceTypes))
}

func TestParseCatalogAcceptsMatchingInstanceTypeLabel(t *testing.T) {
	c, err := ParseCatalog(catalogWith(`
- name: c5.large
  labels: {node.kubernetes.io/instance-type: c5.large}
  capacity: {cpu: "2", memory: 4Gi, pods: "29"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.085}]
`), "ok.yaml")
	require.NoError(t, err)
	require.Len(t, c.InstanceTypes, 1)
}

func TestEncodeCatalogRoundTrip(t *testing.T) {
	for _, file := range []string{"testdata/catalog.yaml", "testdata/catalog.json"} {
		t.Run(file, func(t *testing.T) {
			c, err := LoadCatalogFile(file)
			require.NoError(t, err)
			data, err := EncodeCatalog(c)
			require.NoError(t, err)

			back, err := ParseCatalog(data, "encoded")
			require.NoError(t, err)
			require.Equal(t, c.Region, back.Region)
			require.Equal(t, c.Source, back.Source)
			require.Equal(t, names(c.InstanceTypes), names(back.InstanceTypes))
			for i, it := range c.InstanceTypes {
				got := back.InstanceTypes[i]
				require.Equal(t, it.Labels, got.Labels)
				requireQuantities(t, it.Capacity, got.Capacity)
				requireQuantities(t, it.Overhead.Total(), got.Overhead.Total())
				require.Equal(t, it.VolumeAttachLimits, got.VolumeAttachLimits)
				require.Equal(t, it.Offerings, got.Offerings)
			}

			again, err := EncodeCatalog(back)
			require.NoError(t, err)
			require.Equal(t, string(data), string(again), "encoding is stable")
		})
	}
}

func TestEncodeCatalogSchema(t *testing.T) {
	c := &Catalog{Region: "r", InstanceTypes: []*InstanceType{{
		Name:      "t",
		Capacity:  resources("cpu", "1", "memory", "1Gi", "pods", "8"),
		Offerings: []Offering{{Zone: "z", CapacityType: "spot", Price: 0.01}},
	}}}
	data, err := EncodeCatalog(c)
	require.NoError(t, err)
	require.Equal(t, `{
  "apiVersion": "nodeplan/v1",
  "kind": "InstanceTypeCatalog",
  "region": "r",
  "instanceTypes": [
    {
      "name": "t",
      "capacity": {
        "cpu": "1",
        "memory": "1Gi",
        "pods": "8"
      },
      "offerings": [
        {
          "zone": "z",
          "capacityType": "spot",
          "price": 0.01,
          "available": false
        }
      ]
    }
  ]
}
`, string(data))
}

func TestEncodeCatalogNilType(t *testing.T) {
	_, err := EncodeCatalog(&Catalog{InstanceTypes: []*InstanceType{nil}})
	require.ErrorContains(t, err, "instanceTypes[0]")
}
