package workload

import "fmt"

// WorkerCommand is the hidden first argument that makes the sectax binary
// run as a workload's child process instead of as the CLI.
const WorkerCommand = "__worker"

// workers maps a worker name (the argument after WorkerCommand) to its
// entry point. Each receives its remaining arguments; its file descriptors
// start at 3, as the parent arranged them.
var workers = map[string]func(args []string) error{
	"pipe":         pipeChild,
	"msg-send":     messagingSenderChild,
	"msg-recv":     messagingReceiverChild,
	spawnNopWorker: func([]string) error { return nil },
}

// WorkerMain runs a worker child with the arguments after WorkerCommand.
// internal/cli reports its error and exits non-zero.
func WorkerMain(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("worker: missing worker name")
	}
	fn, ok := workers[args[0]]
	if !ok {
		return fmt.Errorf("worker: unknown worker %q", args[0])
	}
	if err := fn(args[1:]); err != nil {
		return fmt.Errorf("worker %s: %w", args[0], err)
	}
	return nil
}
