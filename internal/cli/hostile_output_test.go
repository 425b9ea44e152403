package cli

import (
	"bytes"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/workload"
)

// poison is what a hostile writer of the store, of an imported document or
// of a file below --root puts in every text it controls: a formula for a
// spreadsheet, Markdown that would end a table cell or start a link and
// HTML, then OSC 52 (write the clipboard), OSC 8 (a hidden link), an OSC
// title, clear screen, a carriage return that forges a line, a
// bidirectional override, isolate and Arabic letter mark, the line and
// paragraph separators, C1 controls (NEL, CSI) and NUL.
const poison = "=1+1|[x](http://evil)<b>\x1b]52;c;cHduZWQ=\a\x1b]8;;http://evil\x1b\\L\x1b]8;;\x1b\\" +
	"\x1b]0;title\a\x1b[2J\rFORGED\u202e\u2066\u061c\u2028\u2029\u0085\u009b\x00\nINJECTED"

// poisonText is s with the poison in front (it then begins with a formula
// character); poisonID keeps s in front, so that an id prefix still finds
// the run.
func poisonText(s string) string { return poison + s }
func poisonID(s string) string   { return s + poison }

// poisonJSON rewrites every string value (not the keys: they name the
// fields) of a JSON column.
func poisonJSON(v any) any {
	switch x := v.(type) {
	case string:
		return poisonText(x)
	case []any:
		for i := range x {
			x[i] = poisonJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = poisonJSON(x[k])
		}
	}
	return v
}

// structural columns keep their values: the store refuses a row whose
// timestamps, states or enums are not its own (store's bounds tests cover
// those); every other text column is poisoned.
var structural = map[string]bool{
	"runs.started": true, "runs.finished": true, "runs.status": true, "metrics.better": true,
	"campaigns.created": true, "campaigns.updated": true, "campaigns.state": true, "campaigns.via": true,
	"campaign_steps.status": true,
}

// ids are the columns that hold a run's or a campaign's id: poisoned the
// same way everywhere so that the rows still join.
var ids = map[string]bool{
	"runs.id": true, "results.run_id": true, "metrics.run_id": true, "samples.run_id": true,
	"campaigns.id": true, "campaign_steps.campaign_id": true, "campaign_steps.run_id": true,
}

// poisonStore rewrites every text column of every table of the SQLite
// store at path.
func poisonStore(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables := []string{"runs", "results", "metrics", "samples", "campaigns", "campaign_steps"}
	for _, table := range tables {
		rows, err := db.Query(fmt.Sprintf("SELECT name, type FROM pragma_table_info('%s')", table))
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var name, typ string
			rows.Scan(&name, &typ)
			if typ == "TEXT" && !structural[table+"."+name] {
				cols = append(cols, name)
			}
		}
		rows.Close()
		if len(cols) == 0 {
			t.Fatalf("table %s has no text column", table)
		}
		for _, col := range cols {
			rows, err := db.Query(fmt.Sprintf("SELECT rowid, %s FROM %s", col, table))
			if err != nil {
				t.Fatal(err)
			}
			type cell struct {
				rowid int64
				v     string
			}
			var cells []cell
			for rows.Next() {
				var c cell
				rows.Scan(&c.rowid, &c.v)
				cells = append(cells, c)
			}
			rows.Close()
			for _, c := range cells {
				var v any
				switch {
				case c.v == "":
					if ids[table+"."+col] {
						continue // a step without its run
					}
					v = poisonText("")
				case ids[table+"."+col]:
					v = poisonID(c.v)
				case json.Unmarshal([]byte(c.v), &v) == nil && (strings.HasPrefix(c.v, "{") || strings.HasPrefix(c.v, "[") || strings.HasPrefix(c.v, `"`)):
					b, _ := json.Marshal(poisonJSON(v))
					v = string(b)
				default:
					v = poisonText(c.v)
				}
				if _, err := db.Exec(fmt.Sprintf("UPDATE %s SET %s = ? WHERE rowid = ?", table, col), v, c.rowid); err != nil {
					t.Fatalf("%s.%s: %v", table, col, err)
				}
			}
		}
	}
}

