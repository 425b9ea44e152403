package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/testutil"
)

var wslStamp = time.Date(2026, 11, 30, 6, 45, 0, 0, time.UTC)

func wslTestDeps() Deps {
	return Deps{
		Now: func() time.Time { return wslStamp },
		WSL: wslDeps{
			Getenv:  func(string) string { return "" },
			Timeout: 500 * time.Millisecond,
		}}
}

func wslRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = mainWith(context.Background(), args, &o, &e, wslTestDeps())
	checkTextWidths(t, wslTestDeps(), args, o.String())
	return o.String(), e.String(), code
}

func wslCorpusFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "wslconfig", "testdata", "corpus", name+".wslconfig"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wslDir makes a temp folder with .wslconfig holding the corpus file
// (none when corpus is "").
func wslDir(t *testing.T, corpus string, mode os.FileMode) (dir, path string, orig []byte) {
	t.Helper()
	dir = testutil.FixedLenDir(t) // the goldens wrap around $DIR
	path = filepath.Join(dir, ".wslconfig")
	if corpus != "" {
		orig = wslCorpusFile(t, corpus)
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir, path, orig
}

func wslTranscript(code int, stdout, stderr string, repl ...string) string {
	s := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)
	return strings.NewReplacer(repl...).Replace(s)
}

func wslFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWSLConfigCLI(t *testing.T) {
	const backup = ".wslconfig.sectax-20261130-064500.bak"
	tests := []struct {
		name   string
		corpus string
		mode   os.FileMode
		args   []string
		code   int
		// after: "same" (file untouched, nothing beside it), "golden"
		// (equals the library's set/unset golden), "" (checked below).
		after string
	}{
		{name: "show", corpus: "crlf-notepad", args: []string{"show"}, after: "same"},
		{name: "show-json-duplicate", corpus: "duplicate-kcl", args: []string{"show", "--format", "json"}, after: "same"},
		{name: "show-absent", corpus: "no-wsl2", args: []string{"show"}, after: "same"},
		{name: "show-missing-file", args: []string{"show"}, after: "same"},
		{name: "show-invalid-escape", corpus: "invalid-escape", args: []string{"show"}, after: "same"},
		{name: "show-binary", corpus: "binary", args: []string{"show"}, code: 1, after: "same"},
		{name: "set-dry-run", corpus: "crlf-notepad", args: []string{"set", "mitigations=off", "audit=0", "--dry-run"}, after: "same"},
		{name: "set-dry-run-no-newline", corpus: "no-trailing-newline", args: []string{"set", "nosmt", "--dry-run"}, after: "same"},
		{name: "set-dry-run-new-section", corpus: "no-wsl2", args: []string{"set", "mitigations=off", "--dry-run"}, after: "same"},
		{name: "set", corpus: "docs-example", args: []string{"set", "mitigations=off", "audit=0"}, after: "golden"},
		{name: "set-utf16", corpus: "utf16le", args: []string{"set", "mitigations=off", "audit=0"}, after: "golden"},
		{name: "set-duplicate-warning", corpus: "duplicate-kcl", args: []string{"set", "mitigations=off", "audit=0"}, after: "golden"},
		{name: "set-unchanged", corpus: "init-args", args: []string{"set", "audit=0"}, after: "same"},
		{name: "set-new-file", args: []string{"set", "mitigations=off"}},
		{name: "unset-removes-line", corpus: "crlf-notepad", args: []string{"unset", "mitigations"}, after: "golden"},
		{name: "unset-absent", corpus: "docs-example", args: []string{"unset", "mitigations"}, after: "same"},
		{name: "set-invalid-escape", corpus: "invalid-escape", args: []string{"set", "mitigations=off"}, code: 1, after: "same"},
		{name: "set-utf16be", corpus: "utf16be", args: []string{"set", "mitigations=off"}, code: 1, after: "same"},
		{name: "set-blank-param", corpus: "crlf-notepad", args: []string{"set", "mitigations=off nosmt"}, code: 2, after: "same"},
		{name: "set-quoted-param", corpus: "crlf-notepad", args: []string{"set", `dyndbg="+p"`}, code: 2, after: "same"},
		{name: "set-no-params", corpus: "crlf-notepad", args: []string{"set"}, code: 2, after: "same"},
		{name: "set-read-only", corpus: "crlf-notepad", mode: 0o444, args: []string{"set", "mitigations=off"}, code: 1, after: "same"},
		{name: "no-subcommand", args: []string{}, code: 2, after: "same"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mode := tc.mode
			if mode == 0 {
				mode = 0o644
			}
			dir, path, orig := wslDir(t, tc.corpus, mode)
			args := append([]string{"wslconfig"}, tc.args...)
			if tc.name != "no-subcommand" {
				args = append(args, "--path", path)
			}
			stdout, stderr, code := wslRun(t, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.code, stderr)
			}
			testutil.Golden(t, filepath.Join("testdata", "wslconfig", tc.name+".golden"), []byte(wslTranscript(code, stdout, stderr, dir, "$DIR")))
			switch tc.after {
			case "same":
				got, err := os.ReadFile(path)
				if orig == nil && err == nil || orig != nil && !bytes.Equal(got, orig) {
					t.Errorf("the file changed")
				}
				if n := len(wslFiles(t, dir)); n > 1 || orig == nil && n != 0 {
					t.Errorf("left in the folder: %v", wslFiles(t, dir))
				}
			case "golden":
				verb := tc.args[0]
				want, err := os.ReadFile(filepath.Join("..", "wslconfig", "testdata", "golden", tc.corpus+"."+verb+".wslconfig"))
				got, _ := os.ReadFile(path)
				if err != nil || (verb == "set" && strings.Join(tc.args[1:], " ") == "mitigations=off audit=0" || verb == "unset") && !bytes.Equal(got, want) {
					t.Errorf("file after %s differs from the library golden (%v):\n%q\n%q", verb, err, got, want)
				}
				bak, err := os.ReadFile(filepath.Join(dir, backup))
				if err != nil || !bytes.Equal(bak, orig) {
					t.Errorf("backup missing or not the original: %v", err)
				}
				if fi, _ := os.Stat(path); fi.Mode().Perm() != mode {
					t.Errorf("mode %v, want %v", fi.Mode().Perm(), mode)
				}
				if n := len(wslFiles(t, dir)); n != 2 {
					t.Errorf("left in the folder: %v", wslFiles(t, dir))
				}
			}
		})
	}
}

