package vm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/tempdir"
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
	// TimeoutHint follows "raise --vm-timeout" in the timeout's message
	// (the lab's " or run fewer workloads").
	TimeoutHint string
	// OnFrame, when set, sees every frame as it arrives (progress); the
	// text of log and error frames is already sanitised (safetext.Line).
	OnFrame func(Frame)
	// Limits bound what the guest may write; a zero field takes its
	// DefaultLimits value.
	Limits Limits
}

// Limits bound what one boot's guest may write: everything on the result
// channel and the console crosses into the host, and the kernel and the
// initramfs may not be sectax's own. A boot over a limit is stopped with
// ErrLimit and its files are removed.
type Limits struct {
	// Channel and Console are the bytes the result channel and the
	// console log may hold.
	Channel, Console int64
	// Frames is the number of frames of any kind; LogBytes the text of
	// all log frames together.
	Frames   int
	LogBytes int
}

// DefaultLimits: a measure task sends a few frames and a result of a few
// hundred KiB; the kernel writes some 100 KiB of messages.
var DefaultLimits = Limits{Channel: 256 << 20, Console: 16 << 20, Frames: 100_000, LogBytes: 4 << 20}

func (l Limits) orDefault() Limits {
	d := DefaultLimits
	if l.Channel > 0 {
		d.Channel = l.Channel
	}
	if l.Console > 0 {
		d.Console = l.Console
	}
	if l.Frames > 0 {
		d.Frames = l.Frames
	}
	if l.LogBytes > 0 {
		d.LogBytes = l.LogBytes
	}
	return d
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
	// ErrTimeout: the boot ran past BootOptions.Timeout and was stopped.
	ErrTimeout = errors.New("boot timed out")
	// ErrLimit: the guest wrote more than Limits allow.
	ErrLimit = errors.New("the guest wrote more than a lab boot may")
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
	began := time.Now() // Timeout bounds the whole boot, the initramfs's build too
	q := opts.QEMU
	if q.Binary == "" {
		q.Binary = "qemu-system-x86_64"
	}
	if q.Kernel != "" {
		size, err := kernelCmdlineSize(q.Kernel)
		if err != nil {
			return nil, err
		}
		if err := CheckCmdline(q.Append, size); err != nil {
			return nil, err
		}
	}
	limits := opts.Limits.orDefault()
	dir := opts.Dir
	if dir == "" {
		// Owner-marked, so that a later run removes it when this process
		// was killed before it could.
		d, err := tempdir.Make("lab-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
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
	channel, err := os.Open(q.Channel)
	if err != nil {
		return nil, err
	}
	defer channel.Close()
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
		hello     bool
		done      bool
		guestErr  string
		guestKind byte
		doneAt    time.Time
		frames    int
		logBytes  int
		handshake = time.NewTimer(opts.Handshake)
		timeout   = time.NewTimer(opts.Timeout - time.Since(began))
		tick      = time.NewTicker(100 * time.Millisecond)
	)
	defer handshake.Stop()
	defer timeout.Stop()
	defer tick.Stop()
	reader := &channelReader{f: channel, limit: limits.Channel}
	// readChannel takes the frames written since the last call, and
	// checks every limit.
	readChannel := func() error {
		if fi, err := os.Stat(q.Console); err == nil && fi.Size() > limits.Console {
			return overLimit("on the console", limits.Console>>20, "MiB")
		}
		return reader.read(func(f Frame) error {
			if frames++; frames > limits.Frames {
				return overLimit("on the result channel", int64(limits.Frames), "frames")
			}
			switch f.Kind {
			case KindLog, KindError, KindUnverified:
				f.Payload = []byte(safetext.Clip(string(f.Payload), 4096))
			}
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
					res.Hello.Release = safetext.Clip(res.Hello.Release, 256)
					res.Hello.Task = safetext.Clip(res.Hello.Task, 256)
				}
			case KindLog:
				if logBytes += len(f.Payload); logBytes > limits.LogBytes {
					return overLimit("of log frames", int64(limits.LogBytes>>10), "KiB")
				}
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
			return nil
		})
	}
	// limited ends a boot over a limit: its files go at once, whoever made
	// the folder.
	limited := func(err error) (*BootResult, error) {
		select {
		case <-exited:
		default:
			kill()
		}
		r, err := finishBoot(res, start, cmd, q.Console, err)
		for _, p := range []string{q.Console, q.Channel, q.Initrd} {
			if p != "" && (opts.Initramfs != nil || p != q.Initrd) {
				os.Remove(p)
			}
		}
		return r, err
	}
	finish := func(err error) (*BootResult, error) { return finishBoot(res, start, cmd, q.Console, err) }
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
			if err := readChannel(); errors.Is(err, ErrLimit) {
				return limited(err)
			}
			return finish(ctx.Err())
		case <-timeout.C:
			kill()
			if err := readChannel(); errors.Is(err, ErrLimit) {
				return limited(err)
			}
			return finish(fmt.Errorf("%w: the VM ran longer than %s and was stopped: raise --vm-timeout%s", ErrTimeout, opts.Timeout, opts.TimeoutHint))
		case <-handshake.C:
			err := readChannel()
			if errors.Is(err, ErrLimit) {
				return limited(err)
			}
			if err == nil && hello {
				continue
			}
			kill()
			if err := accelErr(); err != nil {
				return finish(err)
			}
			hint := "use --accel tcg"
			if q.Accel == AccelTCG {
				hint = "check that the kernel boots (see its messages above) or raise --handshake"
			}
			return finish(fmt.Errorf("%w within %s under -accel %s (last kernel message: %s): %s", ErrNoHandshake, opts.Handshake.Round(time.Second), q.Accel, lastLine(res.Console, q.Console), hint))
		case <-exited:
			if err := readChannel(); errors.Is(err, ErrLimit) {
				return limited(err)
			}
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
				msg := fmt.Sprintf("last kernel message: %s", lastLine("", q.Console))
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
			if err := readChannel(); errors.Is(err, ErrLimit) {
				return limited(err)
			}
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

// finishBoot completes res once QEMU is gone.
func finishBoot(res *BootResult, start time.Time, cmd *child.Cmd, console string, err error) (*BootResult, error) {
	res.Wall = time.Since(start)
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.PeakRSSKiB = ru.Maxrss
		}
	}
	res.Console = safetext.Text(tail(console, 4096))
	return res, err
}

