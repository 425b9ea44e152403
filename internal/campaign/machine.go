package campaign

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/sysinfo"
)

// Mechanism reboots the machine into a step's configuration.
type Mechanism interface {
	// Name is kexec, wsl or manual.
	Name() string
	// Check says, before the campaign is stored, whether the mechanism
	// can work here (a one-line error naming the fix when not).
	Check(ctx context.Context, req BootRequest) error
	// Boot asks the machine to boot into req's configuration. Everything
	// it changes on the system it first hands to record, which stores it
	// in the campaign, so that restore can put it back even after a
	// crash. It returns once the reboot is requested (kexec, wsl) or the
	// user has been told what to do (manual).
	Boot(ctx context.Context, req BootRequest, record func(Change) error) error
}

// BootRequest is one boot a mechanism is asked for.
type BootRequest struct {
	CampaignID string
	// Step is 1-based; Steps the length of the plan.
	Step, Steps int
	Config      config.Config
	Plan        []config.Config
	// Cmdline is the whole command line of the boot (config.Cmdline of
	// the command line the campaign started from).
	Cmdline string
	// Changes are what the campaign has changed so far.
	Changes []Change
	Options Options
	// Say tells the user something (the manual mechanism's steps).
	Say func(format string, a ...any)
}

// Change is one thing a campaign changed on the system, as stored until
// restore puts it back.
type Change struct {
	// Kind is "created" (a file or link sectax created: restore removes
	// it), "file" (a file sectax edited: restore writes Original back,
	// or removes it when it did not exist) or "kexec" (a kexec image
	// loaded: restore unloads it).
	Kind string `json:"kind"`
	Path string `json:"path"`
	// What says what it is, for status.
	What     string `json:"what"`
	Original []byte `json:"original,omitempty"`
	Existed  bool   `json:"existed,omitempty"`
}

func (c Change) String() string { return c.What + " " + c.Path }

// Host is what the campaign reads from and installs on the machine it
// runs on. Root is "/" normally; tests point it at a fake tree.
type Host struct {
	Root string
	// Exec runs a program and returns its standard output
	// (systemctl; Exec's semantics).
	Exec func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Settle judges the quiet start (see Settler); nil uses the default.
	Settle *Settler
}

func (h *Host) root() string {
	if h.Root == "" {
		return "/"
	}
	return h.Root
}

func (h *Host) path(rel string) string { return filepath.Join(h.root(), rel) }

// readText reads a file of the running boot below the root (rootfs: a
// link out of a fake root is not followed, only regular files are read).
func (h *Host) readText(rel string) (string, error) {
	rfs, err := rootfs.Open(h.root())
	if err != nil {
		return "", err
	}
	defer rfs.Close()
	return rfs.ReadText(rel)
}

// Exec runs a program the campaign needs (systemctl, the WSL interop
// programs) to completion and returns its standard output: child.Output,
// so it runs in its own process group with the parent-death signal and
// nothing it starts outlives ctx.
func Exec(ctx context.Context, name string, args ...string) ([]byte, error) {
	return child.Output(ctx, child.Options{WaitDelay: time.Second}, name, args...)
}

// Snapshot reads the running boot.
func (h *Host) Snapshot(ctx context.Context) (*sysinfo.Snapshot, error) {
	s, err := sysinfo.CollectContext(ctx, h.root())
	if err != nil {
		return nil, err
	}
	if s.BootID == "" {
		return nil, fmt.Errorf("cannot read the boot id (%s): a campaign needs it to tell boots apart", h.path("proc/sys/kernel/random/boot_id"))
	}
	return s, nil
}

// Systemd reports whether systemd is PID 1.
func (h *Host) Systemd() bool {
	comm, err := h.readText("proc/1/comm")
	return err == nil && comm == "systemd"
}

// UnitName is the systemd unit that resumes a campaign after a boot.
const UnitName = "sectax-campaign.service"

// unitText is the resume unit. It is Type=exec, not oneshot: a oneshot
// unit keeps the system "starting" until it exits, so the quiet start
// (systemctl is-system-running --wait) would wait for itself.
func unitText(exe, db string) string {
	return fmt.Sprintf(`# Installed by 'sectax campaign start'; removed when the campaign finishes,
# fails or is aborted ('sectax campaign abort' removes it too).
[Unit]
Description=sectax campaign: verify this boot and measure it

[Service]
Type=exec
ExecStart=%s --db %s campaign resume
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
`, systemdQuote(exe), systemdQuote(db))
}

// systemdQuote quotes a word for ExecStart= (specifiers and variables
// escaped).
func systemdQuote(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$").Replace(s)
	return `"` + s + `"`
}

// InstallUnit writes the resume unit and enables it (the symbolic link
// systemctl enable would make, so that it works under a redirected root
// and needs no daemon running). Each file is recorded before it is made.
func (h *Host) InstallUnit(exe, db string, record func(Change) error) error {
	dir := h.path("etc/systemd/system")
	unit := filepath.Join(dir, UnitName)
	link := filepath.Join(dir, "multi-user.target.wants", UnitName)
	if err := record(Change{Kind: "created", Path: unit, What: "systemd unit"}); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot install the resume unit: %w", err)
	}
	if err := writeNew(unit, []byte(unitText(exe, db))); err != nil {
		return fmt.Errorf("cannot install the resume unit %s: %w (run as root, or use --via manual)", unit, err)
	}
	if err := record(Change{Kind: "created", Path: link, What: "systemd unit link"}); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return fmt.Errorf("cannot enable the resume unit: %w", err)
	}
	os.Remove(link)
	if err := os.Symlink(filepath.Join("..", UnitName), link); err != nil {
		return fmt.Errorf("cannot enable the resume unit %s: %w", link, err)
	}
	return nil
}

// writeNew writes data to path through a temporary file and a rename.
func writeNew(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// undo puts back one change; a thing already gone is not an error.
func undo(c Change, writeFile func(path string, old, data []byte) error) error {
	switch c.Kind {
	case "created":
		if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot remove the %s %s: %w", c.What, c.Path, err)
		}
		return nil
	case "file":
		cur, err := os.ReadFile(c.Path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot restore the %s %s: %w", c.What, c.Path, err)
		}
		if !c.Existed {
			if exists {
				if err := os.Remove(c.Path); err != nil {
					return fmt.Errorf("cannot remove the %s %s that sectax created: %w", c.What, c.Path, err)
				}
			}
			return nil
		}
		if exists && string(cur) == string(c.Original) {
			return nil
		}
		var old []byte
		if exists {
			old = cur
		}
		if err := writeFile(c.Path, old, c.Original); err != nil {
			return fmt.Errorf("cannot restore the %s %s: %w", c.What, c.Path, err)
		}
		return nil
	case "kexec":
		if err := unloadKexec(); err != nil {
			return fmt.Errorf("cannot unload the kexec image (%v): run kexec -u", err)
		}
		return nil
	}
	return fmt.Errorf("unknown change %q of %s: put it back by hand", c.Kind, c.Path)
}
