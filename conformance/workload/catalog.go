package workload

import (
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/karpenterload"
)

// Zones of FakeCatalog, as in Karpenter's fake cloud provider.
var Zones = karpenterload.Zones

// FakeCatalog returns total instance types shaped like Karpenter's fake.InstanceTypes(total);
// it is karpenterload.FakeCatalog, which the root module's benchmarks plan on too.
func FakeCatalog(total int) []*instancetype.InstanceType {
	return karpenterload.FakeCatalog(total)
}
