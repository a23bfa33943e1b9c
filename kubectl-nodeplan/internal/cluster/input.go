package cluster

import (
	"context"
	"flag"
	"fmt"
	"io"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/cli"
	"github.com/nodeplan/nodeplan/manifest"
)

// Flags are kubectl's standard flags for where to read: --kubeconfig, --context and, for the
// commands where a namespace makes sense, -n/--namespace and -A/--all-namespaces.
type Flags struct {
	kubeconfig, context string
	namespace           string
	allNamespaces       bool
	namespaced          bool
}

// AddFlags registers the flags on fs; namespaced adds -n and -A.
func AddFlags(fs *flag.FlagSet, namespaced bool) *Flags {
	f := &Flags{namespaced: namespaced}
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "`path` of the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig `context` to use (default: the current context)")
	if namespaced {
		fs.StringVar(&f.namespace, "n", "", "plan only the pending pods and workloads of this `namespace` (nodes and running pods are read from all)")
		fs.StringVar(&f.namespace, "namespace", "", "`namespace` (same as -n)")
		fs.BoolVar(&f.allNamespaces, "A", false, "pending pods and workloads of all namespaces (the default)")
		fs.BoolVar(&f.allNamespaces, "all-namespaces", false, "same as -A")
	}
	return f
}

// Synopsis is how usage lines show the flags.
func (f *Flags) Synopsis() string {
	if f.namespaced {
		return "[--kubeconfig FILE] [--context NAME] [-n NAMESPACE | -A]"
	}
	return "[--kubeconfig FILE] [--context NAME]"
}

// Check validates the flags after parsing.
func (f *Flags) Check() string {
	if f.namespace != "" && f.allNamespaces {
		return "-n and -A (--all-namespaces) cannot be given together"
	}
	return ""
}

// Read lists the cluster's objects, with one line of progress per kind on progress.
func (f *Flags) Read(ctx context.Context, progress io.Writer) ([]List, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	config := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.context})
	rc, err := config.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	rc = rest.CopyConfig(rc)
	rc.UserAgent = "kubectl-nodeplan"
	// One limiter at client-go's default rate for discovery and lists together.
	rc.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(rest.DefaultQPS, rest.DefaultBurst)
	client, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(rc)
	if err != nil {
		return nil, err
	}
	r := &Reader{
		Client:    client,
		Mapper:    restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
		Namespace: f.namespace,
		Progress:  progress,
	}
	lists, err := r.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rc.Host, err)
	}
	return lists, nil
}

// Input is the cli.Input of kubectl nodeplan's plan and consolidate: the cluster of the
// kubeconfig's context.
func Input(progress io.Writer, namespaced bool) cli.NewInput {
	return func(fs *flag.FlagSet) cli.Input {
		return &input{Flags: AddFlags(fs, namespaced), progress: progress}
	}
}

type input struct {
	*Flags
	progress io.Writer
}

func (in *input) Help() string {
	help := `The objects are read from the cluster of the kubeconfig's current context (--context
picks another), read-only: every kind nodeplan reads (Secrets and ConfigMaps never), page by
page, one line of progress per kind on stderr. A kind whose CRD is not installed is skipped;
a kind the user may not list is named with the verb to grant. "kubectl nodeplan snapshot"
writes the same objects to a file for "nodeplan -f".`
	if in.namespaced {
		help += `

-n NAMESPACE plans only that namespace's pending pods and workloads, on the whole cluster's
nodes and running pods; by default (-A) all namespaces'.`
	}
	return help
}

func (in *input) Load(io.Reader) (*manifest.Bundle, error) {
	lists, err := in.Read(context.Background(), in.progress)
	if err != nil {
		return nil, err
	}
	return Bundle(lists)
}
