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
//     scheduling.NodePool with Karpenter's defaults; karpenter.sh NodeClaims.
//
// Anything else (Services, EC2NodeClasses…) is skipped with a warning, as are fields the
// kinds do not have.
package manifest
