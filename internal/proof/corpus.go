package proof

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/tempdir"
	"github.com/sectax/sectax/internal/ui"
	"github.com/sectax/sectax/internal/userfile"
	"github.com/sectax/sectax/internal/vm"
)

// The corpus of real boots (docs/corpus.md): kernel images × QEMU CPU
// models × command lines, each booted under TCG with no workload, its
// vulnerability files, /proc/cmdline and SMT state recorded as a
// mitigation.Observation. internal/mitigation's replay test checks the
// model against every one. A boot is the probe boot's: the snapshot task,
// the same initramfs, channel, limits and checks as every lab boot.

// CorpusCPUs are the QEMU x86 CPU models the corpus boots: Intel from
// Haswell to Icelake-Server and Snowridge, AMD's EPYC to EPYC-Milan, and
// Hygon's Dhyana (versioned names: an alias depends on the machine type).
var CorpusCPUs = []string{
	"Haswell-v1", "Broadwell-v1", "Skylake-Client-v1", "Skylake-Server-v1", "Cascadelake-Server-v1",
	"Cooperlake-v1", "Icelake-Server-v1", "Snowridge-v1",
	"EPYC-v1", "EPYC-Rome-v1", "EPYC-Milan-v1", "Dhyana-v1",
}

// corpusCoreCPUs are the models every line of CorpusCoreLines is booted
// on first (Intel either side of eIBRS, AMD with SRSO); the other models
// get the default line and mitigations=off, their share of the per-bug
// lines, and the core lines last.
var corpusCoreCPUs = []string{"Skylake-Client-v1", "Cascadelake-Server-v1", "EPYC-Milan-v1"}

// CorpusCoreLines are the command lines of the model's global switches:
// mitigations=, its attack vectors (one by one; decide's cumulative sets
// are added per machine by CorpusLines), nosmt, repeated mitigations=
// tokens and unknown tokens inside mitigations=.
var CorpusCoreLines = []string{
	"mitigations=off",
	"mitigations=auto",
	"mitigations=auto,nosmt",
	"nosmt",
	"mitigations=off nosmt",
	"mitigations=auto,no_user_kernel",
	"mitigations=auto,no_user_user",
	"mitigations=auto,no_guest_host",
	"mitigations=auto,no_guest_guest",
	"mitigations=auto,no_cross_thread",
	"mitigations=off mitigations=auto",
	"mitigations=auto mitigations=off",
	"mitigations=off mitigations=auto,no_guest_host",
	"mitigations=auto,no_guest_host mitigations=auto",
	"mitigations=auto,bogus,no_user_kernel",
	"mitigations=no_user_kernel,bogus,no_guest_host",
	"mitigations=bogus",
	"mitigations=off,bogus",
	"mitigations=bogus,off",
	"mitigations=off mitigations=auto,nosmt",
	"mitigations=auto,nosmt mitigations=off",
}

// CorpusOldLines are the core lines booted on a kernel without
// attack-vector controls: to it every mitigations=auto,no_… is the same
// unknown option, so one of them, and the unknown token, suffice.
var CorpusOldLines = []string{
	"mitigations=off",
	"mitigations=auto",
	"mitigations=auto,nosmt",
	"nosmt",
	"mitigations=off nosmt",
	"mitigations=auto,no_user_kernel",
	"mitigations=off mitigations=auto",
	"mitigations=auto mitigations=off",
	"mitigations=auto,bogus,no_user_kernel",
	"mitigations=off,bogus",
	"mitigations=off mitigations=auto,nosmt",
	"mitigations=auto,nosmt mitigations=off",
}

