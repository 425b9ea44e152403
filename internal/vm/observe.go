package vm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/ui"
)

// ObserveRequest is a boot-only run of the lab (sectax decide --prove,
// advise --prove): one kernel image booted once per command line, with no
// workload, each guest reporting its snapshot (SnapshotTask).
type ObserveRequest struct {
	Kernel KernelImage
	// Cmdlines are the candidate command lines, without LabParams ("":
	// the kernel's default).
	Cmdlines []string
	// Accel is kvm, tcg or auto (kvm when /dev/kvm works, else tcg; a
	// first boot whose kvm fails is tried again under tcg). CPU is QEMU's
	// model ("": DefaultCPU of the accelerator); TCGCPU, when set, gives
	// the model once auto has fallen back to tcg (-cpu host needs kvm).
	Accel, CPU, QEMU string
	TCGCPU           func() string
	MemoryMiB, SMP   int
	// Threads above 1 makes the vCPUs SMT siblings (-smp SMP,threads=N).
	Threads int
	// First and Total number the boots in progress lines across calls
	// ("boot First+i of Total"; Total 0: First plus this call's count;
	// -1: the total is not known yet, the progress says so).
	First, Total int
	// Handshake and Timeout bound each boot (0: 5m under tcg, 1m under
	// kvm; 10m).
	Handshake, Timeout time.Duration
	// Parallel boots at most this many VMs at once (0: the host's cores).
	Parallel int
	// Exe is the static sectax that becomes the guest's /init.
	Exe string
	// Direct, when set, is Kernel unpacked (Direct): every boot starts it
	// at its PVH entry.
	Direct string
	// Out is told the progress (nil: nowhere); Label names a command
	// line in it.
	Out   ui.Printer
	Label func(cmdline string) string
}

// Observed is what one boot showed, checked against what the host knows.
type Observed struct {
	Cmdline string
	// Snapshot is the guest's: its /proc/cmdline is the line the host
	// passed, its release the image's, its vulnerability files bounded
	// and their text made one printable line each.
	Snapshot *sysinfo.Snapshot
	ToInit   time.Duration
	// Accel and CPU are what the boot ran under (tcg and its model after
	// auto fell back).
	Accel, CPU string
}

// Bounds on what a boot-only guest may claim: a snapshot is a few KiB.
const (
	maxObservedFiles = 64
	maxObservedText  = 1024
	maxObservedBytes = 512 << 10
)

var vulnName = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

// ObserveLimits bound a boot whose result is a snapshot (a proof's, the lab's
// probe boot): a snapshot is a few KiB.
var ObserveLimits = Limits{Channel: 8 << 20, Console: 16 << 20, Frames: 1000, LogBytes: 64 << 10}

// ResolveAccel is the accelerator of --accel: auto is kvm when /dev/kvm
// can be opened, else tcg (a warning on out says why).
func ResolveAccel(accel string, out ui.Printer) (string, error) {
	if err := exit.Choose("--accel", accel, AccelKVM, AccelTCG, AccelAuto); err != nil {
		return "", err
	}
	if accel == AccelTCG {
		return accel, nil
	}
	if kerr := KVMUsable(); kerr != nil {
		if accel == AccelKVM {
			return "", fmt.Errorf("--accel kvm: %v; use --accel tcg (emulated)", kerr)
		}
		ui.Or(out).Notef("warning: %v: falling back to --accel tcg (the CPU is emulated)", kerr)
		return AccelTCG, nil
	}
	return AccelKVM, nil
}

