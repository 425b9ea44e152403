package workload

import (
	"context"
	"fmt"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// SchedMessaging is `perf bench sched messaging`, the hackbench port:
// groups of 20 senders and 20 receivers; every sender writes a 100-byte
// message to each receiver of its group, loops times. All workers report
// ready, then block in poll() until one wake byte releases them together.
//
// Two metrics: total_s is perf's window (from the wake byte until every
// worker has been reaped, teardown included); work_s stops when the last
// worker has done its work (each writes one byte to a done pipe as it
// finishes), which excludes process teardown. Teardown of a re-executed Go
// child differs from that of a forked perf child, so work_s is the one to
// compare across engines on virtual machines (perf's window:
// https://github.com/torvalds/linux/blob/master/tools/perf/bench/sched-messaging.c).
//
// Note: worker processes use syscall.Syscall, threads syscall.RawSyscall.
// Every worker process runs a Go runtime whose sysmon thread wakes every
// 10 ms while a P is busy; with RawSyscall a blocked worker keeps its P busy
// forever, and 800 sysmons ticking doubled the time and multiplied context
// switches by 15 against perf (docs/benchmarks.md). With syscall.Syscall a
// long-blocked worker's P is handed back, sysmon can sleep deeply, and the
// gap halves. Threads share one runtime, so RawSyscall is right there.
type SchedMessaging struct{}

const (
	msgFanout   = 20  // senders and receivers per group, fixed in perf
	msgDataSize = 100 // bytes per message, fixed in perf
)

// Info implements Workload.
func (SchedMessaging) Info() Info {
	return Info{
		ID:    "sched-messaging",
		Title: "hackbench: groups of 20 senders × 20 receivers exchanging 100-byte messages",
		Perf:  "perf bench sched messaging -g GROUPS -l LOOPS [-p] [-t]",
		Stresses: Stress{Paths: []string{mitigation.TagContextSwitch, mitigation.TagEntryExit}, Note: "scheduler contention, context switches and wake-ups of 40 tasks per group, entry/exit of every read and write; process mode adds exit and mm teardown",
			Pays: "context switches: paid as each group's 20 senders wake its 20 receivers"},
		Params: []ParamSpec{
			{Key: "groups", Help: "groups of 20 senders + 20 receivers (40 tasks each)",
				Default: int64(10), Quick: int64(5), Study: int64(20), Min: 1, Max: 1000},
			{Key: "loops", Help: "messages each sender sends to each receiver of its group",
				Default: int64(100), Quick: int64(100), Study: int64(1000), Min: 1, Max: 1<<32 - 1},
			{Key: "ipc", Help: "socket: AF_UNIX socketpair (perf default); pipe: pipes (perf -p)",
				Default: "socket", Choices: []string{"socket", "pipe"}},
			{Key: "mode", Help: "process: one process per task (perf default); thread: threads (perf -t)",
				Default: "process", Choices: []string{"process", "thread"}},
			spawnParam,
		},
		Metrics: []MetricSpec{
			{Name: "total_s", Unit: "s", Better: "lower", Help: "perf's Total time: wake-up to last worker reaped"},
			{Name: "work_s", Unit: "s", Better: "lower", Help: "wake-up to last worker done (teardown excluded)"},
		},
	}
}

// PerfArgs implements PerfBencher: perf bench sched messaging -g GROUPS -l
// LOOPS, -p for pipes, -t for threads.
func (SchedMessaging) PerfArgs(p Params, _ PerfVersion) ([]string, error) {
	loops, err := perfInt("sched-messaging", p, "loops")
	if err != nil {
		return nil, err
	}
	groups, err := perfInt("sched-messaging", p, "groups")
	if err != nil {
		return nil, err
	}
	a := []string{"bench", "sched", "messaging", "-g", groups, "-l", loops}
	if p.Str("ipc") == "pipe" {
		a = append(a, "-p")
	}
	if p.Str("mode") == "thread" {
		a = append(a, "-t")
	}
	return a, nil
}

// PerfSample implements PerfBencher: perf's Total time is total_s (perf
// has no work_s).
func (SchedMessaging) PerfSample(p Params, o PerfOutput) (Sample, error) {
	if o.Groups != p.Int("groups") {
		return Sample{}, fmt.Errorf("perf ran %d groups, asked %d", o.Groups, p.Int("groups"))
	}
	return Sample{Values: map[string]float64{"total_s": o.TotalSec}}, nil
}

// SplitLoops implements LoopSplitter: crosscheck measures sched-messaging
// again at one loop, so that total(loops) − total(1) is loops − 1 of its
// per-loop part.
func (SchedMessaging) SplitLoops() int64 { return 1 }

// ProbeParams implements Prober: one group of processes, many tasks
// waking each other.
func (SchedMessaging) ProbeParams() []map[string]string {
	return []map[string]string{{"groups": "1", "mode": "process"}}
}

// Cost implements Estimator: 1.3 ms per group and sender's loop
// (groups=5 loops=100: 0.65 s).
func (SchedMessaging) Cost(p Params) time.Duration {
	return perUnit(p.Int("groups")*p.Int("loops"), 1.3e-3)
}

// msgChannel creates one channel of the requested kind: (read end, write
// end).
func msgChannel(pipe bool) (r, w int, err error) {
	if pipe {
		return pipePair()
	}
	return socketPair()
}

// msgReady reports ready and waits for the wake byte, as perf's ready().
func msgReady(sys sysFn, readyFD, wakeFD int) error {
	b := [1]byte{'R'}
	if err := writeFull(sys, readyFD, b[:]); err != nil {
		return err
	}
	return pollIn(sys, wakeFD)
}

// msgSender writes loops rounds of one message to each of outs.
func msgSender(sys sysFn, readyFD, wakeFD, doneFD int, outs []int, loops int64) error {
	var data [msgDataSize]byte
	for i := range data {
		data[i] = 'S'
	}
	if err := msgReady(sys, readyFD, wakeFD); err != nil {
		return err
	}
	for l := int64(0); l < loops; l++ {
		for _, fd := range outs {
			if err := writeFull(sys, fd, data[:]); err != nil {
				return err
			}
		}
	}
	return writeFull(sys, doneFD, []byte{'D'})
}

// msgReceiver reads count messages from in.
func msgReceiver(sys sysFn, readyFD, wakeFD, doneFD, in int, count int64) error {
	var data [msgDataSize]byte
	if err := msgReady(sys, readyFD, wakeFD); err != nil {
		return err
	}
	for i := int64(0); i < count; i++ {
		if err := readFull(sys, in, data[:]); err != nil {
			return err
		}
	}
	return writeFull(sys, doneFD, []byte{'D'})
}

// workers implements workerOwner: the process-mode senders and receivers.
func (SchedMessaging) workers() map[string]func([]string) error {
	return map[string]func([]string) error{"msg-send": messagingSenderChild, "msg-recv": messagingReceiverChild}
}

// Child entry points. Descriptors: 3 ready, 4 wake, 5 done, 6… data.
func messagingSenderChild(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: msg-send LOOPS NFDS")
	}
	loops, err1 := strconv.ParseInt(args[0], 10, 64)
	n, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || n < 1 {
		return fmt.Errorf("bad arguments %q", args)
	}
	outs := make([]int, n)
	for i := range outs {
		outs[i] = 6 + i
	}
	runtime.LockOSThread()
	return msgSender(blockingSys, 3, 4, 5, outs, loops)
}

