package campaign

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
)

// RebootCost is what each step adds to its run in a campaign's estimate:
// the reboot (kexec, or Windows restarting WSL), the boot's verification
// and the quiet start before the measurement.
const RebootCost = time.Minute

// Estimate is how long a campaign of steps boots takes when one run takes
// run: each step is a reboot and a run.
func Estimate(run plan.Estimate, steps int) plan.Estimate {
	if run.Duration == 0 {
		return plan.Estimate{}
	}
	return run.Times(steps, RebootCost)
}

// Preview is a campaign as 'campaign start --dry-run' shows it: what
// start would do, in order, without doing any of it.
type Preview struct {
	Via   string `json:"via"`
	Label string `json:"label"`
	// LabelFromID says that XXXXXX in Label is the end of the campaign's
	// id, drawn at start (no --label).
	LabelFromID bool `json:"label_from_id,omitempty"`
	// Seed orders the steps; SeedDrawn says it was drawn for the preview
	// (start draws another unless given --seed).
	Seed      int64  `json:"seed"`
	SeedDrawn bool   `json:"seed_drawn"`
	Suite     string `json:"suite"`
	// Configs are NAME: PARAMS ("on: the default command line").
	Configs []PreviewConfig `json:"configs"`
	Steps   []PreviewStep   `json:"steps"`
	// Changes are what start and the steps change on this machine, each
	// with how it is put back.
	Changes []PreviewChange `json:"changes"`
	// Resume is how the campaign continues after each boot.
	Resume string `json:"resume"`
	// Notes are what else start needs (root, a Windows drive).
	Notes    []string      `json:"notes,omitempty"`
	Estimate plan.Estimate `json:"-"`
}

// PreviewConfig is one configuration of a preview.
type PreviewConfig struct {
	Name   string `json:"name"`
	Params string `json:"params"`
}

// PreviewStep is one boot of a preview: its configuration and the exact
// kernel command line it must have.
type PreviewStep struct {
	Step    int    `json:"step"`
	Config  string `json:"config"`
	Boot    int    `json:"boot"`
	Cmdline string `json:"cmdline"`
}

// PreviewChange is one thing a campaign changes and how it is put back.
type PreviewChange struct {
	What    string `json:"what"`
	Restore string `json:"restore"`
}