// Observe boots req.Kernel once per command line, up to req.Parallel at
// once, and returns each boot's checked observation in the order of
// req.Cmdlines. Progress (boot i of n, elapsed, ETA) goes to req.Out. A
// guest whose claims do not match what the host passed is refused.
func Observe(ctx context.Context, req ObserveRequest) ([]Observed, error) {
	req.Out = ui.Or(req.Out)
	if req.Label == nil {
		req.Label = func(c string) string { return c }
	}
	auto := req.Accel == AccelAuto || req.Accel == ""
	accel, err := ResolveAccel(orAuto(req.Accel), req.Out)
	if err != nil {
		return nil, err
	}
	if err := CheckStatic(req.Exe); err != nil {
		return nil, err
	}
	for _, c := range req.Cmdlines {
		if err := CheckCmdline(ObserveCmdline(c), req.Kernel.CmdlineSize); err != nil {
			return nil, exit.Wrap(exit.Usage, err)
		}
	}
	par := req.Parallel
	if par <= 0 {
		par = runtime.NumCPU()
	}
	out := make([]Observed, len(req.Cmdlines))
	start := time.Now()
	var mu sync.Mutex
	done := 0
	var spent time.Duration
	cpu := req.CPU
	one := func(i int) error {
		for {
			t0 := time.Now()
			mu.Lock()
			a, c := accel, cpu
			mu.Unlock()
			o, err := observeOne(ctx, req, a, c, req.Cmdlines[i])
			if err != nil && auto && a == AccelKVM && (errors.Is(err, ErrAccel) || errors.Is(err, ErrNoHandshake)) {
				mu.Lock()
				if accel == AccelKVM {
					accel = AccelTCG
					if cpu == "" || cpu == "host" { // kvm's own CPU
						cpu = ""
						if req.TCGCPU != nil {
							cpu = req.TCGCPU()
						}
					}
					req.Out.Notef("warning: %v; falling back to --accel tcg (the CPU is emulated: QEMU's %s)", err, cmp.Or(cpu, DefaultCPU(AccelTCG)))
				}
				mu.Unlock()
				continue
			}
			if err != nil {
				return fmt.Errorf("proof boot of %s: %w", req.Label(req.Cmdlines[i]), err)
			}
			mu.Lock()
			out[i] = o
			done++
			spent += time.Since(t0)
			left := len(req.Cmdlines) - done
			eta := ""
			if left > 0 {
				// The boots left run par at a time.
				per := spent / time.Duration(done)
				eta = ", ETA " + measure.Clock(per*time.Duration((left+par-1)/par))
			}
			count := BootCount(req.First+done-1, max(req.Total, req.First+len(req.Cmdlines)), false)
			if req.Total < 0 {
				count = fmt.Sprintf("boot %d (the total is known after it)", req.First+done)
			}
			req.Out.Notef("%s: %s reached /init in %.1fs (%s elapsed%s)", count, req.Label(req.Cmdlines[i]), o.ToInit.Seconds(), measure.Clock(time.Since(start)), eta)
			mu.Unlock()
			return nil
		}
	}
	// The first boot alone when kvm may still fall back, then the rest
	// par at a time.
	first := 0
	if auto && accel == AccelKVM && len(req.Cmdlines) > 0 {
		if err := one(0); err != nil {
			return nil, bootErr(ctx, err)
		}
		first = 1
	}
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var firstErr error
	for i := first; i < len(req.Cmdlines); i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx2.Done():
				return
			}
			defer func() { <-sem }()
			if ctx2.Err() != nil {
				return
			}
			if err := one(i); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				cancel()
			}
		}(i)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, bootErr(ctx, firstErr)
	}
	if err := ctx.Err(); err != nil {
		return nil, bootErr(ctx, err)
	}
	return out, nil
}

func orAuto(a string) string {
	if a == "" {
		return AccelAuto
	}
	return a
}

func bootErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return exit.Wrap(exit.Interrupted, errors.New("interrupted during the proof's boots"))
	}
	return err
}

// ObserveCmdline is the whole line a proof boot gets: the lab's own
// parameters, then the candidate's.
func ObserveCmdline(c string) string {
	c = strings.TrimSpace(c)
	if c == "" {
		return LabParams
	}
	return LabParams + " " + c
}

func observeOne(ctx context.Context, req ObserveRequest, accel, cpu, cmdline string) (Observed, error) {
	if cpu == "" {
		cpu = DefaultCPU(accel)
	}
	hs := req.Handshake
	if hs <= 0 {
		hs = time.Minute
		if accel == AccelTCG {
			hs = 5 * time.Minute
		}
	}
	to := req.Timeout
	if to <= 0 {
		to = 10 * time.Minute
	}
	mem, smp := req.MemoryMiB, req.SMP
	if mem <= 0 {
		mem = 512
	}
	if smp <= 0 {
		smp = 1
	}
	full := ObserveCmdline(cmdline)
	res, err := Boot(ctx, BootOptions{
		QEMU:      QEMU{Binary: req.QEMU, Accel: accel, CPU: cpu, MemoryMiB: mem, SMP: smp, Threads: req.Threads, Kernel: req.Kernel.Path, Direct: req.Direct, Append: full},
		Initramfs: &InitramfsOptions{Init: req.Exe, Task: Task{Name: SnapshotTask}},
		Handshake: hs, Timeout: to, Limits: ObserveLimits,
	})
	if errors.Is(err, ErrNoHandshake) || errors.Is(err, ErrTimeout) {
		err = fmt.Errorf("%w (the bounds of --handshake %s and --vm-timeout %s)", err, hs, to)
	}
	if err != nil {
		return Observed{}, err
	}
	snap, err := CheckObserved(res.Result, full, req.Kernel.Release)
	if err != nil {
		return Observed{}, err
	}
	return Observed{Cmdline: cmdline, Snapshot: snap, ToInit: res.ToHello, Accel: accel, CPU: cpu}, nil
}

