package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/child"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// BootOptions describe one VM run.
type BootOptions struct {
	QEMU QEMU
	// Initramfs, when set, is built into Dir and used as QEMU.Initrd.
	Initramfs *InitramfsOptions
	// Dir holds the VM's files (initramfs, console log, channel); a
	// temporary directory, removed afterwards, when empty.
	Dir string
	// Handshake bounds the time from QEMU's start to the guest's hello
	// frame; Timeout bounds the whole boot.
	Handshake time.Duration
	Timeout   time.Duration
	// OnFrame, when set, sees every frame as it arrives (progress).
	OnFrame func(Frame)
}

// BootResult is what one VM run gave.
type BootResult struct {
	Hello GuestHello
	// Result is the payload of the task's result frame.
	Result []byte
	// Logs are the guest's log frames.
	Logs []string
	// ToHello is the time from QEMU's start to the hello frame (boot to
	// /init, as the host saw it); Wall the time to QEMU's exit.
	ToHello, Wall time.Duration
	// PeakRSSKiB is QEMU's peak resident set size.
	PeakRSSKiB int64
	// Console is the end of the guest's kernel messages.
	Console string
	// PID is QEMU's process id (its process group's id too); the process
	// is gone when Boot returns.
	PID int
}

// Errors Boot wraps.
var (
	// ErrNoHandshake: the guest's /init never said hello in time.
	ErrNoHandshake = errors.New("no handshake from the guest's /init")
	// ErrAccel: QEMU reported an accelerator failure (KVM internal error,
	// emulation failure, no KVM).
	ErrAccel = errors.New("accelerator failed")
	// ErrGuest: the guest's task failed; the message is the guest's.
	ErrGuest = errors.New("guest")
	// ErrNotVerified: the guest's boot did not verify against its
	// configuration, so it measured nothing (a task returns an error
	// wrapping it; Boot returns one wrapping it and ErrGuest).
	ErrNotVerified = errors.New("boot not verified")
	// ErrQEMU: QEMU exited before the guest finished.
	ErrQEMU = errors.New("QEMU failed")
)

var accelFailure = regexp.MustCompile(`(?i)(KVM internal error[^\n]*|emulation failure[^\n]*|Could not access KVM kernel module[^\n]*|failed to initialize kvm[^\n]*|kvm run failed[^\n]*)`)

