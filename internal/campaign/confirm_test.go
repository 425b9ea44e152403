package campaign

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/plan"
)

// refuser is a Printer that refuses every question and remembers it.
type refuser struct {
	measure.Discard
	asked []string
}

func (r *refuser) Confirm(what string) error {
	r.asked = append(r.asked, what)
	return errors.New("not started")
}

// TestStartAsksBeforeLongWork: a campaign estimated at more than an hour
// is confirmed before anything is stored or booted (issue 39); refused,
// no campaign exists and no boot was asked for.
func TestStartAsksBeforeLongWork(t *testing.T) {
	r := newRig(t)
	p := &refuser{}
	r.e.Out = p
	est := plan.Estimate{Duration: 2 * time.Hour}
	_, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 2, Seed: 7, Label: "long", Estimate: est})
	if err == nil || len(p.asked) != 1 {
		t.Fatalf("err %v, asked %q; want one question and the refusal", err, p.asked)
	}
	if _, ferr := r.db.FindCampaign(context.Background(), ""); ferr == nil {
		t.Errorf("a refused campaign was stored")
	}
	if len(r.m.calls) != 0 {
		t.Errorf("a refused campaign touched the machine: %q", r.m.calls)
	}
}
