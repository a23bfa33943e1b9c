package volume

import "fmt"

// Error says why a pod cannot be scheduled because of its volumes. The solver reports it
// with constraint class Volume. Reason is a sentence a user can act on.
type Error struct {
	// Pod is the pod's namespace/name.
	Pod string
	// Claims are the namespace/name keys of the claims the reason is about, sorted.
	Claims []string
	// Reason is the human sentence; Error returns it.
	Reason string
}

func (e *Error) Error() string { return e.Reason }

// AttachLimitError says that a node cannot take a pod's volumes because one CSI driver would
// exceed its attach limit there.
type AttachLimitError struct {
	Driver string
	// Attached is how many unique claims of Driver the node uses already; Adding is how many
	// more the pod would bring.
	Attached, Adding int
	Limit            int
}

func (e *AttachLimitError) Error() string {
	return fmt.Sprintf("node can attach at most %d %s volumes and already uses %d; the pod needs %d more",
		e.Limit, e.Driver, e.Attached, e.Adding)
}