// lockedBuffer collects QEMU's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<20 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Boot runs one VM to its end: it builds the initramfs if asked, starts
// QEMU in its own process group, reads frames from the channel file as
// they come, and returns when the guest has sent its done frame and QEMU
// has exited. A missing hello within opts.Handshake, QEMU's accelerator
// errors, the timeout or ctx's cancellation kill the whole process group;
// no process is left behind on any path.
func Boot(ctx context.Context, opts BootOptions) (*BootResult, error) {
	dir := opts.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "sectax-lab-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	q := opts.QEMU
	if q.Binary == "" {
		q.Binary = "qemu-system-x86_64"
	}
	if opts.Initramfs != nil {
		q.Initrd = filepath.Join(dir, "initramfs.cpio")
		if err := BuildInitramfsFile(q.Initrd, *opts.Initramfs); err != nil {
			return nil, err
		}
	}
	q.Console = filepath.Join(dir, "console.log")
	q.Channel = filepath.Join(dir, "channel.bin")
	for _, p := range []string{q.Console, q.Channel} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return nil, err
		}
	}
	if opts.Handshake <= 0 {
		opts.Handshake = 3 * time.Minute
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Minute
	}
	bin, err := child.LookPath(q.Binary)
	if err != nil {
		return nil, fmt.Errorf("%s not found: install QEMU (Debian: apt-get install qemu-system-x86)", q.Binary)
	}

	var stderr lockedBuffer
	cmd := child.Command(context.Background(), bin, q.Args()...)
	cmd.Stdin = nil
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	start := time.Now()
	wait, err := child.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = wait()
		close(exited)
	}()
	kill := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}

	res := &BootResult{PID: cmd.Process.Pid}
	var (
		off       int
		buf       []byte
		hello     bool
		done      bool
		guestErr  string
		guestKind byte
		doneAt    time.Time
		handshake = time.NewTimer(opts.Handshake)
		timeout   = time.NewTimer(opts.Timeout)
		tick      = time.NewTicker(100 * time.Millisecond)
	)
	defer handshake.Stop()
	defer timeout.Stop()
	defer tick.Stop()
	readChannel := func() error {
		data, err := os.ReadFile(q.Channel)
		if err != nil {
			return err
		}
		if len(data) < off {
			return nil
		}
		buf = append(buf, data[off:]...)
		off = len(data)
		frames, rest, _ := DecodeFrames(buf)
		buf = buf[rest:]
		for _, f := range frames {
			if opts.OnFrame != nil {
				opts.OnFrame(f)
			}
			switch f.Kind {
			case KindHello:
				if !hello {
					hello = true
					res.ToHello = time.Since(start)
					handshake.Stop()
					json.Unmarshal(f.Payload, &res.Hello)
				}
			case KindLog:
				res.Logs = append(res.Logs, string(f.Payload))
			case KindResult:
				res.Result = f.Payload
			case KindError, KindUnverified:
				guestErr, guestKind = string(f.Payload), f.Kind
			case KindDone:
				if !done {
					done, doneAt = true, time.Now()
				}
			}
		}
		return nil
	}
	finish := func(err error) (*BootResult, error) {
		res.Wall = time.Since(start)
		if cmd.ProcessState != nil {
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				res.PeakRSSKiB = ru.Maxrss
			}
		}
		res.Console = tail(q.Console, 4096)
		return res, err
	}
	accelErr := func() error {
		if m := accelFailure.FindString(stderr.String()); m != "" {
			return fmt.Errorf("%w: QEMU under -accel %s: %s: this host's /dev/kvm cannot run this guest; use --accel tcg (emulated, timings are not hardware costs)", ErrAccel, q.Accel, strings.TrimSpace(m))
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			kill()
			readChannel()
			return finish(ctx.Err())
		case <-timeout.C:
			kill()
			readChannel()
			return finish(fmt.Errorf("the VM ran longer than %s and was stopped: raise --timeout or run fewer workloads", opts.Timeout))
		case <-handshake.C:
			if err := readChannel(); err == nil && hello {
				continue
			}
			kill()
			if err := accelErr(); err != nil {
				return finish(err)
			}
			hint := "use --accel tcg"
			if q.Accel == AccelTCG {
				hint = "check that the kernel boots (see its messages above) or raise the handshake time"
			}
			return finish(fmt.Errorf("%w within %s under -accel %s (last kernel message: %q): %s", ErrNoHandshake, opts.Handshake.Round(time.Second), q.Accel, lastLine(res.Console, q.Console), hint))
		case <-exited:
			readChannel()
			if err := accelErr(); err != nil && !done {
				return finish(err)
			}
			if guestErr != "" {
				return finish(guestError(guestKind, guestErr))
			}
			if !done {
				why := "exited"
				if waitErr != nil {
					why = waitErr.Error()
				}
				msg := fmt.Sprintf("last kernel message: %q", lastLine("", q.Console))
				if l := qemuError(stderr.String()); l != "" {
					msg = l + "; " + msg
				}
				if !hello {
					return finish(fmt.Errorf("%w (%s) before the guest's /init started: %s", ErrQEMU, why, msg))
				}
				return finish(fmt.Errorf("%w (%s) before the guest finished: %s", ErrQEMU, why, msg))
			}
			if res.Result == nil {
				return finish(fmt.Errorf("%w: the guest finished without a result", ErrGuest))
			}
			return finish(nil)
		case <-tick.C:
			readChannel()
			if err := accelErr(); err != nil {
				kill()
				return finish(err)
			}
			if done && time.Since(doneAt) > 20*time.Second {
				// The guest said done but did not power off.
				kill()
				if guestErr != "" {
					return finish(guestError(guestKind, guestErr))
				}
				return finish(nil)
			}
		}
	}
}

func guestError(kind byte, msg string) error {
	if kind == KindUnverified {
		return fmt.Errorf("%w: %w: %s", ErrGuest, ErrNotVerified, msg)
	}
	return fmt.Errorf("%w: %s", ErrGuest, msg)
}

func tail(p string, n int64) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	if int64(len(data)) > n {
		data = data[int64(len(data))-n:]
	}
	return string(data)
}

func lastLine(s, p string) string {
	if s == "" {
		s = tail(p, 4096)
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "")), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return "none"
}

// qemuError is the first line of QEMU's stderr that is not a warning
// (TCG warns about every CPU feature it does not emulate).
func qemuError(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "warning:") {
			return l
		}
	}
	return ""
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
