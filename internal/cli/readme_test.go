package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

// The README is the front door (issue 29): short, the two commands near
// the top, and every example in it checked against the real command tree,
// the real workload registry and the real suites, so that it cannot rot.

const readmePath = "../../README.md"

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

func TestReadmeIsAFrontDoor(t *testing.T) {
	lines := readLines(t, readmePath)
	if len(lines) > 300 {
		t.Errorf("README.md has %d lines; the front door holds at most 300 (move the detail to docs/)", len(lines))
	}
	head := strings.Join(lines[:min(40, len(lines))], "\n")
	for _, cmd := range []string{"go run ./cmd/sectax run", "CGO_ENABLED=0 go test ./..."} {
		if !strings.Contains(head, cmd) {
			t.Errorf("README.md's first 40 lines do not hold %q", cmd)
		}
	}
}

// codeLines are the lines of a Markdown file's fenced code blocks, a line
// ending in a backslash joined with the next.
func codeLines(lines []string) []string {
	var out []string
	in, cont := false, false
	for _, l := range lines {
		if strings.HasPrefix(l, "```") {
			in, cont = !in, false
			continue
		}
		if !in {
			continue
		}
		if cont {
			out[len(out)-1] += " " + strings.TrimSpace(l)
		} else {
			out = append(out, l)
		}
		if cont = strings.HasSuffix(l, " \\"); cont {
			out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], " \\")
		}
	}
	return out
}

// sectaxArgs returns the arguments of a sectax command line in a code block
// ("sectax …", "$ sectax …", "sudo sectax …", "go run ./cmd/sectax …"),
// without its comment or what it is piped into; ok is false for other lines.
func sectaxArgs(line string) (args []string, ok bool) {
	line = strings.TrimPrefix(line, "$ ")
	line = strings.TrimPrefix(line, "sudo ")
	switch {
	case strings.HasPrefix(line, "sectax "):
		line = strings.TrimPrefix(line, "sectax ")
	case strings.HasPrefix(line, "go run ./cmd/sectax "):
		line = strings.TrimPrefix(line, "go run ./cmd/sectax ")
	default:
		return nil, false
	}
	if cmd, _, _ := strings.Cut(line, " "); strings.HasSuffix(cmd, ":") || strings.Contains(line, "[") {
		return nil, false // output ("sectax compare: A = …") or a synopsis ("[--kernel IMAGE2]")
	}
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, " | "); i >= 0 {
		line = line[:i]
	}
	return strings.Fields(line), true
}

// checkCommandLine parses args with the real command tree: the command
// exists, its flags exist and take the values given, its arguments are as
// many as it accepts, and the values that name a fixed set (--format,
// --suite, --only, --skip) are in it.
func checkCommandLine(args []string) string {
	root := newRootCmd(&Globals{})
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err.Error()
	}
	if cmd.HasSubCommands() {
		return "names a group of commands, not one"
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err.Error()
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return err.Error()
	}
	if err := (&Globals{}).useFormat(cmd); err != nil {
		return err.Error()
	}
	if f := cmd.Flags().Lookup("suite"); f != nil && f.Changed {
		if _, err := workload.ParseSuite(f.Value.String()); err != nil {
			return err.Error()
		}
	}
	for _, name := range []string{"only", "skip"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			ids := strings.Split(strings.Trim(f.Value.String(), "[]"), ",")
			if _, err := workload.Default().Select(ids, nil); err != nil {
				return err.Error()
			}
		}
	}
	return ""
}

