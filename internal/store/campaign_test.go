package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/run"
)

// testCampaignRoundTrip (in the suite over both backends): a campaign and
// its steps are stored and read back whole; many hosts' campaigns run at
// once (which is whose is the campaign package's); a save makes the row and
// its steps exactly the campaign (a deleted row is made again, extra steps
// go); unknown references refused.
func testCampaignRoundTrip(t *testing.T, openTemp opener) {
	ctx := context.Background()
	d, _ := openTemp(t)
	if _, err := d.FindCampaign(ctx, ""); !errors.Is(err, ErrNoCampaign) {
		t.Fatalf("empty store: %v", err)
	}
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	c := &Campaign{ID: "20261130T230000-abcdef", Created: now, Updated: now, Label: "cmp", Via: "manual", Seed: 42,
		Configs: `[{"name":"on","params":""}]`, Options: `{"suite":"quick"}`, BaseCmdline: "quiet", StartBootID: "b0",
		State: "running", Changes: "[]",
		Steps: []CampaignStep{{Index: 0, Config: "off", Boot: 1, Status: "pending"}, {Index: 1, Config: "on", Boot: 1, Status: "pending"}}}
	if err := d.CreateCampaign(ctx, c); err != nil {
		t.Fatal(err)
	}
	second := *c
	second.ID = "20261130T230001-123456"
	second.Options = `{"suite":"quick","machine":{"hostname":"b","key":"k_b"}}`
	if err := d.CreateCampaign(ctx, &second); err != nil {
		t.Fatalf("a second host's running campaign: %v", err)
	}
	if got, err := d.FindCampaignOf(ctx, `"key":"k_b"`); err != nil || got.ID != second.ID {
		t.Fatalf("the campaign of host b: %v %v", got, err)
	}
	if _, err := d.FindCampaignOf(ctx, `"key":"k%"`); !errors.Is(err, ErrNoCampaign) {
		t.Fatalf("a mark is not a pattern: %v", err)
	}
	c.Steps[0].Status, c.Steps[0].Attempts, c.Steps[0].FromBootIDs = "measured", 2, []string{"b0", "b1"}
	c.Steps[0].BootID = "b2"
	c.Steps[0].Verification = &run.Verification{OK: true, BootID: "b2", Cmdline: "quiet mitigations=off", ExpectedOff: []string{"spectre_v2"}}
	c.Steps[0].Quiet, c.Steps[0].QuietWait, c.Steps[0].RunID = "load average 0.10 below 0.50", 1500*time.Millisecond, "r1"
	c.Next, c.Message, c.Changes = 1, "waiting", `[{"kind":"created","path":"/x","what":"systemd unit"}]`
	c.Updated = now.Add(time.Minute)
	if err := d.SaveCampaign(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := d.FindCampaign(ctx, "20261130T230000")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	if _, err := d.FindCampaign(ctx, "nope"); !errors.Is(err, ErrNoCampaign) {
		t.Fatalf("unknown ref: %v", err)
	}
	missing := *c
	missing.ID = "gone"
	if err := d.SaveCampaign(ctx, &missing); err != nil {
		t.Fatalf("save of a campaign whose row was deleted: %v", err)
	}
	one := *c
	one.Steps = c.Steps[:1]
	if err := d.SaveCampaign(ctx, &one); err != nil {
		t.Fatal(err)
	}
	if got, err := d.Campaign(ctx, c.ID); err != nil || len(got.Steps) != 1 {
		t.Fatalf("steps beyond the campaign's are removed: %v %v", got, err)
	}
}

// TestCampaignStepsBounded: a campaign row with far more steps than any
// sectax plans is read up to MaxCampaignSteps, the rest counted.
func TestCampaignStepsBounded(t *testing.T) {
	ctx := context.Background()
	d, err := refOf(t.TempDir()+"/s.db").Open(ctx, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c := &Campaign{ID: "c1", Configs: "[]", State: "running"}
	for i := 0; i < MaxCampaignSteps+500; i++ {
		c.Steps = append(c.Steps, CampaignStep{Index: i, Config: "on", Boot: i + 1, Status: "pending"})
	}
	if err := d.SaveCampaign(ctx, c); err != nil {
		t.Fatal(err)
	}
	// A message a little over the bound is cut; one of 10 MiB is not read
	// at all (its length is taken in the query), only its size said.
	if _, err := d.db.ExecContext(ctx, `UPDATE campaigns SET message = ?`, strings.Repeat("x", maxCampaignText+100)); err != nil {
		t.Fatal(err)
	}
	got, err := d.Campaign(ctx, "c1")
	if err != nil || len(got.Steps) != MaxCampaignSteps || got.MoreSteps != 500 || len(got.Message) != maxCampaignText {
		t.Fatalf("%d steps, %d more, message of %d bytes, %v", len(got.Steps), got.MoreSteps, len(got.Message), err)
	}
	if _, err := d.db.ExecContext(ctx, `UPDATE campaigns SET message = ?`, strings.Repeat("x", 10<<20)); err != nil {
		t.Fatal(err)
	}
	got, err = d.Campaign(ctx, "c1")
	if err != nil || got.Message != "…[cut by sectax: 10485760 bytes stored]" {
		t.Fatalf("a 10 MiB message reads %.80q, %v", got.Message, err)
	}
}

// TestCampaignRefBounded: a reference that matches none of many
// campaigns names at most ten of them and how many more (someOf).
func TestCampaignRefBounded(t *testing.T) {
	ctx := context.Background()
	d, err := refOf(t.TempDir()+"/s.db").Open(ctx, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i := 0; i < 500; i++ {
		if err := d.SaveCampaign(ctx, &Campaign{ID: fmt.Sprintf("c%03d", i), Configs: "[]", State: "done"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range []string{"nosuch", "c"} {
		_, err = d.FindCampaign(ctx, ref)
		if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "and 490 more") {
			t.Fatalf("FindCampaign(%q): %.400v", ref, err)
		}
	}
}
