package workload

import "fmt"

// WorkerCommand is the hidden first argument that makes the sectax binary
// run as a workload's child process instead of as the CLI.
const WorkerCommand = "__worker"

// workerOwner is implemented by a workload whose child processes
// re-execute the sectax binary: workers maps each worker's name (the
// argument after WorkerCommand) to its entry point, in the workload's own
// file. Each receives its remaining arguments; its file descriptors start
// at 3, as the parent arranged them.
type workerOwner interface {
	workers() map[string]func(args []string) error
}

// worker is the entry point of the worker named name, of whichever
// registered workload owns it (nil: none does).
func worker(name string) func(args []string) error {
	for _, w := range Default().All() {
		if o, ok := w.(workerOwner); ok {
			if fn := o.workers()[name]; fn != nil {
				return fn
			}
		}
	}
	return nil
}

// WorkerMain runs a worker child with the arguments after WorkerCommand.
// internal/cli reports its error and exits non-zero.
func WorkerMain(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("worker: missing worker name")
	}
	fn := worker(args[0])
	if fn == nil {
		return fmt.Errorf("worker: unknown worker %q", args[0])
	}
	if err := fn(args[1:]); err != nil {
		return fmt.Errorf("worker %s: %w", args[0], err)
	}
	return nil
}
