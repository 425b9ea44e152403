package workload

import (
	"runtime"
	"runtime/debug"
)

// gcOff turns the garbage collector off until the returned function is
// called. A collection's stop-the-world cannot preempt a thread blocked in a
// raw system call, so timed windows must not allocate and must not collect.
func gcOff() (restore func()) {
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}

// atLeastProcs raises GOMAXPROCS to n until the returned function is called.
// A goroutine blocked in a raw system call keeps its P, so a workload with k
// goroutines that block at once needs at least k+2 Ps or it deadlocks (for
// instance under --cpus 0, where Go's default GOMAXPROCS is 1).
func atLeastProcs(n int) (restore func()) {
	old := runtime.GOMAXPROCS(0)
	if old >= n {
		return func() {}
	}
	runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(old) }
}
