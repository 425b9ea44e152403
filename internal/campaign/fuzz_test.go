package campaign

import (
	"math"
	"testing"
)

// FuzzParseLoadAvg: any text gives a finite non-negative load or an
// error, never a panic.
func FuzzParseLoadAvg(f *testing.F) {
	for _, s := range []string{"0.42 0.30 0.25 1/123 4567\n", "", "   ", "NaN 1 1", "-1 0 0", "1e400", "3.00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseLoadAvg(s)
		if err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("%q gave %v", s, v)
		}
	})
}

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
