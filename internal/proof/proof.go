// Package proof is `--prove`: the kernel a prediction is about, booted
// under QEMU once per candidate command line with no workload (the lab's
// boot-only run, vm.Observe), each boot's files kept in a private
// per-user cache keyed by the image's bytes, the CPU, the accelerator and
// the line, so that the next question is answered without booting.
package proof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"encoding/json"

	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/proven"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/vm"
)

// Request is what --prove is asked: its flags and the machine.
type Request struct {
	// Root and Release find the running kernel's image (vm.DefaultImages)
	// when Kernel (--kernel) is empty.
	Root, Release, Kernel string
	// Accel (kvm, tcg, auto), CPU (--cpu; "": host under kvm, the QEMU
	// model nearest Host under tcg), QEMU's binary.
	Accel, CPU, QEMU string
	SMP              int
	// Handshake and Timeout are --handshake and --vm-timeout: each boot's
	// wait for the guest's hello and its whole bound (0: the lab's
	// defaults for a proof boot).
	Handshake, Timeout time.Duration
	// Exe is the static sectax that becomes the guests' /init.
	Exe string
	// Host is this machine.
	Host *sysinfo.Snapshot
	// CacheDir is the private cache ("": DefaultDir).
	CacheDir string
	// Out is told what the proof does (nil: nowhere).
	Out ui.Printer
	// Parallel bounds the boots at once (0: the cores).
	Parallel int
	// Boots is how many lines the whole proof boots, for its progress
	// ("boot N of M" across Observe's calls; 0: as many as booted so far
	// and in this call; -1: not known yet).
	Boots int
}

// Session is one proof: the image read and hashed, the accelerator and
// CPU decided, the cache open.
type Session struct {
	req Request
	// img is the private copy booted (its Path the copy's), imgPath the
	// image the user named; remove removes the copy.
	img     vm.KernelImage
	imgPath string
	remove  func()
	// direct is the unpacked kernel the boots start ("": its bzImage),
	// once unpacked is true; entry is vm.EntryPVH for a direct boot.
	direct, entry string
	unpacked      bool
	// auto: --accel auto resolved to kvm, which may still fall back.
	auto       bool
	accel, cpu string
	cpuWhy     string
	// qemu is QEMU's binary; qemuID and initID the sha256 of its bytes and
	// of the guest's /init's, in every key.
	qemu, qemuID, initID string
	cache                *Cache
	// threads is 2 where the host has SMT (-smp N,threads=2), bare true
	// on a bare-metal host: its guests boot with HypervisorOff so that
	// the kernel decides as on bare metal.
	threads int
	bare    bool
	obs     map[string]*sysinfo.Snapshot
	stored  map[string]bool
	booted  int
	// Wall is the time Observe took, boots and look-ups.
	Wall time.Duration
}

