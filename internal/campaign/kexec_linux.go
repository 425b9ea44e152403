package campaign

import (
	"context"
	"errors"
	"fmt"

	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/userfile"

	"golang.org/x/sys/unix"
)

// Boot loads the images with req's command line and reboots into them.
func (k *Kexec) Boot(ctx context.Context, req BootRequest, record func(Change) error) error {
	load, reboot := k.Load, k.Reboot
	if load == nil {
		load = unix.KexecFileLoad
	}
	if reboot == nil {
		reboot = unix.Reboot
	}
	if k.Prepare != nil {
		if err := k.Prepare(ctx, req); err != nil {
			return err
		}
	}
	kf, err := userfile.OpenRegular(k.Kernel)
	if err != nil {
		return fmt.Errorf("cannot read the kernel %s: %v", k.Kernel, userfile.Cause(err))
	}
	defer kf.Close()
	initrdFd, flags := -1, 0
	if k.Initrd != "" {
		f, err := userfile.OpenRegular(k.Initrd)
		if err != nil {
			return fmt.Errorf("cannot read the initrd %s: %v", k.Initrd, userfile.Cause(err))
		}
		defer f.Close()
		initrdFd = int(f.Fd())
	} else {
		flags |= unix.KEXEC_FILE_NO_INITRAMFS
	}
	// A loaded image outlives a failed or abandoned reboot request (a
	// later reboot may even use it): restore unloads it.
	if record != nil {
		if err := record(Change{Kind: "kexec", Path: k.Kernel, What: "kexec image loaded from"}); err != nil {
			return err
		}
	}
	if err := load(int(kf.Fd()), initrdFd, req.Cmdline, flags); err != nil {
		return kexecError(err)
	}
	ui.Or(req.Out).Notef("%s: kexec into %s with command line %q", req.StepOf(), req.Config.Name, req.Cmdline)
	if k.Systemd && k.Exec != nil {
		if _, err := k.Exec(ctx, "systemctl", "kexec"); err != nil {
			return fmt.Errorf("systemctl kexec: %v", err)
		}
		return nil
	}
	unix.Sync()
	if err := reboot(unix.LINUX_REBOOT_CMD_KEXEC); err != nil {
		return fmt.Errorf("reboot into the loaded kernel: %v", err)
	}
	return nil
}

// kexecError turns the kernel's refusal into one line naming the way out.
func kexecError(err error) error {
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EKEYREJECTED), errors.Is(err, unix.EBADMSG):
		return fmt.Errorf("the kernel refused to kexec an unsigned or unverified image (%v: lockdown or Secure Boot, or not root); reboot by hand with --via manual", err)
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("this kernel has no kexec_file_load (CONFIG_KEXEC_FILE is off); use --via manual")
	case errors.Is(err, unix.ENOEXEC):
		return fmt.Errorf("the kernel cannot kexec this image (%v: not a bzImage it can load); give --kernel, or use --via manual", err)
	case errors.Is(err, unix.EBUSY):
		return fmt.Errorf("another kexec image is loaded (%v); unload it with kexec -u, or use --via manual", err)
	}
	return fmt.Errorf("kexec_file_load: %v; use --via manual", err)
}

// unloadKexec unloads a loaded kexec image (none loaded is not an error).
func unloadKexecImage() error {
	err := unix.KexecFileLoad(-1, -1, "", unix.KEXEC_FILE_UNLOAD)
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return err
	}
	return nil
}
