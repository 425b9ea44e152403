package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/ui"
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

// stepOf is where a step stands in its campaign: "step 3 of 8", or
// "step 3 of at least 8" while adaptive repetition (--target-ci) may
// still add boots.
func stepOf(step, steps int, adaptive bool) string {
	if adaptive {
		return fmt.Sprintf("step %d of at least %d", step, steps)
	}
	return fmt.Sprintf("step %d of %d", step, steps)
}

// StepOf is where the boot stands in its campaign (stepOf).
func (r BootRequest) StepOf() string { return stepOf(r.Step, r.Steps, r.Options.TargetCI > 0) }

// BootRequest is one boot a mechanism is asked for.
type BootRequest struct {
	CampaignID string
	// Step is 1-based; Steps the length of the plan.
	Step, Steps int
	Config      bootconfig.Config
	Plan        []bootconfig.Config
	// Cmdline is the whole command line of the boot (config.Cmdline of
	// the command line the campaign started from).
	Cmdline string
	// Changes are what the campaign has changed so far.
	Changes []Change
	Options Options
	// Out is told what the boot does (the manual mechanism's steps; nil:
	// nowhere).
	Out ui.Printer
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
	// SHA256 is the hash of the bytes sectax wrote there (hex), recorded
	// before it writes them: restore removes or rewrites only a file that
	// still holds them (a link: that still points where sectax made it
	// point).
	SHA256 string `json:"sha256,omitempty"`
	// Pending is set while a file or link sectax creates is recorded
	// and not yet made (recorded first, so that a crash in between
	// leaves nothing unrecorded); it is cleared once made. A pending
	// change is nothing to restore when what is at its path is not what
	// sectax would have made: restore says so once and drops it.
	Pending bool `json:"pending,omitempty"`
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

// UnitName is the systemd unit that resumes campaign id after a boot: one
// unit per campaign, so that two campaigns in two stores on one host never
// share (or remove) each other's unit.
func UnitName(id string) string { return "sectax-campaign-" + id + ".service" }

// UnitPath is where the resume unit of campaign id is installed.
func (h *Host) UnitPath(id string) string {
	return filepath.Join(h.path(unitDir), UnitName(id))
}

// UnitLink is the link that enables it (multi-user.target.wants).
func (h *Host) UnitLink(id string) string {
	return filepath.Join(h.path(wantsDir), UnitName(id))
}

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
// Both are written through the rooted file system: a folder on the way
// that is a link, or that others may write, is refused, and nothing is
// written outside the root.
func (h *Host) InstallUnit(id, exe, db string, record func(Change) error) error {
	if err := checkID(id); err != nil {
		return err
	}
	w, err := rootfs.OpenWrite(h.root())
	if err != nil {
		return err
	}
	defer w.Close()
	unit, link := h.UnitPath(id), h.UnitLink(id)
	text := []byte(unitText(exe, db))
	made := Change{Kind: "created", Path: unit, What: "systemd unit", SHA256: hashOf(text)}
	pending := made
	pending.Pending = true
	if err := record(pending); err != nil {
		return err
	}
	if _, err := w.MkdirAll(unitDir, 0o755); err != nil {
		return fmt.Errorf("cannot install the resume unit: %w", err)
	}
	if err := w.WriteFile(path.Join(unitDir, UnitName(id)), text, 0o644); err != nil {
		return fmt.Errorf("cannot install the resume unit %s: %w (run as root, or use --via manual)", unit, err)
	}
	if err := record(made); err != nil {
		return err
	}
	if err := record(Change{Kind: "created", Path: link, What: "systemd unit link", Pending: true}); err != nil {
		return err
	}
	if _, err := w.MkdirAll(wantsDir, 0o755); err != nil {
		return fmt.Errorf("cannot enable the resume unit: %w", err)
	}
	rel := path.Join(wantsDir, UnitName(id))
	if fi, err := w.Lstat(rel); err == nil {
		if fi.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("cannot enable the resume unit: %s exists and is not a link", link)
		}
		w.Remove(rel)
	}
	if err := w.Symlink(path.Join("..", UnitName(id)), rel); err != nil {
		return fmt.Errorf("cannot enable the resume unit %s: %w", link, err)
	}
	return record(Change{Kind: "created", Path: link, What: "systemd unit link"})
}

// The folders of the unit and its link, below the root.
const (
	unitDir  = "etc/systemd/system"
	wantsDir = "etc/systemd/system/multi-user.target.wants"
	passDir  = "etc/sectax"
)

// WritePassfile writes the PostgreSQL password file of campaign id (one
// PGPASSFILE line), readable by its owner only, in a folder sectax makes
// 0700 or that only root may write (an existing folder's mode is never
// changed); it is recorded first, and removed with the unit.
func (h *Host) WritePassfile(id, line string, record func(Change) error) error {
	if err := checkID(id); err != nil {
		return err
	}
	p := h.PassfilePath(id)
	made := Change{Kind: "created", Path: p, What: "store password file", SHA256: hashOf([]byte(line))}
	pending := made
	pending.Pending = true
	if err := record(pending); err != nil {
		return err
	}
	w, err := rootfs.OpenWrite(h.root())
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := w.MkdirAll(passDir, 0o700); err != nil {
		return fmt.Errorf("cannot make %s: %w (run as root)", filepath.Dir(p), err)
	}
	if err := w.WriteFile(path.Join(passDir, filepath.Base(p)), []byte(line), 0o600); err != nil {
		return err
	}
	return record(made)
}

