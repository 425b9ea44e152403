// Package docs holds sectax's documentation; its tests keep the repository
// standalone: every reference resolves inside it or to a public address.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// privateNotes match references to notes that exist only where sectax was
// first written, never in a clone: the design notes, the research notes
// (a path starting with spec/ to a .md file), the folder of shared notes
// and the study's local copy. A path that merely contains such a folder
// inside a public source (WSL's src/shared/…) does not match. The patterns
// are spelt so that this file does not match itself.
var privateNotes = []*regexp.Regexp{
	regexp.MustCompile(`DESIGN[.]md`),
	regexp.MustCompile(`study/0{3}`),
	regexp.MustCompile(`(^|[^A-Za-z0-9_./-])(\.\./)*shared[/]`),
	regexp.MustCompile(`(^|[^A-Za-z0-9_./-])spec[/][A-Za-z0-9_.-]+[.]md`),
}

// textFile says whether a file is checked: source, documentation, data and
// goldens.
func textFile(name string) bool {
	switch filepath.Ext(name) {
	case ".md", ".go", ".json", ".txt", ".golden", ".html", ".sh", ".yml", ".yaml", ".csv", ".text", ".toml":
		return true
	}
	return false
}

// repoFiles walks the repository from its root, skipping .git and fuzz
// corpora.
func repoFiles(t *testing.T, keep func(path string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "fuzz" {
				return filepath.SkipDir
			}
			return nil
		}
		if keep(p) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoPrivateNotes fails when a file of the repository points a reader
// at notes a clone does not have.
func TestNoPrivateNotes(t *testing.T) {
	files := repoFiles(t, func(p string) bool { return textFile(p) })
	if len(files) < 100 {
		t.Fatalf("only %d files found: is the test running in docs/?", len(files))
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			for _, re := range privateNotes {
				if m := re.FindString(line); m != "" {
					t.Errorf("%s:%d mentions %q, which a clone of the repository does not have: cite the public source or the repository's own docs", p, n+1, strings.TrimSpace(m))
				}
			}
		}
	}
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHead   = regexp.MustCompile("(?m)^#{1,6} (.+)$")
	slugDrop = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	fence    = regexp.MustCompile("(?ms)^```.*?^```")
)

// slug is GitHub's anchor of a heading.
func slug(h string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
}

// TestLinksResolve: every relative link of the README and docs/ names a
// file or folder of the repository, and every #anchor a heading of its
// target.
func TestLinksResolve(t *testing.T) {
	files := append([]string{filepath.Join("..", "README.md")}, repoFiles(t, func(p string) bool {
		return strings.HasSuffix(p, ".md") && !strings.Contains(filepath.ToSlash(p), "/testdata/")
	})...)
	anchors := func(p string) map[string]bool {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		out := map[string]bool{}
		for _, m := range mdHead.FindAllStringSubmatch(fence.ReplaceAllString(string(data), ""), -1) {
			out[slug(m[1])] = true
		}
		return out
	}
	seen := map[string]bool{}
	n := 0
	for _, p := range files {
		if seen[p] {
			continue
		}
		seen[p] = true
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(fence.ReplaceAllString(string(data), ""), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			n++
			target, anchor, _ := strings.Cut(link, "#")
			file := p
			if target != "" {
				file = filepath.Join(filepath.Dir(p), filepath.FromSlash(target))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s links to %s, which does not exist", p, link)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !anchors(file)[anchor] {
				t.Errorf("%s links to %s: no heading of %s has the anchor #%s", p, link, file, anchor)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d relative links checked", n)
	}
}
