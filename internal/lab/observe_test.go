package lab

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
)

func observedPayload(cmdline, release string, files map[string]string) []byte {
	var vs []map[string]string
	for n, raw := range files {
		vs = append(vs, map[string]string{"name": n, "raw": raw, "state": "mitigated"})
	}
	b, _ := json.Marshal(map[string]any{"kernel": map[string]string{"release": release}, "cmdline": map[string]string{"raw": cmdline}, "vulnerabilities": vs})
	return b
}

// TestCheckObserved: a boot-only guest's snapshot is held to the line the
// host passed and the image's release; its files are bounded, plainly
// named, one printable line each, and their state is the host's reading
// of the text, not the guest's claim.
func TestCheckObserved(t *testing.T) {
	line := ObserveCmdline("mitigations=off")
	ok := observedPayload(line, "6.1.0-57-amd64", map[string]string{"meltdown": "Vulnerable", "spectre_v2": "Vulnerable\x1b]0;x\x07"})
	s, err := CheckObserved(ok, line, "6.1.0-57-amd64")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range s.Vulnerabilities {
		if v.State != mitigation.Vulnerable || strings.ContainsAny(v.Raw, "\x1b\x07") {
			t.Errorf("%s: state %s (the guest claimed mitigated), raw %q", v.Name, v.State, v.Raw)
		}
	}
	if _, err := CheckObserved(observedPayload("BOOT_IMAGE=x "+line, "6.1.0-57-amd64", nil), line, "6.1.0-57-amd64"); err != nil {
		t.Errorf("a built-in line before the host's: %v", err)
	}
	many := map[string]string{}
	for i := 0; i <= maxObservedFiles; i++ {
		many[fmt.Sprintf("f%d", i)] = "Not affected"
	}
	for name, tc := range map[string]struct {
		payload []byte
		want    string
	}{
		"cmdline": {observedPayload(ObserveCmdline(""), "6.1.0-57-amd64", nil), "refused"},
		"release": {observedPayload(line, "6.12.0", nil), "reports kernel"},
		"many":    {observedPayload(line, "6.1.0-57-amd64", many), "more than any kernel has"},
		"name":    {observedPayload(line, "6.1.0-57-amd64", map[string]string{"../../etc": "x"}), "named"},
		"json":    {[]byte("{"), "snapshot"},
	} {
		_, err := CheckObserved(tc.payload, line, "6.1.0-57-amd64")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", name, err, tc.want)
		}
	}
}

// FuzzCheckObserved: whatever a guest sends, CheckObserved never panics
// and what it accepts is bounded and single-line.
func FuzzCheckObserved(f *testing.F) {
	line := ObserveCmdline("")
	f.Add(observedPayload(line, "r", map[string]string{"meltdown": "Mitigation: PTI"}))
	f.Add([]byte(`{"vulnerabilities":[{"name":"a","raw":"\n\n"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := CheckObserved(data, line, "")
		if err != nil {
			return
		}
		if len(s.Vulnerabilities) > maxObservedFiles {
			t.Fatalf("%d files", len(s.Vulnerabilities))
		}
		for _, v := range s.Vulnerabilities {
			if strings.Contains(v.Raw, "\n") || len(v.Raw) > 4*maxObservedText {
				t.Fatalf("raw %q", v.Raw)
			}
		}
	})
}
