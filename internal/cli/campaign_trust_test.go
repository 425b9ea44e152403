package cli

import (
	"database/sql"
	"os"
	"path/filepath"
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
