package workload

import (
	"fmt"
	"strings"
)

// Registry is an ordered set of workloads.
type Registry struct {
	list []Workload
	byID map[string]Workload
}

// NewRegistry returns a registry holding ws in order. A duplicate id or an
// Info that does not validate (no Stresses, say) is a programming error
// and panics.
func NewRegistry(ws ...Workload) *Registry {
	r := &Registry{byID: map[string]Workload{}}
	for _, w := range ws {
		if err := w.Info().Validate(); err != nil {
			panic(err)
		}
		id := w.Info().ID
		if _, dup := r.byID[id]; dup {
			panic("workload: duplicate id " + id)
		}
		r.byID[id] = w
		r.list = append(r.list, w)
	}
	return r
}

// Default returns the built-in workloads in the order they run and print.
func Default() *Registry {
	return NewRegistry(
		SyscallBasic{},
		SchedPipe{},
		SchedMessaging{},
		GoBuild{},
		Spawn{},
		FileChurn{},
		Cmd{},
		CtlUser{},
		CtlVDSO{},
	)
}

// All returns the workloads in registry order.
func (r *Registry) All() []Workload { return append([]Workload(nil), r.list...) }

// IDs returns the workload ids in registry order.
func (r *Registry) IDs() []string {
	ids := make([]string, len(r.list))
	for i, w := range r.list {
		ids[i] = w.Info().ID
	}
	return ids
}

// PerfBenchIDs returns the ids of the workloads of r that have a perf
// bench equivalent (PerfBencher), in registry order: what crosscheck runs
// by default.
func (r *Registry) PerfBenchIDs() []string {
	var ids []string
	for _, w := range r.list {
		if _, ok := w.(PerfBencher); ok {
			ids = append(ids, w.Info().ID)
		}
	}
	return ids
}

// Lookup returns the workload with the given id.
func (r *Registry) Lookup(id string) (Workload, error) {
	if w, ok := r.byID[id]; ok {
		return w, nil
	}
	return nil, &UsageError{Msg: fmt.Sprintf("unknown workload %q (accepted: %s)", id, strings.Join(r.IDs(), ", "))}
}

// Select returns the workloads named in only (all when empty) minus those
// in skip, in registry order.
func (r *Registry) Select(only, skip []string) ([]Workload, error) {
	keep := map[string]bool{}
	for _, id := range only {
		if _, err := r.Lookup(id); err != nil {
			return nil, err
		}
		keep[id] = true
	}
	drop := map[string]bool{}
	for _, id := range skip {
		if _, err := r.Lookup(id); err != nil {
			return nil, err
		}
		drop[id] = true
	}
	var out []Workload
	for _, w := range r.list {
		id := w.Info().ID
		if (len(only) == 0 || keep[id]) && !drop[id] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return nil, &UsageError{Msg: "no workload selected: --only and --skip leave nothing to run"}
	}
	return out, nil
}

// Prober is implemented by a workload that pays the per-task speculation
// controls ('sectax attribute probes' measures it once per control):
// ProbeParams are the parameter overrides of its arms, one per entry (nil:
// the suite's own parameters).
type Prober interface {
	ProbeParams() []map[string]string
}

// Probe is one workload with the parameter overrides at which the probes
// measure it.
type Probe struct {
	ID        string
	Overrides map[string]string
}

// Probes returns the arms of every Prober in r, in registry order.
func (r *Registry) Probes() []Probe {
	var out []Probe
	for _, w := range r.list {
		if p, ok := w.(Prober); ok {
			for _, o := range p.ProbeParams() {
				out = append(out, Probe{ID: w.Info().ID, Overrides: o})
			}
		}
	}
	return out
}

// Splitters returns the workloads of r whose total time crosscheck splits
// into a fixed and a per-loop part, with the loop count of their second
// measurement.
func (r *Registry) Splitters() map[string]int64 {
	out := map[string]int64{}
	for _, w := range r.list {
		if s, ok := w.(LoopSplitter); ok {
			out[w.Info().ID] = s.SplitLoops()
		}
	}
	return out
}
