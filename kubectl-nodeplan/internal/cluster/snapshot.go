package cluster

import (
	"bufio"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// WriteSnapshot writes what was read as YAML, one "kind: List" document per kind, in the
// order read: "nodeplan plan -f FILE" (or consolidate) gives the same answer from it as
// kubectl nodeplan gave from the cluster, and a bug report can carry it.
func WriteSnapshot(w io.Writer, lists []List) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# kubectl nodeplan snapshot: the objects nodeplan reads, as listed from the cluster")
	fmt.Fprintln(bw, "# (without managedFields), one List per kind. Read it offline with")
	fmt.Fprintln(bw, "#   nodeplan plan -f FILE    or    nodeplan consolidate -f FILE")
	for _, l := range lists {
		items := make([]any, len(l.Items))
		for i := range l.Items {
			items[i] = l.Items[i].Object
		}
		data, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
		if err != nil {
			return fmt.Errorf("writing %s: %w", l.Resource, err)
		}
		fmt.Fprintf(bw, "---\n# %s (%s): %d\n", l.Resource, l.Kind.GroupVersion(), len(l.Items))
		bw.Write(data)
	}
	return bw.Flush()
}
