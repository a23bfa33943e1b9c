package limits_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/limits"
)

// A NodePool limited to 16 cpu and 3 nodes already runs an 8-cpu node: a second one fits, a
// third does not, and the explanation says what is taken.
func Example() {
	dims := resources.NewDims()
	left, err := limits.New(corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("16"),
		"nodes":            resource.MustParse("3"),
	}, dims)
	if err != nil {
		panic(err)
	}
	node := dims.Vector(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi")})
	left.Take(node) // the existing node
	fmt.Println(left.String(), "fits another:", left.Fits(node))
	left.Take(node)
	fmt.Println("fits a third:", left.Fits(node), "-", left.Taken())
	// Output:
	// (cpu 16, nodes 3) fits another: true
	// fits a third: false - cpu 16 of 16 taken, nodes 2 of 3 taken
}
