package workload

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/mitigation"
)

// TestEveryWorkloadOwnsItsFacts: every built-in workload says what a
// repetition costs (Estimator) at every suite's parameters, and a workload
// whose Info names a perf command is its perf-bench equivalent
// (PerfBencher) whose arguments are that command's, at every suite's
// parameters; one that names none has none.
func TestEveryWorkloadOwnsItsFacts(t *testing.T) {
	v := PerfVersion{Text: "perf version 6.1.187", Major: 6, Minor: 1}
	for _, w := range Default().All() {
		in := w.Info()
		e, ok := w.(Estimator)
		if !ok {
			t.Errorf("%s has no cost estimate: give it a Cost method (Estimator)", in.ID)
		}
		pb, isPerf := w.(PerfBencher)
		if isPerf != (in.Perf != "") {
			t.Errorf("%s: Info.Perf %q, PerfBencher %v: a perf command and its equivalent go together", in.ID, in.Perf, isPerf)
		}
		// "perf bench sched pipe -l LOOPS [-T]": the words before the
		// first placeholder are perf's (less "perf").
		var fixed []string
		for _, f := range strings.Fields(in.Perf)[min(1, len(in.Perf)):] {
			if strings.ToUpper(f) == f {
				break
			}
			fixed = append(fixed, f)
		}
		for _, s := range Suites {
			p, err := Resolve(in, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ok && (e.Cost(p) < 0 || e.Cost(p) == 0 && !in.Stresses.Varies) {
				t.Errorf("%s in %s: cost %v", in.ID, s, e.Cost(p))
			}
			if !isPerf {
				continue
			}
			if d, ok := w.(PerfDefaulter); ok {
				for k, x := range d.PerfDefaults(v) {
					p[k] = x
				}
			}
			args, err := pb.PerfArgs(p, v)
			if err != nil || len(args) <= len(fixed) || !slices.Equal(args[:len(fixed)], fixed) {
				t.Errorf("%s in %s: perf %v (%v), want it to begin %v", in.ID, s, args, err, fixed)
			}
		}
	}
}

// TestNoWorkloadIDOutside: no code outside internal/workload (tests
// aside) names a workload's id as a string literal (a case, a comparison,
// a table, an argument, a constant): what a workload is lives in its file,
// and the other packages ask it (an interface it implements, the registry).
func TestNoWorkloadIDOutside(t *testing.T) {
	ids := Default().IDs()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Test-only packages (fleettest, pgtest, testutil, proctest, e2e)
			// are tests too.
			if n := d.Name(); n == "testdata" || n == "workload" || n == "e2e" || strings.HasSuffix(n, "test") || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		isID := func(x ast.Expr) bool {
			lit, ok := x.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return false
			}
			s, err := strconv.Unquote(lit.Value)
			return err == nil && slices.Contains(ids, s)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if x, ok := n.(ast.Expr); ok && isID(x) {
				t.Errorf("%s: the workload id %s as a string literal", fset.Position(x.Pos()), x.(*ast.BasicLit).Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEveryWorkloadSaysWhatItPays: every built-in workload describes what
// it pays for in one line of at most 100 columns, which begins with the
// knowledge base's words for its main path (file-churn pays entry and exit
// on its own six calls a file, not "on every syscall (syscall-basic)").
func TestEveryWorkloadSaysWhatItPays(t *testing.T) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	pays := Pays()
	for _, w := range Default().All() {
		in := w.Info()
		line := in.Stresses.Pays
		if line == "" || line != pays[in.ID] || strings.Contains(line, "\n") || utf8.RuneCountInString(line) > 100 {
			t.Errorf("%s: Stresses.Pays %q: want one line of at most 100 columns", in.ID, line)
		}
		if len(in.Stresses.Paths) > 0 {
			words, _, _ := strings.Cut(kb.Tags[in.Stresses.Paths[0]], ":")
			if !strings.HasPrefix(line, words+": ") {
				t.Errorf("%s: Stresses.Pays %q does not begin with its main path's words %q", in.ID, line, words+": ")
			}
		}
		for _, other := range Default().IDs() {
			if other != in.ID && strings.Contains(line, other) {
				t.Errorf("%s: Stresses.Pays %q names another workload, %s", in.ID, line, other)
			}
		}
	}
}

// TestWorkerNamesOwnedOnce: a worker name belongs to one workload, so that
// WorkerMain runs the one its workload's file declares.
func TestWorkerNamesOwnedOnce(t *testing.T) {
	owner := map[string]string{}
	for _, w := range Default().All() {
		o, ok := w.(workerOwner)
		if !ok {
			continue
		}
		for name := range o.workers() {
			if prev, dup := owner[name]; dup {
				t.Errorf("worker %q is both %s's and %s's", name, prev, w.Info().ID)
			}
			owner[name] = w.Info().ID
		}
	}
	for _, name := range []string{"pipe", "msg-send", "msg-recv", spawnNopWorker} {
		if worker(name) == nil {
			t.Errorf("no workload owns the worker %q", name)
		}
	}
	if err := WorkerMain([]string{"nosuch"}); err == nil || err.Error() != `worker: unknown worker "nosuch"` {
		t.Errorf("an unknown worker: %v", err)
	}
}

// TestProbesAndSplitsResolve: every probe arm a workload declares resolves
// in every suite to parameters the workload accepts, and a loop-split
// workload's split count lies below every suite's loops (so crosscheck has
// two loop counts to split from).
func TestProbesAndSplitsResolve(t *testing.T) {
	reg := Default()
	probes := reg.Probes()
	if len(probes) == 0 {
		t.Fatal("no workload declares probe arms")
	}
	for _, pr := range probes {
		w, err := reg.Lookup(pr.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range Suites {
			if _, err := Resolve(w.Info(), s, pr.Overrides); err != nil {
				t.Errorf("probe %s %v in %s: %v", pr.ID, pr.Overrides, s, err)
			}
		}
	}
	splits := reg.Splitters()
	if len(splits) == 0 {
		t.Fatal("no workload is loop-split")
	}
	for id, f := range splits {
		w, _ := reg.Lookup(id)
		if _, ok := w.(PerfBencher); !ok {
			t.Errorf("%s is loop-split but perf cannot run it", id)
		}
		for _, s := range Suites {
			p, err := Resolve(w.Info(), s, nil)
			if err != nil || p.Int("loops") <= f {
				t.Errorf("%s in %s: loops %d (%v), split count %d: want more loops than the split count", id, s, p.Int("loops"), err, f)
			}
		}
	}
}
