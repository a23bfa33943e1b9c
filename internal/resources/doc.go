// Package resources turns Kubernetes resource lists into dense integer vectors, so the solver
// can add, subtract and compare requests without maps or Quantity arithmetic on hot paths.
//
//	dims := resources.NewDims(corev1.ResourceList{"cpu": resource.MustParse("1")})
//	v := dims.Vector(corev1.ResourceList{"cpu": resource.MustParse("500m")})
//	fmt.Println(v.Fits(dims.Vector(corev1.ResourceList{"cpu": resource.MustParse("1")})))
//	// true
package resources