// TestDocsCommandLinesParse: every sectax command line in a code block of
// the README and of the pages the README's detail moved to parses with the
// real command tree.
func TestDocsCommandLinesParse(t *testing.T) {
	files := []string{readmePath}
	for _, p := range []string{"compare", "attribute", "machine", "running", "study", "statistics", "campaign", "lab"} {
		files = append(files, filepath.Join("..", "..", "docs", p+".md"))
	}
	n := 0
	for _, f := range files {
		for _, l := range codeLines(readLines(t, f)) {
			args, ok := sectaxArgs(l)
			if !ok {
				continue
			}
			n++
			if msg := checkCommandLine(args); msg != "" {
				t.Errorf("%s: %q: %s", f, l, msg)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d command lines checked", n)
	}
	// The check itself refuses what it must.
	for _, bad := range []string{"run --suite fast", "compare on off --format pdf", "run --no-such-flag", "lab --boots many", "rm", "attribute", "run --only no-such-workload"} {
		if checkCommandLine(strings.Fields(bad)) == "" {
			t.Errorf("sectax %s passed the check", bad)
		}
	}
}

// readmeTable returns the rows of the README's Markdown table whose header
// starts with first, each as its trimmed cells.
func readmeTable(t *testing.T, lines []string, first string) [][]string {
	t.Helper()
	var rows [][]string
	in := false
	for _, l := range lines {
		if strings.HasPrefix(l, "| "+first+" |") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(l, "|") {
			break
		}
		if strings.HasPrefix(l, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(l, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("README.md has no table headed %q", first)
	}
	return rows
}

// suiteParams is each workload's parameters in a suite, KEY=VALUE, from
// the real plan.
func suiteParams(t *testing.T, suite string) map[string][]string {
	t.Helper()
	p, err := plan.Make(context.Background(), workload.Default(), plan.Request{Suite: suite, Timeout: time.Minute, Engines: []string{"native"}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, it := range p.Items {
		for k, v := range it.Params {
			out[it.Workload.Info().ID] = append(out[it.Workload.Info().ID], k+"="+run.FormatParam(v))
		}
	}
	return out
}

// TestReadmeWorkloadsTable: the table lists the registered workloads in
// their order, and its study parameters are the study suite's.
func TestReadmeWorkloadsTable(t *testing.T) {
	rows := readmeTable(t, readLines(t, readmePath), "id")
	var ids []string
	study := suiteParams(t, "study")
	for _, r := range rows {
		id := strings.Trim(r[0], "`")
		ids = append(ids, id)
		if r[3] == "—" {
			continue
		}
		for _, kv := range strings.Fields(strings.Trim(r[3], "`")) {
			if !slices.Contains(study[id], kv) {
				t.Errorf("README's workloads table: %s's study parameter %s is not the study suite's (%v)", id, kv, study[id])
			}
		}
	}
	if want := workload.Default().IDs(); !slices.Equal(ids, want) {
		t.Errorf("README's workloads table lists %v; the registry holds %v", ids, want)
	}
}

// TestReadmeRealRun: the real quick run the README shows is of the quick
// suite as it is now: one row per workload it measures, each with the
// suite's parameters (but the machine's folders).
func TestReadmeRealRun(t *testing.T) {
	lines := readLines(t, readmePath)
	start := slices.Index(lines, "$ sectax run --suite quick --no-store")
	if start < 0 {
		t.Fatal("README.md shows no real run of the quick suite")
	}
	quick := suiteParams(t, "quick")
	seen := 0
	for _, l := range lines[start+1:] {
		if strings.HasPrefix(l, "```") {
			break
		}
		id, rest, _ := strings.Cut(l, " ")
		params, ok := quick[id]
		if !ok {
			continue
		}
		seen++
		for _, kv := range params {
			if strings.HasPrefix(kv, "dir=") {
				continue // the machine's folder
			}
			if !strings.Contains(" "+rest+" ", " "+kv+" ") {
				t.Errorf("README's quick run: %s lacks the quick suite's %s: %q", id, kv, l)
			}
		}
	}
	if seen < len(quick)-1 { // cmd needs a command and is skipped
		t.Errorf("README's quick run shows %d workloads; the quick suite measures %d", seen, len(quick))
	}
}

// TestReadmeExitCodes: the exit-code table is exitcode.go's.
func TestReadmeExitCodes(t *testing.T) {
	var got []int
	for _, r := range readmeTable(t, readLines(t, readmePath), "code") {
		n, err := strconv.Atoi(r[0])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if want := []int{ExitOK, ExitError, ExitUsage, ExitUnmet, ExitInterrupted}; !slices.Equal(got, want) {
		t.Errorf("README's exit codes %v; exitcode.go has %v", got, want)
	}
}

// TestHelpPointsAtItsPage: the commands explained at length in docs/ say
// where in their --help, and the page exists.
func TestHelpPointsAtItsPage(t *testing.T) {
	root := newRootCmd(&Globals{})
	for _, name := range []string{"campaign", "lab", "attribute"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		page := "docs/" + name + ".md"
		if !strings.Contains(cmd.Long, page) {
			t.Errorf("sectax %s --help does not point at %s", name, page)
		}
		if _, err := os.Stat(filepath.Join("..", "..", page)); err != nil {
			t.Error(err)
		}
	}
}

// docOutputs are the outputs docs/ shows as a command's, each the output
// of the command on the fixture testdata/runs.json (imported first) or on
// the built-in baselines; a page that says "real" means it.
var docOutputs = map[string][]string{
	"study.md":   {"compare baseline:study-wsl3-on baseline:study-wsl3-off --format md"},
	"compare.md": {"list", "compare on off", "compare baseline:study-wsl2-on baseline:study-wsl2-off baseline:study-wsl3-on baseline:study-wsl3-off"},
}

// shownOutput is what the page shows after "$ sectax ARGS" in a code
// block, up to the next command or the end of the block, without
// trailing blank lines.
func shownOutput(lines []string, args string) (string, bool) {
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if !in || l != "$ sectax "+args {
			continue
		}
		var out []string
		for _, o := range lines[i+1:] {
			if strings.HasPrefix(o, "```") || strings.HasPrefix(o, "$ ") {
				break
			}
			out = append(out, o)
		}
		return strings.TrimRight(strings.Join(out, "\n"), "\n"), true
	}
	return "", false
}

// TestDocsOutputsAreReal runs each command docOutputs names and compares
// its output with the page's copy.
func TestDocsOutputsAreReal(t *testing.T) {
	e := newCLIEnv(t)
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatal(stderr)
	}
	for page, cmds := range docOutputs {
		lines := readLines(t, filepath.Join("..", "..", "docs", page))
		for _, args := range cmds {
			shown, ok := shownOutput(lines, args)
			if !ok {
				t.Errorf("docs/%s no longer shows $ sectax %s: update docOutputs", page, args)
				continue
			}
			code, stdout, stderr := e.run(strings.Fields(args)...)
			if code != 0 {
				t.Fatalf("sectax %s: exit %d: %s", args, code, stderr)
			}
			if got := strings.TrimRight(stdout, "\n"); got != shown {
				t.Errorf("docs/%s shows another output of sectax %s than it gives now; the output is:\n%s", page, args, got)
			}
		}
	}
}
