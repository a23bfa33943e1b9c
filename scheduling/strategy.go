package scheduling

import "fmt"

// Strategy says which question a plan answers.
type Strategy string

const (
	// StrategyCheapest looks for the cheapest valid set of nodes: first-fit with a growth rule
	// that keeps nodes off disproportionately pricier types, then repacking (the default).
	StrategyCheapest Strategy = "cheapest"
	// StrategyKarpenter predicts what Karpenter's own provisioning scheduler launches for the
	// same input: its queue order, in-flight NodeClaims filled first-fit fewest pods first,
	// NodePools by weight, every fitting instance type kept on a node (no growth rule), its
	// relaxation order, the cheapest compatible offering at launch, and no repacking.
	// Topology rules hold as under StrategyCheapest.
	StrategyKarpenter Strategy = "karpenter"
)

// KarpenterMaxInstanceTypeOptions is how many instance types, cheapest first, Karpenter's AWS
// provider sends to CreateFleet for one NodeClaim (Karpenter's core keeps 600): the default
// Options.MaxInstanceTypeOptions under StrategyKarpenter.
const KarpenterMaxInstanceTypeOptions = 60

// Strategies lists the strategies, the default first.
var Strategies = []Strategy{StrategyCheapest, StrategyKarpenter}

// resolveStrategy validates the strategy of o and fills in what it implies.
func resolveStrategy(o *Options) error {
	switch o.Strategy {
	case "":
		o.Strategy = StrategyCheapest
	case StrategyCheapest:
	case StrategyKarpenter:
		if o.MaxInstanceTypeOptions <= 0 {
			o.MaxInstanceTypeOptions = KarpenterMaxInstanceTypeOptions
		}
		o.SkipImprovement = true
	default:
		return fmt.Errorf("options: strategy %q is not %s or %s", o.Strategy, StrategyCheapest, StrategyKarpenter)
	}
	return nil
}
