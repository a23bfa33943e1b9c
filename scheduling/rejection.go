package scheduling

import "fmt"

// rejection says why a pod cannot go somewhere. The sentence is only built when the caller
// asked for an explanation, so failed attempts on hot paths cost no allocation.
type rejection struct {
	constraint Constraint
	reason     string
	// stage is the check that failed: how far the pod got in the order of checks.go, so the
	// most informative rejection is reported.
	stage check
}

var ok = rejection{}

func (r rejection) failed() bool { return r.constraint != "" }

func reject(explain bool, c Constraint, stage check, format string, args ...any) rejection {
	r := rejection{constraint: c, stage: stage}
	if explain {
		r.reason = fmt.Sprintf(format, args...)
	}
	return r
}