// poisonRoot writes the poison into the machine's own files of a copy of
// a fixture: the command line (with a NUL), os-release, the hostname, the
// kernel release and version, every vulnerability line, the .wslconfig.
func poisonRoot(t *testing.T, src string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	testutil.CopyTree(t, src, root)
	write := func(rel, s string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oneLine := strings.ReplaceAll(poison, "\n", " ")
	b, _ := os.ReadFile(filepath.Join(root, "proc/cmdline"))
	write("proc/cmdline", "x=\x1b]52;c;cHduZWQ=\a mitigations=auto\x00 "+strings.TrimSpace(string(b))+" "+oneLine+"\n")
	write("etc/os-release", "PRETTY_NAME=\""+oneLine+"\"\nNAME=\""+oneLine+"\"\nID=debian\nVERSION_ID=\""+oneLine+"\"\n")
	write("proc/sys/kernel/hostname", oneLine+"\n")
	write("proc/sys/kernel/osrelease", "6.6.87.2-microsoft-standard-WSL2"+oneLine+"\n")
	write("proc/version", "Linux version 6.6.87.2-microsoft-standard-WSL2 "+oneLine+"\n")
	vul := filepath.Join(root, "sys/devices/system/cpu/vulnerabilities")
	ents, err := os.ReadDir(vul)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ents {
		b, _ := os.ReadFile(filepath.Join(vul, e.Name()))
		line := strings.TrimSpace(string(b))
		if i%2 == 0 {
			line = oneLine + line
		} else {
			line += "; " + oneLine
		}
		write(filepath.Join("sys/devices/system/cpu/vulnerabilities", e.Name()), line+"\n")
	}
	write("mnt/c/Users/dev/.wslconfig", "[wsl2]\nkernelCommandLine = mitigations=auto "+oneLine+"\n")
	return root
}

// A surface is one command in one format: args after the globals, the
// formats it is run in (nil: it has none), or why it is not run here.
type surface struct {
	path    string   // the command path below sectax, e.g. "attribute plan"
	args    []string // the arguments after the path; FORMAT is replaced
	formats []string
	skip    string // why this command is not run over the hostile store
	// pending names a print site outside this change's files that still
	// prints foreign text raw: its problems are logged, not failed, until
	// the owner of that file passes it through the sanitiser.
	pending string
}

// TestHostileOutput is issue 30's "no raw control character in any
// format": every command in every format it has, over a store whose every
// text column is poisoned and a --root whose every text file is, prints
// no control character but line breaks and tabs (in the formats that lay
// out with them), and no CSV text cell that a spreadsheet would run.
func TestHostileOutput(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	db := os.Getenv("SECTAX_DB")

	// Stored rows: the imported runs and a campaign measured on a fake
	// machine, then every text column poisoned.
	if _, errs, code := sectax(t, fixedDeps(nil), "import", "testdata/runs.json"); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	f := newFakeBoots(t)
	deps := campaignDepsFor(f)
	if _, errs, code := sectax(t, deps, append([]string{"--root", f.root, "campaign", "start"}, tinyCampaign...)...); code != 0 {
		t.Fatalf("campaign start: %s", errs)
	}
	if _, errs, code := sectax(t, deps, "--root", f.root, "campaign", "resume"); code != 0 {
		t.Fatalf("campaign resume: %s", errs)
	}
	poisonStore(t, db)
	root := poisonRoot(t, wslOn)
	on, off := poisonText("on"), poisonText("off")

	surfaces := []surface{
		{path: "workloads", args: []string{"--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "run", skip: "measures this machine; a --root is refused, its output is its own numbers and the live environment"},
		{path: "crosscheck", skip: "measures this machine (as run)"},
		{path: "env", args: []string{"--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "wslconfig show", args: []string{"--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "wslconfig set", args: []string{"mitigations=off", "--dry-run"}},
		{path: "wslconfig unset", args: []string{"mitigations", "--dry-run"}},
		{path: "list", args: []string{"--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "show", args: []string{"20261130T06", "--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "export", args: []string{"--format", "FORMAT", "20261130T06"}, formats: []string{"json", "jsonl"}},
		{path: "export", args: []string{"--format", "FORMAT", "--on", on, "--off", off}, formats: []string{"prometheus"}},
		{path: "import", args: []string{"IMPORT", "--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "push", skip: "needs a PostgreSQL store: its messages are counts and the store's redacted reference"},
		{path: "man", skip: "writes cobra's man pages of the command tree: no stored or guest text reaches them (TestManPages)"},
		{path: "fleet", args: []string{"--on", on, "--off", off, "--format", "FORMAT"}, formats: []string{"text", "md", "json", "html"}},
		{path: "compare", args: []string{on, off, "--format", "FORMAT"}, formats: []string{"text", "md", "json", "csv", "benchfmt", "html"}},
		{path: "baselines", args: []string{"--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "advise", args: []string{"--target", "off", "--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "verify", args: []string{"--expect", "off", "--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "attribute probes", skip: "measures this boot's per-task controls"},
		{path: "attribute plan", args: []string{"--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "decide", args: []string{"--protect", "user_kernel", "--format", "FORMAT"}, formats: []string{"text", "md", "json"}},
		{path: "attribute report", args: []string{"--config", "on=" + on, "--config", "off=" + off, "--format", "FORMAT"}, formats: []string{"text", "md", "json", "html"}},
		{path: "campaign start", args: append([]string{"--dry-run", "--format", "FORMAT"}, tinyCampaign...), formats: []string{"text", "json"}}, // the plan of the poisoned root, nothing changed
		{path: "campaign resume", args: nil},
		{path: "campaign status", args: []string{"--format", "FORMAT"}, formats: []string{"text", "json"}},
		{path: "campaign abort", skip: "restores the machine (c30's tests run it over a hostile store)"},
		{path: "campaign report", args: []string{"--format", "FORMAT"}, formats: []string{"text", "md", "json", "csv", "benchfmt", "html"}},
		{path: "lab", args: []string{"--dry-run", "--config", "on", "--config", "off", "--format", "FORMAT"}, formats: []string{"text", "json"}}, // booting QEMU is internal/e2e's; lab sanitises every frame a guest sends
		{path: "rm", args: []string{"20261130T06", "--format", "FORMAT"}, formats: []string{"text", "json"}},
	}
	checkSurfaces(t, surfaces)

	// A document with the poison in every text field: import refuses it
	// in one safe line.
	var docs []map[string]any
	b, _ := os.ReadFile("testdata/runs.json")
	for dec := json.NewDecoder(bytes.NewReader(b)); ; {
		var doc map[string]any
		if dec.Decode(&doc) != nil {
			break
		}
		docs = append(docs, doc)
	}
	if len(docs) != 3 {
		t.Fatalf("runs.json: %d documents", len(docs))
	}
	for _, d := range docs {
		for k, v := range d {
			if k != "schema" && k != "started" && k != "finished" && k != "status" {
				d[k] = poisonJSON(v)
			}
		}
	}
	bad, _ := json.Marshal(docs)
	importFile := filepath.Join(t.TempDir(), "hostile.json")
	os.WriteFile(importFile, bad, 0o644)

	for _, s := range surfaces {
		if s.skip != "" {
			continue
		}
		formats := s.formats
		if formats == nil {
			formats = []string{""}
		}
		for _, format := range formats {
			args := []string{"--root", root, "--no-color"}
			if s.path == "campaign resume" {
				args[1] = f.root // the campaign's own machine
			}
			args = append(args, strings.Fields(s.path)...)
			for _, a := range s.args {
				switch a {
				case "FORMAT":
					a = format
				case "IMPORT":
					a = importFile
				}
				args = append(args, a)
			}
			name := strings.TrimSpace(s.path + " " + format)
			t.Run(name, func(t *testing.T) {
				d := deps
				out, errs, code := sectax(t, d, args...)
				if code != 0 && errs == "" {
					t.Errorf("exit %d with nothing said", code)
				}
				problems := append(checkHostile("stdout", format, out), checkHostile("stderr", "", errs)...)
				switch {
				case s.pending != "" && len(problems) == 0:
					t.Errorf("fixed: drop the pending note (%s)", s.pending)
				case s.pending != "":
					t.Logf("pending, not failing: %s: %d problems, the first: %s", s.pending, len(problems), problems[0])
				default:
					for _, p := range problems {
						t.Error(p)
					}
				}
				if testing.Verbose() {
					t.Logf("exit %d\n%s\n%s", code, out, errs)
				}
			})
		}
	}
}

// checkSurfaces fails when a command of the cobra tree or a format it
// accepts has no row in the table: a new command or format must be added.
func checkSurfaces(t *testing.T, surfaces []surface) {
	t.Helper()
	have := map[string][]string{}
	for _, s := range surfaces {
		have[s.path] = append(have[s.path], s.formats...)
		if s.skip == "" && s.formats == nil && slices.Contains(s.args, "FORMAT") {
			t.Errorf("%s: FORMAT without formats", s.path)
		}
	}
	var walk func(prefix string, c *cobra.Command)
	walk = func(prefix string, c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			path := strings.TrimSpace(prefix + " " + sub.Name())
			if sub.HasSubCommands() {
				walk(path, sub)
				continue
			}
			got, ok := have[path]
			if !ok {
				t.Errorf("command %q is not in the hostile-output table", path)
				continue
			}
			skipped := slices.ContainsFunc(surfaces, func(s surface) bool { return s.path == path && s.skip != "" })
			if fl := sub.Flags().Lookup("format"); fl != nil && !skipped {
				for _, f := range fl.Value.(*formatValue).list.Names() {
					if !slices.Contains(got, f) {
						t.Errorf("%s --format %s is not in the hostile-output table", path, f)
					}
				}
			}
		}
	}
	walk("", newRootCmd(&Globals{deps: Deps{Registry: workload.Default()}}))
}

// checkHostile fails on a control character (line breaks and tabs allowed
// where the format lays out with them: all but a one-line error) and on a
// CSV text cell a spreadsheet would read as a formula.
func checkHostile(what, format, s string) (problems []string) {
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	for i, r := range s {
		if r == utf8.RuneError {
			continue
		}
		if r == '\n' || r == '\t' {
			continue
		}
		// The rule written out here, not safetext.Unsafe: the test is an
		// oracle of its own.
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
			r == 0x200e || r == 0x200f || r == 0x061c || r == 0x2028 || r == 0x2029 {
			lo, hi := max(0, i-60), min(len(s), i+20)
			bad("%s holds the raw control character %U at byte %d: %q", what, r, i, s[lo:hi])
			break
		}
	}
	if what == "stderr" {
		for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			if line != "" && !strings.HasPrefix(line, "sectax: ") && !strings.HasPrefix(line, "  ") {
				bad("a line of standard error that sectax did not begin: %q", line)
			}
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if format == "html" || format == "json" {
			break // a line break is white space in HTML, \n in JSON
		}
		if strings.HasPrefix(strings.TrimLeft(line, " \t|-"), "INJECTED") {
			bad("%s: a foreign line break forged a line: %q", what, line)
		}
	}
	switch format {
	case "csv":
		recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
		if err != nil {
			bad("CSV does not parse: %v", err)
		}
		for _, rec := range recs {
			for _, cell := range rec {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) && !isNumber(cell) {
					bad("CSV cell %q begins with a formula character", cell)
				}
			}
		}
	case "md":
		// Every row of a table has its header's number of cell
		// boundaries: no foreign | or line break split a cell.
		header := -1
		for _, line := range strings.Split(s, "\n") {
			if !strings.HasPrefix(line, "|") {
				header = -1
				continue
			}
			n := 0
			for i := 0; i < len(line); i++ {
				if line[i] == '\\' {
					i++
				} else if line[i] == '|' {
					n++
				}
			}
			if header < 0 {
				header = n
			} else if n != header {
				bad("Markdown table row with %d boundaries, its header %d: %q", n, header, line)
			}
		}
		for _, line := range strings.Split(s, "\n") {
			line = withoutCodeSpans(line)
			if strings.Contains(line, "](http://evil)") && !strings.Contains(line, `\](http://evil)`) {
				bad("Markdown line holds a link: %q", line)
			}
			if strings.Contains(line, "<b>") {
				bad("Markdown line holds raw HTML: %q", line)
			}
		}
	case "prometheus":
		if path, err := exec.LookPath("promtool"); err == nil {
			cmd := exec.Command(path, "check", "metrics")
			cmd.Stdin = strings.NewReader(s)
			if out, err := cmd.CombinedOutput(); err != nil {
				bad("promtool check metrics: %v: %s", err, out)
			}
		}
	case "json":
		if !json.Valid([]byte(s)) && s != "" {
			bad("not JSON: %.200q", s)
		}
	case "html":
		if bytes.Contains([]byte(s), []byte("<b>")) {
			bad("HTML holds the foreign <b>")
		}
	}
	return problems
}

// isNumber: a cell such as -12.3 is a number, not a formula.
func isNumber(s string) bool {
	var f float64
	_, err := fmt.Sscanf(s, "%g", &f)
	return err == nil && strings.TrimLeft(s, "+-0123456789.eE") == ""
}

// withoutCodeSpans drops the code spans of a Markdown line (their text
// is shown verbatim: no link, no HTML).
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for line != "" {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			break
		}
		b.WriteString(line[:i])
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		fence := line[i : i+n]
		rest := line[i+n:]
		j := strings.Index(rest, fence)
		if j < 0 {
			b.WriteString(line[i:])
			break
		}
		line = rest[j+n:]
	}
	return b.String()
}

// TestImportRefusesControlsEverywhere: a control character in any text
// of a run document — every string of testdata/runs.json's first run, the
// environment's included — makes import refuse the file in one line that
// names the field, stores nothing and echoes nothing raw.
func TestImportRefusesControlsEverywhere(t *testing.T) {
	b, err := os.ReadFile("testdata/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	var first any // runs.json is a stream of documents: the first
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&first); err != nil {
		t.Fatalf("runs.json: %v", err)
	}
	b, _ = json.Marshal(first)
	docs := []any{first}
	type leaf struct {
		path []any // keys and indexes
		name string
	}
	var leaves []leaf
	var walk func(v any, path []any)
	walk = func(v any, path []any) {
		switch x := v.(type) {
		case string:
			leaves = append(leaves, leaf{slices.Clone(path), fmt.Sprint(path[len(path)-1])})
		case []any:
			for i, e := range x {
				walk(e, append(path, i))
			}
		case map[string]any:
			for k, e := range x {
				walk(e, append(path, k))
			}
		}
	}
	walk(docs[0], nil)
	if len(leaves) < 20 {
		t.Fatalf("only %d text fields", len(leaves))
	}
	dir := t.TempDir()
	t.Setenv("SECTAX_DB", filepath.Join(dir, "sectax.db"))
	for i, l := range leaves {
		if l.name == "schema" || l.name == "started" || l.name == "finished" {
			continue // refused before any text is read: tested by store
		}
		var doc any
		json.Unmarshal(b, &doc)
		v := doc
		for _, k := range l.path[:len(l.path)-1] {
			switch k := k.(type) {
			case string:
				v = v.(map[string]any)[k]
			case int:
				v = v.([]any)[k]
			}
		}
		switch k := l.path[len(l.path)-1].(type) {
		case string:
			m := v.(map[string]any)
			m[k] = m[k].(string) + "\x1b]52;c;cHduZWQ=\a"
		case int:
			s := v.([]any)
			s[k] = s[k].(string) + "\x1b]52;c;cHduZWQ=\a"
		}
		out, _ := json.Marshal(doc)
		file := filepath.Join(dir, fmt.Sprintf("doc%d.json", i))
		os.WriteFile(file, out, 0o644)
		stdout, stderr, code := sectax(t, fixedDeps(nil), "import", file)
		if code != ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, l.name) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %s", l.path, code, stdout, stderr, l.name)
		}
		if p := checkHostile("stderr", "", stderr); len(p) > 0 {
			t.Errorf("%v: %s", l.path, p[0])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sectax.db")); err == nil {
		if out, _, _ := sectax(t, fixedDeps(nil), "list"); out != "" {
			t.Errorf("a refused import stored runs:\n%s", out)
		}
	}
}
