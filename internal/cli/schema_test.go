package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// runSchema compiles docs/sectax.run.v1.schema.json, formats asserted.
func runSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(filepath.Join("..", "..", "docs", "sectax.run.v1.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// splitDocs returns the documents of a file as generic JSON values (an
// array, JSON Lines or one document).
func splitDocs(t *testing.T, data []byte) []any {
	t.Helper()
	var out []any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		if arr, ok := v.([]any); ok {
			out = append(out, arr...)
		} else {
			out = append(out, v)
		}
	}
	return out
}

// goAccepts says whether sectax import's checks take the document.
func goAccepts(doc any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = run.Decode("doc.json", b)
	return err
}

// schemaAccepts validates one generic document.
func schemaAccepts(s *jsonschema.Schema, doc any) error {
	b, _ := json.Marshal(doc)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// TestSchemaRealRunOutput: the document a real tiny run writes with -o
// validates against the published schema and passes import's checks.
func TestSchemaRealRunOutput(t *testing.T) {
	s := runSchema(t)
	path := filepath.Join(t.TempDir(), "run.json")
	_, errs, code := sectax(t, fixedDeps(nil), "run", "--root", wslOn, "--only", "syscall-basic,sched-pipe",
		"--param", "syscall-basic.loops=1000", "--param", "sched-pipe.loops=50", "--runs", "2", "--warmup", "0",
		"--label", "tiny", "--no-store", "--format", "json", "-o", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	docs := splitDocs(t, data)
	if len(docs) != 1 {
		t.Fatalf("%d documents", len(docs))
	}
	if err := schemaAccepts(s, docs[0]); err != nil {
		t.Errorf("real run output does not validate: %v", err)
	}
	if err := goAccepts(docs[0]); err != nil {
		t.Errorf("real run output refused by import: %v", err)
	}
}

// TestSchemaFixtures: every run document kept as a fixture in the
// repository gets the same verdict from the schema and from import (only
// testdata/bad.json is meant to fail, and fails both).
func TestSchemaFixtures(t *testing.T) {
	s := runSchema(t)
	n := 0
	err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "fuzz") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".json") || !strings.Contains(filepath.ToSlash(p), "/testdata/") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte(`"sectax.run/v1"`)) {
			return err
		}
		for i, doc := range splitDocs(t, data) {
			n++
			serr, gerr := schemaAccepts(s, doc), goAccepts(doc)
			if (serr == nil) != (gerr == nil) {
				t.Errorf("%s document %d: schema says %v, import says %v", p, i+1, serr, gerr)
			}
			if serr != nil && filepath.Base(p) != "bad.json" {
				t.Errorf("%s document %d does not validate: %v", p, i+1, serr)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Errorf("only %d fixture documents found", n)
	}
}

// TestSchemaHostile: hostile documents are refused by import and, where
// JSON Schema can say it, by the schema too.
func TestSchemaHostile(t *testing.T) {
	s := runSchema(t)
	metric := func(d map[string]any) map[string]any {
		return d["results"].([]any)[0].(map[string]any)["metrics"].([]any)[0].(map[string]any)
	}
	for _, c := range []struct {
		name   string
		goOnly bool // JSON Schema cannot express it
		edit   func(map[string]any)
	}{
		{"unknown schema", false, func(d map[string]any) { d["schema"] = "sectax.run/v2" }},
		{"missing id", false, func(d map[string]any) { delete(d, "id") }},
		{"missing env", false, func(d map[string]any) { delete(d, "env") }},
		{"missing samples", false, func(d map[string]any) { delete(metric(d), "samples") }},
		{"null samples", false, func(d map[string]any) { metric(d)["samples"] = nil }},
		{"null results", false, func(d map[string]any) { d["results"] = nil }},
		{"null params", false, func(d map[string]any) { d["results"].([]any)[0].(map[string]any)["params"] = nil }},
		{"newline id", false, func(d map[string]any) { d["id"] = "a\nb" }},
		{"escape label", false, func(d map[string]any) { d["label"] = "on\x1b[2J" }},
		{"bell label", false, func(d map[string]any) { d["label"] = "on\a" }},
		{"C1 label", false, func(d map[string]any) { d["label"] = "on\u009b" }},
		{"baseline id", false, func(d map[string]any) { d["id"] = "baseline:study-wsl3-on" }},
		{"baseline label", false, func(d map[string]any) { d["label"] = "baseline:x" }},
		{"padded id", false, func(d map[string]any) { d["id"] = " x" }},
		{"empty id", false, func(d map[string]any) { d["id"] = "" }},
		{"long id", false, func(d map[string]any) { d["id"] = strings.Repeat("i", 129) }},
		{"long label bytes", true, func(d map[string]any) { d["label"] = strings.Repeat("é", 100) }},
		{"zero primary sample", false, func(d map[string]any) { metric(d)["samples"].([]any)[0] = 0 }},
		{"negative sample", false, func(d map[string]any) { metric(d)["samples"].([]any)[0] = -1 }},
		{"runs -5", false, func(d map[string]any) { d["runs"] = -5 }},
		{"runs 0", false, func(d map[string]any) { d["runs"] = 0 }},
		{"runs 2.5", false, func(d map[string]any) { d["runs"] = 2.5 }},
		{"warmup -1", false, func(d map[string]any) { d["warmup"] = -1 }},
		{"bad status", false, func(d map[string]any) { d["status"] = "done" }},
		{"bad better", false, func(d map[string]any) { metric(d)["better"] = "faster" }},
		{"bad time", false, func(d map[string]any) { d["started"] = "yesterday" }},
		{"env a string", false, func(d map[string]any) { d["env"] = "x" }},
		{"param object", false, func(d map[string]any) {
			d["results"].([]any)[0].(map[string]any)["params"] = map[string]any{"k": map[string]any{}}
		}},
		{"config name newline", false, func(d map[string]any) { d["config"] = map[string]any{"name": "off\n", "params": []any{}} }},
		{"config without name", false, func(d map[string]any) { d["config"] = map[string]any{"params": []any{"mitigations=off"}} }},
		{"config a string", false, func(d map[string]any) { d["config"] = "off" }},
		{"finished before started", true, func(d map[string]any) { d["finished"] = "2000-01-01T00:00:00Z" }},
		{"duplicate metric", true, func(d map[string]any) {
			ms := d["results"].([]any)[0].(map[string]any)["metrics"].([]any)
			ms[1].(map[string]any)["name"] = ms[0].(map[string]any)["name"]
		}},
	} {
		doc := map[string]any{}
		json.Unmarshal([]byte(hostile(t, func(map[string]any) {})), &doc)
		c.edit(doc)
		if err := goAccepts(doc); err == nil {
			t.Errorf("%s: import accepted it", c.name)
		}
		serr := schemaAccepts(s, doc)
		if !c.goOnly && serr == nil {
			t.Errorf("%s: the schema accepted it", c.name)
		}
		if c.goOnly && serr != nil {
			t.Errorf("%s: the schema refuses it (%v): move it out of the import-only list", c.name, serr)
		}
	}
}

// TestSchemaConfigBlock: a run measured under a configuration (the
// optional config block) is accepted by both.
func TestSchemaConfigBlock(t *testing.T) {
	s := runSchema(t)
	doc := map[string]any{}
	json.Unmarshal([]byte(hostile(t, func(map[string]any) {})), &doc)
	doc["config"] = map[string]any{"name": "off", "params": []any{"mitigations=off"},
		"verification": map[string]any{"ok": true, "boot_id": "b1", "cmdline": "root=/dev/vda mitigations=off", "expected_off": []any{"meltdown"}}}
	if err := schemaAccepts(s, doc); err != nil {
		t.Errorf("schema: %v", err)
	}
	if err := goAccepts(doc); err != nil {
		t.Errorf("import: %v", err)
	}
}

// TestExportJSONParsers: export of several runs is one JSON value (an
// array) that python3's json module reads; --format jsonl is one document
// per line; import reads both back, and the old concatenated form.
func TestExportJSONParsers(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		testutil.Need(t, "python3 not found")
	}
	e := newCLIEnv(t)
	if code, _, errs := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatal(errs)
	}
	_, arr, _ := e.run("export", "on", "off")
	_, lines, _ := e.run("export", "on", "off", "--format", "jsonl")
	pyCount := func(script, input string) string {
		cmd := exec.Command(py, "-c", script)
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) || err != nil {
			t.Fatalf("python3: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := pyCount(`import json,sys; d=json.load(sys.stdin); print(len(d), d[2]["id"])`, arr); got != "3 20261130T080000-off1" {
		t.Errorf("python3 read the array as %q", got)
	}
	if got := pyCount(`import json,sys; print(len([json.loads(l) for l in sys.stdin]))`, lines); got != "3" {
		t.Errorf("python3 read %q JSON Lines", got)
	}
	var single bytes.Buffer
	for _, id := range []string{"20261130T060000-on1", "20261130T070000-on2", "20261130T080000-off1"} {
		_, doc, _ := e.run("show", id, "--format", "json")
		single.WriteString(doc)
	}
	for name, data := range map[string]string{"array.json": arr, "lines.jsonl": lines, "concatenated.json": single.String()} {
		e2 := newCLIEnv(t)
		file := writeDoc(t, e2.dir, name, data)
		if code, out, errs := e2.run("import", file); code != 0 || out != "imported 3 run(s), skipped 0\n" {
			t.Errorf("%s: exit %d %q %q", name, code, out, errs)
		}
		if _, again, _ := e2.run("export", "on", "off"); again != arr {
			t.Errorf("%s: export → import → export changed the documents", name)
		}
	}
}
