package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/run"
)

// testCampaignRoundTrip (in the suite over both backends): a campaign and
// its steps are stored and read back whole; one running campaign at a
// time; unknown references refused.
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
	var active *ActiveCampaignError
	if err := d.CreateCampaign(ctx, &second); !errors.As(err, &active) || active.ID != c.ID {
		t.Fatalf("second running campaign: %v", err)
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
	got, err := d.FindCampaign(ctx, "20261130")
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
	if err := d.SaveCampaign(ctx, &missing); !errors.Is(err, ErrNoCampaign) {
		t.Fatalf("save of an unknown campaign: %v", err)
	}
}
