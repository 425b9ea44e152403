package campaign

import (
	"context"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/ui"
)

// Manual asks the user to reboot into each step's configuration; resume
// then verifies the boot like any other. It always works, on every
// platform, and changes nothing itself.
type Manual struct{}

// Name is "manual".
func (Manual) Name() string { return "manual" }

// Check accepts every machine.
func (Manual) Check(context.Context, BootRequest) error { return nil }

// Boot tells the user what the next boot must be.
func (Manual) Boot(_ context.Context, req BootRequest, _ func(Change) error) error {
	out := ui.Or(req.Out)
	add, drop := cmdlineDelta(req)
	out.Notef("%s: reboot into configuration %s by hand", req.StepOf(), req.Config.Name)
	out.Notef("  the kernel command line must be: %s", req.Cmdline)
	if len(add) > 0 {
		out.Notef("  it must carry: %s", strings.Join(add, " "))
	}
	if len(drop) > 0 {
		out.Notef("  it must not carry: %s", strings.Join(drop, " "))
	}
	out.Notef("  ('sectax advise --target \"PARAMS\"' shows how on this platform; on WSL: sectax wslconfig set/unset, then wsl --shutdown)")
	return nil
}

// cmdlineDelta is what the configuration adds, and the parameters of the
// plan's other configurations that must not be on the command line.
func cmdlineDelta(req BootRequest) (add, drop []string) {
	want := mitigation.ParseCmdline(req.Cmdline).Params
	for _, p := range req.Config.Params {
		add = append(add, p.Raw)
	}
	for _, o := range req.Plan {
		for _, p := range o.Params {
			if _, ok := mitigation.Lookup(want, p.Name); !ok && !slices.Contains(drop, p.Raw) {
				drop = append(drop, p.Raw)
			}
		}
	}
	return add, drop
}
