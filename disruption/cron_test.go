package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCronNext(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04", s)
		require.NoError(t, err)
		return tm
	}
	// 2025-06-02 is a Monday.
	tests := []struct {
		spec, from, want string
	}{
		{"* * * * *", "2025-06-02 10:00", "2025-06-02 10:01"},
		{"0 9 * * *", "2025-06-02 09:00", "2025-06-03 09:00"},
		{"0 9 * * *", "2025-06-02 08:59", "2025-06-02 09:00"},
		{"*/15 * * * *", "2025-06-02 10:01", "2025-06-02 10:15"},
		{"5-10/5 * * * *", "2025-06-02 10:06", "2025-06-02 10:10"},
		{"0 0,12 * * *", "2025-06-02 01:00", "2025-06-02 12:00"},
		{"30 2 * * mon-fri", "2025-06-06 03:00", "2025-06-09 02:30"}, // Friday → Monday
		{"0 0 * * 7", "2025-06-02 00:00", "2025-06-08 00:00"},        // 7 is Sunday
		{"0 0 * * SUN", "2025-06-02 00:00", "2025-06-08 00:00"},
		{"0 0 1 jan *", "2025-06-02 00:00", "2026-01-01 00:00"},
		{"0 0 31 * *", "2025-06-02 00:00", "2025-07-31 00:00"}, // June has no 31st
		{"0 0 29 2 *", "2025-03-01 00:00", "2028-02-29 00:00"},
		// Both day fields restricted: either matches (the 13th, or any Friday).
		{"0 0 13 * fri", "2025-06-07 00:00", "2025-06-13 00:00"},
		{"0 0 13 * fri", "2025-06-01 00:00", "2025-06-06 00:00"},
		// A star day of month with a stepped day of week: only the day of week restricts.
		{"0 0 * * */2", "2025-06-02 00:00", "2025-06-03 00:00"},
		{"0 0 1 * */2", "2025-06-02 00:00", "2025-06-03 00:00"},
		{"@hourly", "2025-06-02 10:00", "2025-06-02 11:00"},
		{"@daily", "2025-06-02 10:00", "2025-06-03 00:00"},
		{"@midnight", "2025-06-02 10:00", "2025-06-03 00:00"},
		{"@weekly", "2025-06-02 10:00", "2025-06-08 00:00"},
		{"@monthly", "2025-06-02 10:00", "2025-07-01 00:00"},
		{"@yearly", "2025-06-02 10:00", "2026-01-01 00:00"},
		{"@annually", "2025-06-02 10:00", "2026-01-01 00:00"},
	}
	for _, tc := range tests {
		t.Run(tc.spec+" from "+tc.from, func(t *testing.T) {
			s, err := parseCron(tc.spec)
			require.NoError(t, err)
			got, ok := s.next(at(tc.from))
			require.True(t, ok)
			assert.Equal(t, at(tc.want), got)
		})
	}
}

func TestCronNeverFires(t *testing.T) {
	s, err := parseCron("0 0 30 2 *")
	require.NoError(t, err)
	_, ok := s.next(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	assert.False(t, ok)
	assert.False(t, s.activeAt(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), 24*time.Hour))
}

func TestCronErrors(t *testing.T) {
	tests := map[string]string{
		"":               "want 5 fields",
		"* * * *":        "want 5 fields",
		"60 * * * *":     "minute: 60 is outside 0-59",
		"* 24 * * *":     "hour: 24 is outside 0-23",
		"* * 0 * *":      "day of month: 0 is outside 1-31",
		"* * * 13 *":     "month: 13 is outside 1-12",
		"* * * * 8":      "day of week: 8 is outside 0-7",
		"*/0 * * * *":    `step "0" is not a positive number`,
		"5-1 * * * *":    "runs backwards",
		"a * * * *":      `"a" is not a number`,
		"1,,2 * * * *":   "empty list item",
		"@fortnightly":   "unknown descriptor",
		"* * * foo *":    `"foo" is not a number`,
		"* * * * funday": `"funday" is not a number`,
	}
	for spec, want := range tests {
		t.Run(spec, func(t *testing.T) {
			_, err := parseCron(spec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
		})
	}
}

func TestCronWindow(t *testing.T) {
	s, err := parseCron("0 9 * * mon-fri")
	require.NoError(t, err)
	monday := func(h, m int) time.Time { return time.Date(2025, 6, 2, h, m, 0, 0, time.UTC) }
	tests := []struct {
		now    time.Time
		active bool
	}{
		{monday(8, 59), false},
		{monday(9, 0), true}, // the window opens at the firing minute
		{monday(16, 59), true},
		{monday(17, 0), false},                                // and closes after the duration
		{time.Date(2025, 6, 7, 10, 0, 0, 0, time.UTC), false}, // Saturday
		// A window that started on Friday reaches into Saturday.
		{time.Date(2025, 6, 7, 1, 0, 0, 0, time.UTC), false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.active, s.activeAt(tc.now, 8*time.Hour), "at %s", tc.now)
	}
	long, err := parseCron("0 22 * * fri")
	require.NoError(t, err)
	assert.True(t, long.activeAt(time.Date(2025, 6, 7, 1, 0, 0, 0, time.UTC), 8*time.Hour), "Friday 22:00 + 8h covers Saturday 01:00")
	assert.True(t, long.activeAt(time.Date(2025, 6, 7, 1, 0, 0, 0, time.FixedZone("CEST", 2*3600)), 8*time.Hour), "times in other zones are read in UTC")
}
