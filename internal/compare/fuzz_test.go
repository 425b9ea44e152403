package compare

import (
	"encoding/json"
	"testing"

	"github.com/sectax/sectax/internal/run"
)

// FuzzEnvDiff: whatever JSON an imported run carries as its env, Compare
// neither panics nor reports a difference between two identical envs.
func FuzzEnvDiff(f *testing.F) {
	on, _ := json.Marshal(envOn())
	off, _ := json.Marshal(envOff())
	f.Add(on, off)
	f.Add([]byte(`{"cmdline":{"raw":"a b  c"},"vulnerabilities":[{"name":"x"},{"name":"x","raw":1},null,7]}`), []byte(`{"cmdline":{"raw":null},"vulnerabilities":{}}`))
	f.Add([]byte(`{"kernel":"6.1","cpu":{"online":[1,2]},"boot_id":12}`), []byte(`{"kernel":{"release":{"x":1}},"smt":{"active":false}}`))
	f.Fuzz(func(t *testing.T, ja, jb []byte) {
		var ea, eb map[string]any
		if json.Unmarshal(ja, &ea) != nil || json.Unmarshal(jb, &eb) != nil {
			return
		}
		a := mkRun("a", "on", res("w", nil, lower("m", 1, 2, 3, 4, 5, 6)))
		b := mkRun("b", "off", res("w", nil, lower("m", 2, 3, 4, 5, 6, 7)))
		if _, err := pair(side("a", []*run.Run{a}, ea), side("b", []*run.Run{b}, eb), Options{}); err != nil {
			t.Fatalf("Compare: %v", err)
		}
		rep, err := pair(side("a", []*run.Run{a}, ea), side("b", []*run.Run{b}, ea), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := rep.Env; len(d.CmdlineAdded)+len(d.CmdlineRemoved)+len(d.Vulnerabilities)+len(d.Confounders) != 0 {
			t.Fatalf("identical envs differ: %+v", d)
		}
	})
}
