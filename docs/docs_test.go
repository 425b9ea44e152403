// Package docs holds sectax's documentation; its tests keep the repository
// standalone: every reference resolves inside it or to a public address.
package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
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

// externalPackages are the packages outside internal/ that
// docs/architecture.md may name as pkg.Identifier; their names are not
// checked.
var externalPackages = map[string]bool{"os": true, "procfs": true, "mstats": true, "benchmath": true}

// exported are the exported names a package declares outside its tests:
// top-level names, and for each type its methods, struct fields and
// interface methods (under "Type.Name").
type exported map[string]bool

// internalNames parses every non-test Go file below ../internal and
// returns the exported names of each package, keyed by package name.
func internalNames(t *testing.T) map[string]exported {
	t.Helper()
	out := map[string]exported{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join("..", "internal"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := out[f.Name.Name]
		if names == nil {
			names = exported{}
			out[f.Name.Name] = names
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names.add(d.Name.Name)
				} else if recv := receiverType(d.Recv.List[0].Type); recv != "" {
					names.add(recv + "." + d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						names.add(s.Name.Name)
						names.addMembers(s.Name.Name, s.Type)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names.add(n.Name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (e exported) add(name string) {
	if last := name[strings.LastIndex(name, ".")+1:]; ast.IsExported(last) {
		e[name] = true
	}
}

// addMembers adds a struct's fields (an embedded field by its type's
// name) and an interface's methods under "Type.Name".
func (e exported) addMembers(typ string, expr ast.Expr) {
	var fields *ast.FieldList
	switch x := expr.(type) {
	case *ast.StructType:
		fields = x.Fields
	case *ast.InterfaceType:
		fields = x.Methods
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			e.add(typ + "." + n.Name)
		}
		if len(f.Names) == 0 {
			if name := receiverType(f.Type); name != "" {
				e.add(typ + "." + name)
			}
		}
	}
}

// receiverType is the name of a receiver's (or an embedded field's) type:
// T, *T, T[P], pkg.T.
func receiverType(expr ast.Expr) string {
	switch x := expr.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

var (
	codeSpan  = regexp.MustCompile("`([^`\n]+)`")
	qualified = regexp.MustCompile(`(?:^|[^\w.])([a-z][a-z0-9]*)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)
)

// TestArchitectureNames: every name docs/architecture.md writes in
// backquotes as package.Identifier (or package.Type.Member) is an
// exported identifier of that package of internal/ today, so that the
// map of the house names no room that is gone.
func TestArchitectureNames(t *testing.T) {
	pkgs := internalNames(t)
	if len(pkgs) < 20 {
		t.Fatalf("only %d packages found below ../internal: is the test running in docs/?", len(pkgs))
	}
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for n, line := range strings.Split(fence.ReplaceAllString(string(doc), ""), "\n") {
		for _, span := range codeSpan.FindAllStringSubmatch(line, -1) {
			for _, m := range qualified.FindAllStringSubmatch(span[1], -1) {
				pkg, name, member := m[1], m[2], m[3]
				names, ok := pkgs[pkg]
				switch {
				case !ok && externalPackages[pkg]:
					continue
				case !ok:
					t.Errorf("architecture.md (line %d, without its code blocks) names `%s.%s`: there is no package %s in internal/", n+1, pkg, name, pkg)
					continue
				case !names[name]:
					t.Errorf("architecture.md (line %d, without its code blocks) names `%s.%s`: package %s exports no %s (go doc ./internal/%s)", n+1, pkg, name, pkg, name, pkg)
					continue
				case member != "" && !names[name+"."+member]:
					t.Errorf("architecture.md (line %d, without its code blocks) names `%s.%s.%s`: %s.%s has no exported method or field %s", n+1, pkg, name, member, pkg, name, member)
					continue
				}
				checked++
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d package.Identifier names checked in architecture.md", checked)
	}
}
