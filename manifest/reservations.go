package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/instancetype/aws"
)

// capacityReservationStatus is an entry of an EC2NodeClass's status.capacityReservations.
// AvailableInstanceCount is not in Karpenter's status (its controller asks EC2); nodeplan
// reads it when a snapshot adds it, or from the output of aws ec2
// describe-capacity-reservations given beside the snapshot (ec2CapacityReservations).
type capacityReservationStatus struct {
	ID                     string          `json:"id"`
	InstanceType           string          `json:"instanceType"`
	AvailabilityZone       string          `json:"availabilityZone"`
	ReservationType        string          `json:"reservationType,omitempty"`
	State                  string          `json:"state,omitempty"`
	AvailableInstanceCount *int            `json:"availableInstanceCount,omitempty"`
	InstanceMatchCriteria  string          `json:"instanceMatchCriteria,omitempty"`
	OwnerID                string          `json:"ownerID,omitempty"`
	EndTime                json.RawMessage `json:"endTime,omitempty"`
	Interruptible          bool            `json:"interruptible,omitempty"`
}

// capacityReservations converts status.capacityReservations. A reservation whose free
// instances the class does not give has Available -1 until an EC2 answer fills it
// (builder.capacityReservationCounts).
func capacityReservations(doc *document, in []capacityReservationStatus) ([]aws.CapacityReservation, error) {
	var out []aws.CapacityReservation
	for i, r := range in {
		field := fmt.Sprintf("status.capacityReservations[%d]", i)
		switch {
		case r.ID == "":
			return nil, doc.errorf(field+".id", "required")
		case r.InstanceType == "":
			return nil, doc.errorf(field+".instanceType", "required")
		case r.AvailabilityZone == "":
			return nil, doc.errorf(field+".availabilityZone", "required")
		}
		typ, err := reservationType(doc, field+".reservationType", r.ReservationType)
		if err != nil {
			return nil, err
		}
		switch r.State {
		case "", "active", "expiring":
		default:
			return nil, doc.errorf(field+".state", "unknown state %q (use active or expiring)", r.State)
		}
		available := -1
		if r.AvailableInstanceCount != nil {
			if *r.AvailableInstanceCount < 0 {
				return nil, doc.errorf(field+".availableInstanceCount", "must not be negative, got %d", *r.AvailableInstanceCount)
			}
			available = *r.AvailableInstanceCount
		}
		out = append(out, aws.CapacityReservation{ID: r.ID, InstanceType: r.InstanceType, Zone: r.AvailabilityZone,
			Type: typ, Expiring: r.State == "expiring", Available: available})
	}
	return out, nil
}

// reservationType reads Karpenter's reservation type, "default" when unset.
func reservationType(doc *document, field, typ string) (string, error) {
	switch typ {
	case "":
		return "default", nil
	case "default", "capacity-block":
		return typ, nil
	}
	return "", doc.errorf(field, "unknown type %q (use default or capacity-block)", typ)
}

// ec2CapacityReservations is the output of aws ec2 describe-capacity-reservations, read as it
// is: a document without apiVersion or kind whose CapacityReservations give EC2's own counts
// and states. Fields nodeplan does not use (Tags, CapacityReservationArn, …) are ignored.
type ec2CapacityReservations struct {
	doc                  *document
	CapacityReservations []ec2CapacityReservation `json:"CapacityReservations"`
}

type ec2CapacityReservation struct {
	CapacityReservationID  string          `json:"CapacityReservationId"`
	InstanceType           string          `json:"InstanceType"`
	AvailabilityZone       string          `json:"AvailabilityZone"`
	AvailableInstanceCount *int            `json:"AvailableInstanceCount"`
	TotalInstanceCount     *int            `json:"TotalInstanceCount"`
	State                  string          `json:"State"`
	EndDate                json.RawMessage `json:"EndDate"`
	ReservationType        string          `json:"ReservationType"`
}

// decodeByShape reads a document without apiVersion and kind that nodeplan recognises by its
// shape: the output of aws ec2 describe-capacity-reservations. ok is false for any other.
func decodeByShape(doc *document) (obj any, ok bool, err error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(doc.raw, &top) != nil {
		return nil, false, nil
	}
	if _, found := top["CapacityReservations"]; !found {
		return nil, false, nil
	}
	out := &ec2CapacityReservations{doc: doc}
	if err := json.Unmarshal(doc.raw, out); err != nil {
		field, msg := locateError(doc.raw, out)
		return nil, true, doc.errorf(field, "%s (read as aws ec2 describe-capacity-reservations output)", msg)
	}
	for i, r := range out.CapacityReservations {
		field := fmt.Sprintf("CapacityReservations[%d]", i)
		switch {
		case r.CapacityReservationID == "":
			return nil, true, doc.errorf(field+".CapacityReservationId", "required")
		case r.State == "":
			return nil, true, doc.errorf(field+".State", "required")
		case r.AvailableInstanceCount == nil:
			return nil, true, doc.errorf(field+".AvailableInstanceCount", "required")
		case *r.AvailableInstanceCount < 0:
			return nil, true, doc.errorf(field+".AvailableInstanceCount", "must not be negative, got %d", *r.AvailableInstanceCount)
		}
	}
	return out, true, nil
}

// capacityReservationCounts fills the free instances of the node classes' reservations from
// EC2's answer (it wins over a count the snapshot added by hand), drops reservations EC2 says
// are not active (their instances run on-demand, as Karpenter relabels them), and warns about
// reservations whose count neither gives: nothing is planned on those.
func (s *builder) capacityReservationCounts() {
	ec2 := map[string]ec2CapacityReservation{}
	where := map[string]string{}
	for _, o := range s.ec2Reservations {
		for i, r := range o.CapacityReservations {
			ec2[r.CapacityReservationID] = r
			where[r.CapacityReservationID] = fmt.Sprintf("%s: CapacityReservations[%d]", o.doc.where(), i)
		}
	}
	listed := map[string]bool{}
	for _, nc := range s.b.NodeClasses {
		kept := nc.CapacityReservations[:0]
		for i, r := range nc.CapacityReservations {
			field := fmt.Sprintf("%s %s: status.capacityReservations[%d]", nc.Kind, nc.Name, i)
			listed[r.ID] = true
			if e, ok := ec2[r.ID]; ok {
				if e.State != "active" {
					s.d.warnf("%s: capacity reservation %s is %s, not active (%s): no new node is planned on it, and nodes in it are taken as on-demand", field, r.ID, e.State, where[r.ID])
					continue
				}
				r.Available = *e.AvailableInstanceCount
			} else if r.Available < 0 {
				s.d.warnf("%s: capacity reservation %s does not say how many instances it still takes: no new node is planned on it. Add EC2's answer to -f (aws ec2 describe-capacity-reservations --capacity-reservation-ids %s --output json > reservations.json), or availableInstanceCount to the entry", field, r.ID, r.ID)
			}
			kept = append(kept, r)
		}
		nc.CapacityReservations = slices.Clip(kept)
	}
	for _, o := range s.ec2Reservations {
		var unused []string
		for _, r := range o.CapacityReservations {
			if !listed[r.CapacityReservationID] {
				unused = append(unused, r.CapacityReservationID)
			}
		}
		if len(unused) > 0 {
			s.d.warnf("%s: no EC2NodeClass's status.capacityReservations lists %s: Karpenter launches into a reservation only when a class selects it (capacityReservationSelectorTerms), so nodeplan plans nothing on it", o.doc.where(), strings.Join(unused, ", "))
		}
	}
}
