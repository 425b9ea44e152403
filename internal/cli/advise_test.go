package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// textAt is the golden file NAME under testdata/, or under
// internal/report/testdata/ for text (the report's renderers own them).
func textAt(name string) string {
	if strings.HasSuffix(name, ".text") {
		return filepath.Join("..", "report", "testdata", name)
	}
	return filepath.Join("testdata", name)
}

// TestAdviseGolden: one golden per platform shape and format.
func TestAdviseGolden(t *testing.T) {
	for _, tt := range testutil.AdviceCases {
		for _, format := range []string{"text", "json"} {
			out, errs, code := sectax(t, fixedDeps(nil), "advise", "--root", testutil.AdviseRoot(t, tt.Root), "--target", tt.Target, "--format", format)
			if code != ExitOK || errs != "" {
				t.Fatalf("%s: exit %d: %s", tt.Name, code, errs)
			}
			if format == "json" {
				var doc map[string]any
				if err := json.Unmarshal([]byte(out), &doc); err != nil || doc["schema"] != "sectax.advise/v1" {
					t.Errorf("%s: not a sectax.advise/v1 document: %v", tt.Name, err)
				}
			}
			testutil.Golden(t, textAt(filepath.Join("advise", tt.Name+"."+format)), []byte(out))
		}
	}
}

// TestAdviseOtherArchitectures: advise --target off on the arm64, powerpc
// and s390 machine trees lists only what mitigations=off changes there
// (the unconditional __user pointer sanitization and s390's etokens stay,
// arm64's KPTI stays under KASLR, CSV2 keeps CSV2 without BHB) and offers
// no x86 alternative.
func TestAdviseOtherArchitectures(t *testing.T) {
	for _, fx := range []string{"arm64-graviton3", "arm64-graviton1-a72", "powerpc-power9", "s390x-z15"} {
		for _, format := range []string{"text", "json"} {
			out, errs, code := sectax(t, fixedDeps(nil), "advise", "--root", testutil.SysinfoRoot(fx), "--target", "off", "--format", format)
			if code != ExitOK || errs != "" {
				t.Fatalf("%s: exit %d: %s", fx, code, errs)
			}
			if format == "json" {
				var doc struct {
					GivenUp      []struct{ Name string } `json:"given_up"`
					Kept         []struct{ Name string } `json:"kept"`
					Alternatives []struct{ ID string }   `json:"alternatives"`
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatal(err)
				}
				for _, g := range doc.GivenUp {
					if g.Name == "spectre_v1" && fx != "powerpc-power9" || fx == "s390x-z15" || g.Name == "meltdown" && fx == "arm64-graviton1-a72" {
						t.Errorf("%s: %s listed as given up by mitigations=off", fx, g.Name)
					}
				}
				for _, a := range doc.Alternatives {
					// The knowledge base's alternatives are x86's; a
					// computed one names this architecture's parameters
					// (advise.TestAlternativesOverRoots checks them).
					if !strings.HasPrefix(a.ID, "computed-") {
						t.Errorf("%s: alternative %s offered on a machine that is not x86", fx, a.ID)
					}
				}
			}
			testutil.Golden(t, filepath.Join("testdata", "advise-arch", fx+"."+format), []byte(out))
		}
	}
}

