package workload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
)

// readerSettle bounds how long a timed command waits, once per process,
// for the programs reading sectax's output to settle.
const readerSettle = 3 * time.Second

// awaitReaders waits until no process that reads one of files (a pipe, as
// its standard input) is running or runnable, for at most max, and says
// which one still was when the time ran out ("" when none).
//
// `sectax run … | python3 …` starts both programs at once: the reader's own
// start-up (python's is 0.9 s of CPU on this loaded machine) then shares
// the two cores with the first repetitions, and a 2 ms command measured in
// that window reads 1.5–2× slower (docs/benchmarks.md, issue 31). Once the
// reader is blocked in its read, it costs nothing until the run is printed.
func awaitReaders(ctx context.Context, files []*os.File, max time.Duration) string {
	pipes := map[string]bool{}
	for _, f := range files {
		if f == nil {
			continue
		}
		// SyscallConn, not Fd: Fd would put the file in blocking mode.
		rc, err := f.SyscallConn()
		if err != nil {
			continue
		}
		rc.Control(func(fd uintptr) {
			if t, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd))); err == nil && strings.HasPrefix(t, "pipe:") {
				pipes[t] = true
			}
		})
	}
	if len(pipes) == 0 {
		return ""
	}
	if len(pipeReaders(pipes)) == 0 {
		return ""
	}
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		return ""
	}
	deadline := time.Now().Add(max)
	quiet := 0
	for {
		// The readers are looked for again every time: a reader may be a
		// script (pyenv's python3 shim) whose children, started later,
		// inherit the pipe and do the work while it waits.
		busy := busyProcess(fs, pipeReaders(pipes))
		if busy == "" {
			// Three quiet looks in a row: a reader between two reads of
			// its start-up files is asleep for a moment too.
			if quiet++; quiet == 3 {
				return ""
			}
		} else {
			quiet = 0
		}
		if time.Now().After(deadline) {
			if busy == "" {
				return ""
			}
			return fmt.Sprintf("the program reading sectax's output (%s) was still running after %v: it shared the CPUs "+
				"with the first repetitions (write the output to a file with -o to keep it out)", busy, max)
		}
		select {
		case <-ctx.Done(): // Ctrl-C: the repetition sees it next
			return ""
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// pipeReaders returns the other processes whose standard input is one of
// pipes ("pipe:[INODE]", as /proc/PID/fd shows them).
func pipeReaders(pipes map[string]bool) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	self := os.Getpid()
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == self {
			continue
		}
		if t, err := os.Readlink(d + "/fd/0"); err == nil && pipes[t] {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// busyProcess says which of pids that is running, runnable or in an
// uninterruptible wait (a read from disk), "" when none is.
func busyProcess(fs procfs.FS, pids []int) string {
	for _, pid := range pids {
		p, err := fs.Proc(pid)
		if err != nil {
			continue
		}
		st, err := p.Stat()
		if err != nil {
			continue
		}
		if st.State == "R" || st.State == "D" {
			return fmt.Sprintf("pid %d", pid) // its name is its own text: not shown
		}
	}
	return ""
}