// overLimit is the one-line error of a boot over one of its Limits.
func overLimit(what string, limit int64, unit string) error {
	return fmt.Errorf("%w: more than %d %s %s; the boot was stopped and its files removed (a sectax guest writes far less: check that this kernel and initramfs are the ones you meant to boot)", ErrLimit, limit, unit, what)
}

// channelReader reads the result channel incrementally: each read takes
// only the bytes written since the last, in blocks, so that memory stays
// bounded by a block and one frame whatever the guest writes, and the
// whole channel by limit.
type channelReader struct {
	f     *os.File
	limit int64
	off   int64
	buf   []byte
	block []byte
}

// read decodes the frames in the bytes written since the last call and
// gives each to fn, stopping at fn's first error; past limit bytes it
// returns ErrLimit.
func (r *channelReader) read(fn func(Frame) error) error {
	if r.block == nil {
		r.block = make([]byte, 1<<20)
	}
	for {
		n, err := r.f.Read(r.block)
		if n > 0 {
			if r.off += int64(n); r.off > r.limit {
				return overLimit("on the result channel", r.limit>>20, "MiB")
			}
			r.buf = append(r.buf, r.block[:n]...)
			frames, rest, _ := DecodeFrames(r.buf)
			if rest > 0 {
				r.buf = append(r.buf[:0], r.buf[rest:]...)
			}
			for _, f := range frames {
				if err := fn(f); err != nil {
					return err
				}
			}
		}
		if err == io.EOF || n == 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func guestError(kind byte, msg string) error {
	msg = safetext.Clip(msg, 4096)
	if kind == KindUnverified {
		return fmt.Errorf("%w: %w: %s", ErrGuest, ErrNotVerified, msg)
	}
	return fmt.Errorf("%w: %s", ErrGuest, msg)
}

// tail is the last n bytes of the file p (the console log may be large).
func tail(p string, n int64) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		f.Seek(fi.Size()-n, io.SeekStart)
	}
	data, _ := io.ReadAll(io.LimitReader(f, n))
	return string(data)
}

// lastLine is the last line of the console s (read from p when empty),
// or the line of a kernel panic in it, quoted and sanitised for one line
// of an error.
func lastLine(s, p string) string {
	if s == "" {
		s = tail(p, 4096)
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "")), "\n")
	// A panic's dump ends with its offsets and trace: its reason is the
	// line that says it panicked.
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "Kernel panic - not syncing:") {
			return `"` + safetext.Clip(strings.TrimSpace(lines[i]), 300) + `" (and its dump)`
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return `"` + safetext.Clip(l, 300) + `"`
		}
	}
	return "none"
}

// qemuError is the first line of QEMU's stderr that is not a warning
// (TCG warns about every CPU feature it does not emulate).
func qemuError(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "warning:") {
			return safetext.Clip(l, 300)
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
