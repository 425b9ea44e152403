package vm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultChannel is the guest device the result frames go to: the second
// serial port (QEMU's second -serial).
const DefaultChannel = "/dev/ttyS1"

// Guest is what a task running as the guest's /init gets.
type Guest struct {
	Task Task
	mu   sync.Mutex
	ch   *os.File
}

// Send writes one frame on the channel.
func (g *Guest) Send(kind byte, payload []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, err := g.ch.Write(EncodeFrame(kind, payload))
	return err
}

// Logf sends a line of progress to the host.
func (g *Guest) Logf(format string, a ...any) {
	g.Send(KindLog, []byte(fmt.Sprintf(format, a...)))
}

// TaskFunc runs in the guest and returns the result payload.
type TaskFunc func(ctx context.Context, g *Guest) ([]byte, error)

var (
	tasksMu sync.Mutex
	tasks   = map[string]TaskFunc{}
)

// RegisterTask makes a task available to the guest's /init under name.
// internal/cli registers "measure"; other packages may register their own
// (a kexec test, say) and name it in the initramfs's Task.
func RegisterTask(name string, fn TaskFunc) {
	tasksMu.Lock()
	defer tasksMu.Unlock()
	tasks[name] = fn
}

// IsGuest says whether this process is the guest's /init: process 1
// started as /init. sectax then runs GuestMain instead of the CLI.
func IsGuest() bool {
	return os.Getpid() == 1 && len(os.Args) > 0 && path.Base(os.Args[0]) == "init"
}

// GuestMain is /init: it mounts the pseudo file systems, loads the
// modules the initramfs lists, opens the channel, says hello, runs the
// task named in the initramfs, sends its result (or its error) and powers
// the machine off. It does not return.
func GuestMain() {
	ctx := context.Background()
	err := guestSetup()
	var g *Guest
	if err == nil {
		g, err = guestStart()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sectax /init: %v\n", err)
		if g != nil {
			g.Send(KindError, []byte(err.Error()))
		}
		powerOff(g)
	}
	res, err := runTask(ctx, g)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sectax /init: %s: %v\n", g.Task.Name, err)
		kind := KindError
		if errors.Is(err, ErrNotVerified) {
			kind = KindUnverified
		}
		g.Send(kind, []byte(oneLine(err.Error())))
	} else {
		g.Send(KindResult, res)
	}
	powerOff(g)
}

func runTask(ctx context.Context, g *Guest) (res []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("task panicked: %v", r)
		}
	}()
	tasksMu.Lock()
	fn := tasks[g.Task.Name]
	tasksMu.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("unknown guest task %q", g.Task.Name)
	}
	return fn(ctx, g)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var loaded []string

// guestSetup mounts what a Go program and sysinfo need.
func guestSetup() error {
	for _, m := range []struct{ src, dst, fs string }{
		{"proc", "/proc", "proc"}, {"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"}, {"tmpfs", "/tmp", "tmpfs"},
	} {
		os.MkdirAll(m.dst, 0o755)
		if err := unix.Mount(m.src, m.dst, m.fs, 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
			return fmt.Errorf("mount %s: %w", m.dst, err)
		}
	}
	os.Setenv("PATH", "/")
	os.Setenv("HOME", "/root")
	os.Setenv("TMPDIR", "/tmp")
	list, err := os.ReadFile("/" + ModulesList)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, p := range strings.Fields(string(list)) {
		if err := loadModule(p); err != nil {
			return err
		}
		loaded = append(loaded, ModuleName(p))
	}
	return nil
}

func loadModule(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("kernel module: %w", err)
	}
	defer f.Close()
	if err := unix.FinitModule(int(f.Fd()), "", 0); err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("finit_module %s: %w", path.Base(p), err)
	}
	return nil
}

func guestStart() (*Guest, error) {
	data, err := os.ReadFile("/" + TaskPath)
	if err != nil {
		return nil, err
	}
	var t Task
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", TaskPath, err)
	}
	dev := t.Channel
	if dev == "" {
		dev = DefaultChannel
	}
	ch, err := os.OpenFile(dev, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("result channel: %w", err)
	}
	if tio, err := unix.IoctlGetTermios(int(ch.Fd()), unix.TCGETS); err == nil {
		// Raw: no newline translation, no echo, 8 bits.
		tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
		tio.Oflag &^= unix.OPOST
		tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		tio.Cflag &^= unix.CSIZE | unix.PARENB
		tio.Cflag |= unix.CS8
		tio.Cflag = tio.Cflag&^unix.CBAUD | unix.B115200
		if err := unix.IoctlSetTermios(int(ch.Fd()), unix.TCSETS, tio); err != nil {
			return nil, fmt.Errorf("result channel %s: raw mode: %w", dev, err)
		}
	}
	g := &Guest{Task: t, ch: ch}
	var rel string
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		rel = unix.ByteSliceToString(u.Release[:])
	}
	hello, _ := json.Marshal(GuestHello{Release: rel, UptimeS: uptime(), Task: t.Name, Modules: loaded})
	if err := g.Send(KindHello, hello); err != nil {
		return nil, fmt.Errorf("result channel %s: %w", dev, err)
	}
	return g, nil
}

func uptime() float64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	return float64(ts.Nano()) / 1e9
}

// powerOff ends the guest: the host sees the done frame, then QEMU exits.
func powerOff(g *Guest) {
	if g != nil {
		g.Send(KindDone, nil)
		unix.IoctlSetInt(int(g.ch.Fd()), unix.TCSBRK, 1) // tcdrain
		g.ch.Sync()
	}
	unix.Sync()
	time.Sleep(50 * time.Millisecond)
	for {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
		time.Sleep(time.Second)
	}
}
