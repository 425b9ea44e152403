package report

import (
	"runtime/debug"
	"testing"
)

// TestVersion: --version names the commit, its time and a dirty tree from
// the build's VCS stamps, a tagged module version over the development
// one, and says when there are no stamps (go run, go test).
func TestVersion(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	rev := "745b59f83601aa6c1a0c7a3a1e4b29e0f2d1c001"
	for _, c := range []struct {
		name, version string
		info          *debug.BuildInfo
		want          string
	}{
		{"no build info", DevVersion, nil, "0.1.0-dev (no build information)"},
		{"go run", DevVersion, &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"0.1.0-dev (no commit recorded: built by go run, go test or with -buildvcs=false; built with go1.26.8)"},
		{"clean build", DevVersion, &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261205185024-745b59f83601"}, Settings: vcs(rev, "2026-12-05T18:50:24Z", "false")},
			"0.1.0-dev (commit 745b59f83601 of 2026-12-05 18:50 UTC; built with go1.26.8)"},
		{"dirty build", DevVersion, &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261205185024-745b59f83601+dirty"}, Settings: vcs(rev, "2026-12-05T18:50:24Z", "true")},
			"0.1.0-dev (commit 745b59f83601 of 2026-12-05 18:50 UTC, with changes not committed; built with go1.26.8)"},
		{"go install of a tag", DevVersion, &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.2.0"}},
			"v0.2.0 (no commit recorded: built by go run, go test or with -buildvcs=false; built with go1.26.8)"},
		{"-ldflags -X", "1.0.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}, Settings: vcs(rev, "bad time", "false")},
			"1.0.0 (commit 745b59f83601)"},
	} {
		if got := Version(c.version, c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