func messagingReceiverChild(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: msg-recv LOOPS")
	}
	loops, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	return msgReceiver(blockingSys, 3, 4, 5, 6, msgFanout*loops)
}

// Preflight implements Preflighter: descriptor and task limits.
func (SchedMessaging) Preflight(p Params) error {
	groups := p.Int("groups")
	workers := msgFanout * 2 * groups
	if p.Str("mode") == "thread" {
		// One process holds every channel: 2 fds per pair, 20 pairs per
		// group, plus the control pairs and what the runtime uses.
		if err := needFiles(uint64(2*msgFanout*groups + 64)); err != nil {
			return err
		}
	} else if err := needFiles(uint64(4*msgFanout + 64)); err != nil {
		return err
	}
	n, what := workerTasks(workers, p.Str("mode"), p.Str("spawn"))
	return needTasks(n, what)
}

// Run implements Workload.
func (SchedMessaging) Run(ctx context.Context, env Env, p Params) (Sample, error) {
	groups, loops := p.Int("groups"), p.Int("loops")
	pipe, thread := p.Str("ipc") == "pipe", p.Str("mode") == "thread"
	workers := int(msgFanout * 2 * groups)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if thread {
		defer atLeastProcs(workers + 4)()
	} else {
		defer atLeastProcs(3)()
	}
	defer gcOff()()

	deadline := time.Time{}
	if env.Timeout > 0 {
		deadline = time.Now().Add(env.Timeout)
	}
	cancelled := func() bool { return ctx.Err() != nil }

	readyR, readyW, err := msgChannel(pipe)
	if err != nil {
		return Sample{}, err
	}
	wakeR, wakeW, err := msgChannel(pipe)
	if err != nil {
		closeAll(readyR, readyW)
		return Sample{}, err
	}
	doneR, doneW, err := pipePair()
	if err != nil {
		closeAll(readyR, readyW, wakeR, wakeW)
		return Sample{}, err
	}
	defer closeAll(readyR, wakeW, doneR)
	shared := []int{readyW, wakeR, doneW}

	var (
		g       *procGroup
		wg      sync.WaitGroup
		errOnce sync.Once
		werr    error
	)
	if thread {
		// Threads share the descriptors; they are closed when every worker
		// has been joined (left open if a worker is abandoned on cancel).
		var data []int
		closeShared := true
		defer func() {
			if closeShared {
				closeAll(shared...)
				closeAll(data...)
			}
		}()
		fail := func(e error) { errOnce.Do(func() { werr = e }) }
		for gi := int64(0); gi < groups; gi++ {
			var outs []int
			for i := 0; i < msgFanout; i++ {
				r, w, err := msgChannel(pipe)
				if err != nil {
					return Sample{}, err
				}
				data = append(data, r, w)
				outs = append(outs, w)
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread() // never unlocked: the thread exits with the worker, as perf's do
					env.SpecCtlThread()
					if err := msgReceiver(rawSys, readyW, wakeR, doneW, r, msgFanout*loops); err != nil {
						fail(err)
					}
				}()
			}
			for i := 0; i < msgFanout; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread()
					env.SpecCtlThread()
					if err := msgSender(rawSys, readyW, wakeR, doneW, outs, loops); err != nil {
						fail(err)
					}
				}()
			}
		}
		defer func() {
			if ctx.Err() != nil {
				closeShared = false // workers may still hold them
			}
		}()
	} else {
		g, err = newProcGroup(env)
		if err != nil {
			closeAll(shared...)
			return Sample{}, err
		}
		defer g.close()
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
		spawn := spawnMessaging
		if p.Str("spawn") == "fork" {
			spawn = forkMessaging
		}
		if err := spawn(ctx, g, shared, groups, loops, pipe); err != nil {
			closeAll(shared...)
			return Sample{}, err
		}
		closeAll(shared...)
	}

	if err := readCount(readyR, workers, deadline, cancelled); err != nil {
		return Sample{}, barrierErr(ctx, "sched-messaging workers did not all report ready", err)
	}
	var fp *run.Footprint
	if !thread {
		fp = footprint(g.pids...)
		env.specCtlWorkers(g.pids...)
	}
	start := time.Now()
	if err := writeFull(rawSys, wakeW, []byte{'W'}); err != nil {
		// Workers killed on cancel close the wake channel: EPIPE.
		return Sample{}, barrierErr(ctx, "sched-messaging: wake the workers", err)
	}
	if err := readCount(doneR, workers, deadline, cancelled); err != nil {
		if thread && werr != nil {
			return Sample{}, fmt.Errorf("sched-messaging worker: %w", werr)
		}
		return Sample{}, barrierErr(ctx, "sched-messaging workers did not all finish", err)
	}
	work := time.Since(start)
	if thread {
		wg.Wait()
		if werr != nil {
			return Sample{}, fmt.Errorf("sched-messaging worker: %w", werr)
		}
	} else if err := g.reap(); err != nil {
		return Sample{}, barrierErr(ctx, "sched-messaging", err)
	}
	total := time.Since(start)
	return Sample{
		Values:    map[string]float64{"total_s": total.Seconds(), "work_s": work.Seconds()},
		Footprint: fp,
	}, nil
}

