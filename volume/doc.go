// Package volume turns a pod's PersistentVolumeClaims into what they ask of a node: the node
// requirement sets (zones, hostnames) its volumes can attach in, and the claims it uses for
// ReadWriteOnce, ReadWriteOncePod and CSI attach-limit accounting. It is pure: the solver
// builds one Index per solve and asks it about each pod.
//
// Use:
//
//	ix := volume.NewIndex(claims, pvs, storageClasses, boundPods)
//	vols, err := ix.ForPod(pod) // err is a *volume.Error: unschedulable, constraint Volume
//	// the node must satisfy one of vols.Alternatives (none: any node)
//	counter := ix.AttachedOn(node.Name) // or volume.NewAttachCounter() for a new node
//	if err := counter.Check(vols.Claims, volume.ExistingNodeLimits(csiNode)); err == nil {
//		counter.Add(vols.Claims)
//	}
//
// # Semantics
//
// A bound claim (spec.volumeName) follows its PersistentVolume: each term of the volume's
// required node affinity is one alternative, narrowed by the volume's zone and region labels
// (kube-scheduler's VolumeZone; "a__b" lists several zones). Deprecated keys are normalised
// (failure-domain.beta.kubernetes.io/zone and topology.ebs.csi.aws.com/zone become
// topology.kubernetes.io/zone). A local or hostPath volume keeps its kubernetes.io/hostname
// requirement: it can only be used on that existing node, never on a new one. Unlike
// kube-scheduler, a claim with spec.volumeName counts as bound without the
// pv.kubernetes.io/bind-completed annotation, since manifests rarely carry it.
//
// An unbound claim follows its StorageClass: spec.storageClassName (the beta annotation wins),
// or when unset the default class (annotated storageclass.kubernetes.io/is-default-class:
// "true"; among several the newest by creationTimestamp, then the first by name, as the API
// server picks). With volumeBindingMode WaitForFirstConsumer, each allowedTopologies term is
// one alternative (none: anywhere); a class without a provisioner
// (kubernetes.io/no-provisioner, local volumes) can only bind an existing unbound volume that
// matches the claim, so its alternatives are those volumes' node affinities. With Immediate
// binding the pod waits for the volume to be provisioned: an *Error.
//
// Several volumes combine by cross product, incompatible combinations removed and repeats
// dropped, at most MaxAlternatives. When no combination is left the *Error names the claims
// and their zones: "PVCs data-0 (us-west-2a) and logs-0 (us-west-2b) cannot be attached in
// one zone". A missing claim, volume or class, a claim being deleted or Lost, and an ephemeral
// volume's claim not controlled by the pod are *Errors too.
//
// The alternatives constrain the node, not the pod: adding them to the pod's requirements
// would change how topology spread counts domains.
//
// Access modes are exposed, not enforced: pods sharing a ReadWriteOnce claim must share a
// node, and one in use on an existing node (Claim.InUseOn) pins them there; a
// ReadWriteOncePod claim serves one pod, and ReadWriteOncePodConflicts says which pending
// pods lose. Attach limits count unique claims per CSI driver per node (AttachCounter):
// existing nodes take their limits from CSINode (ExistingNodeLimits), new nodes from their
// instance type.
package volume