// Start reads the image, picks the accelerator and CPU, and opens the
// cache; nothing boots yet.
func Start(ctx context.Context, req Request) (*Session, error) {
	req.Out = ui.Or(req.Out)
	s := &Session{req: req, obs: map[string]*sysinfo.Snapshot{}, stored: map[string]bool{}}
	if err := vm.CheckBounds(req.Handshake, req.Timeout); err != nil {
		return nil, err
	}
	if err := vm.CheckCPUModel(req.CPU); err != nil {
		return nil, err
	}
	s.threads, s.bare = Topology(req.Host)
	if s.req.SMP <= 0 {
		s.req.SMP = s.threads
	}
	var err error
	if s.accel, err = vm.ResolveAccel(orAuto(req.Accel), req.Out); err != nil {
		return nil, err
	}
	s.auto = orAuto(req.Accel) == vm.AccelAuto && s.accel == vm.AccelKVM
	if s.qemu, err = qemuBinary(req.QEMU); err != nil {
		return nil, err
	}
	dir := req.CacheDir
	if dir == "" {
		if dir, err = DefaultDir(os.Geteuid(), os.Getenv); err != nil {
			return nil, err
		}
	}
	if s.cache, err = OpenCache(dir); err != nil {
		return nil, err
	}
	if err := s.start(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// start takes what made the proof (QEMU's and /init's bytes), copies the
// image to boot and decides the CPU.
func (s *Session) start(ctx context.Context) error {
	req := s.req
	var err error
	if s.qemuID, err = FileSHA256(s.cache, s.qemu, true); err != nil {
		return fmt.Errorf("QEMU %s: %w", s.qemu, err)
	}
	if s.initID, err = FileSHA256(s.cache, req.Exe, true); err != nil {
		return fmt.Errorf("the guest's /init %s: %w", req.Exe, err)
	}
	var paths []string
	if req.Kernel != "" {
		paths = []string{req.Kernel}
	}
	ks, err := vm.Kernels(ctx, paths, "", req.Root, req.Release)
	if err != nil {
		return err
	}
	s.imgPath = ks[0].Image.Path
	if s.img, s.remove, err = vm.PrivateKernel(ctx, s.imgPath); err != nil {
		return err
	}
	switch {
	case req.CPU != "":
		s.cpu, s.cpuWhy = req.CPU, "--cpu"
	case s.accel == vm.AccelKVM:
		s.cpu, s.cpuWhy = "host", "-cpu host: this machine's CPU, as KVM passes it through"
	default:
		s.cpu, s.cpuWhy = s.nearestCPU(ctx)
	}
	return nil
}

// nearestCPU is the QEMU model nearest this machine's CPU, and why.
func (s *Session) nearestCPU(ctx context.Context) (string, string) {
	return NearestCPU(s.req.Host.CPU, qemuModels(ctx, s.qemu)), s.nearestWhy()
}

// nearestWhy says why the CPU is the nearest QEMU model.
func (s *Session) nearestWhy() string {
	h := s.req.Host.CPU
	return fmt.Sprintf("the QEMU model nearest this machine's %s (family %s, model %s); --cpu MODEL picks another", safetext.Line(h.ModelName), safetext.Line(h.Family), safetext.Line(h.Model))
}

// qemuBinary is the path of QEMU's binary (--qemu, or
// qemu-system-x86_64 on PATH).
func qemuBinary(name string) (string, error) {
	name = vm.QEMUBinary(name)
	bin, err := child.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("--qemu %s: not found: install QEMU (Debian: apt-get install qemu-system-x86) or give the path of qemu-system-x86_64", name)
	}
	return bin, nil
}

func orAuto(a string) string {
	if a == "" {
		return vm.AccelAuto
	}
	return a
}

// Close releases the cache and removes the image's private copy.
func (s *Session) Close() {
	s.cache.Close()
	if s.remove != nil {
		s.remove()
	}
}

// Image is the kernel image the proof boots, named by the path the user
// gave (the bytes booted are a private copy of it).
func (s *Session) Image() vm.KernelImage {
	k := s.img
	k.Path = s.imgPath
	return k
}

// HypervisorOff is the parameter a proof boot on a bare-metal host gets:
// it clears X86_FEATURE_HYPERVISOR, so that the guest kernel picks its
// mitigations as on bare metal (gather_data_sampling, srbds and ITS
// decide otherwise under a hypervisor); the kernel's own ITS selftests
// boot their guests with it (tools/testing/selftests/x86/bugs/its_*.py).
const HypervisorOff = "clearcpuid=hypervisor"

// Topology is how a proof boots on host: threads 2 where the host has
// SMT (two threads a core, so what depends on SMT is observed), else 1;
// bare true where the host is no VM guest (its guests boot with
// HypervisorOff).
func Topology(host *sysinfo.Snapshot) (threads int, bare bool) {
	threads = 1
	if host == nil {
		return threads, false
	}
	if host.SMT.Active != nil && *host.SMT.Active {
		threads = 2
	}
	return threads, !host.Hypervisor.Guest && host.WSL == nil
}

// bootLine is the line a proof boots for line: HypervisorOff first on a
// bare-metal host.
func (s *Session) bootLine(line string) string {
	line = strings.TrimSpace(line)
	if s.bare {
		return strings.TrimSpace(HypervisorOff + " " + line)
	}
	return line
}

// View says how the proof's guests are booted: their topology and the
// hypervisor they see.
func (s *Session) View() string {
	v := fmt.Sprintf("%d vCPU(s)", s.req.SMP)
	if s.threads > 1 {
		v = fmt.Sprintf("-smp %d,threads=%d as this machine has SMT", s.req.SMP, s.threads)
	}
	if s.bare {
		return v + "; " + HypervisorOff + " on each line: this machine is no VM guest, so the guest kernel decides as on bare metal"
	}
	return v + "; the guest sees a hypervisor, as this machine (a VM guest) does"
}

// key is the cache key of line under this session.
func (s *Session) key(line string) Key {
	cpu := s.cpu
	if cpu == "host" {
		// -cpu host is this machine's CPU: another machine sharing the
		// home folder is another key.
		cpu = "host:" + s.req.Host.CPU.ModelName + "/" + s.req.Host.CPU.Microcode
	}
	k := Key{SHA256: s.img.SHA256, CPU: cpu, Accel: s.accel, SMP: s.req.SMP, Cmdline: s.bootLine(line), QEMU: s.qemuID, Init: s.initID}
	if s.threads > 1 {
		k.Threads = s.threads
	}
	return k
}

// Observe gives the snapshot of every line: from the cache where it holds
// the key, else booted (in parallel) and stored.
func (s *Session) Observe(ctx context.Context, lines []string, label func(string) string) error {
	t0 := time.Now()
	defer func() { s.Wall += time.Since(t0) }()
	var boot []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if s.obs[l] != nil || slices.Contains(boot, l) {
			continue
		}
		e, err := s.cache.Load(s.key(l))
		switch {
		case errors.Is(err, ErrMiss):
			boot = append(boot, l)
			continue
		case err != nil:
			return err
		}
		snap, err := vm.CheckObserved(e.Snapshot, vm.ObserveCmdline(s.bootLine(l)), s.img.Release)
		if err != nil {
			return fmt.Errorf("stored proof of %s: %v: refused; remove %s", label(l), err, s.cache.Dir)
		}
		s.obs[l], s.stored[l] = snap, true
	}
	if len(boot) == 0 {
		return nil
	}
	if !s.unpacked {
		// The kernel unpacked once, beside the image's private copy: every
		// boot then starts at its PVH entry (vm.Direct), or, when it has
		// none, through its bzImage as before.
		direct, err := vm.Direct(ctx, s.img, filepath.Dir(s.img.Path))
		if err != nil && ctx.Err() != nil {
			return err
		}
		s.unpacked, s.direct = true, direct
		if err != nil {
			s.req.Out.Notef("proof: %s is booted through its bzImage (%v)", s.imgPath, err)
		} else {
			s.entry = vm.EntryPVH
		}
	}
	s.req.Out.Notef("proof: booting %s (%s) %d time(s) under %s, CPU %s, %s, no workload, %d at a time", s.imgPath, s.img.Release, len(boot), s.accel, s.cpu, s.View(), min(len(boot), parallel(s.req.Parallel)))
	accel, tcgCPU := s.accel, func() string { return "" }
	if s.auto {
		// kvm may still fail to run the guest: vm.Observe falls back to
		// tcg, with the reason, and -cpu host to the nearest model.
		accel = vm.AccelAuto
		tcgCPU = func() string { c, _ := s.nearestCPU(ctx); return c }
	}
	user := map[string]string{}
	booting := make([]string, len(boot))
	for i, l := range boot {
		booting[i] = s.bootLine(l)
		user[booting[i]] = l
	}
	total := s.req.Boots // -1: not known yet
	if total >= 0 && total < s.booted+len(boot) {
		total = s.booted + len(boot)
	}
	got, err := vm.Observe(ctx, vm.ObserveRequest{Kernel: s.img, Cmdlines: booting, Accel: accel, CPU: s.cpu, TCGCPU: tcgCPU, QEMU: s.qemu,
		SMP: s.req.SMP, Threads: s.threads, Handshake: s.req.Handshake, Timeout: s.req.Timeout, Exe: s.req.Exe, Direct: s.direct, Out: s.req.Out,
		Label: func(b string) string { return label(user[b]) }, Parallel: s.req.Parallel, First: s.booted, Total: total})
	if err != nil {
		return err
	}
	for _, o := range got {
		o.Cmdline = user[o.Cmdline]
		s.obs[o.Cmdline] = o.Snapshot
		s.booted++
		if o.Accel != s.accel {
			// kvm fell back to tcg: the rest of the proof is tcg's.
			s.accel, s.auto = o.Accel, false
			if o.CPU != s.cpu {
				s.cpu, s.cpuWhy = o.CPU, "kvm could not run the guest, so under tcg "+s.nearestWhy()
			}
		}
		data, err := json.Marshal(reduce(o.Snapshot))
		if err != nil {
			return err
		}
		if err := s.cache.Store(&Entry{Key: s.key(o.Cmdline), Release: s.img.Release, Boot: s.entry, ToInitS: o.ToInit.Seconds(), Snapshot: data}); err != nil {
			s.req.Out.Notef("warning: %v: the proof is not stored, the next call boots again", err)
		}
	}
	return nil
}

