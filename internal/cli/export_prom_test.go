package cli

import (
	"golang.org/x/sys/unix"

	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportPrometheus: the textfile export on a fake WSL machine booted
// with mitigations=off (vulnerable: still exit 0), from the stored runs of
// testdata/runs.json; --textfile-dir writes the same text atomically.
func TestExportPrometheus(t *testing.T) {
	e := newCLIEnv(t)
	root := filepath.Join("..", "sysinfo", "testdata", "wsl2-intel-off") // relative: the goldens show it
	e.golden("export-prometheus-nodb", "--root", root, "export", "--format", "prometheus")
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatal(stderr)
	}
	stdout := e.golden("export-prometheus", "--root", root, "export", "--format", "prometheus")
	if !strings.Contains(stdout, `state="vulnerable"`) || !strings.Contains(stdout, "sectax_tax_percent{") {
		t.Fatalf("export lacks a vulnerable line or the tax:\n%s", stdout)
	}
	if path, err := exec.LookPath("promtool"); err == nil {
		cmd := exec.Command(path, "check", "metrics")
		cmd.Stdin = strings.NewReader(stdout)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool check metrics: %v\n%s", err, out)
		}
	} else if os.Getenv("CI") == "true" {
		t.Fatal("promtool not found (Debian: apt-get install prometheus)")
	}

	dir := filepath.Join(e.dir, "textfile")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second run replaces the file
		if code, out, stderr := e.run("--root", root, "export", "--format", "prometheus", "--textfile-dir", dir); code != 0 || out != "" {
			t.Fatalf("--textfile-dir: exit %d, stdout %q, stderr %q", code, out, stderr)
		}
	}
	got, err := os.ReadFile(filepath.Join(dir, "sectax.prom"))
	if err != nil || !bytes.Equal(got, []byte(stdout)) {
		t.Fatalf("textfile differs from stdout: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("textfile dir holds %d files, want only sectax.prom", len(ents))
	}
	if st, _ := os.Stat(filepath.Join(dir, "sectax.prom")); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v: node_exporter must be able to read it", st.Mode())
	}

	e.golden("export-prometheus-unknown-side", "--root", root, "export", "--format", "prometheus", "--off", "nope")
	e.golden("export-prometheus-bad-dir", "--root", root, "export", "--format", "prometheus", "--textfile-dir", filepath.Join(e.dir, "missing"))
	e.golden("export-prometheus-with-run", "export", "--format", "prometheus", "off")
	e.golden("export-no-run", "export")
}

// TestTextfileDirPlanted: a link or a FIFO planted at sectax.prom in the
// textfile folder (which others may write) is replaced, never opened: the
// link's target keeps its bytes and a FIFO does not block the export.
func TestTextfileDirPlanted(t *testing.T) {
	e := newCLIEnv(t)
	root := filepath.Join("..", "sysinfo", "testdata", "wsl2-intel-off")
	dir := filepath.Join(e.dir, "textfile")
	os.Mkdir(dir, 0o755)
	victim := filepath.Join(e.dir, "victim")
	os.WriteFile(victim, []byte("keep\n"), 0o644)
	prom := filepath.Join(dir, "sectax.prom")
	for _, plant := range []func() error{
		func() error { return os.Symlink(victim, prom) },
		func() error { return unix.Mkfifo(prom, 0o644) },
	} {
		os.Remove(prom)
		if err := plant(); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := e.run("--root", root, "export", "--format", "prometheus", "--textfile-dir", dir); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
			t.Fatalf("the link's target was written: %q", b)
		}
		if fi, err := os.Lstat(prom); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
			t.Fatalf("sectax.prom: %v %v", fi, err)
		}
	}
}

// TestExportPrometheusSkipsLabRuns: a newer run of a TCG lab guest is not
// this host's latest run; the host's own run is, labelled accelerator="none".
func TestExportPrometheusSkipsLabRuns(t *testing.T) {
	e := newCLIEnv(t)
	root := filepath.Join("..", "sysinfo", "testdata", "wsl2-intel-off")
	for _, f := range []string{"testdata/runs.json", filepath.Join("..", "run", "testdata", "lab-runs.json")} {
		if code, _, stderr := e.run("import", f); code != 0 {
			t.Fatalf("import %s: %s", f, stderr)
		}
	}
	code, stdout, stderr := e.run("--root", root, "export", "--format", "prometheus")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var info string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "sectax_latest_run_info{") {
			info = l
		}
	}
	if info == "" || strings.Contains(info, `accelerator="tcg"`) || !strings.Contains(info, `accelerator="none"`) {
		t.Fatalf("latest run info %q: want the host's own run, accelerator none", info)
	}
}
