package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	karpenteraws "github.com/aws/karpenter-provider-aws/pkg/apis"
	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/server/v3/embed"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeapiserver "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	karpenter "sigs.k8s.io/karpenter/pkg/apis"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/cli"
)

// apiServerExample is an example whose objects the test creates in a real API server.
type apiServerExample struct {
	name string
	// paths are what "nodeplan -f" reads: the example's directory and extra files.
	paths []string
	// created is when the example's nodes were created, and now when it asks consolidate
	// about them (its README's --now).
	created, now string
}

// TestAgainstAPIServer runs kubectl nodeplan against a real kube-apiserver (in-process, from
// k8s.io/kubernetes) on a real etcd (embedded, from go.etcd.io/etcd), with Karpenter's own
// CRDs, holding the objects of two examples: it prints what nodeplan prints on the
// example's files, its snapshot gives the same answers offline, the documented read-only
// ClusterRole is enough, and without it the user is told what to grant. replay, which
// starts from the cluster, is checked the same way as plan and consolidate.
func TestAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	etcdURL := startEtcd(t)
	for _, ex := range []apiServerExample{
		{name: "real-snapshot", paths: []string{"../examples/real-snapshot"}, created: "2026-01-05T09:00:00Z", now: "2026-01-05T12:00:00Z"},
		{name: "ha-consolidation", paths: []string{"../examples/ha-consolidation", "testdata/ha-consolidation-nodeclaims.yaml"}, created: "2026-01-05T09:00:00Z", now: "2026-01-12T12:00:00Z"},
	} {
		t.Run(ex.name, func(t *testing.T) { testExampleAgainstAPIServer(t, etcdURL, ex) })
	}
}

