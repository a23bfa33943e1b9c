package karpentercmp

import (
	"testing"

	"github.com/nodeplan/nodeplan/scheduling"
)

// The lower bound is a property of the input: on Karpenter's preference workload (4,000
// identical pods preferring a zone and zonal and hostname anti-affinity) and its diverse one,
// every strategy reports the same summary.lowerBound, though their plans differ.
func TestLowerBoundIsTheSameWhateverTheStrategy(t *testing.T) {
	cases := []workloadCase{preferencesCase(4000, 1), diverseCase(1000, 1)}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pods := c.pods(newGenerator(c.seed))
			bounds := map[scheduling.Strategy]float64{}
			for _, s := range scheduling.Strategies {
				_, plan, err := runNodeplan(pods, scheduling.Options{Strategy: s})
				if err != nil {
					t.Fatal(err)
				}
				bounds[s] = plan.Summary.LowerBound
				t.Logf("--strategy %s: $%.2f/h, lower bound $%.2f/h", s, plan.Summary.HourlyCost, plan.Summary.LowerBound)
			}
			for _, s := range scheduling.Strategies {
				if bounds[s] != bounds[scheduling.Strategies[0]] {
					t.Errorf("lower bound $%v/h under --strategy %s, $%v/h under %s", bounds[s], s, bounds[scheduling.Strategies[0]], scheduling.Strategies[0])
				}
			}
		})
	}
}
