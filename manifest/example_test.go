package manifest_test

import (
	"fmt"

	"github.com/nodeplan/nodeplan/manifest"
)

func Example() {
	b, err := manifest.Parse([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: inflate
spec:
  replicas: 2
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec:
      containers:
      - name: app
        image: registry.k8s.io/pause
        resources: {limits: {cpu: "1"}}
---
apiVersion: v1
kind: Service
metadata:
  name: inflate
`), "inflate.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range b.Pods {
		fmt.Println(p.Namespace+"/"+p.Name, p.Spec.Containers[0].Resources.Requests.Cpu())
	}
	np := b.NodePools[0]
	fmt.Println(np.Name, np.Disruption.ConsolidationPolicy, *np.ExpireAfter)
	fmt.Println(b.Warnings[0])

	// The caller assigns the instance types and runs the solver:
	//   in := b.SchedulingInput(); in.NodePools[0].InstanceTypes = catalog.InstanceTypes
	// Output:
	// default/inflate-0 1
	// default/inflate-1 1
	// general WhenEmptyOrUnderutilized 720h0m0s
	// inflate.yaml: document 3 (Service inflate): kind Service (v1) is not used by nodeplan, skipped
}