func testExampleAgainstAPIServer(t *testing.T, etcdURL string, ex apiServerExample) {
	storage := storagebackend.NewDefaultConfig("/"+ex.name, nil)
	storage.Transport.ServerList = []string{etcdURL}
	server := kubeapiserver.StartTestServerOrDie(t,
		&kubeapiserver.TestServerInstanceOptions{EnableCertAuth: true, DisableInvariantChecks: true},
		[]string{"--authorization-mode=RBAC"}, storage)
	t.Cleanup(server.TearDownFn)
	admin := server.ClientConfig

	installCRDs(t, admin)
	reference := createObjects(t, admin, readObjects(t, ex.paths...))
	dir := t.TempDir()
	keepArtifacts(t, dir, ex.name)
	// The API server stamps each object's creation time: consolidate, which measures ages, is
	// compared with the example's objects carrying the same times, at the same age.
	refFile := filepath.Join(dir, "reference.yaml")
	writeObjects(t, refFile, reference)
	now := consolidateTime(t, reference, ex)

	adminConfig := writeKubeconfig(t, dir, "admin", admin, admin.BearerToken)
	offlinePlan := nodeplanOK(t, append(append([]string{"plan"}, flagPaths(ex.paths)...), "-o", "json")...)
	offlineTable := nodeplanOK(t, append([]string{"plan"}, flagPaths(ex.paths)...)...)
	offlineConsolidate := nodeplanOK(t, "consolidate", "-f", refFile, "--now", now, "-o", "json")

	livePlan := kubectlNodeplanOK(t, "plan", "--kubeconfig", adminConfig, "-o", "json")
	require.Equal(t, offlinePlan, livePlan, "kubectl nodeplan plan on the cluster and nodeplan plan on the example's files")
	require.Equal(t, offlineTable, kubectlNodeplanOK(t, "plan", "--kubeconfig", adminConfig))
	liveConsolidate := kubectlNodeplanOK(t, "consolidate", "--kubeconfig", adminConfig, "--now", now, "-o", "json")
	require.Equal(t, offlineConsolidate, liveConsolidate, "kubectl nodeplan consolidate on the cluster and nodeplan consolidate on the example's objects")
	events := "testdata/replay-events.yaml"
	offlineReplay := nodeplanOK(t, "replay", "-f", refFile, "--events", events, "--now", now, "-o", "json")
	liveReplay := kubectlNodeplanOK(t, "replay", "--kubeconfig", adminConfig, "--events", events, "--now", now, "-o", "json")
	require.Equal(t, offlineReplay, liveReplay, "kubectl nodeplan replay from the cluster and nodeplan replay from the example's objects")
	require.Contains(t, liveReplay, `"kind": "Replay"`)
	require.Contains(t, livePlan, `"kind": "Plan"`)
	require.Contains(t, liveConsolidate, `"kind": "Decisions"`)

	// The snapshot gives offline, byte for byte, what kubectl nodeplan gave, and is the same
	// when taken again.
	snapshot := filepath.Join(dir, "snapshot.yaml")
	kubectlNodeplanOK(t, "snapshot", "--kubeconfig", adminConfig, "-o", snapshot)
	require.Equal(t, livePlan, nodeplanOK(t, "plan", "-f", snapshot, "-o", "json"))
	require.Equal(t, liveConsolidate, nodeplanOK(t, "consolidate", "-f", snapshot, "--now", now, "-o", "json"))
	require.Equal(t, liveReplay, nodeplanOK(t, "replay", "-f", snapshot, "--events", events, "--now", now, "-o", "json"))
	again := kubectlNodeplanOK(t, "snapshot", "--kubeconfig", adminConfig, "-o", "-")
	first, err := os.ReadFile(snapshot)
	require.NoError(t, err)
	require.Equal(t, string(first), again)
	require.NotContains(t, again, "\n    managedFields:")
	for _, o := range reference {
		require.Contains(t, again, "\n  kind: "+o.GetKind()+"\n")
		require.Contains(t, again, "\n    name: "+o.GetName()+"\n")
	}

	// The documented read-only ClusterRole is enough for every command; without it the user
	// is told which kinds and verbs to grant.
	kube := kubernetes.NewForConfigOrDie(admin)
	reader := serviceAccountConfig(t, kube, dir, admin, "nodeplan-reader", true)
	require.Equal(t, livePlan, kubectlNodeplanOK(t, "plan", "--kubeconfig", reader, "-o", "json"))
	require.Equal(t, liveConsolidate, kubectlNodeplanOK(t, "consolidate", "--kubeconfig", reader, "--now", now, "-o", "json"))
	require.Equal(t, liveReplay, kubectlNodeplanOK(t, "replay", "--kubeconfig", reader, "--events", events, "--now", now, "-o", "json"))
	require.Equal(t, again, kubectlNodeplanOK(t, "snapshot", "--kubeconfig", reader, "-o", "-"))

	nobody := serviceAccountConfig(t, kube, dir, admin, "nobody", false)
	// 18: the 20 kinds nodeplan reads, but for Provisioners and AWSNodeTemplates, whose CRDs
	// Karpenter v1 no longer has.
	for _, command := range []string{"plan", "consolidate", "replay", "snapshot"} {
		args := []string{command, "--kubeconfig", nobody}
		switch command {
		case "snapshot":
			args = append(args, "-o", filepath.Join(dir, "denied.yaml"))
		case "replay":
			args = append(args, "--events", events)
		}
		code, stdout, stderr := kubectlNodeplan(args...)
		require.Equal(t, cli.ExitInput, code, stderr)
		require.Empty(t, stdout)
		for _, want := range []string{
			"not allowed to read 18 kinds: grant these verbs to the user (the read-only ClusterRole in kubectl-nodeplan's README has them all)",
			`Node: grant "list" on nodes (`,
			`NodePool: grant "list" on nodepools.karpenter.sh (`,
			`EC2NodeClass: grant "list" on ec2nodeclasses.karpenter.k8s.aws (`,
			`cannot list resource "pods" in API group "" at the cluster scope`,
		} {
			require.Contains(t, stderr, want, command)
		}
	}
	_, err = os.Stat(filepath.Join(dir, "denied.yaml"))
	require.True(t, errors.Is(err, os.ErrNotExist), "no snapshot is written when reading failed")
}

// startEtcd runs an embedded etcd for the test and returns its client URL.
func startEtcd(t *testing.T) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	client, peer := freeURL(t), freeURL(t)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	require.NoError(t, err)
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		t.Fatal("etcd did not start within a minute")
	}
	return client.String()
}

func freeURL(t *testing.T) url.URL {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return url.URL{Scheme: "http", Host: l.Addr().String()}
}

