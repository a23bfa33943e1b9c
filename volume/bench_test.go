package volume_test

import (
	"fmt"
	"testing"

	"github.com/nodeplan/nodeplan/volume"
)

// BenchmarkForPod resolves a pod with two claims, one bound to a zonal volume and one waiting
// for its first consumer, in an index of 1,000 claims.
func BenchmarkForPod(b *testing.B) {
	var w world
	w.classes = classes(class("gp3").zones("us-west-2a", "us-west-2b", "us-west-2c"))
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	for i := range 500 {
		pvName := fmt.Sprintf("pv-%d", i)
		w.pvs = append(w.pvs, pv(pvName).csi(ebs).term(zoneKey, zones[i%3]).obj())
		w.claims = append(w.claims, claim(fmt.Sprintf("data-%d", i)).class("gp3").bound(pvName).obj(),
			claim(fmt.Sprintf("logs-%d", i)).class("gp3").obj())
	}
	ix := w.index()
	p := pod("db-7").claim("data", "data-7").claim("logs", "logs-7").obj()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		vols, err := ix.ForPod(p)
		if err != nil || len(vols.Alternatives) != 1 {
			b.Fatal(err, vols.Alternatives)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// BenchmarkAttachCounterCanAdd is the per-node check the solver makes for every candidate.
func BenchmarkAttachCounterCanAdd(b *testing.B) {
	c := volume.NewAttachCounter()
	var attached []volume.Claim
	for i := range 20 {
		attached = append(attached, ebsClaim(fmt.Sprintf("ns/c%d", i)))
	}
	c.Add(attached)
	adding := []volume.Claim{ebsClaim("ns/new-a"), ebsClaim("ns/c3")}
	limits := map[string]int{ebs: 25}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := c.CanAdd(adding, limits); !ok {
			b.Fatal("should fit")
		}
	}
}
