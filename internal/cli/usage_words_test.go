package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageErrorsInWords: a wrong argument count, an unknown command and a
// flag value of the wrong type are each one line, exit 2, naming what the
// command takes and where to look, never cobra's or strconv's words.
func TestUsageErrorsInWords(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"show"}, "sectax show takes RUN (got none): see 'sectax show --help'"},
		{[]string{"rm", "a", "b"}, "sectax rm takes RUN (got 2: a b): see 'sectax rm --help'"},
		{[]string{"env", "x"}, "sectax env takes no arguments (got 1: x)"},
		{[]string{"runn"}, `unknown command "runn" for "sectax": did you mean run? ('sectax --help' lists the commands)`},
		{[]string{"zzzz"}, `unknown command "zzzz" for "sectax" ('sectax --help' lists the commands)`},
		{[]string{"campaign", "statu"}, `unknown command "statu" for "sectax campaign": see 'sectax campaign --help'`},
		{[]string{"run", "--runs", "x"}, `--runs "x": not a whole number (--runs`},
		{[]string{"run", "--precision", "2", "--max-time", "5"}, `--max-time "5": not a duration (such as 90s, 10m or 1h30m) (--max-time DURATION`},
	} {
		out, errs, code := sectax(t, fixedDeps(nil), tt.args...)
		if code != ExitUsage || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 || out != "" ||
			strings.Contains(errs, "strconv") || strings.Contains(errs, "arg(s)") {
			t.Errorf("sectax %v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", tt.args, code, out, errs, tt.want)
		}
	}
}

// TestWSLConfigShowNotWSL: outside WSL, wslconfig show says the machine is
// not WSL and how to read a file anyway, not where the search failed.
func TestWSLConfigShowNotWSL(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "proc/sys/kernel"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "proc/sys/kernel/osrelease"), []byte("6.1.0-57-amd64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := sectax(t, fixedDeps(nil), "--root", root, "wslconfig", "show")
	want := "this machine is not WSL (kernel 6.1.0-57-amd64): it has no %UserProfile%\\.wslconfig; run this inside a WSL 2 distribution, or pass --path FILE"
	if code != ExitUsage || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, want)
	}
}
