package scheduling

import "fmt"

// rejection says why a pod cannot go somewhere. The sentence is only built when the caller
// asked for an explanation, so failed attempts on hot paths cost no allocation.
type rejection struct {
	constraint Constraint
	reason     string
	// stage orders how far a check got, so the most informative rejection is reported.
	stage int
}

var ok = rejection{}

func (r rejection) failed() bool { return r.constraint != "" }

// Stages of the checks, in the order they run.
const (
	stageTaints = iota + 1
	stageNodeAffinity
	stageVolume
	stageTopology
	stageHostPorts
	stageLimits
	stageResources
)

func reject(explain bool, c Constraint, stage int, format string, args ...any) rejection {
	r := rejection{constraint: c, stage: stage}
	if explain {
		r.reason = fmt.Sprintf(format, args...)
	}
	return r
}
