package disruption_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/disruption"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
)

// NextBudgetChange finds where a scheduled budget opens or closes, overlapping windows
// counting as one, and the earliest over a NodePool's budgets.
func TestNextBudgetChange(t *testing.T) {
	monday := time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC) // a Monday
	hm := func(day, h, m int) time.Time {
		return monday.AddDate(0, 0, day).Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
	}
	for _, tc := range []struct {
		name string
		pool *tb.NodePoolBuilder
		at   time.Time
		want time.Time // zero: never
	}{
		{name: "no scheduled budget", pool: tb.NodePool("p").Budget("10%"), at: hm(0, 9, 0)},
		{name: "closed: the next opening", pool: tb.NodePool("p").ScheduledBudget("0", "0 9 * * *", 8*time.Hour), at: hm(0, 8, 30), want: hm(0, 9, 0)},
		{name: "at the opening: the closing", pool: tb.NodePool("p").ScheduledBudget("0", "0 9 * * *", 8*time.Hour), at: hm(0, 9, 0), want: hm(0, 17, 0)},
		{name: "open: the closing", pool: tb.NodePool("p").ScheduledBudget("0", "0 9 * * *", 8*time.Hour), at: hm(0, 12, 34), want: hm(0, 17, 0)},
		{name: "at the closing: the next day's opening", pool: tb.NodePool("p").ScheduledBudget("0", "0 9 * * *", 8*time.Hour), at: hm(0, 17, 0), want: hm(1, 9, 0)},
		{name: "weekdays only: Friday's closing to Monday's opening", pool: tb.NodePool("p").ScheduledBudget("0", "0 9 * * mon-fri", 8*time.Hour), at: hm(4, 18, 0), want: hm(7, 9, 0)},
		{name: "overlapping windows close once", pool: tb.NodePool("p").ScheduledBudget("0", "0 9,10 * * *", 90*time.Minute), at: hm(0, 9, 15), want: hm(0, 11, 30)},
		{name: "the earliest of two budgets", pool: tb.NodePool("p").ScheduledBudget("0", "0 9 * * *", 8*time.Hour).ScheduledBudget("1", "30 12 * * *", time.Hour, "Drifted"), at: hm(0, 10, 0), want: hm(0, 12, 30)},
		{name: "a schedule that never fires", pool: tb.NodePool("p").ScheduledBudget("0", "0 0 30 2 *", time.Hour), at: hm(0, 10, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := disruption.NextBudgetChange(tc.pool.Obj(), tc.at)
			assert.Equal(t, !tc.want.IsZero(), ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

// A window that the schedule keeps open for good gives a bounded answer after t rather than
// walking five years of firings.
func TestNextBudgetChangeOfAWindowThatNeverCloses(t *testing.T) {
	at := time.Date(2026, 1, 12, 3, 10, 0, 0, time.UTC)
	got, ok := disruption.NextBudgetChange(tb.NodePool("p").ScheduledBudget("0", "0 * * * *", 2*time.Hour).Obj(), at)
	assert.True(t, ok)
	assert.True(t, got.After(at))
	assert.True(t, got.Before(at.AddDate(0, 3, 0)), "bounded: %s", got)
}
