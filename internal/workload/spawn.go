package workload

import (
	"context"
	"errors"
	"fmt"
	"github.com/sectax/sectax/internal/child"
	"github.com/sectax/sectax/internal/mitigation"
	"os"
	"sync"
	"syscall"
	"time"
)

// Spawn times process creation: fork+exec+wait of a tiny program, N times
// in one window. Parallel toolchains and test runners do this more than
// anything else, and every step of it enters the kernel.
type Spawn struct{}

// spawnNopWorker is the worker that exits at once: the program of
// program=self.
const spawnNopWorker = "nop"

// workers implements workerOwner: program=self's child.
func (Spawn) workers() map[string]func([]string) error {
	return map[string]func([]string) error{spawnNopWorker: func([]string) error { return nil }}
}

// spawnProgramHelp says what each choice of the program parameter measures.
const spawnProgramHelp = "tiny: a static ELF of one page that only calls exit_group, written by sectax into a memfd " +
	"(process creation itself: clone, execve, exit, wait4); true: /bin/true (adds the dynamic loader and libc start-up); " +
	"self: the sectax binary as a worker that exits at once (adds the Go runtime's start-up and the page faults of a large binary)"

// spawnTrue is where program=true looks first.
const spawnTrue = "/bin/true"

// Info implements Workload.
func (Spawn) Info() Info {
	return Info{
		ID:    "spawn",
		Title: "fork+exec+wait of a tiny program (process creation)",
		Stresses: Stress{Paths: []string{mitigation.TagProcessLifecycle, mitigation.TagContextSwitch}, Note: "process creation and teardown: clone (vfork-style, as posix_spawn and Go do), execve " +
			"(a new address space, page faults while the program loads), exit and wait4, with the " +
			"context switches between parent and child (IBPB, RSB filling, CR3 switches)",
			Pays: "process creation and exit: paid on every fork, exec and wait of the child"},
		Params: []ParamSpec{
			{Key: "loops", Help: "processes spawned (and waited for) per repetition",
				Default: int64(1000), Quick: int64(200), Min: 1, Max: 10_000_000},
			{Key: "program", Help: spawnProgramHelp,
				Default: "tiny", Choices: []string{"tiny", "true", "self"}},
		},
		Metrics: []MetricSpec{
			{Name: "usecs_per_spawn", Unit: "µs/spawn", Better: "lower", Help: "microseconds per fork+exec+wait"},
			{Name: "spawns_per_sec", Unit: "spawns/s", Better: "higher", Help: "processes spawned and reaped per second"},
		},
	}
}

// Cost implements Estimator: 1.4 ms a spawn.
func (Spawn) Cost(p Params) time.Duration { return perUnit(p.Int("loops"), 1.4e-3) }

// Preflight implements Preflighter: program=true needs a true program,
// program=tiny a tiny program for this architecture and a memfd.
func (Spawn) Preflight(p Params) error {
	switch p.Str("program") {
	case "true":
		_, err := spawnTruePath()
		return err
	case "tiny":
		_, err := spawnTinyPath()
		return err
	}
	return nil
}

func spawnTinyPath() (string, error) {
	path, err := exitProgram.Path()
	if err != nil {
		return "", &UsageError{Msg: fmt.Sprintf("spawn.program=tiny: %v (use spawn.program=true or spawn.program=self)", err)}
	}
	return path, nil
}

func spawnTruePath() (string, error) {
	if _, err := os.Stat(spawnTrue); err == nil {
		return spawnTrue, nil
	}
	path, err := child.LookPath("true")
	if err != nil {
		return "", &UsageError{Msg: "spawn.program=true: neither /bin/true nor true in $PATH exists (use spawn.program=self)"}
	}
	return path, nil
}

// Run implements Workload. The tiny program is executed through
// /proc/self/fd/N of its memfd (what fexecve does). The child gets an empty environment (the size
// of ours would otherwise change the cost of execve between runs) and
// /dev/null as its standard descriptors. The timed window is the whole
// loop; the parent calls syscall.ForkExec (clone with CLONE_VFORK|CLONE_VM,
// then execve in the child) and wait4 directly, lighter than os/exec.
func (Spawn) Run(ctx context.Context, env Env, p Params) (Sample, error) {
	loops := p.Int("loops")
	var path string
	var argv []string
	switch p.Str("program") {
	case "tiny":
		tp, err := spawnTinyPath()
		if err != nil {
			return Sample{}, err
		}
		path, argv = tp, []string{"sectax-exit"}
	case "true":
		tp, err := spawnTruePath()
		if err != nil {
			return Sample{}, err
		}
		path, argv = tp, []string{"true"}
	default:
		if env.Exe == "" {
			return Sample{}, errors.New("spawn: no executable to re-execute (Env.Exe is empty)")
		}
		path = env.Exe
		argv = append(append([]string{env.Exe}, env.WorkerArgs...), spawnNopWorker)
	}
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return Sample{}, fmt.Errorf("spawn: %w", err)
	}
	defer syscall.Close(null)
	// Each child leads a process group of its own, so that a Ctrl-C at the
	// terminal reaches only sectax, which then kills the child itself:
	// an interrupted run is never mistaken for a failed spawn.
	attr := &syscall.ProcAttr{
		Env:   []string{},
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null)},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	}

	// When ctx is done (interrupt, timeout) the current child is killed so
	// that wait4 returns. The pid cannot be reused while the child is
	// unreaped; between wait4's reaping and cur = 0 the window is a few
	// instructions, far shorter than a wrap-around of the pid space.
	var mu sync.Mutex
	cur := 0
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		if cur > 0 {
			syscall.Kill(cur, syscall.SIGKILL)
		}
		mu.Unlock()
	})
	defer stop()

	start := time.Now()
	for i := int64(0); i < loops; i++ {
		if err := ctx.Err(); err != nil {
			return Sample{}, err
		}
		pid, err := syscall.ForkExec(path, argv, attr)
		if err != nil {
			return Sample{}, fmt.Errorf("spawn %s: %w", path, err)
		}
		mu.Lock()
		cur = pid
		if ctx.Err() != nil { // the AfterFunc may have run before cur was set
			syscall.Kill(pid, syscall.SIGKILL)
		}
		mu.Unlock()
		var ws syscall.WaitStatus
		for {
			_, err = syscall.Wait4(pid, &ws, 0, nil)
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		mu.Lock()
		cur = 0
		mu.Unlock()
		if err != nil {
			return Sample{}, fmt.Errorf("spawn: wait4: %w", err)
		}
		if ctx.Err() != nil {
			return Sample{}, ctx.Err()
		}
		if !ws.Exited() || ws.ExitStatus() != 0 {
			return Sample{}, fmt.Errorf("spawn: child %s %s (run it by hand to see why)", path, spawnDescribe(ws))
		}
	}
	secs := time.Since(start).Seconds()
	return Sample{Values: map[string]float64{
		"usecs_per_spawn": secs * 1e6 / float64(loops),
		"spawns_per_sec":  float64(loops) / secs,
	}}, nil
}

func spawnDescribe(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return fmt.Sprintf("was killed by %v", ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ws.ExitStatus())
}
