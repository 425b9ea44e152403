package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/vm"
	"github.com/sectax/sectax/internal/wslconfig"
)

// fakeInterop puts cmd.exe and wslpath on PATH: shell scripts that append
// their arguments, one per line, to a log, as the Windows side would be
// asked to run them.
func fakeInterop(t *testing.T) (log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(t.TempDir(), "calls")
	script := `#!/bin/sh
{ printf '%s' "$(basename "$0")"; for a in "$@"; do printf ' [%s]' "$a"; done; echo; } >> ` + log + `
case "$(basename "$0")" in
wslpath) echo 'C:\Users\dev\.sectax-campaign-resume.cmd' ;;
esac
`
	for _, name := range []string{"cmd.exe", "wslpath"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func execPath(ctx context.Context, name string, args ...string) ([]byte, error) {
	return wslconfig.ExecRunner(ctx, "", name, args...)
}

func TestWSLMechanism(t *testing.T) {
	log := fakeInterop(t)
	dir := t.TempDir()
	path := filepath.Join(dir, ".wslconfig")
	original := "# mine\r\n[wsl2]\r\nmemory=16GB\r\nkernelCommandLine = quiet\r\nprocessors=16\r\n"
	if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &WSL{Path: path, Distro: "Ubuntu 24.04", Exec: execPath, Now: func() time.Time { return time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC) }}
	plan := []bootconfig.Config{bootconfig.On, bootconfig.Off}
	var changes []Change
	record := func(c Change) error {
		if i := slices.IndexFunc(changes, func(x Change) bool { return x.Path == c.Path }); i >= 0 {
			changes[i].SHA256 = c.SHA256
		} else {
			changes = append(changes, c)
		}
		return nil
	}
	req := BootRequest{CampaignID: "c1", Step: 1, Steps: 2, Config: bootconfig.Off, Plan: plan,
		Options: Options{Exe: "/usr/local/bin/sectax", DB: "/home/me/sectax 100%.db"}}
	if err := w.Check(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if err := w.Boot(context.Background(), req, record); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# mine\r\n[wsl2]\r\nmemory=16GB\r\nkernelCommandLine = quiet mitigations=off\r\nprocessors=16\r\n"
	if string(got) != want {
		t.Fatalf(".wslconfig for off:\n%q\nwant\n%q", got, want)
	}
	if backups, _ := filepath.Glob(path + ".sectax-*.bak"); len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	script, err := os.ReadFile(filepath.Join(dir, ScriptName))
	if err != nil {
		t.Fatal(err)
	}
	// Started as root, Windows resumes as root (the plan is root's).
	asRoot := ""
	if os.Geteuid() == 0 {
		asRoot = " -u root"
	}
	for _, line := range []string{"wsl.exe --shutdown\r\n", "timeout /t 8 /nobreak >nul\r\n",
		`wsl.exe -d "Ubuntu 24.04"` + asRoot + ` --exec "/usr/local/bin/sectax" --db "/home/me/sectax 100%%.db" campaign resume` + "\r\n"} {
		if !strings.Contains(string(script), line) {
			t.Fatalf("script lacks %q:\n%s", line, script)
		}
	}
	calls, _ := os.ReadFile(log)
	wantCalls := "wslpath [-w] [" + filepath.Join(dir, ScriptName) + "]\n" +
		`cmd.exe [/d] [/c] [start] [sectax campaign] [/min] [C:\Users\dev\.sectax-campaign-resume.cmd]` + "\n"
	if string(calls) != wantCalls {
		t.Fatalf("interop calls:\n%s\nwant\n%s", calls, wantCalls)
	}
	// The next step (on) takes mitigations=off out again.
	req.Step, req.Config, req.Changes = 2, bootconfig.On, changes
	if err := w.Boot(context.Background(), req, record); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(path)
	if want := "# mine\r\n[wsl2]\r\nmemory=16GB\r\nkernelCommandLine = quiet\r\nprocessors=16\r\n"; string(got) != want {
		t.Fatalf(".wslconfig for on:\n%q", got)
	}
	if len(changes) != 2 || changes[0].Kind != "file" || string(changes[0].Original) != original || changes[1].Kind != "created" {
		t.Fatalf("changes: %+v", changes)
	}
	// A file edited since sectax wrote it is left as it is.
	mine := got
	os.WriteFile(path, []byte("[wsl2]\nkernelCommandLine=mitigations=off\n"), 0o644)
	if err := undo(changes[0], at(changes[0].Path), nil); err == nil || !strings.Contains(err.Error(), "not the file sectax wrote") {
		t.Fatalf("undo of an edited .wslconfig: %v", err)
	}
	// Restore puts every byte back and removes the script.
	os.WriteFile(path, mine, 0o644)
	for i := len(changes) - 1; i >= 0; i-- {
		err := undo(changes[i], at(changes[i].Path), func(p string, old, data []byte) error {
			_, err := wslconfig.WriteFile(p, old, data, time.Now())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != original {
		t.Fatalf("restored:\n%q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ScriptName)); !os.IsNotExist(err) {
		t.Fatalf("script left: %v", err)
	}
}

func TestWSLMechanismNoInterop(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	path := filepath.Join(t.TempDir(), ".wslconfig")
	w := &WSL{Path: path, Distro: "Debian", Exec: execPath}
	req := BootRequest{Config: bootconfig.Off, Plan: []bootconfig.Config{bootconfig.On, bootconfig.Off}}
	err := w.Boot(context.Background(), req, func(Change) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "--via manual") {
		t.Fatalf("without interop: %v", err)
	}
	if err := (&WSL{Path: path, Exec: execPath}).Check(context.Background(), req); err == nil || !strings.Contains(err.Error(), "--distro") {
		t.Fatalf("no distribution: %v", err)
	}
}

type kexecCalls struct {
	loads   []string
	reboots []int
	execs   []string
	loadErr error
}

func (k *kexecCalls) mech(kernel, initrd string, systemd bool) *Kexec {
	return &Kexec{Kernel: kernel, Initrd: initrd, Systemd: systemd,
		Load: func(kfd, ifd int, cmdline string, flags int) error {
			s := cmdline
			if ifd < 0 {
				s += " (no initrd)"
			}
			if flags&unix.KEXEC_FILE_NO_INITRAMFS != 0 {
				s += " [NO_INITRAMFS]"
			}
			if kfd < 0 {
				s += " (no kernel)"
			}
			k.loads = append(k.loads, s)
			return k.loadErr
		},
		Reboot: func(cmd int) error { k.reboots = append(k.reboots, cmd); return nil },
		Exec: func(_ context.Context, name string, args ...string) ([]byte, error) {
			k.execs = append(k.execs, strings.Join(append([]string{name}, args...), " "))
			return nil, nil
		},
	}
}

func TestKexec(t *testing.T) {
	dir := t.TempDir()
	kernel, initrd := filepath.Join(dir, "boot/vmlinuz-6.1.0-57-amd64"), filepath.Join(dir, "boot/initrd.img-6.1.0-57-amd64")
	os.MkdirAll(filepath.Dir(kernel), 0o755)
	os.WriteFile(kernel, []byte("kernel"), 0o644)
	os.WriteFile(initrd, []byte("initrd"), 0o644)
	if k, i := vm.DefaultImages(dir, "6.1.0-57-amd64"); k != kernel || i != initrd {
		t.Fatalf("default images: %s %s", k, i)
	}
	req := BootRequest{Step: 1, Steps: 2, Config: bootconfig.Off, Cmdline: "root=/dev/sda1 quiet mitigations=off"}

	var c kexecCalls
	k := c.mech(kernel, initrd, false)
	if err := k.Check(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var recorded []Change
	record := func(ch Change) error {
		if len(c.loads) > 0 {
			t.Fatal("the image was loaded before it was recorded")
		}
		recorded = append(recorded, ch)
		return nil
	}
	if err := k.Boot(context.Background(), req, record); err != nil {
		t.Fatal(err)
	}
	if len(recorded) != 1 || recorded[0].Kind != "kexec" || recorded[0].Path != kernel {
		t.Fatalf("recorded %+v", recorded)
	}
	if !slices.Equal(c.loads, []string{"root=/dev/sda1 quiet mitigations=off"}) || !slices.Equal(c.reboots, []int{unix.LINUX_REBOOT_CMD_KEXEC}) || c.execs != nil {
		t.Fatalf("without systemd: %+v", c)
	}

	c = kexecCalls{}
	if err := c.mech(kernel, "", true).Boot(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.loads, []string{"root=/dev/sda1 quiet mitigations=off (no initrd) [NO_INITRAMFS]"}) || c.reboots != nil || !slices.Equal(c.execs, []string{"systemctl kexec"}) {
		t.Fatalf("with systemd: %+v", c)
	}

	for _, e := range []error{unix.EPERM, unix.EKEYREJECTED} {
		c = kexecCalls{loadErr: e}
		err := c.mech(kernel, initrd, true).Boot(context.Background(), req, nil)
		if err == nil || !strings.Contains(err.Error(), "--via manual") || strings.Contains(err.Error(), "\n") || c.execs != nil || c.reboots != nil {
			t.Fatalf("%v: %v (calls %+v)", e, err, c)
		}
	}
	missing := filepath.Join(dir, "boot/vmlinuz-none")
	if err := c.mech(missing, "", false).Check(context.Background(), req); err == nil || !strings.Contains(err.Error(), "--via manual") {
		t.Fatalf("missing kernel: %v", err)
	}
}

func TestQuietStartLoad(t *testing.T) {
	root := t.TempDir()
	loads := []string{"3.50", "1.20", "0.40"}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	write := func() {
		os.MkdirAll(filepath.Join(root, "proc"), 0o755)
		os.WriteFile(filepath.Join(root, "proc/loadavg"), []byte(loads[0]+" 1.00 1.00 2/300 99\n"), 0o644)
	}
	write()
	h := &Host{Root: root, Settle: &Settler{Poll: 2 * time.Second, Now: func() time.Time { return now },
		Sleep: func(context.Context, time.Duration) error {
			now = now.Add(2 * time.Second)
			loads = loads[1:]
			write()
			return nil
		}}}
	q, err := h.QuietStart(context.Background())
	if err != nil || q.Waited != 4*time.Second || q.How != "load average 0.40 below 0.50" {
		t.Fatalf("%+v %v", q, err)
	}
	// Bounded: a load that never drops is measured anyway after Max.
	loads = []string{"5", "5", "5", "5", "5", "5"}
	write()
	h.Settle.Max = 6 * time.Second
	q, err = h.QuietStart(context.Background())
	if err != nil || q.Waited != 6*time.Second || !strings.Contains(q.How, "still 5.00 after 6s; measured anyway") {
		t.Fatalf("%+v %v", q, err)
	}
	h.Settle.Sleep = func(context.Context, time.Duration) error { return context.Canceled }
	if _, err := h.QuietStart(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
}

// TestAbortRestoresWSLConfig runs the engine with the WSL mechanism (fake
// interop): after two steps, abort writes the original .wslconfig back
// through the writer given (the CLI's keeps a backup) and removes the
// batch file.
func TestAbortRestoresWSLConfig(t *testing.T) {
	log := fakeInterop(t)
	r := newRig(t)
	path := filepath.Join(t.TempDir(), ".wslconfig")
	original := "[wsl2]\nmemory=8GB\n"
	os.WriteFile(path, []byte(original), 0o644)
	w := &WSL{Path: path, Distro: "Debian", Exec: execPath}
	r.e.Mech, r.wslconfig = w, path
	var writes int
	r.e.WriteFile = func(p string, old, data []byte) error {
		writes++
		_, err := wslconfig.WriteFile(p, old, data, time.Now())
		return err
	}
	c := r.start(1)
	if c.Via != "wsl" {
		t.Fatalf("via %s", c.Via)
	}
	opts, _ := StoredOptions(r.load())
	if opts.Resume != "interop" {
		t.Fatalf("resume %q", opts.Resume)
	}
	first, _ := os.ReadFile(path)
	if strings.Contains(string(first), "mitigations=off") != (c.Steps[0].Config == "off") {
		t.Fatalf("step 1 (%s) .wslconfig:\n%s", c.Steps[0].Config, first)
	}
	if _, err := r.e.Abort(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != original || (c.Steps[0].Config == "off") != (writes == 1) {
		t.Fatalf("after abort (%d writes):\n%q", writes, got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), ScriptName)); !os.IsNotExist(err) {
		t.Fatalf("script left: %v", err)
	}
	if calls, _ := os.ReadFile(log); strings.Count(string(calls), "cmd.exe") != 1 {
		t.Fatalf("interop calls:\n%s", calls)
	}
	if c := r.load(); c.Changes != "[]" || c.State != Aborted {
		t.Fatalf("%s %s", c.State, c.Changes)
	}
}
