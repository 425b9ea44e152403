package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sectax/sectax/internal/run"
)

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

const timeLayout = time.RFC3339Nano

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(timeLayout)
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(timeLayout, s)
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// Begin records a new run with status running: its results with their
// metric declarations and the samples they already hold (none, for a run
// that is starting).
func (d *DB) Begin(r *run.Run) error { return d.BeginPatient(context.Background(), r) }

// BeginPatient, SamplePatient and FinishPatient are Begin, Sample and
// Finish whose waiting for a busy store ends when patience is done
// (Ctrl-C): one more attempt is made, none is cut short, so the run is
// recorded as far as the store lets it, and the caller keeps what is not.
func (d *DB) BeginPatient(patience context.Context, r *run.Run) error {
	if r.ID == "" {
		return errors.New("store: run has no id")
	}
	ctx := context.Background()
	return d.retry(patience, func() error {
		tx, err := d.db.BeginTx(ctx, nil)
		if err != nil {
			return d.wrap(err)
		}
		defer tx.Rollback()
		if err := insertRun(ctx, tx, run.Doc{Run: r}); err != nil {
			return d.wrap(err)
		}
		return d.wrap(tx.Commit())
	})
}

func insertRun(ctx context.Context, q querier, doc run.Doc) error {
	r := doc.Run
	envb, err := doc.EnvJSON()
	env := string(envb)
	if err != nil {
		return fmt.Errorf("run %s: env: %w", r.ID, err)
	}
	status := r.Status
	if status == "" {
		status = run.StatusRunning
	}
	extra, err := runExtra(r)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.ID, err)
	}
	_, err = q.ExecContext(ctx, `INSERT INTO runs(id, label, started, finished, status, suite, engine,
		tool_version, runs, warmup, seed, cpus, perf_version, env, extra) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID, r.Label, fmtTime(r.Started), fmtTime(r.Finished), string(status), r.Suite, r.Engine,
		r.ToolVersion, r.Repetitions, r.Warmup, r.Seed, r.CPUs, r.PerfVersion, env, extra)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.ID, err)
	}
	// One prepared statement for the samples: an import may carry 10^6.
	ins, err := q.PrepareContext(ctx, `INSERT INTO samples(run_id, result_idx, metric_idx, seq, value) VALUES (?,?,?,?,?)`)
	if err != nil {
		return fmt.Errorf("run %s: %w", r.ID, err)
	}
	defer ins.Close()
	for i := range r.Results {
		res := &r.Results[i]
		params, err := jsonText(nonNilMap(res.Params))
		if err != nil {
			return fmt.Errorf("run %s: results[%d].params: %w", r.ID, i, err)
		}
		warnings, _ := jsonText(nonNil(res.Warnings))
		failures, _ := jsonText(nonNil(res.Failures))
		rextra, err := resultExtra(res)
		if err != nil {
			return fmt.Errorf("run %s: results[%d]: %w", r.ID, i, err)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO results(run_id, idx, workload, engine, params, warnings, failures, extra)
			VALUES (?,?,?,?,?,?,?,?)`, r.ID, i, res.Workload, res.Engine, params, warnings, failures, rextra); err != nil {
			return err
		}
		for j, m := range res.Metrics {
			if _, err := q.ExecContext(ctx, `INSERT INTO metrics(run_id, result_idx, idx, name, unit, better)
				VALUES (?,?,?,?,?,?)`, r.ID, i, j, m.Name, m.Unit, string(m.Better)); err != nil {
				return fmt.Errorf("results[%d].metrics[%d] %q: %w", i, j, m.Name, err)
			}
			for k, v := range m.Samples {
				if _, err := ins.ExecContext(ctx, r.ID, i, j, k, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Sample appends one repetition of r.Results[result]: a value per metric
// name. Names the result does not declare are an error; declared metrics
// missing from values get no sample for this repetition.
func (d *DB) Sample(r *run.Run, result int, values map[string]float64) error {
	if result < 0 || result >= len(r.Results) {
		return fmt.Errorf("store: run %s has no result %d", r.ID, result)
	}
	return d.SamplePatient(context.Background(), r, result, values)
}

// SamplePatient is Sample bounded as BeginPatient says.
func (d *DB) SamplePatient(patience context.Context, r *run.Run, result int, values map[string]float64) error {
	if result < 0 || result >= len(r.Results) {
		return fmt.Errorf("store: run %s has no result %d", r.ID, result)
	}
	res := &r.Results[result]
	ctx := context.Background()
	return d.retry(patience, func() error { return d.sample(ctx, r, res, result, values) })
}

func (d *DB) sample(ctx context.Context, r *run.Run, res *run.Result, result int, values map[string]float64) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err)
	}
	defer tx.Rollback()
	for name, v := range values {
		mi := -1
		for j := range res.Metrics {
			if res.Metrics[j].Name == name {
				mi = j
			}
		}
		if mi < 0 {
			return fmt.Errorf("store: run %s: workload %s declares no metric %q", r.ID, res.Workload, name)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("store: run %s: %s %s: sample %v is not a finite number", r.ID, res.Workload, name, v)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO samples(run_id, result_idx, metric_idx, seq, value)
			VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(seq)+1, 0) FROM samples WHERE run_id=?1 AND result_idx=?2 AND metric_idx=?3), ?4)`,
			r.ID, result, mi, v); err != nil {
			return d.wrap(err)
		}
	}
	return d.wrap(tx.Commit())
}

// Finish records the final state of r: status, finish time, and the
// warnings and failures of every result.
func (d *DB) Finish(r *run.Run) error { return d.FinishPatient(context.Background(), r) }

// FinishPatient is Finish bounded as BeginPatient says.
func (d *DB) FinishPatient(patience context.Context, r *run.Run) error {
	ctx := context.Background()
	return d.retry(patience, func() error { return d.finish(ctx, r) })
}

func (d *DB) finish(ctx context.Context, r *run.Run) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err)
	}
	defer tx.Rollback()
	extra, err := runExtra(r)
	if err != nil {
		return fmt.Errorf("store: run %s: %w", r.ID, err)
	}
	res, err := tx.ExecContext(ctx, `UPDATE runs SET status=?, finished=?, perf_version=?, extra=? WHERE id=?`,
		string(r.Status), fmtTime(r.Finished), r.PerfVersion, extra, r.ID)
	if err != nil {
		return d.wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: run %s was never begun", r.ID)
	}
	for i := range r.Results {
		warnings, _ := jsonText(nonNil(r.Results[i].Warnings))
		failures, _ := jsonText(nonNil(r.Results[i].Failures))
		rextra, err := resultExtra(&r.Results[i])
		if err != nil {
			return fmt.Errorf("store: run %s: results[%d]: %w", r.ID, i, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE results SET warnings=?, failures=?, extra=? WHERE run_id=? AND idx=?`,
			warnings, failures, rextra, r.ID, i); err != nil {
			return d.wrap(err)
		}
	}
	return d.wrap(tx.Commit())
}
