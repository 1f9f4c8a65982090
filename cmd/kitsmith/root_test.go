package main

import (
	"runtime/debug"
	"testing"
)

// gcSettings reads the collector's percent and memory limit.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// TestGCDefaults: a run collects at gcPercent under memoryLimit unless
// GOGC or GOMEMLIMIT says otherwise, and restores what was set before.
func TestGCDefaults(t *testing.T) {
	percent, limit := gcSettings()
	for _, tc := range []struct {
		name        string
		e           env
		wantPercent int
		wantLimit   int64
	}{
		{"neither set", env{}, gcPercent, memoryLimit},
		{"GOGC set", env{"GOGC": "100"}, percent, memoryLimit},
		{"GOMEMLIMIT set", env{"GOMEMLIMIT": "1GiB"}, gcPercent, limit},
		{"both set", env{"GOGC": "off", "GOMEMLIMIT": "1GiB"}, percent, limit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := gcDefaults(tc.e)
			gotPercent, gotLimit := gcSettings()
			restore()
			if gotPercent != tc.wantPercent || gotLimit != tc.wantLimit {
				t.Errorf("during the run: GOGC %d, limit %d; want %d, %d", gotPercent, gotLimit, tc.wantPercent, tc.wantLimit)
			}
			if p, l := gcSettings(); p != percent || l != limit {
				t.Errorf("after the run: GOGC %d, limit %d; want %d, %d restored", p, l, percent, limit)
			}
		})
	}
}
