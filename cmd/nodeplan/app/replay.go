package app

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/replay"
)

// Replayed is the outcome of Replay: the result and what it was made from.
type Replayed struct {
	Bundle  *manifest.Bundle
	Catalog *instancetype.Catalog
	Trace   replay.Trace
	Result  replay.Result
}

// Replay loads the start cluster from the manifests and the events from the events file
// (kubereplay's ReplayLog JSON or nodeplan's event list), and replays them from start: the
// given time, else the start the events file gives (kubereplay: its first event). With an
// error, the result is nil or holds only the Bundle.
func Replay(cfg Config, eventsPath string, start time.Time, opts replay.Options) (*Replayed, error) {
	if eventsPath == "" {
		return nil, errors.New("replay needs --events FILE: a kubereplay log or a nodeplan event list")
	}
	data, err := os.ReadFile(eventsPath)
	if err != nil {
		return nil, err
	}
	tr, err := replay.ReadTrace(data, eventsPath)
	if err != nil {
		return nil, err
	}
	if start.IsZero() {
		start = tr.Start
	}
	if start.IsZero() {
		return nil, fmt.Errorf("%s: the events give no start time: add start: <RFC 3339 time> to the file, or give --now", eventsPath)
	}
	tr.Resolve(start)
	b, cat, err := cfg.load()
	if err != nil {
		return partialReplay(b), err
	}
	in, warnings := b.DisruptionInput(start, cat.InstanceTypes)
	b.Warnings = append(b.Warnings, warnings...)
	res, err := replay.Run(in, tr.Events, opts)
	if err != nil {
		return partialReplay(b), err
	}
	return &Replayed{Bundle: b, Catalog: cat, Trace: tr, Result: res}, nil
}

func partialReplay(b *manifest.Bundle) *Replayed {
	if b == nil {
		return nil
	}
	return &Replayed{Bundle: b}
}
