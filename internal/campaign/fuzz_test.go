package campaign

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/store"
)

// FuzzDecodeConfigs: a stored plan that does not decode is an error, never
// a panic; one that decodes round-trips.
func FuzzDecodeConfigs(f *testing.F) {
	for _, s := range []string{`[{"name":"on","params":""},{"name":"off","params":"mitigations=off"}]`,
		`[{"name":"x","params":"pti=off nosmt"}]`, `[]`, `{`, `[{"name":"on","params":"a=b"}]`, `[{"name":"","params":""}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := decodeConfigs(s)
		if err != nil {
			return
		}
		enc, err := encodeConfigs(cs)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeConfigs(enc)
		if err != nil || len(again) != len(cs) {
			t.Fatalf("%q → %s → %v %v", s, enc, again, err)
		}
		for i := range cs {
			if again[i].Name != cs[i].Name || again[i].String() != cs[i].String() {
				t.Fatalf("%q: %v then %v", s, cs[i], again[i])
			}
		}
	})
}

// FuzzLoadCampaign: a stored campaign row with any configurations,
// options, changes, position and steps loads or is refused in one line;
// never a panic. One that loads can be driven: its current step exists.
func FuzzLoadCampaign(f *testing.F) {
	f.Add(`[{"name":"on","params":""},{"name":"off","params":"mitigations=off"}]`, `{"suite":"quick","warmup":1}`, `[]`, 0, 2, "off", "pending", 0)
	f.Add(`[]`, `{`, `[{"kind":"created","path":"/etc/shadow"}]`, -1, 0, "", "", -3)
	f.Add(`[{"name":"on","params":""},{"name":"x","params":"pti=off"}]`, `{"runs":1000000000}`, `{}`, 99, 1, "x", "verified", 9)
	f.Fuzz(func(t *testing.T, configs, options, changes string, next, steps int, cfg, status string, attempts int) {
		steps = max(0, min(steps, 8))
		rec := &store.Campaign{ID: "20261130T230000-c0ffe1", Configs: configs, Options: options, Changes: changes, Next: next, State: Running}
		for i := 0; i < steps; i++ {
			rec.Steps = append(rec.Steps, store.CampaignStep{Index: i, Config: cfg, Boot: 1, Status: status, Attempts: attempts})
		}
		st, err := (&Engine{}).load(rec)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), rec.ID) {
				t.Fatalf("error %q", err)
			}
			salvage(rec)
			return
		}
		_ = st.rec.Steps[st.rec.Next] // a loaded running campaign has a current step
		if _, ok := bootconfig.Find(st.configs, st.rec.Steps[st.rec.Next].Config); !ok {
			t.Fatal("current step's configuration not in the plan")
		}
	})
}
