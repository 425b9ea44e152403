package workload

import (
	"context"
	"fmt"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"runtime"
	"strconv"
	"time"
)

// SchedPipe is `perf bench sched pipe`: a 4-byte token passed back and forth
// over two blocking pipes between two processes (or threads). One op is one
// round trip: two writes and two reads, and on a shared CPU two context
// switches.
//
// Note: perf's timed window includes fork() of the child and its exit and
// reaping. A re-executed Go child costs far more to start than a fork, so
// the window here starts at a barrier after the child is ready and stops
// after the parent's last read (perf's window:
// https://github.com/torvalds/linux/blob/master/tools/perf/bench/sched-pipe.c); for the study's
// sizes perf's own fork cost is a fraction of a percent on bare metal.
type SchedPipe struct{}

// Info implements Workload.
func (SchedPipe) Info() Info {
	return Info{
		ID:    "sched-pipe",
		Title: "token ping-pong over two pipes between two processes or threads",
		Perf:  "perf bench sched pipe -l LOOPS [-T]",
		Stresses: Stress{Paths: []string{mitigation.TagContextSwitch, mitigation.TagEntryExit}, Note: "context switch and wake-up: IBPB on task switch, CR3 switch (PTI), RSB filling, plus entry/exit of 4 syscalls per op",
			Pays: "context switches: paid each time the token passes between the two tasks"},
		Params: []ParamSpec{
			{Key: "loops", Help: "round trips per repetition",
				Default: int64(100_000), Quick: int64(50_000), Study: int64(100_000), Min: 1, Max: 1 << 40},
			{Key: "mode", Help: "process: two processes (perf default); thread: two threads (perf -T)",
				Default: "process", Choices: []string{"process", "thread"}},
			spawnParam,
			{Key: "style", Help: "pingpong: strict ping-pong of perf <= 6.14; symmetric: both write then read, perf >= 6.15",
				Default: "pingpong", Choices: []string{"pingpong", "symmetric"}},
		},
		Metrics: perOpMetrics("round trip"),
	}
}

// PerfArgs implements PerfBencher: perf bench sched pipe -l LOOPS, -T for
// threads. The style must be the installed perf's (PerfDefaults).
func (SchedPipe) PerfArgs(p Params, v PerfVersion) ([]string, error) {
	loops, err := perfInt("sched-pipe", p, "loops")
	if err != nil {
		return nil, err
	}
	if st, want := p.Str("style"), perfPipeStyle(v); st != want {
		return nil, &UsageError{Msg: fmt.Sprintf(
			"%s runs sched pipe in %s style, not %s: use --param sched-pipe.style=%s (perf >= 6.15 is symmetric, older perf ping-pong)",
			v.Text, want, st, want)}
	}
	a := []string{"bench", "sched", "pipe", "-l", loops}
	if p.Str("mode") == "thread" {
		a = append(a, "-T")
	}
	return a, nil
}

// PerfSample implements PerfBencher: perf's usecs/op and ops/sec.
func (SchedPipe) PerfSample(p Params, o PerfOutput) (Sample, error) { return perfPerOp(p, o) }

// PerfDefaults implements PerfDefaulter: with the perf engine both engines
// run the semantics of the installed perf.
func (SchedPipe) PerfDefaults(v PerfVersion) map[string]string {
	return map[string]string{"style": perfPipeStyle(v)}
}

// perfPipeStyle is the sched pipe semantics of perf v: symmetric from 6.15
// on, strict ping-pong before (commit 99476fa085da).
func perfPipeStyle(v PerfVersion) string {
	if v.AtLeast(6, 15) {
		return "symmetric"
	}
	return "pingpong"
}

// ProbeParams implements Prober: a context switch between processes (where
// the IBPB and the L1D flush happen) and between threads (no change of
// address space).
func (SchedPipe) ProbeParams() []map[string]string {
	return []map[string]string{{"mode": "process"}, {"mode": "thread"}}
}

// Cost implements Estimator: 20 µs a round trip.
func (SchedPipe) Cost(p Params) time.Duration { return perUnit(p.Int("loops"), 20e-6) }

// pipeRole is what one side of the ping-pong does in each iteration.
type pipeRole struct {
	rfd, wfd  int
	readFirst bool
}

// loop runs n iterations of the role.
func (r pipeRole) loop(n int64) error {
	var tok [4]byte
	for i := int64(0); i < n; i++ {
		if r.readFirst {
			if err := readFull(rawSys, r.rfd, tok[:]); err != nil {
				return err
			}
			if err := writeFull(rawSys, r.wfd, tok[:]); err != nil {
				return err
			}
			continue
		}
		if err := writeFull(rawSys, r.wfd, tok[:]); err != nil {
			return err
		}
		if err := readFull(rawSys, r.rfd, tok[:]); err != nil {
			return err
		}
	}
	return nil
}

// pipeWorker is worker 0 of perf (it reads pipe 1 and writes pipe 2): it
// reports ready, waits for the go byte, then runs its loops. Legacy style
// reads first; symmetric style writes first.
func pipeWorker(role pipeRole, readyFD, goFD int, loops int64) error {
	var b [1]byte
	if err := writeFull(rawSys, readyFD, b[:]); err != nil {
		return err
	}
	if err := readFull(rawSys, goFD, b[:]); err != nil {
		return err
	}
	return role.loop(loops)
}

