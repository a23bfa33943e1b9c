package scheduling

import (
	"fmt"
	"hash/fnv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// priceOrderKey hashes the options inline; the keys must stay those hash/fnv gave, option
// indexes past one byte included.
func TestPriceOrderKeyIsFNV(t *testing.T) {
	pool := &poolState{np: &nodepool.NodePool{Name: "default"}}
	reference := func(n *newNode) string {
		h := fnv.New64a()
		var buf [4]byte
		for _, t := range n.options {
			buf[0], buf[1], buf[2], buf[3] = byte(t.index), byte(t.index>>8), byte(t.index>>16), byte(t.index>>24)
			h.Write(buf[:])
		}
		return fmt.Sprintf("%x/%d/%s", h.Sum64(), len(n.options), requirementsKey(n.pool, n.reqs))
	}
	options := func(indexes ...int) []*typeOption {
		out := make([]*typeOption, len(indexes))
		for i, x := range indexes {
			out[i] = &typeOption{index: x}
		}
		return out
	}
	zone := requirements.NewRequirements(requirements.New(requirements.LabelTopologyZone, corev1.NodeSelectorOpIn, "us-west-2a"))
	nodes := map[string]*newNode{
		"no options":         {pool: pool, reqs: requirements.Requirements{}},
		"one":                {pool: pool, options: options(0), reqs: zone},
		"a few":              {pool: pool, options: options(3, 1, 2), reqs: zone},
		"past a byte":        {pool: pool, options: options(255, 256, 70000, 1<<24+5), reqs: requirements.Requirements{}},
		"same set, reversed": {pool: pool, options: options(2, 1, 3), reqs: zone},
	}
	seen := map[string]string{}
	for name, n := range nodes {
		got, want := priceOrderKey(n), reference(n)
		if got != want {
			t.Errorf("%s: key %q, want %q", name, got, want)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%s and %s share key %q", name, other, got)
		}
		seen[got] = name
	}
}
