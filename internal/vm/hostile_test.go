package vm_test

import (
	"errors"
	. "github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/vm/vmtest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/safetext"
)

func assertSafe(t *testing.T, what, s string, keepLines bool) {
	t.Helper()
	for _, r := range s {
		if safetext.Unsafe(r) && !(keepLines && (r == '\n' || r == '\t')) {
			t.Errorf("%s holds %U: %q", what, r, s)
			return
		}
	}
}

// TestBootLimits: a guest that floods its channel, its console, frames or
// log text is stopped at the limit with one line, and the boot's files are
// gone (on main the channel was re-read whole every 100 ms and log frames
// kept without bound: 1.5 GB of noise took the host to 6.9 GB RSS).
func TestBootLimits(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		limits Limits
		want   string
	}{
		{"flood-channel", Limits{Channel: 4 << 20}, "more than 4 MiB on the result channel"},
		{"flood-console", Limits{Console: 4 << 20}, "more than 4 MiB on the console"},
		{"flood-frames", Limits{Frames: 1000}, "more than 1000 frames"},
		{"flood-log", Limits{LogBytes: 256 << 10}, "more than 256 KiB of log frames"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			res, tmp, err := vmtest.Boot(t, tc.mode, BootOptions{Limits: tc.limits})
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line with %q", err, tc.want)
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "*"))
			if len(left) > 0 {
				t.Errorf("the boot left %v", left)
			}
			if len(res.Logs) > 1000 {
				t.Errorf("%d log frames kept", len(res.Logs))
			}
		})
	}
	// A folder the caller gives keeps nothing of the boot either.
	dir := t.TempDir()
	_, _, err := vmtest.Boot(t, "flood-channel", BootOptions{Dir: dir, Limits: Limits{Channel: 1 << 20}})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("err = %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("the boot left %v", left)
	}
}

// TestBootSanitisesGuestText: an OSC title, a carriage return and an
// erase-line from the guest (log and error frames, its hello, the console)
// reach neither OnFrame, nor the result, nor the error (on main they
// passed straight to stderr).
func TestBootSanitisesGuestText(t *testing.T) {
	var seen []string
	res, _, err := vmtest.Boot(t, "escapes", BootOptions{OnFrame: func(f Frame) {
		if f.Kind != KindResult && f.Kind != KindHello {
			seen = append(seen, string(f.Payload))
		}
	}})
	if !errors.Is(err, ErrGuest) || !strings.Contains(err.Error(), `refused\x1b]0;owned\x07\x0d\x1b[2K`) {
		t.Fatalf("err = %v", err)
	}
	assertSafe(t, "the error", err.Error(), false)
	for _, s := range append(seen, res.Logs...) {
		assertSafe(t, "a log line", s, false)
	}
	assertSafe(t, "the hello's release", res.Hello.Release, false)
	assertSafe(t, "the console", res.Console, true)
	if len(seen) != 3 {
		t.Errorf("OnFrame saw %q", seen)
	}

	// The last kernel message of a guest that never says hello (QEMU
	// exits: no timer decides when the console is read).
	_, _, err = vmtest.Boot(t, "console-only", BootOptions{})
	if !errors.Is(err, ErrQEMU) || !strings.Contains(err.Error(), `\x1b]0;owned\x07last`) {
		t.Fatalf("err = %v", err)
	}
	assertSafe(t, "the handshake error", err.Error(), false)
}
