// Package testutil holds what sectax's tests share: the one -update flag,
// the golden-file comparison (Golden, GoldenPage, Absent) and the fake
// roots (SysinfoRoot; AdviseRoot and AttributeRoot, layered on a sysinfo
// tree by Root; CopyTree). Only test files import it.
//
// Refresh every golden file from the repository root with
//
//	go test $(go list -f '{{range .TestImports}}{{if eq . "github.com/sectax/sectax/internal/testutil"}}{{$.ImportPath}}{{end}}{{end}}' ./...) -update
//
// (a plain 'go test ./... -update' also reaches packages without golden
// files, whose test binaries do not know the flag and refuse it).
package testutil

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// FixedLenDir is a new temporary folder whose path is 120 characters long
// on any machine and every run (t.TempDir's random part is 1 to 10
// digits), so that text wrapped around it, once the test has put a
// placeholder such as $DIR in its place, breaks at the same words.
func FixedLenDir(t testing.TB) string {
	t.Helper()
	const n = 120
	d := t.TempDir()
	if len(d)+2 > n {
		t.Fatalf("TMPDIR is too long for a %d-character path: %s", n, d)
	}
	p := filepath.Join(d, strings.Repeat("d", n-len(d)-1))
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Golden compares got with the golden file at path. With -update it writes
// got there instead (creating the directory). On a mismatch it writes
// got to path+".got" (ignored by git), for diffing, and fails t.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if bytes.Equal(got, want) {
		os.Remove(path + ".got")
		return
	}
	os.WriteFile(path+".got", got, 0o644)
	t.Errorf("%s differs (-want +got; got is in %s.got; go test -update refreshes it):\n%s", path, path, cmp.Diff(string(want), string(got)))
}

// Absent is Golden for an output that must not exist: it fails t if the
// file at path exists, and with -update removes it.
func Absent(t testing.TB, path string) {
	t.Helper()
	if *update {
		os.Remove(path)
		return
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s exists but nothing was produced (go test -update removes it)", path)
	}
}

// internalDir is the repository's internal/ directory.
func internalDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testutil: no caller information")
	}
	return filepath.Dir(filepath.Dir(file))
}

// SysinfoRoot is the fake machine tree NAME under internal/sysinfo/testdata
// (a /proc and /sys to read with --root).
func SysinfoRoot(name string) string {
	return filepath.Join(internalDir(), "sysinfo", "testdata", name)
}

// AdviseRoot is the fake root NAME of a boot platform, layered on a
// sysinfo tree (internal/advise/testdata/roots.txt, assembled by
// LayeredRoot into t.TempDir()) or, for "sys:NAME", SysinfoRoot(NAME).
func AdviseRoot(t testing.TB, name string) string {
	t.Helper()
	if n, ok := strings.CutPrefix(name, "sys:"); ok {
		return SysinfoRoot(n)
	}
	return LayeredRoot(t, AdviseRoots(), name)
}

// AdviseRoots is the folder of advise's fake roots: roots.txt, the
// manifest, and roots/NAME, the files each changes (see Layers).
func AdviseRoots() string {
	return filepath.Join(internalDir(), "advise", "testdata")
}

// AttributeRoot is the fake root NAME of attribute's and decide's tests,
// layered on a sysinfo tree (internal/attribute/testdata/roots.txt).
func AttributeRoot(t testing.TB, name string) string {
	t.Helper()
	return LayeredRoot(t, filepath.Join(internalDir(), "attribute", "testdata"), name)
}

// AdviceCase is an advise run on a fake root: the golden's name, the root
// (AdviseRoot) and the --target.
type AdviceCase struct{ Name, Root, Target string }

// AdviceCases are the advise goldens: one per platform shape. The CLI's
// test checks its JSON and text output, report's test the text renderer.
var AdviceCases = []AdviceCase{
	{"wsl-off", "sys:wsl2-intel-on", "off"},
	{"wsl-auto", "sys:wsl2-intel-off", "auto"},
	{"debian-grub-off", "debian-grub", "off"},
	{"fedora-grubby-off", "fedora-grubby", "off"},
	{"systemd-boot-auto", "systemd-boot", "auto"},
	{"kernelstub-off", "kernelstub", "off"},
	{"unknown-off", "sys:firecracker-dev", "off"},
	{"wsl-params", "sys:wsl2-intel-on", "spectre_bhi=vmexit audit=0"},
	{"old-kernel-off", "sys:old-4.15-intel", "off"},
}

