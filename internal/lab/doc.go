// Package lab is the lab experiment: sectax measuring inside QEMU guests
// booted through internal/vm. A Request is checked and planned (kernels ×
// configurations × rounds, shuffled with a recorded seed: Schedule), each
// boot runs the measure task (RegisterTasks) and its run is imported only
// when it holds to the host's facts and verifies again on the host
// (ImportRun); Run returns the Matrix of comparisons, DryRun its Preview.
// Adaptive repetition (internal/adaptive) adds rounds until the target or
// the budget stops them.
package lab
