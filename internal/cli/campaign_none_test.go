package cli

import (
	"os"
	"strings"
	"testing"
)

// TestCampaignStatusNone: 'campaign status' with no campaign is a state,
// not a mistake: exit 0 with one line that says so and how to start one
// (JSON: null), with no database and with a store that holds runs but no
// campaign of this host; it makes no database. A campaign named that does
// not exist stays a usage error.
func TestCampaignStatusNone(t *testing.T) {
	f := newFakeBoots(t)
	e := newCLIEnv(t)
	code, out, stderr := e.run("--root", f.root, "campaign", "status")
	// One paragraph, wrapped to the width (report.Prose).
	if one := strings.Join(strings.Fields(out), " "); code != 0 || !strings.HasPrefix(one, "no campaign: no database at $TMP/data/sectax.db; start one with 'sectax campaign start'") || stderr != "" {
		t.Errorf("no database: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if _, err := os.Stat(e.db); !os.IsNotExist(err) {
		t.Errorf("status made a database: %v", err)
	}
	if code, _, stderr := e.run("import", "testdata/runs.json"); code != 0 {
		t.Fatal(stderr)
	}
	code, out, _ = e.run("--root", f.root, "campaign", "status")
	if one := strings.Join(strings.Fields(out), " "); code != 0 || !strings.HasPrefix(one, "no campaign of this host") || !strings.Contains(one, "start one with 'sectax campaign start'") {
		t.Errorf("no campaign in the store: exit %d, %q", code, out)
	}
	if code, out, _ = e.run("--root", f.root, "campaign", "status", "--format", "json"); code != 0 || out != "null\n" {
		t.Errorf("--format json: exit %d, %q, want null", code, out)
	}
	if code, _, stderr = e.run("--root", f.root, "campaign", "status", "nope"); code != ExitUsage || !strings.Contains(stderr, "no campaign in") {
		t.Errorf("a campaign named that is not there: exit %d, %q", code, stderr)
	}
}
