package run

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/sysinfo"
)

// docRun is a complete run of two results, for the document tests.
func docRun(id, label string) *Run {
	started := time.Date(2026, 11, 30, 6, 0, 0, 123456789, time.UTC)
	return &Run{
		Schema: Schema, ID: id, Label: label, Started: started,
		Finished: started.Add(90 * time.Second), Status: StatusComplete,
		Suite: "quick", Engine: "native", ToolVersion: "0.1.0-test", Repetitions: 3, Warmup: 1, Seed: 42,
		Env: &sysinfo.Snapshot{Kernel: sysinfo.Kernel{Release: "6.18.0-test"},
			Cmdline: sysinfo.Cmdline{Raw: "root=/dev/sda1 mitigations=off"}},
		Results: []Result{
			{Workload: "syscall-basic", Engine: "native", Params: map[string]any{"loops": int64(1000)},
				Metrics: []Metric{
					{Name: "usecs_per_op", Unit: "µs/op", Better: Lower, Samples: []float64{0.2, 0.19, 0.21}},
					{Name: "ops_per_sec", Unit: "ops/s", Better: Higher, Samples: []float64{5e6, 5.2e6, 4.8e6}},
				},
				Warnings: []string{"first repetition was slower"}},
			{Workload: "sched-pipe", Params: map[string]any{"loops": int64(100), "mode": "process"},
				Metrics:   []Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: Lower, Samples: []float64{8.1, 8.2, 8.0}}},
				Failures:  []string{"repetition 4: worker exited 1"},
				Footprint: &Footprint{Processes: 2, Threads: 2, RSSKiB: 4096, PSSKiB: 512}},
		},
		Notes: []string{"go-build skipped: no go toolchain"},
	}
}

// exportDocs is the runs as Export writes them.
func exportDocs(t testing.TB, runs ...*Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Export(&b, runs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDecodeForms(t *testing.T) {
	single := func(r *Run, f DocFormat) string {
		var b bytes.Buffer
		if err := WriteDocs(&b, []Doc{{Run: r}}, f); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	one := []byte(single(docRun("a", ""), FormatSingle))
	// What export wrote before arrays: documents one after another.
	two := []byte(single(docRun("a", ""), FormatSingle) + single(docRun("b", ""), FormatSingle))
	arr := exportDocs(t, docRun("a", ""), docRun("b", ""))
	lines := []byte(single(docRun("a", ""), FormatLines) + single(docRun("b", ""), FormatLines))
	arrays := append(exportDocs(t, docRun("a", "")), exportDocs(t, docRun("b", ""))...)
	for name, data := range map[string][]byte{"one": one, "stream": two, "array": arr, "jsonl": lines, "arrays": arrays} {
		runs, err := Decode(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "one" && len(runs) != 1 || name != "one" && len(runs) != 2 {
			t.Fatalf("%s: %d runs", name, len(runs))
		}
	}
}

func TestDecodeErrorsNameFileAndField(t *testing.T) {
	good := string(exportDocs(t, docRun("a", "")))
	cases := []struct{ name, doc, want string }{
		{"empty", "  \n", "bad.json: empty file"},
		{"syntax", `{"schema": `, "bad.json: value 1: not valid JSON"},
		{"schema", strings.Replace(good, `"sectax.run/v1"`, `"sectax.run/v9"`, 1), `bad.json: document 1 (run a): schema: "sectax.run/v9" is not "sectax.run/v1"`},
		{"better", strings.Replace(good, `"better": "higher"`, `"better": "up"`, 1), `bad.json: document 1 (run a): results[0].metrics[1].better: "up" is not lower or higher`},
		{"status", strings.Replace(good, `"complete"`, `"done"`, 1), `status: "done" is not running`},
		{"type", strings.Replace(good, `"runs": 3`, `"runs": "three"`, 1), `bad.json: document 1 (run a): runs: a JSON string cannot be a int`},
		{"id", strings.Replace(good, `"id": "a"`, `"id": ""`, 1), `id: missing`},
		{"dup", good + good, `bad.json: document 2 (run a): id: same id as document 1`},
		{"workload", strings.Replace(good, `"workload": "sched-pipe"`, `"workload": ""`, 1), `results[1].workload: missing`},
	}
	for _, c := range cases {
		_, err := Decode("bad.json", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestDecodeEnvMustBeObject(t *testing.T) {
	doc := strings.Replace(string(exportDocs(t, docRun("x", ""))), `"env": {`, `"env": 7, "x": {`, 1)
	if _, err := Decode("f.json", []byte(doc)); err == nil || !strings.Contains(err.Error(), "env") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzDecode: any input either fails with an error or decodes to
// documents that validate and survive WriteDocs → Decode unchanged.
func FuzzDecode(f *testing.F) {
	var b bytes.Buffer
	if err := Export(&b, nil); err != nil {
		f.Fatal(err)
	}
	r := docRun("seed", "on")
	if err := Export(&b, []*Run{r}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(`[` + `{"schema":"sectax.run/v1","id":"x","label":"","started":"2026-01-01T00:00:00Z","finished":"2026-01-01T00:00:01Z","status":"complete","suite":"","engine":"","tool_version":"","runs":1,"warmup":0,"seed":0,"env":{"a":[1,{"b":null}]},"results":[]}` + `]`))
	f.Add([]byte(`{"schema":"sectax.run/v1","id":"x","started":"2026-01-01T00:00:00Z","status":"failed","results":[{"workload":"w","params":{"k":1.5},"metrics":[{"name":"m","unit":"s","better":"lower","samples":[1e308]}]}]} {}`))
	f.Add([]byte(`{"env":"x"}`))
	f.Add([]byte(`{"schema":"sectax.run/v1","id":"on\u001b[2J","label":"baseline:x","started":"2026-01-01T00:00:00Z","finished":"2025-01-01T00:00:00Z","status":"complete","suite":"","engine":"","tool_version":"","runs":-5,"warmup":0,"seed":0,"env":null,"results":[]}`))
	f.Add([]byte("{\"schema\":\"sectax.run/v1\"}\n{\"schema\":\"sectax.run/v1\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Decode("fuzz.json", data)
		if err != nil {
			return
		}
		for _, d := range docs {
			if err := d.Run.Validate(); err != nil {
				t.Fatalf("Decode accepted an invalid run: %v", err)
			}
		}
		var out bytes.Buffer
		if err := WriteDocs(&out, docs, FormatArray); err != nil {
			t.Fatalf("WriteDocs: %v", err)
		}
		again, err := Decode("again.json", out.Bytes())
		if err != nil {
			t.Fatalf("re-decoding our own output: %v\n%s", err, out.Bytes())
		}
		var out2 bytes.Buffer
		if err := WriteDocs(&out2, again, FormatArray); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), out2.Bytes()) {
			t.Fatalf("not stable:\n%s\n---\n%s", out.Bytes(), out2.Bytes())
		}
	})
}
