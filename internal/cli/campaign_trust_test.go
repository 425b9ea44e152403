package cli

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// campaignSQL runs q on the SQLite store of a campaign test behind
// sectax's back, as anyone who can write the file or its folder could.
func campaignSQL(t *testing.T, q string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", os.Getenv("SECTAX_DB"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestStoredCommandNeverRuns: a stored campaign's options rewritten to
// measure the cmd workload with a command of the writer's choosing do not
// make resume run it: resume measures what this host's plan says.
func TestStoredCommandNeverRuns(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	f := newFakeBoots(t)
	deps := campaignDepsFor(f)
	root := []string{"--root", f.root, "campaign"}
	if _, errOut, code := sectax(t, deps, append(append(root, "start"), tinyCampaign...)...); code != 0 {
		t.Fatalf("start: %d %s", code, errOut)
	}
	owned := filepath.Join(t.TempDir(), "owned")
	campaignSQL(t, `UPDATE campaigns SET options = ?`,
		`{"suite":"quick","only":["cmd"],"params":["cmd.cmd=touch `+owned+`"],"runs":1,"warmup":0,"exe":"/usr/local/bin/sectax","resume":"by hand"}`)
	_, errOut, _ := sectax(t, deps, append(root, "resume")...)
	if _, err := os.Lstat(owned); err == nil {
		t.Fatalf("resume ran the stored command (%s exists); stderr: %s", owned, errOut)
	}
}

// TestCampaignRootRefused: with --root naming another tree, campaign start
// and resume would measure this machine and store the run with the tree's
// environment: refused in one line (the dry run still shows the plan).
func TestCampaignRootRefused(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	f := newFakeBoots(t)
	deps := campaignDepsFor(f)
	deps.Campaign.Mechanism = nil
	for _, args := range [][]string{{"resume"}, append([]string{"start", "--via", "manual"}, tinyCampaign...)} {
		_, errOut, code := sectax(t, deps, append([]string{"--root", f.root, "campaign"}, args...)...)
		if code != ExitUsage || !strings.Contains(errOut, "describes another machine") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d %q", args[0], code, errOut)
		}
	}
	if _, errOut, code := sectax(t, deps, append([]string{"--root", f.root, "campaign", "start", "--via", "manual", "--dry-run"}, tinyCampaign...)...); code != 0 {
		t.Errorf("dry run: %d %s", code, errOut)
	}
}

// TestCampaignStatusTamperedSteps: a stored next_step out of range does not
// panic status or resume (status says the copy disagrees with the plan), and 200,000 stored steps give a bounded status
// that says how many more there are.
func TestCampaignStatusTamperedSteps(t *testing.T) {
	t.Setenv("SECTAX_DB", filepath.Join(t.TempDir(), "sectax.db"))
	f := newFakeBoots(t)
	deps := campaignDepsFor(f)
	root := []string{"--root", f.root, "campaign"}
	if _, errOut, code := sectax(t, deps, append(append(root, "start"), tinyCampaign...)...); code != 0 {
		t.Fatalf("start: %d %s", code, errOut)
	}
	for _, next := range []int{-1, -1 << 40, 1 << 40} {
		campaignSQL(t, `UPDATE campaigns SET next_step = ?`, next)
		if _, errOut, code := sectax(t, deps, append(root, "status")...); code != 0 || strings.Contains(errOut, "panic") ||
			!strings.Contains(errOut, "disagrees with this host's plan") || !strings.Contains(errOut, "next_step") {
			t.Fatalf("status at next_step %d: %d %s", next, code, errOut)
		}
	}
	campaignSQL(t, `WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i+1 FROM n WHERE i < 200001)
		INSERT INTO campaign_steps(campaign_id, idx, config, boot, status) SELECT (SELECT id FROM campaigns), i, 'on', i, 'pending' FROM n`)
	for _, format := range []string{"text", "json"} {
		out, errOut, code := sectax(t, deps, append(root, "status", "--format", format)...)
		if code != 0 || len(out) > 512<<10 || !strings.Contains(out, "200002") {
			t.Fatalf("status --format %s: exit %d, %d bytes; %s", format, code, len(out), errOut)
		}
	}
	// resume follows this host's plan: the store's copy is written again.
	_, errOut, code := sectax(t, deps, append(root, "resume")...)
	if code != 0 || !strings.Contains(errOut, "disagrees with this host's plan") {
		t.Fatalf("resume: %d %s", code, errOut)
	}
}
