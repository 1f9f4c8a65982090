package version

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromBuild(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123abcd"},
		{Key: "vcs.time", Value: "2026-11-30T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name                    string
		version, revision, date string
		bi                      *debug.BuildInfo
		want                    Info
	}{
		{
			name:    "release build: the linker's values win",
			version: "v1.2.0", revision: "feedface", date: "2026-11-29T08:00:00Z",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			want: Info{Name: Name, Version: "v1.2.0", Revision: "feedface", Date: "2026-11-29T08:00:00Z", Go: "go1.26.8"},
		},
		{
			name: "go install PKG@v1.3.0: the module version, no VCS stamp",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/kitsmith/kitsmith", Version: "v1.3.0"}},
			want: Info{Name: Name, Version: "v1.3.0", Go: "go1.26.8"},
		},
		{
			name: "go build in a dirty checkout: revision, date and modified from vcs settings",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			want: Info{Name: Name, Version: "dev", Revision: "0123abcd", Date: "2026-11-30T10:00:00Z", Modified: true, Go: "go1.26.8"},
		},
		{
			name: "no build information",
			want: Info{Name: Name, Version: "dev"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromBuild(tt.version, tt.revision, tt.date, tt.bi)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("fromBuild (-want +got):\n%s", d)
			}
		})
	}
}

func TestGetInTest(t *testing.T) {
	// A test binary has build information: Go's version at least.
	if v := Get(); v.Go == "" || v.Version == "" {
		t.Errorf("Get() = %+v, want a Go version and a version", v)
	}
}
