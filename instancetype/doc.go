// Package instancetype describes the machines a NodePool can launch: an InstanceType's labels,
// capacity and the overhead a node keeps for itself (so allocatable = capacity − kube-reserved
// − system-reserved − eviction threshold), and its Offerings — the zones and capacity types
// (on-demand, spot, reserved) it can be bought in, at an hourly price.
//
// The helpers answer what the planner asks of a type: which of its offerings a set of
// requirements allows (CompatibleOfferings, CheapestOffering), which types are compatible at
// all (Filter), which are cheapest (SortByPrice) and whether some requests fit (Fits).
//
// A Catalog is a set of types, usually one region's. Catalogs are read from the nodeplan/v1
// InstanceTypeCatalog file schema (YAML or JSON) by ParseCatalog or LoadCatalogFile, and written
// in it by EncodeCatalog; the embedded catalogs of instancetype/aws and user files go through the
// same loader. instancetype/synthetic generates catalogs of any size for tests and benchmarks.
//
//	c, err := instancetype.LoadCatalogFile("catalog.yaml")
//	if err != nil {
//		return err
//	}
//	arm := requirements.NewRequirements(requirements.New(requirements.LabelArch, corev1.NodeSelectorOpIn, "arm64"))
//	types := instancetype.Filter(c.InstanceTypes, arm)
//	instancetype.SortByPrice(types, arm) // types[0] is the cheapest arm64 type
package instancetype
