package volume

import corev1 "k8s.io/api/core/v1"

// migratedProvisioners maps in-tree provisioner names to the CSI driver that serves them
// since CSI migration went GA. kube-scheduler counts such volumes against the CSI driver's
// attach limit, so we do too.
var migratedProvisioners = map[string]string{
	"kubernetes.io/aws-ebs":         "ebs.csi.aws.com",
	"kubernetes.io/gce-pd":          "pd.csi.storage.gke.io",
	"kubernetes.io/azure-disk":      "disk.csi.azure.com",
	"kubernetes.io/azure-file":      "file.csi.azure.com",
	"kubernetes.io/cinder":          "cinder.csi.openstack.org",
	"kubernetes.io/vsphere-volume":  "csi.vsphere.vmware.com",
	"kubernetes.io/portworx-volume": "pxd.portworx.com",
}

// noProvisioner is the provisioner of StorageClasses for statically created volumes (local
// PVs): claims of such a class can only bind a PersistentVolume that already exists.
const noProvisioner = "kubernetes.io/no-provisioner"

// driverOfProvisioner returns the CSI driver that provisions a StorageClass's volumes: the
// provisioner itself, its CSI replacement for migrated in-tree plugins, or "" for the
// no-provisioner class.
func driverOfProvisioner(provisioner string) string {
	if provisioner == noProvisioner {
		return ""
	}
	if d, ok := migratedProvisioners[provisioner]; ok {
		return d
	}
	return provisioner
}

// driverOfPV returns the CSI driver that attaches a PersistentVolume: spec.csi.driver, the
// CSI replacement of a migrated in-tree source, or "" for volumes no CSI driver attaches
// (local, hostPath, NFS, …), which attach limits do not count.
func driverOfPV(pv *corev1.PersistentVolume) string {
	s := pv.Spec.PersistentVolumeSource
	switch {
	case s.CSI != nil:
		return s.CSI.Driver
	case s.AWSElasticBlockStore != nil:
		return "ebs.csi.aws.com"
	case s.GCEPersistentDisk != nil:
		return "pd.csi.storage.gke.io"
	case s.AzureDisk != nil:
		return "disk.csi.azure.com"
	case s.AzureFile != nil:
		return "file.csi.azure.com"
	case s.Cinder != nil:
		return "cinder.csi.openstack.org"
	case s.VsphereVolume != nil:
		return "csi.vsphere.vmware.com"
	case s.PortworxVolume != nil:
		return "pxd.portworx.com"
	}
	return ""
}
