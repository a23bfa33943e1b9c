// Package synthetic generates deterministic instance-type catalogs of any size for tests and
// benchmarks, in the spirit of Karpenter's kwok provider: every combination of instance
// category (c, m, r), generation, architecture and size, offered in every zone and capacity
// type, with prices from a formula rather than from a cloud.
//
// The types look like EC2 ones to a NodePool: they carry the karpenter.k8s.aws/instance-*
// labels, max pods from an ENI-style table, EKS-style overhead and an EBS CSI attach limit. The
// same Options always give the same catalog, byte for byte.
//
//	c := synthetic.Default()                      // 390 types in test-region, zones test-zone-a/b/c
//	small := synthetic.Small()                    // a dozen types for readable unit tests
//	big := synthetic.Catalog(synthetic.Options{   // 1,040 types for a benchmark
//		Generations: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
//		Categories:  []string{"c", "m", "r", "x"},
//	})
package synthetic
