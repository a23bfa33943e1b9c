// Package manifest reads Kubernetes and Karpenter manifests — files, directories, stdin, or a
// `kubectl get -o yaml` snapshot — and turns them into nodeplan's library inputs. It applies
// what the API server and the controllers would (defaults, workload expansion into pending
// pods, StatefulSet claims, the default StorageClass) and reports bad input by file,
// document, object and field.
//
// What it reads:
//
//   - YAML (multi-document, "---" separated), JSON (one or more values), and lists
//     (kind: List as kubectl writes it, or PodList, DeploymentList… as the API returns).
//   - Pods: with spec.nodeName they are running there (Bundle.BoundPods); without, pending
//     (Bundle.Pods). Finished pods (Succeeded, Failed) and pending DaemonSet pods are ignored
//     with a warning.
//   - Deployments, ReplicaSets, ReplicationControllers, StatefulSets and Jobs: expanded into
//     pending pods named <workload>-<ordinal> with the template's labels and annotations and
//     an owner reference to the workload. Pods of the workload already in the input (by
//     owner reference; a Deployment through its ReplicaSets) count towards its replicas, so a
//     snapshot only adds what is missing. A StatefulSet's volumeClaimTemplates yield the
//     claims <template>-<statefulset>-<ordinal> unless the input has them.
//   - DaemonSets (per-node overhead), Nodes, Namespaces, PersistentVolumeClaims,
//     PersistentVolumes, StorageClasses, CSINodes, PodDisruptionBudgets.
//   - karpenter.sh/v1 and v1beta1 NodePools and legacy v1alpha5 Provisioners, converted to
//     scheduling.NodePool with Karpenter's defaults (a Provisioner's are the linux, amd64 and
//     on-demand requirements every v1alpha5 webhook added, not the category and generation
//     defaults only v0.19 to v0.27 persisted); karpenter.sh NodeClaims.
//   - EC2NodeClasses (karpenter.k8s.aws/v1, v1beta1) and AWSNodeTemplates (v1alpha1):
//     Bundle.NodeClassOf gives each NodePool its class, with the NodePool's own kubelet
//     settings (v1beta1, v1alpha5) in place of the class's; a class's subnet zones narrow its
//     NodePools' zone requirement. Bundle.AssignInstanceTypes turns a catalog into each
//     NodePool's instance types through its class and the NodeOverlays. A class's status.amis
//     and hash annotations give NodeClaims' AMI and class-hash drift (DisruptionInput).
//   - The output of aws ec2 describe-capacity-reservations, as the AWS CLI writes it (no
//     apiVersion or kind, recognised by its CapacityReservations): EC2's free-instance counts
//     and states of the reservations the classes list.
//   - NodeOverlays (karpenter.sh/v1alpha1), as instancetype.Overlay.
//   - DaemonSet pods whose DaemonSet is not in the input stand in for it, with a warning.
//
// Anything else (Services, ConfigMaps…) is skipped with a warning, as are fields the kinds do
// not have.
//
// A program that holds the objects rather than files (a controller's informer caches, a
// client's lists) passes them to FromObjects, which builds the same Bundle:
//
//	b, err := manifest.FromObjects([]runtime.Object{pod, deployment, nodePool})
//
// Load and Parse split files into documents; FromObjects takes typed built-in objects as
// they are and reads the others (Unstructured, Karpenter's types) from their JSON. Both then
// go through the same decoding, defaulting and workload expansion.
package manifest