// interleave takes one item of each list in turn.
func interleave[T any](lists [][]T) []T {
	var out []T
	for i := 0; ; i++ {
		more := false
		for _, l := range lists {
			if i < len(l) {
				out = append(out, l[i])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// corpusSkipKeys are parameters of the knowledge base that an x86 kernel
// does not parse or that are KVM module parameters (no KVM in the guest).
func corpusSkipKey(key string) bool {
	return strings.HasPrefix(key, "kvm") || strings.HasPrefix(key, "no_") || key == "nobp" || key == "nospec" || key == "l1d_flush"
}

// CorpusBugLines are the per-bug lines: every value the model has a rule
// for of every x86 bug parameter (the bare flags as they are), alone (one
// value of each parameter in turn), then each after mitigations=off when
// the value does not itself turn the bug off.
func CorpusBugLines(kb *mitigation.Knowledge) []string {
	var byParam [][]string
	for _, p := range kb.Params {
		if !p.Mitigation || p.Kind == "global" || corpusSkipKey(p.Key) {
			continue
		}
		var ls []string
		if p.Flag != "" {
			ls = append(ls, p.Key)
		}
		for _, v := range p.Values {
			ls = append(ls, p.Key+"="+v.Value)
		}
		byParam = append(byParam, ls)
	}
	// One value of every parameter in turn, so that a run stopped early
	// has touched every parameter.
	alone := interleave(byParam)
	out := slices.Clone(alone)
	for _, l := range alone {
		if !mitigation.TurnsOff(l) {
			out = append(out, "mitigations=off "+l)
		}
	}
	return out
}

// CorpusLines are decide's options for the machine of a default boot (the
// cumulative vector sets in this kernel's own syntax: the vectors, or the
// per-bug parameters before 6.17) that CorpusCoreLines does not already
// hold. A line the model predicts to change nothing here, which decide
// leaves out, is booted all the same: that prediction is checked too.
func CorpusLines(kb *mitigation.Knowledge, m mitigation.Machine) []string {
	var out []string
	for _, vs := range attribute.VectorSets {
		d, _, err := kb.DropVectors(m, vs.Drop)
		if err != nil || len(d.Params) == 0 {
			continue
		}
		if l := d.Cmdline(); !slices.Contains(CorpusCoreLines, l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// CorpusKey names one boot of the corpus: the image, the CPU model, the
// threads per core and the parameters.
func CorpusKey(image, cpu string, threads int, params string) string {
	return image + "\x00" + cpu + "\x00" + strconv.Itoa(threads) + "\x00" + params
}

// ObservationOf is the corpus record of a boot's snapshot, checked by
// CheckObserved.
func ObservationOf(snap *sysinfo.Snapshot, img vm.KernelImage, cpu string, threads int, accel, params string) mitigation.Observation {
	m := snap.Machine()
	o := mitigation.Observation{
		Release: snap.Kernel.Release, Version: strings.TrimSpace(snap.Kernel.Version), Image: img.SHA256,
		CPUModel: cpu, Accel: accel, Threads: threads,
		Arch: snap.CPU.Arch, Vendor: snap.CPU.Vendor, Family: snap.CPU.Family, Model: snap.CPU.Model, Stepping: snap.CPU.Stepping,
		Platform: m.Platform, NoGlobalSwitch: m.NoGlobalSwitch,
		Params: params, Cmdline: strings.TrimSpace(snap.Cmdline.Raw),
		SMTControl: snap.SMT.Control, SMTActive: snap.SMT.Active,
	}
	if snap.Vulnerabilities != nil {
		o.Files = map[string]string{}
		for _, v := range snap.Vulnerabilities {
			o.Files[v.Name] = strings.TrimSpace(v.Raw)
		}
	}
	return o
}

// CorpusRequest is one run of `sectax corpus boot`.
type CorpusRequest struct {
	Kernels []vm.Kernel
	// CPUs are the QEMU CPU models (CorpusCPUs when empty).
	CPUs []string
	// Lines, when given, narrow the command lines to these (the default
	// line, which every other is predicted from, is always booted).
	Lines []string
	// Threads are the SMT topologies, threads per core of a two-vCPU
	// guest, each booted whole in turn (CorpusThreads when empty).
	Threads []int
	// Out is the corpus file: what it holds already is kept and not booted
	// again (the run resumes); it is rewritten, gzipped, after every
	// Batch boots and at the end.
	Out string
	// Previous is Out as it was, opened once by the caller
	// (userfile.OpenPrevious: a regular file, never a FIFO swapped in);
	// nil when there is none yet.
	Previous io.Reader
	// Parallel boots at once (2 when 0); Limit stops after this many
	// boots started (0: none).
	Parallel, Limit, Batch int
	QEMU                   string
	// Exe is the static sectax that is the guest's /init.
	Exe string
	// P is told each boot, done or failed (nil: nowhere).
	P ui.Printer
}

type corpusStep struct {
	k       vm.Kernel
	cpu     string
	threads int
	params  string
}

// CorpusThreads are the SMT topologies of the corpus: two SMT siblings
// (nosmt and the SMT sub-fields have something to change), then two cores
// of one thread.
var CorpusThreads = []int{2, 1}

// BootCorpus boots what the corpus file lacks, one SMT topology after the
// other, each in bootTopology's order of importance. A boot that fails is
// said and left out (a later run tries it again).
func BootCorpus(ctx context.Context, req CorpusRequest) (added int, err error) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return 0, err
	}
	if err := vm.CheckStatic(req.Exe); err != nil {
		return 0, err
	}
	cpus := req.CPUs
	if len(cpus) == 0 {
		cpus = CorpusCPUs
	}
	req.P = ui.Or(req.P)
	if req.Parallel <= 0 {
		req.Parallel = 2
	}
	if req.Batch <= 0 {
		req.Batch = 5
	}
	var have []mitigation.Observation
	if req.Previous != nil {
		if have, err = mitigation.ReadObservations(req.Previous); err != nil {
			return 0, fmt.Errorf("%s: %w", req.Out, err)
		}
	}
	done := map[string]bool{}
	for _, o := range have {
		done[CorpusKey(o.Image, o.CPUModel, o.Threads, o.Params)] = true
	}
	// Each kernel is unpacked once, at its first boot, for direct boots
	// (vm.Direct) into a folder of this run's.
	unpacked, err := tempdir.Make("corpus-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(unpacked)
	direct := map[string]*directKernel{}
	for _, k := range req.Kernels {
		direct[k.Image.SHA256] = &directKernel{}
	}
	boot := func(s corpusStep) (mitigation.Observation, error) {
		d := direct[s.k.Image.SHA256]
		d.once.Do(func() {
			d.path, d.err = vm.Direct(ctx, s.k.Image, unpacked)
			if d.err != nil && ctx.Err() == nil {
				req.P.Notef("%s is booted through its bzImage (%v)", s.k.Name, d.err)
			}
		})
		if ctx.Err() != nil {
			return mitigation.Observation{}, ctx.Err()
		}
		return bootOne(ctx, req, s, d.path)
	}
	var mu sync.Mutex
	started := 0 // boots started, for Limit
	save := func() error {
		mu.Lock()
		defer mu.Unlock()
		return writeCorpus(ctx, req.Out, have)
	}
	run := func(steps []corpusStep) error {
		var todo []corpusStep
		for _, s := range steps {
			if len(req.Lines) > 0 && s.params != "" && !slices.Contains(req.Lines, s.params) {
				continue
			}
			if !done[CorpusKey(s.k.Image.SHA256, s.cpu, s.threads, s.params)] {
				todo = append(todo, s)
			}
		}
		ch := make(chan corpusStep)
		var wg sync.WaitGroup
		since := 0
		var firstErr error
		for range req.Parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for s := range ch {
					o, err := boot(s)
					mu.Lock()
					if err != nil {
						req.P.Notef("%s %s threads=%d %q: %v", s.k.Name, s.cpu, s.threads, s.params, err)
						mu.Unlock()
						continue
					}
					have = append(have, o)
					done[CorpusKey(o.Image, o.CPUModel, o.Threads, o.Params)] = true
					added++
					since++
					flush := since >= req.Batch
					if flush {
						since = 0
					}
					req.P.Notef("%d boots (%d new): %s %s threads=%d %q", len(have), added, s.k.Name, s.cpu, s.threads, s.params)
					mu.Unlock()
					if flush {
						if err := save(); err != nil {
							mu.Lock()
							firstErr = err
							mu.Unlock()
						}
					}
				}
			}()
		}
	feed:
		for _, s := range todo {
			if req.Limit > 0 && started >= req.Limit {
				break
			}
			select {
			case ch <- s:
				started++
			case <-ctx.Done():
				break feed
			}
		}
		close(ch)
		wg.Wait()
		if err := save(); err != nil {
			return err
		}
		if firstErr != nil {
			return firstErr
		}
		return ctx.Err()
	}
	threads := req.Threads
	if len(threads) == 0 {
		threads = CorpusThreads
	}
	for _, t := range threads {
		if t != 1 && t != 2 {
			return added, fmt.Errorf("--threads %d: a corpus guest has two vCPUs, one or two threads per core", t)
		}
	}
	for _, t := range threads {
		if err := bootTopology(kb, req.Kernels, cpus, t, &have, run); err != nil {
			return added, err
		}
	}
	return added, nil
}

// bootTopology runs the corpus's steps for one SMT topology, in order of
// importance: the default line on every kernel × CPU; the per-bug lines
// alone, then after mitigations=off, each on one CPU model in turn; the
// core lines and decide's options on the core CPUs and mitigations=off on
// every CPU; every per-bug line on every model; the core lines on every
// other model.
func bootTopology(kb *mitigation.Knowledge, kernels []vm.Kernel, cpus []string, t int, have *[]mitigation.Observation, run func([]corpusStep) error) error {
	// 1. The default line everywhere: the machine every other line is
	// predicted from.
	var steps []corpusStep
	for _, k := range kernels {
		for _, c := range cpus {
			steps = append(steps, corpusStep{k, c, t, ""})
		}
	}
	if err := run(steps); err != nil {
		return err
	}
	// 2. Every per-bug value, alone and then after mitigations=off, on one
	// CPU model in turn, the kernels in turn.
	var byKernel [][]corpusStep
	bug := CorpusBugLines(kb)
	for ki, k := range kernels {
		var ks []corpusStep
		for i, l := range bug {
			ks = append(ks, corpusStep{k, cpus[(i+ki*5)%len(cpus)], t, l})
		}
		byKernel = append(byKernel, ks)
	}
	if err := run(interleave(byKernel)); err != nil {
		return err
	}
	// 3. The global switches and decide's options, the kernels in turn. A
	// kernel without attack-vector controls gets the lines of
	// CorpusOldLines on two core models (the others are the same unknown
	// mitigations= option to it).
	byKernel = nil
	for _, k := range kernels {
		var ks []corpusStep
		for _, c := range cpus {
			core := slices.Contains(corpusCoreCPUs, c)
			var base *mitigation.Observation
			for i, o := range *have {
				if o.Image == k.Image.SHA256 && o.CPUModel == c && o.Threads == t && o.Params == "" {
					base = &(*have)[i]
					break
				}
			}
			lines := CorpusCoreLines
			if base != nil && !kb.HasVectorControls(base.Machine()) {
				lines = CorpusOldLines
				core = core && c != corpusCoreCPUs[0]
			}
			for _, l := range lines {
				if core || l == "mitigations=off" {
					ks = append(ks, corpusStep{k, c, t, l})
				}
			}
			if core && base != nil {
				for _, l := range CorpusLines(kb, base.Machine()) {
					ks = append(ks, corpusStep{k, c, t, l})
				}
			}
		}
		byKernel = append(byKernel, ks)
	}
	if err := run(interleave(byKernel)); err != nil {
		return err
	}
	// 4. Every per-bug value on every model (the models in the order
	// asked), the kernels in turn.
	byKernel = nil
	for _, k := range kernels {
		var ks []corpusStep
		for _, l := range bug {
			for _, c := range cpus {
				ks = append(ks, corpusStep{k, c, t, l})
			}
		}
		byKernel = append(byKernel, ks)
	}
	if err := run(interleave(byKernel)); err != nil {
		return err
	}
	// 5. The core lines on every other model.
	steps = nil
	for _, k := range kernels {
		for _, c := range cpus {
			for _, l := range CorpusCoreLines {
				steps = append(steps, corpusStep{k, c, t, l})
			}
		}
	}
	return run(steps)
}

// directKernel is a kernel unpacked for direct boots ("" with the reason
// when its bzImage is booted).
type directKernel struct {
	once sync.Once
	path string
	err  error
}

// bootOne boots one step with the snapshot task, directly when direct
// names the unpacked kernel, and makes its observation.
func bootOne(ctx context.Context, req CorpusRequest, s corpusStep, direct string) (mitigation.Observation, error) {
	append := bootconfig.On.Cmdline(vm.LabParams, nil)
	if s.params != "" {
		append += " " + s.params
	}
	opts := vm.BootOptions{
		QEMU:      vm.QEMU{Binary: req.QEMU, Accel: vm.AccelTCG, CPU: s.cpu, MemoryMiB: 512, SMP: 2, Threads: s.threads, Kernel: s.k.Image.Path, Direct: direct, Append: append},
		Initramfs: &vm.InitramfsOptions{Init: req.Exe, ModulesDir: s.k.ModulesDir, Modules: s.k.Modules, Task: vm.Task{Name: vm.SnapshotTask}},
		Handshake: 90 * time.Second, Timeout: 3 * time.Minute,
	}
	res, err := vm.Boot(ctx, opts)
	if err != nil {
		return mitigation.Observation{}, err
	}
	snap, err := vm.CheckObserved(res.Result, append, s.k.Image.Release)
	if err != nil {
		return mitigation.Observation{}, err
	}
	o := ObservationOf(snap, s.k.Image, s.cpu, s.threads, vm.AccelTCG, s.params)
	if direct != "" {
		o.Entry = vm.EntryPVH
	}
	return o, nil
}

// writeCorpus writes the corpus file (mitigation.EncodeObservations),
// even after Ctrl-C: what was booted is kept.
func writeCorpus(ctx context.Context, p string, obs []mitigation.Observation) error {
	data, err := mitigation.EncodeObservations(obs)
	if err != nil {
		return err
	}
	return userfile.WriteFile(context.WithoutCancel(ctx), p, data)
}
