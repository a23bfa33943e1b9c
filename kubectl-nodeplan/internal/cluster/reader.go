// Package cluster reads what nodeplan needs from a live cluster, read-only: every kind the
// manifest loader understands (never Secrets or ConfigMaps), page by page, within the
// client's rate limits. The objects go to manifest.FromObjects, or to a snapshot file that
// nodeplan reads offline with the same result.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/nodeplan/nodeplan/manifest"
)

// DefaultPageSize is how many objects one list request asks for: a 5,000-node cluster's
// pods come in pages rather than one response of hundreds of megabytes.
const DefaultPageSize = 500

// Reader lists a cluster's objects.
type Reader struct {
	Client dynamic.Interface
	// Mapper finds each kind's resource and preferred version; a kind it does not know (its
	// CRD is not installed) is skipped.
	Mapper meta.RESTMapper
	// Namespace, when set, limits the workloads and the pending pods to that namespace; the
	// cluster's nodes, bound pods and everything else are read whole, as they are the
	// capacity those pods land on.
	Namespace string
	// PageSize is the limit of each list request (DefaultPageSize when 0).
	PageSize int64
	// Progress, when set, gets one line per kind.
	Progress io.Writer
}

// List is what was read of one kind, in the API server's order.
type List struct {
	Kind schema.GroupVersionKind
	// Resource names it for messages: "nodepools.karpenter.sh".
	Resource string
	Items    []unstructured.Unstructured
}

// Read lists every kind nodeplan reads. A kind the cluster does not serve is skipped with a
// line of progress; kinds the user may not list are reported together in a
// *ForbiddenError, after trying them all.
func (r *Reader) Read(ctx context.Context) ([]List, error) {
	var lists []List
	forbidden := &ForbiddenError{}
	for _, k := range kinds {
		mapping, err := r.Mapper.RESTMapping(k.GroupKind)
		if meta.IsNoMatchError(err) {
			r.progress("skipped %s: not served by this cluster%s", kindName(k.GroupKind), crdHint(k.GroupKind))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("finding the resource of %s: %w", kindName(k.GroupKind), err)
		}
		resource := mapping.Resource.GroupResource().String()
		var ri dynamic.ResourceInterface = r.Client.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace && k.demand && r.Namespace != "" {
			ri = r.Client.Resource(mapping.Resource).Namespace(r.Namespace)
		}
		items, pages, err := r.list(ctx, ri)
		switch {
		case apierrors.IsForbidden(err):
			forbidden.Denied = append(forbidden.Denied, Denied{Kind: k.Kind, Resource: resource, Verb: "list", Message: err.Error()})
			continue
		case apierrors.IsNotFound(err):
			r.progress("skipped %s: not served by this cluster", resource)
			continue
		case err != nil:
			return nil, fmt.Errorf("listing %s: %w", resource, err)
		}
		if k.Kind == "Pod" && r.Namespace != "" {
			items = pendingIn(items, r.Namespace)
		}
		r.progress("read %d %s (%s, %d %s)", len(items), resource, mapping.Resource.Version, pages, plural(pages, "page", "pages"))
		lists = append(lists, List{Kind: mapping.GroupVersionKind, Resource: resource, Items: items})
	}
	if len(forbidden.Denied) > 0 {
		return nil, forbidden
	}
	return lists, nil
}

// list reads every page of a resource. managedFields, which only say who wrote which field,
// are dropped: they are most of an object's size and nodeplan never reads them.
func (r *Reader) list(ctx context.Context, ri dynamic.ResourceInterface) ([]unstructured.Unstructured, int, error) {
	opts := metav1.ListOptions{Limit: r.PageSize}
	if opts.Limit <= 0 {
		opts.Limit = DefaultPageSize
	}
	var items []unstructured.Unstructured
	pages := 0
	for {
		l, err := ri.List(ctx, opts)
		if err != nil {
			if apierrors.IsResourceExpired(err) {
				return nil, pages, fmt.Errorf("the list changed too much while it was read page by page (run again): %w", err)
			}
			return nil, pages, err
		}
		pages++
		for i := range l.Items {
			l.Items[i].SetManagedFields(nil)
		}
		items = append(items, l.Items...)
		if l.GetContinue() == "" {
			return items, pages, nil
		}
		opts.Continue = l.GetContinue()
	}
}

// pendingIn keeps the pods bound to a node, wherever they are, and the pending pods of one
// namespace.
func pendingIn(pods []unstructured.Unstructured, namespace string) []unstructured.Unstructured {
	kept := pods[:0]
	for _, p := range pods {
		if node, _, _ := unstructured.NestedString(p.Object, "spec", "nodeName"); node != "" || p.GetNamespace() == namespace {
			kept = append(kept, p)
		}
	}
	return kept
}

func (r *Reader) progress(format string, args ...any) {
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, "kubectl nodeplan: "+format+"\n", args...)
	}
}

// Objects returns the lists' items, in order, for manifest.FromObjects.
func Objects(lists []List) []runtime.Object {
	var objs []runtime.Object
	for _, l := range lists {
		for i := range l.Items {
			objs = append(objs, &l.Items[i])
		}
	}
	return objs
}

// Bundle converts what was read as nodeplan's library inputs.
func Bundle(lists []List) (*manifest.Bundle, error) {
	b, err := manifest.FromObjects(Objects(lists))
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's objects: %w", err)
	}
	return b, nil
}

// ForbiddenError lists the kinds the user may not read.
type ForbiddenError struct {
	Denied []Denied
}

// Denied is one kind the API server refused.
type Denied struct {
	Kind     string
	Resource string // "nodepools.karpenter.sh"
	Verb     string
	Message  string // the API server's
}

func (e *ForbiddenError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "not allowed to read %d %s: grant these verbs to the user (the read-only ClusterRole in kubectl-nodeplan's README has them all):", len(e.Denied), plural(len(e.Denied), "kind", "kinds"))
	for _, d := range e.Denied {
		fmt.Fprintf(&b, "\n  %s: grant %q on %s (%s)", d.Kind, d.Verb, d.Resource, d.Message)
	}
	return b.String()
}

// IsForbidden reports whether err is a ForbiddenError.
func IsForbidden(err error) bool {
	var f *ForbiddenError
	return errors.As(err, &f)
}

func kindName(gk schema.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + " (" + gk.Group + ")"
}

// crdHint says why a custom resource's kind may be missing.
func crdHint(gk schema.GroupKind) string {
	if strings.Contains(gk.Group, ".") && !strings.HasSuffix(gk.Group, ".k8s.io") {
		return " (its CRD is not installed)"
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