// spawnMessaging starts the worker processes group by group as perf does:
// each receiver right after its channel is made (the parent then closes the
// receiving end), then the 20 senders with the 20 sending ends.
func spawnMessaging(ctx context.Context, g *procGroup, shared []int, groups, loops int64, pipe bool) error {
	loopsArg := strconv.FormatInt(loops, 10)
	for gi := int64(0); gi < groups; gi++ {
		outs := make([]int, 0, msgFanout)
		fail := func(err error) error { closeAll(outs...); return err }
		for i := 0; i < msgFanout; i++ {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			r, w, err := msgChannel(pipe)
			if err != nil {
				return fail(err)
			}
			outs = append(outs, w)
			_, err = g.spawn([]string{"msg-recv", loopsArg}, append(append([]int{}, shared...), r)...)
			closeAll(r)
			if err != nil {
				return fail(err)
			}
		}
		fds := append(append([]int{}, shared...), outs...)
		for i := 0; i < msgFanout; i++ {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			if _, err := g.spawn([]string{"msg-send", loopsArg, strconv.Itoa(msgFanout)}, fds...); err != nil {
				return fail(err)
			}
		}
		closeAll(outs...)
	}
	return nil
}

// forkMessaging creates the workers exactly as perf does, by fork: each
// receiver right after its channel, closing its copy of the sending end;
// then the 20 senders sharing the group's sending ends.
func forkMessaging(ctx context.Context, g *procGroup, shared []int, groups, loops int64, pipe bool) error {
	readyW, wakeR, doneW := shared[0], shared[1], shared[2]
	for gi := int64(0); gi < groups; gi++ {
		var outs [msgFanout]int
		n := 0
		fail := func(err error) error { closeAll(outs[:n]...); return err }
		for i := 0; i < msgFanout; i++ {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			r, w, err := msgChannel(pipe)
			if err != nil {
				return fail(err)
			}
			outs[i], n = w, n+1
			err = g.fork(&forkMsg{kind: forkReceiver, readyFD: readyW, wakeFD: wakeR, doneFD: doneW, closeFD: w, in: r, count: msgFanout * loops})
			closeAll(r)
			if err != nil {
				return fail(err)
			}
		}
		for i := 0; i < msgFanout; i++ {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			a := &forkMsg{kind: forkSender, readyFD: readyW, wakeFD: wakeR, doneFD: doneW, closeFD: -1, outs: outs, nOuts: msgFanout, count: loops}
			if err := g.fork(a); err != nil {
				return fail(err)
			}
		}
		closeAll(outs[:]...)
	}
	return nil
}