func TestWSLConfigNewFile(t *testing.T) {
	dir, path, _ := wslDir(t, "", 0)
	if _, stderr, code := wslRun(t, "wslconfig", "set", "mitigations=off", "--path", path); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "[wsl2]\r\nkernelCommandLine = mitigations=off\r\n" {
		t.Fatalf("new file %q", got)
	}
	if names := wslFiles(t, dir); len(names) != 1 {
		t.Fatalf("left in the folder: %v", names)
	}
}

func TestWSLConfigSymlink(t *testing.T) {
	winDir, real, orig := wslDir(t, "crlf-notepad", 0o644)
	home := t.TempDir()
	link := filepath.Join(home, ".wslconfig")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := wslRun(t, "wslconfig", "set", "mitigations=off", "--path", link)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	testutil.Golden(t, filepath.Join("testdata", "wslconfig", "set-symlink.golden"), []byte(wslTranscript(code, stdout, stderr, winDir, "$WIN", home, "$HOME")))
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	got, _ := os.ReadFile(real)
	if !bytes.Contains(got, []byte("kernelCommandLine=mitigations=off\r\n")) {
		t.Fatalf("target not edited: %q", got)
	}
	if bak, err := os.ReadFile(filepath.Join(winDir, ".wslconfig.sectax-20261130-064500.bak")); err != nil || !bytes.Equal(bak, orig) {
		t.Fatalf("backup beside the target: %v", err)
	}
}

// TestWSLConfigFind: without --path the file is found in fake roots: via a
// stand-in cmd.exe, or as the only profile; several profiles ask for --path.
func TestWSLConfigFind(t *testing.T) {
	for _, tc := range []struct {
		root string
		code int
	}{
		{"interop", 0}, {"one-profile", 0}, {"two-profiles", 2},
	} {
		t.Run(tc.root, func(t *testing.T) {
			root, _ := filepath.Abs(filepath.Join("..", "wslconfig", "testdata", "roots", tc.root))
			stdout, stderr, code := wslRun(t, "--root", root, "wslconfig", "show")
			if code != tc.code {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			testutil.Golden(t, filepath.Join("testdata", "wslconfig", "find-"+tc.root+".golden"), []byte(wslTranscript(code, stdout, stderr, root, "$ROOT")))
		})
	}
}

func TestWSLConfigPathIsFolder(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := wslRun(t, "wslconfig", "show", "--path", dir)
	if code != 2 || !strings.Contains(stderr, "is a folder") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestWSLConfigMissingFolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no-such-user", ".wslconfig")
	for _, verb := range []string{"show", "set"} {
		args := []string{"wslconfig", verb, "--path", p}
		if verb == "set" {
			args = append(args, "mitigations=off")
		}
		_, stderr, code := wslRun(t, args...)
		if code != 1 || !strings.Contains(stderr, "does not exist") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d: %q", verb, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Dir(p)); err == nil {
		t.Error("the folder was created")
	}
}

// TestWSLConfigHostileRoot: a --root tree whose profile .wslconfig is a
// link out of the tree is neither shown nor rewritten.
func TestWSLConfigHostileRoot(t *testing.T) {
	root := t.TempDir()
	testutil.CopyTree(t, filepath.Join("..", "wslconfig", "testdata", "roots", "one-profile"), root)
	outside := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(outside, []byte("[wsl2]\nkernelCommandLine = SECRET\n"), 0o644)
	cfg := filepath.Join(root, "mnt", "c", "Users", "alice", ".wslconfig")
	os.Remove(cfg)
	if err := os.Symlink(outside, cfg); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"show"}, {"set", "mitigations=off"}} {
		stdout, stderr, code := wslRun(t, append([]string{"--root", root, "wslconfig"}, args...)...)
		if code == 0 || strings.Contains(stdout+stderr, "SECRET") || !strings.Contains(stderr, "leads out of --root") {
			t.Errorf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	if b, _ := os.ReadFile(outside); !strings.Contains(string(b), "SECRET") || strings.Contains(string(b), "mitigations") {
		t.Errorf("the outside file changed: %q", b)
	}
}