// CheckObserved reads a snapshot task's result as untrusted (a proof's
// boot, the probe boot of lab --plan, a corpus boot): at most 512 KiB;
// its /proc/cmdline must be the line the host passed, after a line built
// into the kernel only when that sets no mitigation or hardening
// parameter; its release the image's (when the image says), at most 64
// vulnerability files with plain names, each file's text one printable
// line.
func CheckObserved(payload []byte, cmdline, release string) (*sysinfo.Snapshot, error) {
	if len(payload) > maxObservedBytes {
		return nil, fmt.Errorf("the guest's snapshot is %d bytes, more than a snapshot holds (%d KiB): refused", len(payload), maxObservedBytes>>10)
	}
	var s sysinfo.Snapshot
	if err := json.Unmarshal(payload, &s); err != nil {
		return nil, fmt.Errorf("the guest's snapshot: %w", err)
	}
	if !BootedWith(s.Cmdline.Raw, cmdline) {
		return nil, fmt.Errorf("the guest reports the command line %q, but the host booted it with %q: refused (the guest's /init is not the one sectax built, or the kernel rewrote its command line)", safetext.Clip(s.Cmdline.Raw, 300), cmdline)
	}
	for _, p := range mitigation.ParseCmdline(builtinPrefix(s.Cmdline.Raw, cmdline)).Params {
		if mitigation.IsMitigationParam(p.Name) || mitigation.IsHardeningParam(p.Name) {
			return nil, fmt.Errorf("the guest's command line %q carries %s before the line the host passed, a command line built into the kernel: what the boot shows is not that of the line asked, refused (boot an image without a built-in %s)", safetext.Clip(s.Cmdline.Raw, 300), safetext.Clip(p.Raw, 100), p.Name)
		}
	}
	if release != "" && s.Kernel.Release != release {
		return nil, fmt.Errorf("the guest reports kernel %q, but the image the host booted is %s: refused", safetext.Clip(s.Kernel.Release, 100), release)
	}
	if len(s.Vulnerabilities) > maxObservedFiles {
		return nil, fmt.Errorf("the guest reports %d vulnerability files, more than any kernel has (%d): refused", len(s.Vulnerabilities), maxObservedFiles)
	}
	seen := map[string]bool{}
	for i := range s.Vulnerabilities {
		v := &s.Vulnerabilities[i]
		if !vulnName.MatchString(v.Name) || seen[v.Name] {
			return nil, fmt.Errorf("the guest reports a vulnerability file named %q: refused", safetext.Clip(v.Name, 80))
		}
		seen[v.Name] = true
		// The state is the host's reading of the text, never the guest's.
		*v = mitigation.ParseVulnerability(v.Name, safetext.Clip(v.Raw, maxObservedText))
	}
	return &s, nil
}

// BootedWith says whether a guest's /proc/cmdline is the command line the
// host passed: the same, or that line after a kernel's built-in one (x86
// puts CONFIG_CMDLINE first). Verification then judges the whole line.
func BootedWith(guest, host string) bool {
	guest = strings.TrimSpace(guest)
	return guest == host || strings.HasSuffix(guest, " "+host)
}

// builtinPrefix is what a guest's /proc/cmdline that BootedWith host
// carries before it ("" when none): a line built into the kernel.
func builtinPrefix(guest, host string) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(guest), host))
}

// BootCount names boot i (from 0) of total: "boot 3 of 4"; under
// adaptive repetition the total is open, "boot 5 of 6 so far (adaptive:
// more while the target is not met)", since rounds are added after the
// planned boots until the target or the budget stops them.
func BootCount(i, total int, adaptive bool) string {
	if adaptive {
		return fmt.Sprintf("boot %d of %d so far (adaptive: more while the target is not met)", i+1, total)
	}
	return fmt.Sprintf("boot %d of %d", i+1, total)
}
