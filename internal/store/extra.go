package store

import (
	"encoding/json"
	"fmt"

	"github.com/sectax/sectax/internal/run"
)

// Columns of the run and result documents that have a column of their
// own; every other field travels in the extra JSON object.
var (
	runColumns    = []string{"schema", "id", "label", "started", "finished", "status", "suite", "engine", "tool_version", "runs", "warmup", "seed", "cpus", "perf_version", "env", "results"}
	resultColumns = []string{"workload", "engine", "params", "metrics", "warnings", "failures"}
)

// extraOf returns the JSON object of the fields of v that are not in
// columns ("{}" when there are none).
func extraOf(v any, columns []string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return "", err
	}
	for _, c := range columns {
		delete(m, c)
	}
	out, err := json.Marshal(m) // keys sorted: deterministic
	return string(out), err
}

// applyExtra sets the fields held in extra on v (a *run.Run or
// *run.Result); fields this build does not know are ignored.
func applyExtra(extra string, v any) error {
	if extra == "" || extra == "{}" {
		return nil
	}
	if err := json.Unmarshal([]byte(extra), v); err != nil {
		return fmt.Errorf("extra fields: %w", err)
	}
	return nil
}

// runExtra is the extra object of a run (without marshalling its env and
// results only to drop them).
func runExtra(r *run.Run) (string, error) {
	c := *r
	c.Env, c.Results = nil, nil
	return extraOf(&c, runColumns)
}

// resultExtra is the extra object of a result.
func resultExtra(res *run.Result) (string, error) {
	c := *res
	c.Metrics = nil
	return extraOf(&c, resultColumns)
}
