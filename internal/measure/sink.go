// Package measure repeats workloads, and a Session is the only way in:
// warm-up, interleaved repetitions in a shuffled order with a recorded
// seed, per-repetition timeouts, CPU affinity, cancellation, and progress
// as the status line of the ui.Printer it is handed.
package measure

import "github.com/sectax/sectax/internal/run"

// Sink receives a run as it progresses, so that nothing finished is lost
// when the run is interrupted or crashes. internal/store implements it.
type Sink interface {
	// Begin records a new run (status running). r.Results already lists
	// every workload with its metrics declared and no samples.
	Begin(r *run.Run) error
	// Sample records one repetition of r.Results[result]: a value per
	// metric name. r.Results[result] already holds it.
	Sample(r *run.Run, result int, values map[string]float64) error
	// Finish records the final state: status, finish time, warnings and
	// failures of every result.
	Finish(r *run.Run) error
}
