package bound

import (
	"fmt"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// Input describes pods waiting for new nodes and the nodes that may be launched for them, in
// the terms the bounds need and no more. Every vector has the same dimensions (cpu, memory
// and pods at resources.CPU, resources.Memory and resources.Pods, in milli-units, then any
// other resource).
//
// Pods are grouped in classes: pods of one class may use the same kinds at the same prices
// (in the scheduler, pods with the same node requirements and tolerations). Spread and
// affinity rules, volumes and zones are not described: leaving a constraint out only lowers a
// bound, so every bound stays true. The one rule described is the strongest and most common:
// pods no two of which may share a node.
type Input struct {
	// Classes is how many pod classes there are; classes are numbered from 0.
	Classes int
	// Pods are the pods, Count of each class and requests. The same input in the same order
	// gives the same bounds, bit for bit; another order may give another pattern bound (its
	// column generation stops early on large inputs), so a caller that wants bounds of the
	// content alone lists the pods in an order of their content.
	Pods []Pods
	// Kinds are the nodes that may be launched.
	Kinds []Kind
	// Exclusive are sets of pods no two of which may share a node (a required hostname
	// anti-affinity that each of them declares and matches).
	Exclusive []Exclusive
	// Reserved is the room that capacity reservations, next to free but holding few
	// instances, can still offer: the sum over reservations of instances left × room. The
	// fluid bound takes it away from the demand; the other bounds, which price nodes at paid
	// offerings, do not apply when it is set. Nil: no reservations.
	Reserved resources.Vector
}

// Pods is Count pods of one class with the same requests.
type Pods struct {
	Class    int
	Requests resources.Vector
	Count    int
}

// Kind is a node that may be launched: in the scheduler, an instance type of a NodePool at
// one capacity type. Kinds of one type follow each other, in a fixed order.
type Kind struct {
	// Type names the instance type: kinds of one type, with the same room and the same pods
	// allowed, share the pattern bound's pricing work.
	Type string
	// Room is what the node offers the pods: allocatable less the DaemonSet pods it runs.
	Room resources.Vector
	// Price is the cheapest offering of the kind outside capacity reservations: the least
	// any node of the kind costs.
	Price float64
	// ClassPrices holds, per class, the cheapest price at which that class's pods may run on
	// the kind (their requirements allow the offering, they tolerate the taints), at least
	// Price; negative when they may not run on it. It may also be negative for a class none
	// of whose pods fit the room.
	ClassPrices []float64
}

// Exclusive is a set of pods no two of which may share a node.
type Exclusive struct {
	Members []Member
}

// Member is Count of the pods of Input.Pods[Pods] (at most its Count).
type Member struct {
	Pods  int
	Count int
}

// Validate reports the first inconsistency in the input: a class, pod group or vector out of
// range. The bounds assume a valid input.
func (in Input) Validate() error {
	dims := -1
	vector := func(what string, v resources.Vector) error {
		if dims < 0 {
			dims = len(v)
		}
		if len(v) != dims || dims <= resources.Pods {
			return fmt.Errorf("%s has %d dimensions, want %d (at least cpu, memory and pods)", what, len(v), max(dims, resources.Pods+1))
		}
		return nil
	}
	for i, p := range in.Pods {
		if p.Class < 0 || p.Class >= in.Classes {
			return fmt.Errorf("pods %d: class %d out of range [0, %d)", i, p.Class, in.Classes)
		}
		if p.Count <= 0 {
			return fmt.Errorf("pods %d: count %d, want at least 1", i, p.Count)
		}
		if err := vector(fmt.Sprintf("pods %d: requests", i), p.Requests); err != nil {
			return err
		}
	}
	for k, kind := range in.Kinds {
		if err := vector(fmt.Sprintf("kind %d (%s): room", k, kind.Type), kind.Room); err != nil {
			return err
		}
		if len(kind.ClassPrices) != in.Classes {
			return fmt.Errorf("kind %d (%s): %d class prices for %d classes", k, kind.Type, len(kind.ClassPrices), in.Classes)
		}
	}
	for e, set := range in.Exclusive {
		for _, m := range set.Members {
			if m.Pods < 0 || m.Pods >= len(in.Pods) || m.Count <= 0 || m.Count > in.Pods[m.Pods].Count {
				return fmt.Errorf("exclusive set %d: member %+v out of range", e, m)
			}
		}
	}
	if in.Reserved != nil {
		if err := vector("reserved room", in.Reserved); err != nil {
			return err
		}
	}
	return nil
}
