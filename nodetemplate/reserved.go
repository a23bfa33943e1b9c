package nodetemplate

import (
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// ReservationCapacity is how many instances each capacity reservation the n templates (at(i)
// the i-th) may launch into holds, in a map of the caller's: a plan takes them up as it prices
// its nodes.
func ReservationCapacity(n int, at func(i int) *Template) map[string]int {
	left := map[string]int{}
	eachReservedOffering(n, at, func(_ *Option, o instancetype.Offering) {
		left[o.ReservationID] = max(left[o.ReservationID], o.ReservationCapacity)
	})
	return left
}

// ReservedRoom is the room all capacity reservations the n templates may launch into can
// hold (instances left × the type's room), or nil when there are none.
func ReservedRoom(n int, at func(i int) *Template, dims *resources.Dims) resources.Vector {
	rooms := map[string]resources.Vector{}
	eachReservedOffering(n, at, func(t *Option, o instancetype.Offering) {
		if o.ReservationCapacity <= 0 {
			return
		}
		room := t.Room.Clone()
		for i := range room {
			room[i] = max(room[i], 0) * int64(o.ReservationCapacity)
		}
		if old, ok := rooms[o.ReservationID]; ok {
			room.Max(old)
		}
		rooms[o.ReservationID] = room
	})
	if len(rooms) == 0 {
		return nil
	}
	total := make(resources.Vector, dims.Len())
	for _, room := range rooms {
		total.Add(room)
	}
	return total
}

// eachReservedOffering calls f for every offering from a capacity reservation the templates'
// types have (a reservation shows in every NodePool that may use it).
func eachReservedOffering(n int, at func(i int) *Template, f func(t *Option, o instancetype.Offering)) {
	for i := range n {
		for _, r := range at(i).ReservedOfferings {
			f(r.Option, r.Offering)
		}
	}
}
