package volume_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/volume"
)

// A StatefulSet's claim of an EBS class that may only provision in us-west-2a: the new node
// must be in that zone, and the claim counts against the EBS attach limit.
func Example() {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	gp3 := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: "gp3"},
		Provisioner:       "ebs.csi.aws.com",
		VolumeBindingMode: &wait,
		AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: "topology.ebs.csi.aws.com/zone", Values: []string{"us-west-2a"}},
		}}},
	}
	className := "gp3"
	data := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data-db-0", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &className,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("20Gi"),
			}},
		},
	}
	db := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "default"},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-db-0"},
		}}}},
	}

	ix := volume.NewIndex([]*corev1.PersistentVolumeClaim{data}, nil, []*storagev1.StorageClass{gp3}, nil)
	vols, err := ix.ForPod(db)
	if err != nil {
		fmt.Println("unschedulable:", err)
		return
	}
	for _, alt := range vols.Alternatives {
		fmt.Println("node must have:", alt)
	}
	for _, c := range vols.Claims {
		fmt.Printf("claim %s: driver %s, ReadWriteOnce %t\n", c.Key, c.Driver, c.ReadWriteOnce)
	}

	newNode := volume.NewAttachCounter()
	fmt.Println("fits a node with EBS limit 0:", newNode.Check(vols.Claims, map[string]int{"ebs.csi.aws.com": 0}))
	// Output:
	// node must have: topology.kubernetes.io/zone In [us-west-2a]
	// claim default/data-db-0: driver ebs.csi.aws.com, ReadWriteOnce true
	// fits a node with EBS limit 0: node can attach at most 0 ebs.csi.aws.com volumes and already uses 0; the pod needs 1 more
}

func ExamplePins() {
	var pins volume.Pins
	claims := []volume.Claim{{Key: "default/data-db-0", ReadWriteOnce: true}}
	pins.Record(claims, "node-1") // the claim's first user was planned on node-1
	if problem, bad := pins.Problem(claims, volume.NewAttachCounter(), nil, "node-2"); bad {
		fmt.Println(problem.Describe("node-2"))
	}
	_, bad := pins.Problem(claims, volume.NewAttachCounter(), nil, "node-1")
	fmt.Println("problem on node-1:", bad)
	// Output:
	// claim default/data-db-0 is ReadWriteOnce and used on node node-1
	// problem on node-1: false
}
