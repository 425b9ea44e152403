package run_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

const schemaPath = "../../docs/sectax.run.v1.schema.json"

// compileSchema compiles the published schema, formats asserted.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// realDocs reads a file of real run documents (a JSON array) as generic
// JSON values.
func realDocs(t *testing.T, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	if err := json.Unmarshal(data, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatalf("%s holds no document", name)
	}
	return docs
}

// clone deep-copies a generic document.
func clone(t *testing.T, doc map[string]any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(doc)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func schemaCheck(s *jsonschema.Schema, doc any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// goCheck is what import does with a document: decode it, then Validate.
func goCheck(doc any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var r run.Run
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	return r.Validate()
}

// TestSchemaRealLabAndCampaignRuns: the real documents of a lab plan and
// of a kexec campaign (testdata/README.md says how each was made) carry
// their blocks and pass both the schema and Validate.
func TestSchemaRealLabAndCampaignRuns(t *testing.T) {
	s := compileSchema(t)
	for file, blocks := range map[string][]string{
		"lab-runs.json":      {"config", "lab"},
		"campaign-runs.json": {"config", "campaign"},
	} {
		for i, doc := range realDocs(t, file) {
			for _, b := range blocks {
				if _, ok := doc[b].(map[string]any); !ok {
					t.Errorf("%s document %d has no %s block", file, i+1, b)
				}
			}
			if err := schemaCheck(s, doc); err != nil {
				t.Errorf("%s document %d: schema: %v", file, i+1, err)
			}
			if err := goCheck(doc); err != nil {
				t.Errorf("%s document %d: Validate: %v", file, i+1, err)
			}
		}
	}
}

// specDoc is the off run of the real campaign with the spec_controls a
// `sectax run --spec ssbd=force,l1d_flush=on` records on its first result
// (this machine's kernel offers neither control, so no real run carries
// the block; the states are those internal/workload expects).
func specDoc(t *testing.T) map[string]any {
	t.Helper()
	doc := realDocs(t, "campaign-runs.json")[1]
	res := doc["results"].([]any)[0].(map[string]any)
	res["spec_controls"] = []any{
		map[string]any{"control": "ssbd", "requested": "force", "kernel": "prctl enable", "expected": "thread force mitigated",
			"verified": []any{
				map[string]any{"role": "runner-thread", "source": "/proc/PID/task/TID/status", "state": "thread force mitigated", "processes": 1, "tasks": 1},
				map[string]any{"role": "worker", "source": "/proc/PID/task/TID/status", "state": "thread force mitigated", "processes": 1, "tasks": 5},
			}},
		map[string]any{"control": "l1d_flush", "requested": "on", "kernel": "prctl disable", "expected": "prctl enable",
			"verified": []any{
				map[string]any{"role": "runner-thread", "source": "PR_GET_SPECULATION_CTRL", "state": "prctl enable", "processes": 1, "tasks": 1},
			}},
	}
	return doc
}

// stopDoc is the off run of the real campaign with the stopping and
// warm-up blocks a `--precision 2` run records on its first result.
func stopDoc(t *testing.T) map[string]any {
	t.Helper()
	doc := clone(t, realDocs(t, "campaign-runs.json")[1])
	res := doc["results"].([]any)[0].(map[string]any)
	res["stopping"] = map[string]any{"rule": "precision", "target_pct": 2, "achieved_pct": 1.4, "reason": "reached"}
	res["warmup"] = map[string]any{"rule": "detect", "discarded": 2}
	return doc
}

func TestSchemaStopping(t *testing.T) {
	s := compileSchema(t)
	for _, st := range []map[string]any{
		{"rule": "precision", "target_pct": 2, "achieved_pct": 1.4, "reason": "reached"},
		{"rule": "precision", "target_pct": 2, "achieved_pct": 7.5, "reason": "max-time"},
		{"rule": "precision", "target_pct": 2, "achieved_pct": nil, "reason": "interrupted"},
		{"rule": "count", "target_pct": nil, "achieved_pct": 3.1, "reason": "count"},
		{"rule": "count", "target_pct": nil, "achieved_pct": nil, "reason": "failed"},
	} {
		doc := stopDoc(t)
		doc["results"].([]any)[0].(map[string]any)["stopping"] = st
		if err := schemaCheck(s, doc); err != nil {
			t.Errorf("%v: schema: %v", st, err)
		}
		if err := goCheck(doc); err != nil {
			t.Errorf("%v: Validate: %v", st, err)
		}
	}
}

func TestSchemaSpecControls(t *testing.T) {
	s := compileSchema(t)
	doc := specDoc(t)
	if err := schemaCheck(s, doc); err != nil {
		t.Errorf("schema: %v", err)
	}
	if err := goCheck(doc); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

// TestConfigParamAsTheKernelReadsIt: a parameter verified on the command
// line with dashes for underscores (the kernel reads both alike) is on it.
func TestConfigParamAsTheKernelReadsIt(t *testing.T) {
	doc := clone(t, realDocs(t, "campaign-runs.json")[1])
	c := doc["config"].(map[string]any)
	c["params"] = []any{"spec_store_bypass_disable=off"}
	v := c["verification"].(map[string]any)
	v["cmdline"] = "console=ttyS0 spec-store-bypass-disable=off"
	if err := goCheck(doc); err != nil {
		t.Errorf("Validate: %v", err)
	}
	v["cmdline"] = "console=ttyS0 spec-store-bypass-disable=auto"
	if err := goCheck(doc); err == nil {
		t.Error("Validate accepted a parameter with another value on the command line")
	}
}

// TestSchemaHostileBlocks: each block of a real document, made hostile, is
// refused by Validate naming the field, and by the schema where JSON
// Schema can say it.
func TestSchemaHostileBlocks(t *testing.T) {
	s := compileSchema(t)
	lab := func(t *testing.T) map[string]any { return clone(t, realDocs(t, "lab-runs.json")[0]) }
	camp := func(t *testing.T) map[string]any { return clone(t, realDocs(t, "campaign-runs.json")[1]) }
	spec := func(t *testing.T) map[string]any { return specDoc(t) }
	block := func(d map[string]any, name string) map[string]any { return d[name].(map[string]any) }
	verif := func(d map[string]any) map[string]any { return block(d, "config")["verification"].(map[string]any) }
	sc := func(d map[string]any, i int) map[string]any {
		return d["results"].([]any)[0].(map[string]any)["spec_controls"].([]any)[i].(map[string]any)
	}
	tasks := func(d map[string]any, i, j int) map[string]any {
		return sc(d, i)["verified"].([]any)[j].(map[string]any)
	}

	stop := func(t *testing.T) map[string]any { return stopDoc(t) }
	res0 := func(d map[string]any, name string) map[string]any {
		return d["results"].([]any)[0].(map[string]any)[name].(map[string]any)
	}
	for _, c := range []struct {
		name   string
		base   func(*testing.T) map[string]any
		field  string // the field Validate names ("" when decoding fails first)
		goOnly bool   // JSON Schema cannot say it
		edit   func(map[string]any)
	}{
		// config
		{"config unverified", camp, "config.verification.ok", false, func(d map[string]any) { verif(d)["ok"] = false }},
		{"config without verification", camp, "config.verification", false, func(d map[string]any) { delete(block(d, "config"), "verification") }},
		{"config verified with reasons", camp, "config.verification.reasons", false, func(d map[string]any) { verif(d)["reasons"] = []any{"mitigations=off is not on the command line"} }},
		{"config verified with still_mitigated", lab, "config.verification.still_mitigated", false, func(d map[string]any) { verif(d)["still_mitigated"] = []any{"spectre_v2"} }},
		{"config verified with foreign", camp, "config.verification.foreign", false, func(d map[string]any) { verif(d)["foreign"] = []any{"nopti"} }},
		{"config param not on the command line", camp, "config.params[0]", true, func(d map[string]any) {
			verif(d)["cmdline"] = "console=ttyS0 panic=-1 no_timer_check"
		}},
		{"config param overridden later on the command line", camp, "config.params[0]", true, func(d map[string]any) {
			verif(d)["cmdline"] = verif(d)["cmdline"].(string) + " mitigations=auto"
		}},
		{"config name with a space", camp, "config.name", false, func(d map[string]any) { block(d, "config")["name"] = "off all" }},
		{"config name empty", camp, "config.name", false, func(d map[string]any) { block(d, "config")["name"] = "" }},
		{"config param twice", camp, "config.params[1]", false, func(d map[string]any) {
			block(d, "config")["params"] = []any{"mitigations=off", "mitigations=off"}
		}},
		{"config param escape", camp, "config.params[0]", false, func(d map[string]any) { block(d, "config")["params"] = []any{"mitigations=off\x1b[2J"} }},
		{"config cmdline escape", lab, "config.verification.cmdline", false, func(d map[string]any) { verif(d)["cmdline"] = "mitigations=off\x1b]0;x\a" }},
		// lab
		{"lab accel hvf", lab, "lab.accel", false, func(d map[string]any) { block(d, "lab")["accel"] = "hvf" }},
		{"lab accel missing", lab, "lab.accel", false, func(d map[string]any) { delete(block(d, "lab"), "accel") }},
		{"lab sha256 short", lab, "lab.kernel_sha256", false, func(d map[string]any) { block(d, "lab")["kernel_sha256"] = "abc" }},
		{"lab sha256 upper case", lab, "lab.kernel_sha256", false, func(d map[string]any) {
			block(d, "lab")["kernel_sha256"] = strings.ToUpper(block(d, "lab")["kernel_sha256"].(string))
		}},
		{"lab memory 0", lab, "lab.memory_mib", false, func(d map[string]any) { block(d, "lab")["memory_mib"] = 0 }},
		{"lab vcpus -1", lab, "lab.vcpus", false, func(d map[string]any) { block(d, "lab")["vcpus"] = -1 }},
		{"lab boot 0", lab, "lab.boot", false, func(d map[string]any) { block(d, "lab")["boot"] = 0 }},
		{"lab boot past the plan", lab, "lab.boot", true, func(d map[string]any) { block(d, "lab")["boot"] = 3 }},
		{"lab negative boot time", lab, "lab.boot_to_init_s", false, func(d map[string]any) { block(d, "lab")["boot_to_init_s"] = -1 }},
		{"lab kernel newline", lab, "lab.kernel", false, func(d map[string]any) { block(d, "lab")["kernel"] = "6.1\n# x" }},
		{"lab qemu version escape", lab, "lab.qemu_version", false, func(d map[string]any) { block(d, "lab")["qemu_version"] = "QEMU\x1b[31m" }},
		{"lab without config", lab, "config", false, func(d map[string]any) { delete(d, "config") }},
		{"lab a string", lab, "", false, func(d map[string]any) { d["lab"] = "tcg" }},
		// campaign
		{"campaign step 0", camp, "campaign.step", false, func(d map[string]any) { block(d, "campaign")["step"] = 0 }},
		{"campaign step -3", camp, "campaign.step", false, func(d map[string]any) { block(d, "campaign")["step"] = -3 }},
		{"campaign boot 0", camp, "campaign.boot", false, func(d map[string]any) { block(d, "campaign")["boot"] = 0 }},
		{"campaign boot after step", camp, "campaign.boot", true, func(d map[string]any) { block(d, "campaign")["boot"] = 3 }},
		{"campaign step 1.5", camp, "", false, func(d map[string]any) { block(d, "campaign")["step"] = 1.5 }},
		{"campaign id empty", camp, "campaign.id", false, func(d map[string]any) { block(d, "campaign")["id"] = "" }},
		{"campaign id newline", camp, "campaign.id", false, func(d map[string]any) { block(d, "campaign")["id"] = "c\nd" }},
		{"campaign id baseline", camp, "campaign.id", false, func(d map[string]any) { block(d, "campaign")["id"] = "baseline:x" }},
		{"campaign without config", camp, "config", false, func(d map[string]any) { delete(d, "config") }},
		// stopping and warmup
		{"stopping unknown rule", stop, "results[0].stopping.rule", false, func(d map[string]any) { res0(d, "stopping")["rule"] = "luck" }},
		{"stopping unknown reason", stop, "results[0].stopping.reason", false, func(d map[string]any) { res0(d, "stopping")["reason"] = "tired" }},
		{"stopping count reason under precision", stop, "results[0].stopping.reason", false, func(d map[string]any) { res0(d, "stopping")["reason"] = "count" }},
		{"stopping precision without target", stop, "results[0].stopping.target_pct", false, func(d map[string]any) { res0(d, "stopping")["target_pct"] = nil }},
		{"stopping target 0", stop, "results[0].stopping.target_pct", false, func(d map[string]any) { res0(d, "stopping")["target_pct"] = 0 }},
		{"stopping target 150", stop, "results[0].stopping.target_pct", false, func(d map[string]any) { res0(d, "stopping")["target_pct"] = 150 }},
		{"stopping achieved negative", stop, "results[0].stopping.achieved_pct", false, func(d map[string]any) { res0(d, "stopping")["achieved_pct"] = -1 }},
		{"stopping achieved huge", stop, "results[0].stopping.achieved_pct", false, func(d map[string]any) { res0(d, "stopping")["achieved_pct"] = 1e300 }},
		{"stopping achieved text", stop, "", false, func(d map[string]any) { res0(d, "stopping")["achieved_pct"] = "1%" }},
		{"stopping reached but wider", stop, "results[0].stopping.achieved_pct", true, func(d map[string]any) { res0(d, "stopping")["achieved_pct"] = 2.5 }},
		{"stopping reached without interval", stop, "results[0].stopping.achieved_pct", false, func(d map[string]any) { res0(d, "stopping")["achieved_pct"] = nil }},
		{"stopping count with a target", stop, "results[0].stopping.target_pct", false, func(d map[string]any) {
			res0(d, "stopping")["rule"], res0(d, "stopping")["reason"] = "count", "count"
		}},
		{"warmup unknown rule", stop, "results[0].warmup.rule", false, func(d map[string]any) { res0(d, "warmup")["rule"] = "guess" }},
		{"warmup negative", stop, "results[0].warmup.discarded", false, func(d map[string]any) { res0(d, "warmup")["discarded"] = -1 }},
		{"warmup huge", stop, "results[0].warmup.discarded", false, func(d map[string]any) { res0(d, "warmup")["discarded"] = 1e6 }},
		{"warmup a number", stop, "", false, func(d map[string]any) { d["results"].([]any)[0].(map[string]any)["warmup"] = 3 }},
		// spec_controls
		{"spec unknown control", spec, "results[0].spec_controls[0].control", false, func(d map[string]any) { sc(d, 0)["control"] = "stibp" }},
		{"spec unknown state", spec, "results[0].spec_controls[0].requested", false, func(d map[string]any) { sc(d, 0)["requested"] = "maybe" }},
		{"spec l1d_flush force", spec, "results[0].spec_controls[1].requested", false, func(d map[string]any) { sc(d, 1)["requested"] = "force" }},
		{"spec control twice", spec, "results[0].spec_controls[1].control", true, func(d map[string]any) {
			sc(d, 1)["control"], sc(d, 1)["requested"] = "ssbd", "off"
		}},
		{"spec nothing verified", spec, "results[0].spec_controls[0].verified", false, func(d map[string]any) { sc(d, 0)["verified"] = []any{} }},
		{"spec task not in the state", spec, "results[0].spec_controls[0].verified[1].state", true, func(d map[string]any) {
			tasks(d, 0, 1)["state"] = "thread vulnerable"
		}},
		{"spec unknown role", spec, "results[0].spec_controls[0].verified[0].role", false, func(d map[string]any) { tasks(d, 0, 0)["role"] = "daemon" }},
		{"spec unknown source", spec, "results[0].spec_controls[0].verified[0].source", false, func(d map[string]any) { tasks(d, 0, 0)["source"] = "/etc/shadow" }},
		{"spec no process", spec, "results[0].spec_controls[0].verified[1].processes", false, func(d map[string]any) { tasks(d, 0, 1)["processes"] = 0 }},
		{"spec fewer tasks than processes", spec, "results[0].spec_controls[0].verified[1].tasks", true, func(d map[string]any) { tasks(d, 0, 1)["tasks"] = 0.0 + 1; tasks(d, 0, 1)["processes"] = 2 }},
		{"spec expected escape", spec, "results[0].spec_controls[0].expected", false, func(d map[string]any) { sc(d, 0)["expected"] = "thread\x1b[2J" }},
		{"spec an object", spec, "", false, func(d map[string]any) {
			d["results"].([]any)[0].(map[string]any)["spec_controls"] = map[string]any{"ssbd": "force"}
		}},
	} {
		doc := c.base(t)
		c.edit(doc)
		gerr := goCheck(doc)
		var ie *run.InvalidError
		switch {
		case gerr == nil:
			t.Errorf("%s: Validate accepted it", c.name)
		case c.field != "" && (!errors.As(gerr, &ie) || ie.Field != c.field):
			t.Errorf("%s: Validate said %v; want the field %s", c.name, gerr, c.field)
		case strings.Contains(gerr.Error(), "\n"):
			t.Errorf("%s: the error is not one line: %q", c.name, gerr)
		}
		serr := schemaCheck(s, doc)
		if !c.goOnly && serr == nil {
			t.Errorf("%s: the schema accepted it", c.name)
		}
		if c.goOnly && serr != nil {
			t.Errorf("%s: the schema refuses it (%v): it is not Validate-only", c.name, serr)
		}
	}
}

// TestSpecVocabulary keeps the document's vocabulary of spec controls in
// step with the controls internal/workload applies, and the schema's
// enumerations in step with Validate's.
func TestSpecVocabulary(t *testing.T) {
	var names []string
	for _, k := range run.SpecControlKinds {
		names = append(names, k.Control)
		for _, state := range []string{"force", "on", "off", "auto"} {
			_, perr := workload.ParseSpecCtl([]string{k.Control + "=" + state})
			if accepted := slices.Contains(k.States, state); accepted != (perr == nil) {
				t.Errorf("%s=%s: the document accepts it %v, sectax run --spec says %v", k.Control, state, accepted, perr)
			}
		}
	}
	if want := workload.SpecCtlNames(); !slices.Equal(names, want) {
		t.Errorf("the document knows the controls %v, internal/workload applies %v", names, want)
	}

	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum  []string `json:"enum"`
				Items struct {
					Properties map[string]struct {
						Enum []string `json:"enum"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	spec := schema.Defs["specControl"].Properties
	states := []string{}
	for _, k := range run.SpecControlKinds {
		for _, st := range k.States {
			if !slices.Contains(states, st) {
				states = append(states, st)
			}
		}
	}
	for what, pair := range map[string][2][]string{
		"lab.accel":         {schema.Defs["lab"].Properties["accel"].Enum, run.Accelerators},
		"control":           {spec["control"].Enum, names},
		"requested":         {spec["requested"].Enum, states},
		"verified[].role":   {spec["verified"].Items.Properties["role"].Enum, run.SpecRoles},
		"verified[].source": {spec["verified"].Items.Properties["source"].Enum, run.SpecSources},
	} {
		if !slices.Equal(pair[0], pair[1]) {
			t.Errorf("%s: the schema lists %v, Validate %v", what, pair[0], pair[1])
		}
	}
}
