package cli

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/workload"
)

// failing is a workload whose every repetition fails.
type failing struct{ fake }

func (f *failing) Run(context.Context, workload.Env, workload.Params) (workload.Sample, error) {
	return workload.Sample{}, errors.New("the scripted workload failed")
}

// TestExitCodes runs every kind of failure through the CLI and checks the
// documented exit status: 0 ok, 1 runtime error, 2 usage error, 3 verify
// unmet, 130 interrupted.
func TestExitCodes(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	withFailing := fixedDeps(workload.NewRegistry(&failing{fake{id: "broken", base: map[string]float64{"usecs_per_op": 1}}}))
	for _, tt := range []struct {
		name string
		ctx  context.Context
		deps Deps
		args []string
		code int
	}{
		{"ok", nil, fixedDeps(fakeRegistry()), []string{"workloads"}, ExitOK},
		{"unknown flag", nil, fixedDeps(nil), []string{"run", "--bogus"}, ExitUsage},
		{"flag without its value", nil, fixedDeps(nil), []string{"run", "--runs"}, ExitUsage},
		{"bad flag value", nil, fixedDeps(nil), []string{"run", "--runs", "many"}, ExitUsage},
		{"unknown command", nil, fixedDeps(nil), []string{"frobnicate"}, ExitUsage},
		{"unknown subcommand", nil, fixedDeps(nil), []string{"campaign", "frobnicate"}, ExitUsage},
		{"a group without its subcommand", nil, fixedDeps(nil), []string{"campaign"}, ExitOK},
		{"an argument too many", nil, fixedDeps(nil), []string{"run", "extra"}, ExitUsage},
		{"wrong argument count", nil, fixedDeps(nil), []string{"show"}, ExitUsage},
		{"required flag missing", nil, fixedDeps(nil), []string{"verify", "--root", testutil.SysinfoRoot("wsl2-intel-on")}, ExitUsage},
		{"bad --param", nil, fixedDeps(nil), []string{"run", "--param", "sched-pipe.loops=0"}, ExitUsage},
		{"unknown run", nil, fixedDeps(fakeRegistry()), []string{"show", "nope"}, ExitUsage},
		{"mistyped flag", nil, fixedDeps(nil), []string{"run", "--sutie", "quick"}, ExitUsage},
		{"mistyped target", nil, fixedDeps(nil), []string{"advise", "--root", testutil.SysinfoRoot("wsl2-intel-on"), "--target", "of"}, ExitUsage},
		{"mistyped expectation", nil, fixedDeps(nil), []string{"verify", "--root", testutil.SysinfoRoot("wsl2-intel-on"), "--expect", "offf"}, ExitUsage},
		{"verify unmet", nil, fixedDeps(nil), []string{"verify", "--root", testutil.SysinfoRoot("wsl2-intel-on"), "--expect", "off"}, ExitUnmet},
		{"Ctrl-C", cancelled, fixedDeps(nil), []string{"env", "--root", testutil.SysinfoRoot("wsl2-intel-on")}, ExitInterrupted},
		{"workload failure", nil, withFailing, []string{"run", "--no-store", "--runs", "1", "--warmup", "0"}, ExitError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if os.Getenv("SECTAX_DB") == "" {
				t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
			}
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			var out, errb strings.Builder
			code := mainWith(ctx, tt.args, &out, &errb, tt.deps)
			if code != tt.code {
				t.Fatalf("sectax %v: exit %d, want %d (stderr %q)", tt.args, code, tt.code, errb.String())
			}
			if code != ExitOK && strings.Count(errb.String(), "\n") < 1 {
				t.Errorf("sectax %v: exit %d with no message", tt.args, code)
			}
		})
	}

	// The failures that need a database held by another process, a guest
	// or a reboot: the errors their packages return, mapped by the one
	// mapping.
	bg := context.Background()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		err  error
		code int
	}{
		{"store busy", bg, fmt.Errorf("saving the run: %w", &store.BusyError{}), ExitError},
		{"lab verification refused", bg, lab.BootError(bg, fmt.Errorf("guest: %w", vm.ErrNotVerified), 1, 3, "off"), ExitUnmet},
		{"lab boot failed", bg, lab.BootError(bg, errors.New("qemu exited"), 1, 3, "off"), ExitError},
		{"lab boot interrupted", cancelled, lab.BootError(cancelled, errors.New("qemu killed"), 1, 3, "off"), ExitInterrupted},
		{"campaign verification failure", bg, fmt.Errorf("resume: %w", &campaign.VerifyError{Step: 2, Config: "off"}), ExitUnmet},
		{"unknown baseline", bg, fmt.Errorf("side: %w", &store.NotFoundError{Ref: "x"}), ExitUsage},
		{"workload usage", bg, fmt.Errorf("beta: %w", &workload.UsageError{Msg: "too big"}), ExitUsage},
		{"cancelled context", bg, context.Canceled, ExitInterrupted},
		{"any error once cancelled", cancelled, errors.New("read /proc: interrupted"), ExitInterrupted},
	} {
		if code := exitCode(tt.ctx, tt.err); code != tt.code {
			t.Errorf("%s: exit %d, want %d", tt.name, code, tt.code)
		}
	}
}

// TestExitCodesOnlyInCLI fails if a package other than internal/cli knows
// exit numbers: declares an ExitCode method (the old way of choosing a
// status) or imports internal/cli (where the constants are). Packages
// return errors of an exit.Kind instead.
func TestExitCodesOnlyInCLI(t *testing.T) {
	fset := token.NewFileSet()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		inMain := filepath.ToSlash(filepath.Dir(path)) == "../../cmd/sectax"
		// The whole-system tests drive the command as cmd/sectax does.
		e2e := strings.HasPrefix(filepath.ToSlash(path), "../../internal/e2e/") && strings.HasSuffix(path, "_test.go")
		for _, im := range f.Imports {
			if im.Path.Value == `"github.com/sectax/sectax/internal/cli"` && !inMain && !e2e {
				t.Errorf("%s imports internal/cli, the only owner of exit numbers", path)
			}
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == "ExitCode" {
				t.Errorf("%s: %s declares an exit number; return an error of an exit.Kind instead", fset.Position(fd.Pos()), fd.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRequiredFlagMessage: a required flag that is missing is the
// project's one-line usage error naming the flag and what it accepts,
// not cobra's `required flag(s) "expect" not set`.
func TestRequiredFlagMessage(t *testing.T) {
	_, errs, code := sectax(t, fixedDeps(nil), "verify", "--root", testutil.SysinfoRoot("wsl2-intel-on"))
	want := `sectax: sectax verify needs --expect: give off, auto (on is the same: no mitigation turned off), or kernel parameters ("mitigations=off audit=0")` + "\n"
	if code != ExitUsage || errs != want {
		t.Fatalf("exit %d, stderr %q; want %d, %q", code, errs, ExitUsage, want)
	}
}
