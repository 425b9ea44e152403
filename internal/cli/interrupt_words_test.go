package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/workload"
)

// TestInterruptedInWords: a command whose context ends as Ctrl-C ends it
// (os/signal's cause) exits 130 and says it was interrupted, in words,
// never Go's "context canceled": run, lab, campaign, decide, and the
// commands that read the store (issue 36).
func TestInterruptedInWords(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	for _, args := range [][]string{
		{"run", "--suite", "quick", "--only", "syscall-basic", "--runs", "1"},
		{"run", "--cmd", "true", "--runs", "1", "--no-store"},
		{"lab", "--runs", "1", "--kernel", "/nonexistent"},
		{"campaign", "start", "--dry-run", "--root", filepath.Join(t.TempDir(), "none")},
		{"decide"},
		{"list"},
		{"show", "on"},
		{"compare", "on", "off"},
		{"attribute", "probes", "--runs", "1"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errors.New("interrupt signal received")) // what os/signal's NotifyContext gives
		var out, errb bytes.Buffer
		code := mainWith(ctx, append([]string{"--db", e.db, "--no-color"}, args...), &out, &errb, Deps{Registry: workload.Default(), Now: time.Now, NewRunID: newRunID, Exe: os.Args[0]})
		t.Logf("%v: exit %d: %s", args, code, errb.String())
		if code != ExitInterrupted && code != ExitOK && code != ExitUsage { // a usage error is found before any work
			t.Errorf("%v: exit %d, want %d; stderr %q", args, code, ExitInterrupted, errb.String())
		}
		if code == ExitOK || code == ExitUsage {
			continue
		}
		if s := errb.String(); strings.Contains(s, "context canceled") || (code == ExitInterrupted && s != "" && !strings.Contains(s, "interrupted")) {
			t.Errorf("%v: stderr %q, want it to say interrupted in words", args, s)
		}
	}
}