// MakePreview is the plan of req (from Prepare) on the machine of snap
// under root, with systemd as PID 1 or not: the steps in order with each
// boot's command line, what is changed and how it is put back, how resume
// happens, and the estimate. It changes nothing.
func MakePreview(ctx context.Context, req *StartRequest, snap *sysinfo.Snapshot, root string) (*Preview, error) {
	boots := req.Boots
	if boots == 0 {
		boots = DefaultBoots
	}
	p := &Preview{Via: req.Via, Label: req.Label, Seed: req.Seed, Suite: req.Options.Suite, Estimate: req.Estimate}
	if p.Seed == 0 {
		p.Seed, p.SeedDrawn = rand.Int64N(1<<53)+1, true
	}
	if p.Label == "" {
		p.Label, p.LabelFromID = "campaign-XXXXXX", true
	}
	steps, err := Schedule(req.Configs, boots, p.Seed)
	if err != nil {
		return nil, err
	}
	for _, c := range req.Configs {
		params := c.String()
		if params == "" {
			params = "the default command line"
		}
		p.Configs = append(p.Configs, PreviewConfig{Name: c.Name, Params: params})
	}
	base := snap.Cmdline.Raw
	for i, s := range steps {
		for _, c := range req.Configs {
			if c.Name == s.Config {
				p.Steps = append(p.Steps, PreviewStep{Step: i + 1, Config: s.Config, Boot: s.Boot, Cmdline: c.Cmdline(base, req.Configs)})
			}
		}
	}
	h := &Host{Root: root}
	id := "ID"
	p.Changes = append(p.Changes, PreviewChange{
		What:    fmt.Sprintf("write the campaign's plan %s (only its owner may read it): what resume and abort do comes from it, never from the store", h.PlanPath(id)),
		Restore: "left in place as the campaign's record on this host"})
	resume := ResumeCommand(req.Options)
	switch {
	case req.Via == "wsl":
		p.Resume = fmt.Sprintf("through Windows: the resume script runs wsl.exe --shutdown, then '%s' in distribution %s", resume, req.Options.Distro)
	case h.Systemd():
		p.Resume = fmt.Sprintf("the systemd unit %s runs '%s' at every boot (ID: the campaign's id, drawn at start)", UnitName(id), resume)
		p.Changes = append(p.Changes, PreviewChange{
			What:    fmt.Sprintf("install the resume unit %s and enable it (%s)", h.UnitPath(id), h.UnitLink(id)),
			Restore: "both removed when the campaign finishes, fails or is aborted (if they still hold what sectax wrote)"})
	default:
		p.Resume = fmt.Sprintf("by hand: systemd is not PID 1, so after each boot run '%s'", resume)
	}
	switch req.Via {
	case "kexec":
		img := req.Options.Kernel
		if req.Options.Initrd != "" {
			img += " with initrd " + req.Options.Initrd
		}
		p.Changes = append(p.Changes, PreviewChange{
			What:    fmt.Sprintf("load %s by kexec_file_load with the step's command line, then reboot into it (systemctl kexec, else reboot(2) after a sync)", img),
			Restore: "nothing persistent is changed: the boot loader's configuration is never edited, and a power cycle boots the default kernel and command line"})
	case "wsl":
		p.Changes = append(p.Changes,
			PreviewChange{
				What:    fmt.Sprintf("edit %s: kernelCommandLine gets the step's parameters (a backup beside it, as 'sectax wslconfig set' makes)", req.Options.WSLConfig),
				Restore: "put back byte for byte at the end (abort too), if it still holds what sectax wrote"},
			PreviewChange{
				What:    "write the resume script " + filepath.Join(filepath.Dir(req.Options.WSLConfig), ScriptName) + " and start it through Windows interop (cmd.exe)",
				Restore: "removed at the end"})
	case "manual":
		p.Changes = append(p.Changes, PreviewChange{
			What:    "no boot configuration: before each step sectax prints the command line to boot with, and you reboot",
			Restore: "nothing to put back; boot the default command line when it is over"})
	}
	if ref, err := store.ParseRef(req.Options.DB); err == nil && ref.HasPassword() {
		p.Changes = append(p.Changes, PreviewChange{
			What:    "write the store's password to " + h.PassfilePath(id) + " (root only), so that the unit and the options name the URL without it",
			Restore: "removed with the unit"})
	}
	// What start checks before it changes anything, said here rather
	// than refused: the preview is worth reading all the same.
	var mech Mechanism
	switch req.Via {
	case "kexec":
		mech = &Kexec{Kernel: req.Options.Kernel, Initrd: req.Options.Initrd, HostSet: req.Options.HostSet}
	case "wsl":
		mech = &WSL{Path: req.Options.WSLConfig, Distro: req.Options.Distro}
	}
	if req.Options.HostSet != "" {
		p.Notes = append(p.Notes, fmt.Sprintf("this guest's kernel command line is set by %s (no boot loader configuration here): a reboot or a restart by the host comes back with the host's line, so only kexec boots the steps' lines; where kexec cannot, %s", req.Options.HostSet, LabInstead))
	}
	if mech != nil {
		if err := mech.Check(ctx, BootRequest{Options: req.Options}); err != nil {
			p.Notes = append(p.Notes, "start will refuse this as it stands: "+err.Error())
		}
	}
	if req.Via == "kexec" && os.Geteuid() != 0 {
		p.Notes = append(p.Notes, "start needs root (kexec_file_load needs CAP_SYS_BOOT; the unit goes to /etc/systemd/system): sudo sectax campaign start …")
	}
	return p, nil
}
