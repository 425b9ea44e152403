package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/sectax/sectax/internal/vm"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/workload"
)

// RegisterTasks registers the guest tasks of `sectax lab` (MeasureTask,
// vm.SnapshotTask) for the sectax of version that is the guest's /init.
func RegisterTasks(version string) {
	vm.RegisterTask(MeasureTask, func(ctx context.Context, g *vm.Guest) ([]byte, error) { return guestMeasure(ctx, g, version) })
	vm.RegisterSnapshot(version)
}

// guestMeasure is the measure task: verify this boot against its
// configuration (a boot that does not verify is never measured), run the
// suite with the same planning and runner as `sectax run`, and return the
// run document.
func guestMeasure(ctx context.Context, guest *vm.Guest, version string) ([]byte, error) {
	var in MeasureInput
	if err := json.Unmarshal(guest.Task.Input, &in); err != nil {
		return nil, fmt.Errorf("measure task input: %w", err)
	}
	env, err := vm.GuestEnv(ctx, version)
	if err != nil {
		return nil, err
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return nil, err
	}
	v := bootconfig.Verify(env, in.Config, in.Plan, in.SeenBootIDs, kb)
	if !v.OK {
		return nil, fmt.Errorf("%w: this boot does not verify as configuration %s, so it was not measured: %s", vm.ErrNotVerified, in.Config.Name, strings.Join(v.Reasons, "; "))
	}
	guest.Logf("verified %s: boot %s, command line %q", in.Config.Name, v.BootID, v.Cmdline)
	req := in.Request
	if req.Timeout <= 0 {
		req.Timeout = plan.DefaultTimeout
	}
	req.Engines = []string{"native"}
	pl, err := plan.Make(ctx, workload.Default(), req)
	if err != nil {
		return nil, err
	}
	s := measure.Session{Plan: pl, Meta: measure.Meta{
		ID: in.RunID, Label: in.Label, Engine: "native", Version: version, Env: env, Config: bootconfig.Record(in.Config, v),
		Exe: "/proc/self/exe", WorkerArgs: []string{workload.WorkerCommand},
	}}
	r, err := s.Measure(ctx, measure.WordsOnly{Printer: newGuestPrinter(guest, time.Now)})
	if r == nil || (err != nil && r.Status != run.StatusFailed) {
		return nil, err // a run with failed repetitions is returned: the host stores what it measured
	}
	return EncodeRun(r)
}

// guestPrinter is a lab guest's printer: its notes are log lines to the
// host, and its status line of progress (one a repetition) is logged at
// most every 5 s, for a guest has no terminal to redraw it on and the
// host says every log line. It never asks: the host confirmed the lab.
type guestPrinter struct {
	log  logger
	now  func() time.Time
	last time.Time
}

// logger is where a guest's log lines go (vm.Guest).
type logger interface{ Logf(format string, a ...any) }

func newGuestPrinter(log logger, now func() time.Time) *guestPrinter {
	return &guestPrinter{log: log, now: now, last: now()}
}

func (p *guestPrinter) Notef(format string, a ...any) { p.log.Logf(format, a...) }

func (p *guestPrinter) Status(line string) {
	if line == "" {
		return
	}
	if t := p.now(); t.Sub(p.last) > 5*time.Second {
		p.last = t
		p.log.Logf("%s", line)
	}
}

func (*guestPrinter) Confirm(string) error { return nil }