// Snapshot is the observation of line (nil before Observe).
func (s *Session) Snapshot(line string) *sysinfo.Snapshot { return s.obs[strings.TrimSpace(line)] }

// Input is the proof's input to decide.Prove.
func (s *Session) Input() proven.Input {
	return proven.Input{Image: s.imgPath, SHA256: s.img.SHA256, Release: s.img.Release, Accel: s.accel, CPU: s.cpu, CPUWhy: s.cpuWhy,
		HostCPU: s.req.Host.CPU.ModelName, View: s.View(), Obs: s.obs, Stored: s.stored, Booted: s.booted}
}

func parallel(n int) int {
	if n <= 0 {
		return max(1, numCPU())
	}
	return n
}

// reduce keeps of a guest's snapshot what a proof reads: the kernel's
// release, /proc/cmdline, the vulnerability files, SMT, the CPU's
// identity and the hypervisor (every file the proof read, nothing else).
func reduce(s *sysinfo.Snapshot) *sysinfo.Snapshot {
	r := &sysinfo.Snapshot{Kernel: sysinfo.Kernel{Release: s.Kernel.Release}, Cmdline: sysinfo.Cmdline{Raw: s.Cmdline.Raw},
		Vulnerabilities: s.Vulnerabilities, SMT: s.SMT, Hypervisor: s.Hypervisor}
	r.CPU.Arch, r.CPU.Vendor, r.CPU.Family, r.CPU.Model, r.CPU.Stepping, r.CPU.ModelName = s.CPU.Arch, s.CPU.Vendor, s.CPU.Family, s.CPU.Model, s.CPU.Stepping, s.CPU.ModelName
	r.CPU.Online, r.CPU.Possible, r.CPU.Flags, r.CPU.Bugs = s.CPU.Online, s.CPU.Possible, s.CPU.Flags, s.CPU.Bugs
	return r
}