// installCRDs installs Karpenter's CRDs as the modules ship them: NodePool, NodeClaim and
// NodeOverlay from sigs.k8s.io/karpenter, EC2NodeClass from the AWS provider.
func installCRDs(t *testing.T, config *rest.Config) {
	t.Helper()
	crds := []*apiextensionsv1.CustomResourceDefinition{karpenter.CRDs[0], karpenter.CRDs[1], karpenter.CRDs[2]}
	for _, crd := range karpenteraws.CRDs {
		if crd.Spec.Group == "karpenter.k8s.aws" {
			crds = append(crds, crd)
		}
	}
	require.Equal(t, []string{"nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "nodeoverlays.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws"}, crdNames(crds))
	client := apiextensions.NewForConfigOrDie(config)
	ctx := context.Background()
	for _, crd := range crds {
		_, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd.DeepCopy(), metav1.CreateOptions{})
		require.NoError(t, err, crd.Name)
	}
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, c := range got.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		require.NoError(t, err, "CRD %s established", crd.Name)
	}
	// Discovery serves a new CRD's kind a moment after it is established.
	disc := discovery.NewDiscoveryClientForConfigOrDie(config)
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		groups, err := restmapper.GetAPIGroupResources(disc)
		if err != nil {
			return false, nil
		}
		mapper := restmapper.NewDiscoveryRESTMapper(groups)
		for _, crd := range crds {
			if _, err := mapper.RESTMapping(schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}); err != nil {
				return false, nil
			}
		}
		return true, nil
	})
	require.NoError(t, err, "discovery serves Karpenter's kinds")
}

func crdNames(crds []*apiextensionsv1.CustomResourceDefinition) []string {
	var names []string
	for _, c := range crds {
		names = append(names, c.Name)
	}
	return names
}

// readObjects reads manifests as "nodeplan -f" does: directories' *.yaml files in lexical
// order, documents in order, lists' items.
func readObjects(t *testing.T, paths ...string) []*unstructured.Unstructured {
	t.Helper()
	var files []string
	for _, p := range paths {
		if strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
			continue
		}
		found, err := filepath.Glob(filepath.Join(p, "*.yaml"))
		require.NoError(t, err)
		sort.Strings(found)
		files = append(files, found...)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var m map[string]any
			err := dec.Decode(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, f)
			if m == nil {
				continue
			}
			u := &unstructured.Unstructured{Object: m}
			if u.IsList() {
				require.NoError(t, u.EachListItem(func(o runtime.Object) error {
					objs = append(objs, o.(*unstructured.Unstructured))
					return nil
				}))
				continue
			}
			objs = append(objs, u)
		}
	}
	return objs
}

// createObjects creates the objects as a cluster would hold them: their namespaces (with the
// default ServiceAccount, which pods need), owners before the pods that name them, each
// object's status through its status subresource. It returns the objects as read, with the
// creation time the API server gave each.
func createObjects(t *testing.T, config *rest.Config, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	kube := kubernetes.NewForConfigOrDie(config)
	client := dynamic.NewForConfigOrDie(config)
	groups, err := restmapper.GetAPIGroupResources(discovery.NewDiscoveryClientForConfigOrDie(config))
	require.NoError(t, err)
	mapper := restmapper.NewDiscoveryRESTMapper(groups)

	namespaces := map[string]bool{}
	for _, o := range objs {
		if o.GetNamespace() != "" {
			namespaces[o.GetNamespace()] = true
		}
	}
	for ns := range namespaces {
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err, ns)
		}
		_, err = kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err, ns)
		}
	}

	ordered := make([]*unstructured.Unstructured, 0, len(objs))
	for _, pods := range []bool{false, true} {
		for _, o := range objs {
			if (o.GetKind() == "Pod") == pods {
				ordered = append(ordered, o)
			}
		}
	}
	uids := map[types.UID]types.UID{} // the file's uid of an owner → the API server's
	reference := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range ordered {
		mapping, err := mapper.RESTMapping(o.GroupVersionKind().GroupKind(), o.GroupVersionKind().Version)
		require.NoError(t, err, o.GetKind())
		var ri dynamic.ResourceInterface = client.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			if o.GetNamespace() == "" {
				o.SetNamespace(metav1.NamespaceDefault)
			}
			ri = client.Resource(mapping.Resource).Namespace(o.GetNamespace())
		}
		obj := o.DeepCopy()
		status, hasStatus := obj.Object["status"]
		delete(obj.Object, "status")
		obj.SetUID("")
		obj.SetResourceVersion("")
		obj.SetCreationTimestamp(metav1.Time{})
		refs := obj.GetOwnerReferences()
		for i := range refs {
			if uid, ok := uids[refs[i].UID]; ok {
				refs[i].UID = uid
			}
		}
		obj.SetOwnerReferences(refs)
		created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
		require.NoError(t, err, "%s %s", o.GetKind(), o.GetName())
		if o.GetUID() != "" {
			uids[o.GetUID()] = created.GetUID()
		}
		if hasStatus {
			created.Object["status"] = status
			created, err = ri.UpdateStatus(ctx, created, metav1.UpdateOptions{})
			require.NoError(t, err, "status of %s %s", o.GetKind(), o.GetName())
		}
		if o.GetKind() == "Node" {
			// The API server taints a new Node not-ready until the node lifecycle controller
			// sees its kubelet report Ready; the example's nodes are up and running.
			taints, _, _ := unstructured.NestedSlice(o.Object, "spec", "taints")
			require.NoError(t, unstructured.SetNestedSlice(created.Object, taints, "spec", "taints"))
			_, err = ri.Update(ctx, created, metav1.UpdateOptions{})
			require.NoError(t, err, "taints of Node %s", o.GetName())
		}
		ref := o.DeepCopy()
		ref.SetCreationTimestamp(created.GetCreationTimestamp())
		reference = append(reference, ref)
	}
	return reference
}

