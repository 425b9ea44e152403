package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletionOfRuns: 'sectax __complete' (what the shell scripts of
// 'sectax completion' call) offers the labels and run ids of a real SQLite
// store, only those that start with the word typed; a stored label a
// shell would read as syntax is not offered; a missing database is not
// made.
func TestCompletionOfRuns(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("__complete", "show", ""); code != 0 || stderr != "" && !strings.Contains(stderr, "Completion ended") {
		t.Fatalf("no database: %d %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Dir(e.db)); !os.IsNotExist(err) {
		t.Fatalf("completion made the store's folder: %v", err)
	}
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatal(stderr)
	}
	doc, err := os.ReadFile("testdata/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	hostile := strings.ReplaceAll(strings.ReplaceAll(string(doc), `"label": "on"`, `"label": "o$(touch pwned)"`), "20261130T", "20261201T")
	file := filepath.Join(e.dir, "hostile.json")
	if err := os.WriteFile(file, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := e.run("import", file); code != 0 {
		t.Fatal(stderr)
	}
	_, out, _ := e.run("__complete", "compare", "o")
	for _, want := range []string{"on\tlabel of 2 run(s)\n", "off\tlabel of 2 run(s)\n", ":4\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare o: %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "$(") || strings.Contains(out, "2026") {
		t.Errorf("compare o: %q offers a hostile label or an id not starting with o", out)
	}
	_, out, _ = e.run("__complete", "show", "20261130T08")
	if want := "20261130T080000-off1\trun off, 2026-11-30 08:00 UTC\n"; !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 2 {
		t.Errorf("show 20261130T08: %q, want %q alone", out, want)
	}
	_, out, _ = e.run("__complete", "show", "20261201T06")
	if !strings.HasPrefix(out, "20261201T060000-on1\trun, 2026-11-30 06:00 UTC\n") {
		t.Errorf("a run of a hostile label: %q, want its id without the label", out)
	}
	if _, out, _ = e.run("__complete", "show", "20261130T080000-off1", ""); out != ":4\n" {
		t.Errorf("show takes one run: %q", out)
	}
}

// TestCompletionOfWorkloadsAndFormats: --only completes workload ids from
// the registry, after the comma of a list too, and --format the values of
// the command's renderers.
func TestCompletionOfWorkloadsAndFormats(t *testing.T) {
	e := newCLIEnv(t)
	_, out, _ := e.run("__complete", "run", "--only", "spawn,sched-")
	if !strings.Contains(out, "spawn,sched-pipe\t") || !strings.Contains(out, "spawn,sched-messaging\t") || strings.Contains(out, "syscall-basic") {
		t.Errorf("--only spawn,sched-: %q", out)
	}
	_, out, _ = e.run("__complete", "decide", "--format", "")
	if !strings.HasPrefix(out, "text\nmd\njson\n:4\n") {
		t.Errorf("decide --format: %q", out)
	}
}