// TestAdviseDefaultTarget: without --target, advise plans for off.
func TestAdviseDefaultTarget(t *testing.T) {
	out, _, code := sectax(t, fixedDeps(nil), "advise", "--root", testutil.AdviseRoot(t, "debian-grub"))
	if code != 0 || !strings.HasPrefix(out, "Target: off (mitigations=off)") || !strings.Contains(out, "$ sudo update-grub") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestAdviseVerifyUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"advise", "--target", `foo="a b"`}, "contains a double quote"},
		{[]string{"advise", "--target", `mitigations="off`}, "unbalanced double quote"},
		{[]string{"advise", "--target", ""}, "empty target"},
		{[]string{"advise", "--target", "spectre_v2=off spectre_v2=auto"}, "given twice"},
		{[]string{"advise", "--format", "xml"}, `--format "xml" is not accepted`},
		{[]string{"advise", "extra"}, `sectax advise takes no arguments (got 1: extra)`},
		{[]string{"advise", "--root", "/nonexistent"}, "bad root directory"},
		{[]string{"verify"}, "sectax verify needs --expect: give off, auto (on is the same: no mitigation turned off), or kernel parameters"},
		{[]string{"verify", "--expect", `a="b c"`}, "contains a double quote"},
		{[]string{"verify", "--expect", "nopti -- x"}, `contains "--"`},
		{[]string{"verify", "--expect", "off", "--format", "csv"}, `--format "csv" is not accepted`},
	} {
		out, errs, code := sectax(t, fixedDeps(nil), tt.args...)
		if code != ExitUsage || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("sectax %q: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", tt.args, code, out, errs, tt.want)
		}
	}
}

// TestVerifyGolden: the verify results on the fake roots, with their exit
// codes: 0 when the expectation holds, 3 when it does not.
func TestVerifyGolden(t *testing.T) {
	for _, tt := range []struct {
		name, root, expect string
		code               int
		stderr             string
	}{
		{"on-auto", "sys:wsl2-intel-on", "auto", ExitOK, ""},
		{"on-off", "sys:wsl2-intel-on", "off", ExitUnmet, "the .wslconfig does not ask for off"},
		{"off-off", "sys:wsl2-intel-off", "off", ExitOK, ""},
		{"off-params", "sys:wsl2-intel-off", "mitigations=off audit=0", ExitOK, ""},
		{"off-auto", "sys:wsl2-intel-off", "auto", ExitUnmet, "expectation auto not met"},
		{"custom-vectors", "sys:firecracker-dev", "mitigations=auto,no_guest_host,no_guest_guest", ExitOK, ""},
		{"custom-off", "sys:firecracker-dev", "off", ExitUnmet, "cannot read where"},
		{"asked-off-not-applied", "wsl2-asked-off", "off", ExitUnmet, "has not restarted since the edit"},
		{"off-overridden", "wsl2-off-overridden", "off", ExitUnmet, "a per-bug parameter overrides"},
		{"grub-pending", "debian-grub-pending", "off", ExitUnmet, "has not rebooted"},
		{"old-kernel-ignored", "old-kernel-ignored", "off", ExitUnmet, "is older than some of them"},
	} {
		for _, format := range []string{"text", "json"} {
			out, errs, code := sectax(t, fixedDeps(nil), "verify", "--root", testutil.AdviseRoot(t, tt.root), "--expect", tt.expect, "--format", format)
			if code != tt.code {
				t.Errorf("%s: exit %d, want %d (%s)", tt.name, code, tt.code, errs)
			}
			if tt.code == ExitOK && errs != "" || tt.code != ExitOK && (!strings.Contains(errs, tt.stderr) || strings.Count(errs, "\n") != 1) {
				t.Errorf("%s: stderr %q, want one line containing %q", tt.name, errs, tt.stderr)
			}
			if format == "json" {
				var doc struct {
					Schema string `json:"schema"`
					Holds  bool   `json:"holds"`
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Schema != "sectax.verify/v1" || doc.Holds != (tt.code == ExitOK) {
					t.Errorf("%s: json %+v, %v", tt.name, doc, err)
				}
			}
			testutil.Golden(t, textAt(filepath.Join("verify", tt.name+"."+format)), []byte(out))
		}
	}
}

// TestVerifyOutputFile: -o writes the report even when the expectation is
// not met (exit 3), and nothing to stdout.
func TestVerifyOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verify.json")
	out, errs, code := sectax(t, fixedDeps(nil), "verify", "--root", testutil.AdviseRoot(t, "wsl2-asked-off"), "--expect", "off", "--format", "json", "-o", path)
	b, err := os.ReadFile(path)
	if code != ExitUnmet || out != "" || err != nil || !strings.Contains(string(b), `"holds": false`) {
		t.Errorf("exit %d, stdout %q, stderr %q, file %v %s", code, out, errs, err, b)
	}
}
