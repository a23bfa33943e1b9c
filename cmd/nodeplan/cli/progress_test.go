package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The bar stays silent off a terminal and for the first second; then it draws the share of
// simulated time done, and finish clears it.
func TestProgressBar(t *testing.T) {
	if newProgressBar(&bytes.Buffer{}) != nil {
		t.Fatal("a buffer is not a terminal: no bar")
	}
	var out bytes.Buffer
	start := time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC)
	p := &progressBar{w: &out, began: time.Now()}
	p.update(start, start.Add(10*time.Hour))
	p.update(start.Add(time.Hour), start.Add(10*time.Hour))
	if out.Len() != 0 {
		t.Fatalf("drawn within the first second: %q", out.String())
	}
	p.began = p.began.Add(-2 * time.Second)
	p.update(start.Add(5*time.Hour), start.Add(10*time.Hour))
	if got := out.String(); !strings.Contains(got, "]  50%  5h0m0s simulated") {
		t.Fatalf("got %q", got)
	}
	p.finish()
	if !strings.HasSuffix(out.String(), "\r") {
		t.Fatal("finish clears the line")
	}
}
