package store

import (
	"bytes"
	"testing"

	"github.com/sectax/sectax/internal/run"
)

// FuzzDecode: any input either fails with an error or decodes to
// documents that validate and survive WriteDocs → Decode unchanged.
func FuzzDecode(f *testing.F) {
	var b bytes.Buffer
	if err := Export(&b, nil); err != nil {
		f.Fatal(err)
	}
	r := testRun("seed", "on")
	if err := Export(&b, []*run.Run{r}); err != nil {
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
