package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progressBar draws a replay's progress on a terminal once it has run for a second, at most
// ten times a second; it draws nothing when w is not a terminal.
type progressBar struct {
	w            io.Writer
	began, drawn time.Time
	// start is the simulated time of the first step, the replay's start.
	start time.Time
	shown bool
}

func newProgressBar(w io.Writer) *progressBar {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progressBar{w: w, began: time.Now()}
}

// update is replay.Options.Progress.
func (p *progressBar) update(now, until time.Time) {
	if p.start.IsZero() {
		p.start = now
	}
	wall := time.Now()
	if wall.Sub(p.began) < time.Second || wall.Sub(p.drawn) < 100*time.Millisecond {
		return
	}
	p.drawn, p.shown = wall, true
	done := 1.0
	if total := until.Sub(p.start); total > 0 {
		done = min(1, float64(now.Sub(p.start))/float64(total))
	}
	const width = 30
	filled := int(done * width)
	fmt.Fprintf(p.w, "\rreplaying [%s%s] %3.0f%%  %s simulated", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done*100, now.Sub(p.start).Truncate(time.Second))
}

// finish clears the bar.
func (p *progressBar) finish() {
	if p != nil && p.shown {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 70))
	}
}
