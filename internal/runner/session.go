package runner

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

// Start readies r, the document of a run its command has named (id, label,
// engine, suite, environment, notes), for the repetitions of items: it pins
// the process and its children to cpus (nil: no pinning; a list the
// kernel refuses is a usage error), records the warm-up and the seed of the
// shuffled order (seed, or a random one when 0) and gives every item its
// result. Run then measures it with the same warm-up and r.Seed.
func Start(r *run.Run, items []Item, cpus []int, seed int64, warmup int) error {
	if cpus != nil {
		if err := SetAffinity(cpus); err != nil {
			return exit.Wrap(exit.Usage, fmt.Errorf("--cpus: %w", err))
		}
	}
	if seed == 0 {
		seed = RandomSeed()
	}
	r.Seed, r.Warmup, r.Results = seed, warmup, NewResults(items)
	return nil
}

// RandomSeed is a random non-negative seed for the shuffled order.
func RandomSeed() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// Outcome is the error a measured run's status stands for: nil for a
// complete run, an Interrupted error saying how much finished for Ctrl-C,
// a runtime error when repetitions failed.
func Outcome(r *run.Run) error {
	switch r.Status {
	case run.StatusInterrupted:
		n := 0
		for _, res := range r.Results {
			if len(res.Metrics) > 0 {
				n += len(res.Metrics[0].Samples)
			}
		}
		return exit.Wrap(exit.Interrupted, fmt.Errorf("interrupted: %d samples of %d workloads finished and are shown above", n, len(r.Results)))
	case run.StatusFailed:
		return exit.Wrap(exit.Runtime, errors.New("some repetitions failed (see the failures above)"))
	}
	return nil
}