// qemuModels are the CPU models the installed QEMU offers (nil when it
// cannot say).
func qemuModels(ctx context.Context, binary string) []string {
	if binary == "" {
		binary = "qemu-system-x86_64"
	}
	bin, err := child.LookPath(binary)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := child.Output(ctx, child.Options{WaitDelay: time.Second}, bin, "-cpu", "help")
	if err != nil {
		return nil
	}
	var models []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "x86" {
			models = append(models, f[1])
		}
	}
	return models
}

// CacheDir is where the proofs are stored.
func (s *Session) CacheDir() string { return s.cache.Dir }

// Stored is verify's look-up, which never boots: the stored boots of the
// image for the default line and for line under one CPU and accelerator
// (kvm first), checked again as on the boot. Only boots of this machine's
// CPU count (-cpu host of this model and microcode, or the QEMU model
// nearest it, NearestCPU) in this machine's topology and hypervisor view
// (Topology). nil when the cache or the image is absent or holds no such
// pair; refused files come back as notes.
func Stored(ctx context.Context, cacheDir, image, line string, host *sysinfo.Snapshot) (*proven.Input, []string) {
	if cacheDir == "" {
		var err error
		if cacheDir, err = DefaultDir(os.Geteuid(), os.Getenv); err != nil {
			return nil, nil
		}
	}
	c, err := OpenExisting(cacheDir)
	if err != nil {
		return nil, []string{err.Error()}
	}
	if c == nil {
		return nil, nil
	}
	defer c.Close()
	// Only boots made by this QEMU and this sectax answer.
	qemuID, initID, err := identities(c)
	if err != nil {
		return nil, []string{fmt.Sprintf("the stored proofs are not used: %v", err)}
	}
	img, err := vm.ReadKernelContext(ctx, image)
	if err != nil {
		return nil, nil
	}
	s := &Session{req: Request{Host: host}}
	s.threads, s.bare = Topology(host)
	baseLine, lineLine := s.bootLine(""), s.bootLine(line)
	bases, errs := c.Find(img.SHA256, baseLine)
	lines, errs2 := c.Find(img.SHA256, lineLine)
	var notes []string
	for _, e := range append(errs, errs2...) {
		notes = append(notes, e.Error())
	}
	ours := func(k Key) bool {
		th := 0
		if s.threads > 1 {
			th = s.threads
		}
		if k.Threads != th {
			return false
		}
		if k.Accel == vm.AccelKVM {
			return k.CPU == "host:"+host.CPU.ModelName+"/"+host.CPU.Microcode
		}
		near := NearestCPU(host.CPU, nil)
		return k.CPU == near || strings.HasPrefix(k.CPU, near+"-v")
	}
	slices.SortFunc(bases, func(a, b *Entry) int { return strings.Compare(b.Key.Accel, a.Key.Accel) }) // kvm before tcg
	for _, b := range bases {
		if !ours(b.Key) {
			continue
		}
		for _, l := range lines {
			if l.Key.CPU != b.Key.CPU || l.Key.Accel != b.Key.Accel || l.Key.SMP != b.Key.SMP || l.Key.Threads != b.Key.Threads ||
				b.Key.QEMU != qemuID || l.Key.QEMU != qemuID || b.Key.Init != initID || l.Key.Init != initID {
				continue
			}
			bs, err1 := vm.CheckObserved(b.Snapshot, vm.ObserveCmdline(baseLine), img.Release)
			ls, err2 := vm.CheckObserved(l.Snapshot, vm.ObserveCmdline(lineLine), img.Release)
			if err1 != nil || err2 != nil {
				notes = append(notes, fmt.Sprintf("a stored proof of %s does not check: %v", img.Path, errors.Join(err1, err2)))
				continue
			}
			cpu := strings.TrimPrefix(b.Key.CPU, "host:")
			s.req.SMP = b.Key.SMP
			return &proven.Input{Image: img.Path, SHA256: img.SHA256, Release: img.Release, Accel: b.Key.Accel, CPU: cpu, CPUWhy: "as stored, this machine's CPU",
				HostCPU: host.CPU.ModelName, View: s.View(), Obs: map[string]*sysinfo.Snapshot{"": bs, line: ls}, Stored: map[string]bool{"": true, line: true}}, notes
		}
	}
	return nil, notes
}

// identities are the sha256 of the QEMU on PATH and of this sectax, as a
// proof's key names them (verify's look-up, which keeps no new memo).
func identities(c *Cache) (qemuID, initID string, err error) {
	bin, err := child.LookPath("qemu-system-x86_64")
	if err != nil {
		return "", "", errors.New("qemu-system-x86_64 is not on PATH, so none can be matched to the QEMU that made it")
	}
	if qemuID, err = FileSHA256(c, bin, false); err != nil {
		return "", "", fmt.Errorf("QEMU %s: %w", bin, err)
	}
	exe, err := os.Executable()
	if err == nil {
		initID, err = FileSHA256(c, exe, false)
	}
	if err != nil {
		return "", "", fmt.Errorf("this sectax: %w", err)
	}
	return qemuID, initID, nil
}
