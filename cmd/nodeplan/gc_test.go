package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// gcSettings reads GOGC and the memory limit as the runtime has them.
func gcSettings() (percent, limit int64) {
	samples := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(samples)
	return int64(samples[0].Value.Uint64()), int64(samples[1].Value.Uint64())
}

// Without GOGC and GOMEMLIMIT, nothing is collected before the heap reaches gcFirstAt; the
// first collection sets GOGC and the memory limit of the rest of the run.
func TestTuneGCCollectsFirstAtGCFirstAt(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	tuneGC()
	percent, limit := gcSettings()
	require.Equal(t, int64(-1), percent, "collection off")
	require.Equal(t, int64(gcFirstAt), limit)
	runtime.GC()
	require.Eventually(t, func() bool {
		percent, limit := gcSettings()
		return percent == gcPercent && limit == gcMemoryLimit
	}, 10*time.Second, time.Millisecond, "the settings after the first collection")
}