// Need stops t because a real component it needs (perf, QEMU, chromium,
// promtool, python3, a static test binary) is missing: under CI=true,
// where .ci/run installs every one, it fails; elsewhere it skips.
func Need(t testing.TB, format string, a ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true does not skip this test)", a...)
	}
	t.Skipf(format, a...)
}

var (
	inlineSVGRe = regexp.MustCompile(`(?s)<svg [^>]*>.*?</svg>`)
	ariaLabelRe = regexp.MustCompile(`aria-label="[^"]*"`)
)

// GoldenPage is Golden for an HTML page (the golden helper of every page
// sectax renders): its inline charts are placeholders (WithoutCharts),
// and the style sheet every page shares, which must be in it verbatim, is
// one line naming it, so that a golden holds what is the page's own.
func GoldenPage(t testing.TB, path string, page []byte, sheetName, sheet string) {
	t.Helper()
	Golden(t, path, PageForGolden(t, page, sheetName, sheet))
}

// PageForGolden is the page as GoldenPage compares it, for a golden that
// holds more than the page.
func PageForGolden(t testing.TB, page []byte, sheetName, sheet string) []byte {
	t.Helper()
	if !bytes.Contains(page, []byte(sheet)) {
		t.Errorf("the page lacks the style sheet %s", sheetName)
	}
	return bytes.Replace(WithoutCharts(page), []byte(sheet), []byte("/* "+sheetName+": in every page, checked by testutil.GoldenPage */"), 1)
}

// WithoutCharts replaces each inline SVG chart of an HTML page by a
// placeholder that keeps its accessible label, for a golden file a person
// can review: gonum's hundreds of elements per chart move with font
// metrics and hide the page's own changes. Test the charts by their
// structure instead.
func WithoutCharts(page []byte) []byte {
	return inlineSVGRe.ReplaceAllFunc(page, func(svg []byte) []byte {
		return []byte(`<svg role="img" ` + string(ariaLabelRe.Find(svg)) + `><!-- chart: tested by its structure --></svg>`)
	})
}

// CopyLine reports whether l is a command line meant to be copied, which
// stays whole on its own line however wide the terminal: a sectax, shell
// ("$ ", "PS> ", sudo) or kernel command line (parameters, the first with
// an "=", and no prose), a command by its absolute path (sectax, or one
// whose next word is an option), or an absolute path alone on its line or
// after its name ("backup: /x").
// It is the one exception to the width of text.
func CopyLine(l string) bool {
	t := strings.TrimLeft(l, " ")
	for _, p := range []string{"sectax ", "$ ", "PS> ", "sudo ", "mitigations=", "BOOT_IMAGE="} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	f := strings.Fields(t)
	if len(f) > 1 && strings.HasPrefix(f[0], "/") && (strings.HasSuffix(f[0], "/sectax") || strings.HasPrefix(f[1], "-")) {
		return true // a command by its path: sectax, or one with options
	}
	if len(f) == 1 && strings.HasPrefix(strings.TrimLeft(f[0], "("), "/") {
		return true // a path, whole on a line of its own (or in parentheses)
	}
	if last := f[len(f)-1]; len(f) > 1 && strings.HasPrefix(last, "/") && !slices.ContainsFunc(f[:len(f)-1], func(w string) bool { return !strings.HasSuffix(w, ":") }) {
		return true // a path after its name ("file: /x", "backup: /x")
	}
	return len(f) > 1 && !strings.Contains(t, ": ") && strings.Contains(f[0], "=")
}

// WideLines are the lines of text wider than width runes (colour codes
// not counted) that are not a CopyLine nor hold a control character
// escaped (\x1b, \u2028: text written to mislead stays on its line,
// report's writeForeign), each as "N: line".
func WideLines(text string, width int) []string {
	var out []string
	for i, l := range strings.Split(text, "\n") {
		plain := ansi.ReplaceAllString(l, "")
		if utf8.RuneCountInString(plain) > width && !CopyLine(plain) && !escaped.MatchString(plain) {
			out = append(out, fmt.Sprintf("%d: %s", i+1, l))
		}
	}
	return out
}

var (
	ansi    = regexp.MustCompile("\x1b\\[[0-9;]*m")
	escaped = regexp.MustCompile(`\\x[0-9a-f]{2}|\\u[0-9a-f]{4}`)
)

// Unwrap is what a command said on stderr with each note on one line:
// the later lines of a note, which report.NoteText indents by two, joined
// to it by a space. Tests that look for a note's words read through it.
func Unwrap(stderr string) string { return strings.ReplaceAll(stderr, "\n  ", " ") }
