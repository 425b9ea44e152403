package campaign

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/sectax/sectax/internal/userfile"
)

// Kexec reboots through kexec_file_load(2): it loads the kernel and its
// initrd with the step's command line and reboots into it (systemctl kexec
// where systemd runs, so that services stop cleanly; else the reboot(2)
// system call after a sync). Nothing persistent changes: a power cycle
// returns to the default boot, which verification then notices.
type Kexec struct {
	// Kernel and Initrd are the images to load (Initrd "" loads none).
	Kernel, Initrd string
	// HostSet names who sets this guest's command line (Options.HostSet):
	// where kexec cannot, --via manual cannot either, and the lab is the
	// way.
	HostSet string
	// Systemd says to reboot with systemctl kexec.
	Systemd bool
	// Exec runs systemctl.
	Exec func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Prepare, when set, runs just before the images are opened (a lab
	// guest writes its next initrd there, carrying the campaign's
	// database).
	Prepare func(ctx context.Context, req BootRequest) error
	// Load and Reboot are the system calls (unix.KexecFileLoad and
	// unix.Reboot when nil; tests record them).
	Load   func(kernelFd, initrdFd int, cmdline string, flags int) error
	Reboot func(cmd int) error
}

// Name is "kexec".
func (k *Kexec) Name() string { return "kexec" }

// Check makes sure the images can be read.
func (k *Kexec) Check(ctx context.Context, req BootRequest) error {
	// Where kexec cannot boot: --via manual, or on a guest whose host sets
	// its command line (where manual cannot either) the lab.
	otherwise := ", or use --via manual"
	if k.HostSet != "" {
		otherwise = "; this guest's kernel command line is set by " + k.HostSet + ", so without kexec " + LabInstead
	}
	if k.Kernel == "" {
		return fmt.Errorf("no kernel image to kexec: give --kernel /boot/vmlinuz-VERSION%s", otherwise)
	}
	for _, p := range []string{k.Kernel, k.Initrd} {
		if p == "" || p == k.Initrd && k.Prepare != nil {
			continue // Prepare writes the initrd
		}
		f, err := userfile.OpenRegular(p)
		if err != nil {
			fix := "give --kernel/--initrd" + otherwise
			if errors.Is(err, fs.ErrPermission) && os.Geteuid() != 0 {
				fix = "run as root, " + fix
			}
			return fmt.Errorf("cannot read %s for kexec (%v); %s", p, userfile.Cause(err), fix)
		}
		f.Close()
	}
	return nil
}

// unloadKexec unloads a loaded kexec image (tests record the call
// instead).
var unloadKexec = unloadKexecImage
