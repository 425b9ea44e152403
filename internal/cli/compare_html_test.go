package cli

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareHTMLAndPNG writes the HTML report and the PNG charts of a
// stored comparison, and the Markdown that links the charts.
func TestCompareHTMLAndPNG(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	page := filepath.Join(e.dir, "tax.html")
	if code, _, stderr := e.run("compare", "on", "off", "--format", "html", "-o", page); code != 0 {
		t.Fatalf("compare html: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "<title>sectax: on vs off</title>", "What this means", "<svg "} {
		if !strings.Contains(string(data), want) {
			t.Errorf("tax.html lacks %q", want)
		}
	}
	if fi, err := os.Stat(page); err != nil || fi.Mode().Perm()&0o044 != 0o044 {
		t.Errorf("tax.html is not readable by others (a report to publish): %v %v", fi.Mode(), err)
	}

	post := filepath.Join(e.dir, "post")
	md := filepath.Join(post, "tax.md")
	if err := os.MkdirAll(post, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := e.run("compare", "on", "off", "--format", "md", "-o", md, "--png", filepath.Join(post, "charts"))
	if code != 0 {
		t.Fatalf("compare md --png: exit %d: %s", code, stderr)
	}
	pngs, _ := filepath.Glob(filepath.Join(post, "charts", "*.png"))
	if len(pngs) < 3 {
		t.Fatalf("--png wrote %d files: %v", len(pngs), pngs)
	}
	for _, p := range pngs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	// Links are relative to the Markdown file's directory.
	if !strings.Contains(string(text), "](charts/impact.png)") {
		t.Errorf("tax.md does not link charts/impact.png:\n%s", text)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(post, "charts", ".sectax-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestCompareUnwritableOutput: an -o path that cannot be written exits 1
// naming the path, and nothing is written, not even partly.
func TestCompareUnwritableOutput(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	notDir := filepath.Join(e.dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"compare", "on", "off", "--format", "html", "-o", filepath.Join(notDir, "tax.html")},
		{"compare", "on", "off", "--format", "html", "-o", filepath.Join(e.dir, "missing", "tax.html")},
		{"compare", "on", "off", "--format", "md", "-o", filepath.Join(e.dir, "tax.md"), "--png", filepath.Join(notDir, "charts")},
	} {
		code, stdout, stderr := e.run(args...)
		bad := strings.ReplaceAll(args[len(args)-1], e.dir, "$TMP")
		if code != 1 || !strings.Contains(stderr, bad) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and one line naming %s", args, code, stderr, bad)
		}
	}
	entries, _ := os.ReadDir(e.dir)
	for _, en := range entries {
		if en.Name() != "file" && en.Name() != "data" {
			t.Errorf("left behind: %s", en.Name())
		}
	}
}
