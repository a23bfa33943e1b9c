// Package resources turns Kubernetes resource lists into dense integer vectors, so the solver
// can add, subtract and compare requests without maps or Quantity arithmetic on hot paths.
// NewDims collects the dimensions from resource lists (VisitPodSpec gives those of a pod),
// and a Vector's Key serves as a map key for grouping equal requests.
//
//	dims := resources.NewDims(corev1.ResourceList{"cpu": resource.MustParse("1")})
//	v := dims.Vector(corev1.ResourceList{"cpu": resource.MustParse("500m")})
//	fmt.Println(v.Fits(dims.Vector(corev1.ResourceList{"cpu": resource.MustParse("1")})))
//	// true
package resources
