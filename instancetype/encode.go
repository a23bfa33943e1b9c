package instancetype

import (
	"encoding/json"
	"fmt"
)

// EncodeCatalog writes c in the catalog file schema (nodeplan/v1 InstanceTypeCatalog) as
// indented JSON, which is also valid YAML; ParseCatalog reads it back. Instance types keep
// the catalog's order, and map keys are sorted, so the output is byte-stable.
func EncodeCatalog(c *Catalog) ([]byte, error) {
	f := catalogFile{
		APIVersion:    CatalogAPIVersion,
		Kind:          CatalogKind,
		Region:        c.Region,
		Source:        c.Source,
		InstanceTypes: make([]instanceTypeFile, 0, len(c.InstanceTypes)),
	}
	for i, it := range c.InstanceTypes {
		if it == nil {
			return nil, fmt.Errorf("encoding instance-type catalog: instanceTypes[%d] is nil", i)
		}
		f.InstanceTypes = append(f.InstanceTypes, encodeInstanceType(it))
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding instance-type catalog: %w", err)
	}
	return append(data, '\n'), nil
}

func encodeInstanceType(it *InstanceType) instanceTypeFile {
	f := instanceTypeFile{
		Name:     it.Name,
		Labels:   it.Labels,
		Capacity: it.Capacity,
		Overhead: overheadFile{
			KubeReserved:      it.Overhead.KubeReserved,
			SystemReserved:    it.Overhead.SystemReserved,
			EvictionThreshold: it.Overhead.EvictionThreshold,
		},
		VolumeAttachLimits: it.VolumeAttachLimits,
		Offerings:          make([]offeringFile, 0, len(it.Offerings)),
	}
	for _, o := range it.Offerings {
		price, available := o.Price, o.Available
		f.Offerings = append(f.Offerings, offeringFile{
			Zone:                o.Zone,
			CapacityType:        o.CapacityType,
			Price:               &price,
			Available:           &available,
			ReservationID:       o.ReservationID,
			ReservationCapacity: o.ReservationCapacity,
		})
	}
	return f
}
