package report

import (
	"runtime/debug"
	"strings"
	"time"
)

// Version is what 'sectax --version' says after "sectax version": the
// version (the module's, when go install stamped one and -ldflags did
// not set it), the commit it was built from (vcs.revision, shortened),
// that commit's time (vcs.time), whether the work tree had changes not
// committed (vcs.modified), and the Go toolchain. A build without VCS
// stamps (go run, go test, -buildvcs=false, a tree without .git) says so
// instead of guessing. info is debug.ReadBuildInfo's (nil when absent).
func Version(version string, info *debug.BuildInfo) string {
	if info == nil {
		return version + " (no build information)"
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	// A tagged module version (go install …@v1.2.0); not the pseudo-version
	// Go makes from the commit itself (v0.0.0-DATE-REVISION+dirty).
	if m := strings.TrimSuffix(info.Main.Version, "+dirty"); version == DevVersion && m != "" && m != "(devel)" &&
		(len(rev) < 12 || !strings.HasSuffix(m, rev[:12])) {
		version = m
	}
	var parts []string
	if rev == "" {
		parts = append(parts, "no commit recorded: built by go run, go test or with -buildvcs=false")
	} else {
		c := "commit " + rev[:min(len(rev), 12)]
		if t, err := time.Parse(time.RFC3339, at); err == nil {
			c += " of " + t.UTC().Format("2006-01-02 15:04 UTC")
		}
		if modified {
			c += ", with changes not committed"
		}
		parts = append(parts, c)
	}
	if info.GoVersion != "" {
		parts = append(parts, "built with "+info.GoVersion)
	}
	return version + " (" + strings.Join(parts, "; ") + ")"
}

// DevVersion is the version of a build that -ldflags did not stamp.
const DevVersion = "0.1.0-dev"
