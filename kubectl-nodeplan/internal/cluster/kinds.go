package cluster

import "k8s.io/apimachinery/pkg/runtime/schema"

// kind is one kind the reader lists.
type kind struct {
	schema.GroupKind
	// demand marks the namespaced kinds that ask for capacity (workloads and pending pods):
	// -n limits these to one namespace. Everything else is the cluster's supply, read whole.
	demand bool
}

// kinds are the kinds nodeplan's manifest loader reads, in the order the reader lists them
// and the snapshot writes them: Karpenter's configuration, then the nodes, storage,
// policies, workloads and pods. Secrets and ConfigMaps are never read.
var kinds = []kind{
	{schema.GroupKind{Group: "karpenter.sh", Kind: "NodePool"}, false},
	{schema.GroupKind{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass"}, false},
	{schema.GroupKind{Group: "karpenter.sh", Kind: "NodeClaim"}, false},
	{schema.GroupKind{Group: "karpenter.sh", Kind: "NodeOverlay"}, false},
	{schema.GroupKind{Group: "karpenter.sh", Kind: "Provisioner"}, false},
	{schema.GroupKind{Group: "karpenter.k8s.aws", Kind: "AWSNodeTemplate"}, false},
	{schema.GroupKind{Kind: "Node"}, false},
	{schema.GroupKind{Group: "storage.k8s.io", Kind: "CSINode"}, false},
	{schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}, false},
	{schema.GroupKind{Kind: "PersistentVolume"}, false},
	{schema.GroupKind{Kind: "Namespace"}, false},
	{schema.GroupKind{Kind: "PersistentVolumeClaim"}, false},
	{schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}, false},
	{schema.GroupKind{Group: "apps", Kind: "DaemonSet"}, false},
	{schema.GroupKind{Group: "apps", Kind: "Deployment"}, true},
	{schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}, true},
	{schema.GroupKind{Group: "apps", Kind: "StatefulSet"}, true},
	{schema.GroupKind{Group: "batch", Kind: "Job"}, true},
	{schema.GroupKind{Kind: "ReplicationController"}, true},
	// Pods are read from every namespace: those bound to a node use its capacity whichever
	// namespace they are in; -n keeps only its own pending ones (Reader.Read).
	{schema.GroupKind{Kind: "Pod"}, false},
}
