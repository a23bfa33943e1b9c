package disruption

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronSchedule is a parsed 5-field cron expression (minute hour day-of-month month
// day-of-week), read in UTC as Karpenter reads budget schedules.
type cronSchedule struct {
	minute, hour, dom, month, dow uint64 // bit i set when value i matches
	// domStar and dowStar are set when the field was * or ?: then only the other day field
	// restricts the day (cron's rule: two restricted day fields match either).
	domStar, dowStar bool
}

var cronDescriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

var monthNames = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}
var dayNames = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

// ValidateSchedule checks a budget's schedule as Decide reads it, so that a loader can refuse
// a bad one where it is written: five cron fields (minute hour day-of-month month
// day-of-week, UTC) or an @ descriptor.
func ValidateSchedule(spec string) error {
	_, err := parseCron(spec)
	return err
}

// parseCron parses a schedule: five fields with *, ?, lists, ranges, steps and month or day
// names, or one of the @ descriptors.
func parseCron(spec string) (*cronSchedule, error) {
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "@") {
		expanded, ok := cronDescriptors[strings.ToLower(spec)]
		if !ok {
			return nil, fmt.Errorf("schedule %q: unknown descriptor (use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly)", spec)
		}
		spec = expanded
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("schedule %q: want 5 fields (minute hour day-of-month month day-of-week), got %d", spec, len(fields))
	}
	s := &cronSchedule{}
	var err error
	if s.minute, _, err = parseCronField(fields[0], 0, 59, nil); err != nil {
		return nil, fmt.Errorf("schedule %q: minute: %w", spec, err)
	}
	if s.hour, _, err = parseCronField(fields[1], 0, 23, nil); err != nil {
		return nil, fmt.Errorf("schedule %q: hour: %w", spec, err)
	}
	if s.dom, s.domStar, err = parseCronField(fields[2], 1, 31, nil); err != nil {
		return nil, fmt.Errorf("schedule %q: day of month: %w", spec, err)
	}
	if s.month, _, err = parseCronField(fields[3], 1, 12, monthNames); err != nil {
		return nil, fmt.Errorf("schedule %q: month: %w", spec, err)
	}
	// Day of week accepts 7 for Sunday, as most crons do.
	if s.dow, s.dowStar, err = parseCronField(fields[4], 0, 7, dayNames); err != nil {
		return nil, fmt.Errorf("schedule %q: day of week: %w", spec, err)
	}
	if s.dow&(1<<7) != 0 {
		s.dow |= 1
	}
	return s, nil
}

// parseCronField returns the bit set of a field and whether it was * or ? (unrestricted).
func parseCronField(field string, lo, hi int, names map[string]int) (uint64, bool, error) {
	var bits uint64
	star := false
	for _, part := range strings.Split(field, ",") {
		if part == "" {
			return 0, false, fmt.Errorf("empty list item in %q", field)
		}
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n <= 0 {
				return 0, false, fmt.Errorf("step %q is not a positive number", stepText)
			}
			step = n
		}
		var from, to int
		switch {
		case rng == "*" || rng == "?":
			from, to = lo, hi
			star = star || step == 1 // "*/2" restricts the field, "*" does not
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			var err error
			if from, err = cronValue(a, lo, hi, names); err != nil {
				return 0, false, err
			}
			if to, err = cronValue(b, lo, hi, names); err != nil {
				return 0, false, err
			}
			if from > to {
				return 0, false, fmt.Errorf("range %q runs backwards", rng)
			}
		default:
			v, err := cronValue(rng, lo, hi, names)
			if err != nil {
				return 0, false, err
			}
			from, to = v, v
			if hasStep {
				to = hi
			}
		}
		for v := from; v <= to; v += step {
			bits |= 1 << uint(v)
		}
	}
	return bits, star, nil
}

func cronValue(text string, lo, hi int, names map[string]int) (int, error) {
	if v, ok := names[strings.ToLower(text)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(text)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", text)
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("%d is outside %d-%d", v, lo, hi)
	}
	return v, nil
}

func (s *cronSchedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// next returns the first minute strictly after t that the schedule matches, in UTC; false
// when none comes within five years (for example February 30th).
func (s *cronSchedule) next(t time.Time) (time.Time, bool) {
	t = t.UTC().Truncate(time.Minute).Add(time.Minute)
	limit := t.AddDate(5, 0, 0)
	for t.Before(limit) {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = t.Truncate(time.Hour).Add(time.Hour)
		case s.minute&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t, true
		}
	}
	return time.Time{}, false
}

// activeAt reports whether a window of length d opened by the schedule covers now: the
// schedule fired at some minute in (now-d, now].
func (s *cronSchedule) activeAt(now time.Time, d time.Duration) bool {
	if d <= 0 {
		return false
	}
	hit, ok := s.next(now.Add(-d))
	return ok && !hit.After(now)
}
