package disruption

import (
	"time"

	"github.com/nodeplan/nodeplan/scheduling"
)

// maxWindowSteps bounds the walk over overlapping windows of one schedule (a schedule that
// fires every hour with a two-hour duration never closes; 1500 steps are a day of minutes): past it, the walk's last end
// is returned, which is early but harmless to a caller that only decides again then.
const maxWindowSteps = 1500

// NextBudgetChange returns the first time after t at which one of the NodePool's scheduled
// disruption budgets opens or closes its window (schedule and duration, UTC), and false when
// none ever will (no scheduled budget, or schedules that never fire again). Budgets, and so
// Decide's answer, can change then with nothing else changing: a simulation that decides
// again only when something changed must also decide at these times.
func NextBudgetChange(np *scheduling.NodePool, t time.Time) (time.Time, bool) {
	var next time.Time
	if np == nil {
		return next, false
	}
	for _, b := range np.Disruption.Budgets {
		if b.Schedule == "" || b.Duration == nil || *b.Duration <= 0 {
			continue
		}
		s, err := parseCron(b.Schedule)
		if err != nil {
			continue // Decide refuses the NodePool with the reason
		}
		if c, ok := s.nextChange(t, *b.Duration); ok && (next.IsZero() || c.Before(next)) {
			next = c
		}
	}
	return next, !next.IsZero()
}

// nextChange is the first time after t at which the window of length d (open from every
// firing of the schedule) opens or closes.
func (s *cronSchedule) nextChange(t time.Time, d time.Duration) (time.Time, bool) {
	if !s.activeAt(t, d) {
		return s.next(t)
	}
	// Open: the window ends d after the last firing at or before t, unless a later firing
	// comes by then and extends it.
	fired, ok := s.next(t.Add(-d))
	if !ok {
		return time.Time{}, false
	}
	for i := 0; i < maxWindowSteps; i++ {
		later, ok := s.next(fired)
		if !ok || later.After(fired.Add(d)) {
			break
		}
		fired = later
	}
	return fired.Add(d), true
}