// hashOf is the hex SHA-256 of data (Change.SHA256).
func hashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// idRE is what a campaign id may be: it names the unit and the
// credentials file, so a stored id is checked before it becomes a path.
var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

func checkID(id string) error {
	if !idRE.MatchString(id) {
		return fmt.Errorf("campaign id %q is not one sectax makes (letters, digits, '-' and '_'): the store was edited; nothing on the system was touched", id)
	}
	return nil
}

// place is where a change is acted on: the file rel below the folder
// dir, reached through the rooted file system (a link on the way out of
// dir is never followed); link is where a link must point.
type place struct {
	dir, rel, link string
}

// at is the place of a path outside any root (the files beside
// .wslconfig): its own folder.
func at(p string) place { return place{dir: filepath.Dir(p), rel: filepath.Base(p)} }

// undo puts back one change; a thing already gone is not an error. What
// is there must still be what sectax wrote (its hash; a link: its
// target): anything else is left and reported.
func undo(c Change, pl place, writeFile func(path string, old, data []byte) error) error {
	if c.Kind == "kexec" {
		if err := unloadKexec(); err != nil {
			return fmt.Errorf("cannot unload the kexec image (%v): run kexec -u", err)
		}
		return nil
	}
	w, err := rootfs.OpenWrite(pl.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot put back the %s %s: %w", c.What, c.Path, err)
	}
	defer w.Close()
	switch c.Kind {
	case "created":
		fi, err := w.Lstat(pl.rel)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cannot remove the %s %s: %w", c.What, c.Path, err)
		}
		if pl.link != "" {
			if dest, err := w.Readlink(pl.rel); err != nil || dest != pl.link {
				return fmt.Errorf("the %s %s is not the link sectax made (to %s): left as it is; remove it by hand if it is yours to remove", c.What, c.Path, pl.link)
			}
		} else if err := sameFile(w, pl.rel, fi, c.SHA256); err != nil {
			return fmt.Errorf("the %s %s %v: left as it is; remove it by hand if it is yours to remove", c.What, c.Path, err)
		}
		if err := w.Remove(pl.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot remove the %s %s: %w", c.What, c.Path, err)
		}
		return nil
	case "file":
		fi, err := w.Lstat(pl.rel)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot restore the %s %s: %w", c.What, c.Path, err)
		}
		var cur []byte
		if exists {
			if cur, err = readSmall(w, pl.rel, fi); err != nil {
				return fmt.Errorf("cannot restore the %s %s: %v", c.What, c.Path, err)
			}
			if c.Existed && string(cur) == string(c.Original) {
				return nil
			}
			if hashOf(cur) != c.SHA256 {
				return fmt.Errorf("the %s %s is not the file sectax wrote (it changed since): left as it is; its backup beside it holds the original", c.What, c.Path)
			}
		}
		if !c.Existed {
			if exists {
				if err := w.Remove(pl.rel); err != nil {
					return fmt.Errorf("cannot remove the %s %s that sectax created: %w", c.What, c.Path, err)
				}
			}
			return nil
		}
		if err := writeFile(c.Path, cur, c.Original); err != nil {
			return fmt.Errorf("cannot restore the %s %s: %w", c.What, c.Path, err)
		}
		return nil
	}
	return fmt.Errorf("unknown change %q of %s: put it back by hand", c.Kind, c.Path)
}

// maxOwnFile bounds what restore reads back of a file sectax wrote (a
// unit, a batch file, a .wslconfig are a few kilobytes).
const maxOwnFile = 1 << 20

// readSmall reads the regular file rel of w (fi its Lstat), at most
// maxOwnFile bytes.
func readSmall(w *rootfs.FS, rel string, fi fs.FileInfo) ([]byte, error) {
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("is not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() > maxOwnFile {
		return nil, fmt.Errorf("is %d bytes, more than sectax ever writes there", fi.Size())
	}
	return w.ReadFileMax(rel, maxOwnFile+1)
}

// sameFile says why rel is not the regular file whose hash is want.
func sameFile(w *rootfs.FS, rel string, fi fs.FileInfo, want string) error {
	b, err := readSmall(w, rel, fi)
	if err != nil {
		return fmt.Errorf("is not the file sectax wrote (it %v)", err)
	}
	if want == "" || hashOf(b) != want {
		return errors.New("is not the file sectax wrote (its content changed)")
	}
	return nil
}

// PassfilePath is the root-only PostgreSQL password file of campaign id
// (see WritePassfile).
func (h *Host) PassfilePath(id string) string {
	return filepath.Join(h.path(passDir), "campaign-"+id+".pgpass")
}
