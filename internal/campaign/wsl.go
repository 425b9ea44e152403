package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/userfile"
	"github.com/sectax/sectax/internal/wslconfig"
)

// WSL reboots a WSL 2 guest: it puts the step's parameters into
// kernelCommandLine of %UserProfile%\.wslconfig (the lossless editor, a
// backup beside the file, the original kept in the campaign), writes a
// small batch file beside it, and starts that batch file on the Windows
// side through interop, detached:
//
//	cmd.exe /d /c start "sectax campaign" /min C:\Users\NAME\.sectax-campaign-resume.cmd
//
// The batch file runs wsl.exe --shutdown (which ends this VM, and this
// process with it; the Windows-side cmd.exe survives, because it is a
// Windows process in a console of its own), waits 8 seconds (WSL applies a
// changed .wslconfig only once the VM has fully stopped), and starts
// `sectax campaign resume` in the distribution again with wsl.exe -d.
// This path is untested on real Windows: tests run it against fake
// interop programs. --via manual is the fallback that always works.
type WSL struct {
	// Path is the .wslconfig to edit.
	Path string
	// Distro is the distribution to start again ($WSL_DISTRO_NAME).
	Distro string
	// Exec runs the interop programs (cmd.exe, wslpath) and returns
	// their standard output.
	Exec func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Now stamps the .wslconfig backup.
	Now func() time.Time
}

// ScriptName is the batch file beside .wslconfig that restarts WSL.
const ScriptName = ".sectax-campaign-resume.cmd"

// Name is "wsl".
func (w *WSL) Name() string { return "wsl" }

// Check makes sure the file can be edited and the distribution is known.
func (w *WSL) Check(ctx context.Context, req BootRequest) error {
	if w.Path == "" {
		return fmt.Errorf("cannot tell where .wslconfig is; pass --wslconfig /mnt/c/Users/NAME/.wslconfig")
	}
	if w.Distro == "" {
		return fmt.Errorf("cannot tell the WSL distribution ($WSL_DISTRO_NAME is empty); pass --distro NAME")
	}
	data, _, err := wslconfig.ReadFile(w.Path)
	if err != nil {
		return err
	}
	if _, err := wslconfig.Parse(data); err != nil {
		return fmt.Errorf("%s: %v", w.Path, err)
	}
	return nil
}

// Boot edits .wslconfig for req's configuration and has Windows restart
// the VM and resume the campaign.
func (w *WSL) Boot(ctx context.Context, req BootRequest, record func(Change) error) error {
	target, err := wslconfig.Target(w.Path)
	if err != nil {
		return err
	}
	data, exists, err := wslconfig.ReadFile(target)
	if err != nil {
		return err
	}
	f, err := wslconfig.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %v", target, err)
	}
	var names []string
	for _, c := range req.Plan {
		for _, p := range c.Params {
			names = append(names, p.Name)
		}
	}
	if len(names) > 0 {
		if f, _, err = f.Unset(names); err != nil {
			return fmt.Errorf("%s: %v", target, err)
		}
	}
	if toks := req.Config.Tokens(); len(toks) > 0 {
		if f, _, err = f.Set(toks); err != nil {
			return fmt.Errorf("%s: %v", target, err)
		}
	}
	out := f.Bytes()
	// Recorded before it is written, with the hash of what will be
	// written: restore puts back only a file that still holds it. The
	// first record keeps the original; a later boot only updates the hash.
	if err := record(Change{Kind: "file", Path: target, What: ".wslconfig", Original: data, Existed: exists, SHA256: hashOf(out)}); err != nil {
		return err
	}
	if string(out) != string(data) {
		var old []byte
		if exists {
			old = data
		}
		now := time.Now
		if w.Now != nil {
			now = w.Now
		}
		if _, err := wslconfig.WriteFile(target, old, out, now()); err != nil {
			return err
		}
	}
	script := filepath.Join(filepath.Dir(target), ScriptName)
	text := []byte(resumeScript(req, w.Distro))
	if err := record(Change{Kind: "created", Path: script, What: "resume script", SHA256: hashOf(text)}); err != nil {
		return err
	}
	if err := userfile.WriteNew(script, text); err != nil {
		return fmt.Errorf("cannot write %s: %v", script, err)
	}
	win, err := w.Exec(ctx, "wslpath", "-w", script)
	if err != nil {
		return fmt.Errorf("wslpath -w %s: %v (is interop enabled? else use --via manual)", script, err)
	}
	ui.Or(req.Out).Notef("%s: .wslconfig set for %s; Windows now restarts WSL and resumes the campaign", req.StepOf(), req.Config.Name)
	if _, err := w.Exec(ctx, "cmd.exe", "/d", "/c", "start", "sectax campaign", "/min", strings.TrimSpace(string(win))); err != nil {
		return fmt.Errorf("cmd.exe could not start %s (%v); run it by hand from Windows, or use --via manual", ScriptName, err)
	}
	return nil
}

// resumeScript is the batch file (CRLF line ends) that restarts WSL and
// resumes the campaign.
func resumeScript(req BootRequest, distro string) string {
	lines := []string{
		"@echo off",
		fmt.Sprintf("rem sectax campaign %s: restart WSL with the .wslconfig of the next step and resume it.", req.CampaignID),
		"rem Written by 'sectax campaign'; removed when the campaign ends.",
		"wsl.exe --shutdown",
		"timeout /t 8 /nobreak >nul",
		fmt.Sprintf("wsl.exe -d %s%s --exec %s --db %s campaign resume", batchQuote(distro), asUser(), batchQuote(req.Options.Exe), batchQuote(req.Options.DB)),
	}
	return strings.Join(lines, "\r\n") + "\r\n"
}

// asUser is the -u option that resumes as the user who started the
// campaign, where its plan is: root (sudo) keeps it below
// /var/lib/sectax, which the distribution's default user cannot read.
func asUser() string {
	if os.Geteuid() == 0 {
		return " -u root"
	}
	return ""
}

// batchQuote quotes a word for cmd.exe (percent signs doubled).
func batchQuote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, "%", "%%"), `"`, `""`) + `"`
}