// consolidateTime is the --now at which the cluster's nodes are as old as the example's are
// at its own --now.
func consolidateTime(t *testing.T, objs []*unstructured.Unstructured, ex apiServerExample) string {
	t.Helper()
	created, err := time.Parse(time.RFC3339, ex.created)
	require.NoError(t, err)
	now, err := time.Parse(time.RFC3339, ex.now)
	require.NoError(t, err)
	var latest time.Time
	for _, o := range objs {
		if c := o.GetCreationTimestamp().Time; c.After(latest) {
			latest = c
		}
	}
	return latest.Add(now.Sub(created)).UTC().Format(time.RFC3339)
}

func writeObjects(t *testing.T, path string, objs []*unstructured.Unstructured) {
	t.Helper()
	var b bytes.Buffer
	for _, o := range objs {
		data, err := yaml.Marshal(o.Object)
		require.NoError(t, err)
		b.WriteString("---\n")
		b.Write(data)
	}
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// writeKubeconfig writes a kubeconfig for the API server with a bearer token.
func writeKubeconfig(t *testing.T, dir, user string, server *rest.Config, token string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: server.Host, CertificateAuthorityData: server.CAData, TLSServerName: server.ServerName, InsecureSkipTLSVerify: server.Insecure}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[user] = &clientcmdapi.Context{Cluster: "test", AuthInfo: user}
	cfg.CurrentContext = user
	path := filepath.Join(dir, user+".kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// serviceAccountConfig creates a service account, bound to the README's ClusterRole when
// bound, and returns a kubeconfig with its token.
func serviceAccountConfig(t *testing.T, kube kubernetes.Interface, dir string, server *rest.Config, name string, bound bool) string {
	t.Helper()
	ctx := context.Background()
	_, err := kube.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	if bound {
		var role rbacv1.ClusterRole
		data, err := os.ReadFile("clusterrole.yaml")
		require.NoError(t, err)
		require.NoError(t, yaml.UnmarshalStrict(data, &role))
		_, err = kube.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: name}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	token, err := kube.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	require.NoError(t, err)
	path := writeKubeconfig(t, dir, name, server, token.Status.Token)
	if bound {
		// RBAC caches are filled asynchronously: wait until the binding is in force.
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			code, _, _ := kubectlNodeplan("snapshot", "--kubeconfig", path, "-o", "-")
			return code == cli.ExitOK, nil
		})
		require.NoError(t, err, "the ClusterRole binding takes effect")
	}
	return path
}

func flagPaths(paths []string) []string {
	var args []string
	for _, p := range paths {
		args = append(args, "-f", p)
	}
	return args
}

func kubectlNodeplan(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func kubectlNodeplanOK(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := kubectlNodeplan(args...)
	require.Equal(t, cli.ExitOK, code, "kubectl nodeplan %s: %s", strings.Join(args, " "), stderr)
	return stdout
}

func nodeplanOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Nodeplan().Run(args, nil, &stdout, &stderr)
	require.Equal(t, cli.ExitOK, code, "nodeplan %s: %s", strings.Join(args, " "), stderr.String())
	return stdout.String()
}

// keepArtifacts copies the test's files (kubeconfigs aside: the server is gone) to
// $KUBECTL_NODEPLAN_ARTIFACTS/<name> when the test fails, to compare the snapshot with the
// example's objects.
func keepArtifacts(t *testing.T, dir, name string) {
	to := os.Getenv("KUBECTL_NODEPLAN_ARTIFACTS")
	if to == "" {
		return
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		out := filepath.Join(to, name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Log(err)
			return
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				_ = os.WriteFile(filepath.Join(out, filepath.Base(f)), data, 0o644)
			}
		}
		t.Logf("files kept in %s", out)
	})
}
