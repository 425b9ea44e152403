package layers

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

const module = "github.com/sectax/sectax/"

// graph is the import graph of the module's packages (tests excluded),
// from go list, with the module prefix cut.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	g := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(f[0], module)
		g[pkg] = []string{}
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module) {
				g[pkg] = append(g[pkg], strings.TrimPrefix(imp, module))
			}
		}
	}
	return g
}

// TestLayers fails on an import cycle, on a package that imports a
// higher tier, on a forbidden import, and on a package the tiers do not
// place.
func TestLayers(t *testing.T) {
	g := graph(t)
	tier := map[string]int{}
	for i, tr := range Tiers {
		for _, p := range tr.Packages {
			tier[p] = i
		}
	}
	for pkg, imps := range g {
		if slices.Contains(TestOnly, pkg) {
			continue
		}
		ti, ok := tier[pkg]
		if !ok {
			t.Errorf("%s is in no tier: add it to layers.Tiers and docs/architecture.md", pkg)
			continue
		}
		for _, imp := range imps {
			if slices.Contains(TestOnly, imp) {
				t.Errorf("%s imports %s, which only tests may import", pkg, imp)
			}
			if tj, ok := tier[imp]; ok && tj > ti {
				t.Errorf("%s (%s) imports %s (%s): an import upward", pkg, Tiers[ti].Name, imp, Tiers[tj].Name)
			}
			if slices.Contains(Forbidden, [2]string{pkg, imp}) {
				t.Errorf("%s imports %s, which the design forbids", pkg, imp)
			}
			if imp == "internal/cli" && pkg != "cmd/sectax" {
				t.Errorf("%s imports internal/cli: nothing below the command line may", pkg)
			}
		}
	}
	// A cycle: a depth-first search that meets a package on its own path.
	state := map[string]int{} // 1 on the path, 2 done
	var visit func(p string, path []string)
	visit = func(p string, path []string) {
		switch state[p] {
		case 1:
			t.Errorf("import cycle: %s", strings.Join(append(path, p), " → "))
			return
		case 2:
			return
		}
		state[p] = 1
		for _, imp := range g[p] {
			visit(imp, append(path, p))
		}
		state[p] = 2
	}
	for _, p := range sortedKeys(g) {
		visit(p, nil)
	}
}

// TestApart: a package of Apart does not depend on the other, even through
// packages between them: the dependencies of campaign and proof (go list
// -deps) do not list internal/lab.
func TestApart(t *testing.T) {
	g := graph(t)
	for _, a := range Apart {
		if _, ok := g[a[0]]; !ok {
			t.Errorf("%s: no such package", a[0])
			continue
		}
		seen := map[string]bool{}
		var via func(p string, path []string)
		via = func(p string, path []string) {
			if seen[p] {
				return
			}
			seen[p] = true
			path = append(path, p)
			if p == a[1] {
				t.Errorf("%s depends on %s (%s), which the design forbids", a[0], a[1], strings.Join(path, " → "))
				return
			}
			for _, imp := range g[p] {
				via(imp, path)
			}
		}
		via(a[0], nil)
	}
}

// TestOwners: a door of Owners is used by its owner only (test files and
// the TestOnly packages aside).
func TestOwners(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}|{{join .Imports ","}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 4)
		pkg, dir := strings.TrimPrefix(f[0], module), f[1]
		if slices.Contains(TestOnly, pkg) {
			continue
		}
		for _, o := range Owners {
			if pkg == o.Owner {
				continue
			}
			if o.Import != "" && slices.Contains(strings.Split(f[3], ","), o.Import) {
				t.Errorf("%s imports %s: only %s may (use it)", pkg, o.Import, o.Owner)
			}
			if o.Call == "" || f[2] == "" {
				continue
			}
			for _, name := range strings.Split(f[2], ",") {
				src, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				calls := bytes.Contains(src, []byte(o.Call))
				switch except := slices.Contains(o.Except, pkg+"/"+name); {
				case calls && !except:
					t.Errorf("%s/%s calls %s: only %s may (use it)", pkg, name, strings.TrimSuffix(o.Call, "("), o.Owner)
				case !calls && except:
					t.Errorf("%s/%s no longer calls %s: drop it from the Except of that door in layers.go", pkg, name, strings.TrimSuffix(o.Call, "("))
				}
			}
		}
	}
}

// TestArchitectureGraph keeps the import graph in docs/architecture.md
// the one go list gives; -update rewrites it.
func TestArchitectureGraph(t *testing.T) {
	g := graph(t)
	var b strings.Builder
	b.WriteString("```\n")
	for _, tr := range slices.Backward(Tiers) {
		fmt.Fprintf(&b, "%s — %s\n", tr.Name, tr.What)
		for _, p := range tr.Packages {
			if _, ok := g[p]; !ok {
				continue // a package this tree does not have (yet)
			}
			imps := slices.Clone(g[p])
			slices.Sort(imps)
			for i := range imps {
				imps[i] = strings.TrimPrefix(imps[i], "internal/")
			}
			fmt.Fprintf(&b, "  %-20s → %s\n", strings.TrimPrefix(p, "internal/"), orNothing(strings.Join(imps, ", ")))
		}
	}
	b.WriteString("```\n")
	const begin, end = "<!-- imports: generated by internal/layers (go test ./internal/layers -update) -->\n", "<!-- imports end -->\n"
	path := filepath.Join("..", "..", "docs", "architecture.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q and %q", path, begin, end)
	}
	want := append(append(append([]byte{}, doc[:i+len(begin)]...), b.String()...), doc[j:]...)
	testutil.Golden(t, path, want)
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing of sectax)"
	}
	return s
}

func sortedKeys(m map[string][]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestSizes holds the house's sizes (MaxFileLines, MaxCLILines), counted
// as wc -l counts, over every non-test Go file go list names.
func TestSizes(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	cli := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 3)
		if f[2] == "" {
			continue
		}
		for _, name := range strings.Split(f[2], ",") {
			src, err := os.ReadFile(filepath.Join(f[1], name))
			if err != nil {
				t.Fatal(err)
			}
			n := bytes.Count(src, []byte("\n"))
			if n > MaxFileLines {
				t.Errorf("%s/%s is %d lines, over %d: split what it does in two files", strings.TrimPrefix(f[0], module), name, n, MaxFileLines)
			}
			if strings.TrimPrefix(f[0], module) == "internal/cli" {
				cli += n
			}
		}
	}
	if cli == 0 || cli > MaxCLILines {
		t.Errorf("internal/cli is %d lines without its tests, want 1 to %d: move what is not flags, a call or printing to its owner", cli, MaxCLILines)
	}
}