// workers implements workerOwner: the process-mode child.
func (SchedPipe) workers() map[string]func([]string) error {
	return map[string]func([]string) error{"pipe": pipeChild}
}

// pipeChild is the entry point of the re-executed child: descriptors 3 and 4
// are its read and write ends, 5 the ready pipe and 6 the go pipe.
func pipeChild(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: pipe LOOPS pingpong|symmetric")
	}
	loops, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	return pipeWorker(pipeRole{rfd: 3, wfd: 4, readFirst: args[1] == "pingpong"}, 5, 6, loops)
}

// Run implements Workload.
func (SchedPipe) Run(ctx context.Context, env Env, p Params) (s Sample, err error) {
	loops, thread, style := p.Int("loops"), p.Str("mode") == "thread", p.Str("style")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer atLeastProcs(4)()
	defer gcOff()()

	// fds: pipe 1 carries parent → worker 0, pipe 2 worker 0 → parent.
	p1r, p1w, err := pipePair()
	if err != nil {
		return s, err
	}
	p2r, p2w, err := pipePair()
	if err != nil {
		closeAll(p1r, p1w)
		return s, err
	}
	readyR, readyW, err := pipePair()
	if err != nil {
		closeAll(p1r, p1w, p2r, p2w)
		return s, err
	}
	goR, goW, err := pipePair()
	if err != nil {
		closeAll(p1r, p1w, p2r, p2w, readyR, readyW)
		return s, err
	}
	// The parent's own ends are closed on every path; closing p1w is also
	// what unblocks a thread-mode worker 0 when the parent stops early.
	defer closeAll(p1w, p2r, readyR, goW)
	childFDs := []int{p1r, p2w, readyW, goR}

	deadline := time.Time{}
	if env.Timeout > 0 {
		deadline = time.Now().Add(env.Timeout)
	}
	childPID := 0
	workerErr := make(chan error, 1)
	if thread {
		role := pipeRole{rfd: p1r, wfd: p2w, readFirst: style == "pingpong"}
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			env.SpecCtlThread()
			err := pipeWorker(role, readyW, goR, loops)
			closeAll(childFDs...)
			workerErr <- err
		}()
	} else {
		g, err := newProcGroup(env)
		if err != nil {
			closeAll(childFDs...)
			return s, err
		}
		defer g.close()
		if p.Str("spawn") == "fork" {
			// The forked child closes nothing: like perf's, it keeps every
			// descriptor it inherited.
			a := &forkMsg{kind: forkPipe, readFirst: style == "pingpong", in: p1r, readyFD: readyW, goFD: goR, closeFD: -1, count: loops}
			a.outs[0] = p2w
			err = g.fork(a)
		} else {
			_, err = g.spawn([]string{"pipe", strconv.FormatInt(loops, 10), style}, childFDs...)
		}
		closeAll(childFDs...)
		if err != nil {
			return s, err
		}
		pid := g.pids[0]
		// The watchdog kills the child when the repetition is cancelled or
		// outlives its timeout, which unblocks the parent's reads.
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-ctx.Done():
				g.kill()
			case <-timer(deadline):
				g.kill()
			case <-stop:
			}
		}()
		defer func() {
			if rerr := g.reap(); err == nil && rerr != nil {
				err = rerr
			}
		}()
		childPID = pid
	}

	if err := readCount(readyR, 1, deadline, func() bool { return ctx.Err() != nil }); err != nil {
		return s, barrierErr(ctx, "sched-pipe worker did not start", err)
	}
	var fp *run.Footprint
	if childPID != 0 {
		fp = footprint(childPID)
		env.specCtlWorkers(childPID)
	}
	parent := pipeRole{rfd: p2r, wfd: p1w}
	var b [1]byte
	start := time.Now()
	if err := writeFull(rawSys, goW, b[:]); err != nil {
		return s, err
	}
	// Run in chunks so that cancellation is noticed between them.
	for done := int64(0); done < loops; {
		n := min(loops-done, 4096)
		if err := parent.loop(n); err != nil {
			return s, barrierErr(ctx, "sched-pipe worker stopped", err)
		}
		done += n
		if done < loops && ctx.Err() != nil {
			return s, ctx.Err()
		}
	}
	elapsed := time.Since(start)
	if thread {
		if err := <-workerErr; err != nil {
			return s, fmt.Errorf("sched-pipe worker thread: %w", err)
		}
	}
	s = perOp(elapsed, loops)
	s.Footprint = fp
	return s, nil
}

// timer returns a channel that fires at deadline (never when zero).
func timer(deadline time.Time) <-chan time.Time {
	if deadline.IsZero() {
		return nil
	}
	return time.After(time.Until(deadline))
}

// barrierErr explains a failed wait: cancellation wins, then a timeout.
func barrierErr(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == errTimeout {
		return fmt.Errorf("%s before the repetition timeout", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}
