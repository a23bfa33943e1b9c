// Package testbuild holds fluent builders of Kubernetes objects and nodeplan inputs, so a test
// row reads like the scenario it describes:
//
//	pod := testbuild.Pod("web-0").CPU("500m").Memory("1Gi").ZoneSpread(1).Obj()
//	np := testbuild.NodePool("default").Requirement("kubernetes.io/arch", "In", "arm64").Obj()
package testbuild
