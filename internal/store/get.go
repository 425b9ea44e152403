package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// Get returns the run with exactly this id, or a *NotFoundError.
func (d *DB) Get(ctx context.Context, id string) (*run.Run, error) {
	return getRun(ctx, d.db, d, id)
}

func getRun(ctx context.Context, q querier, d *DB, id string) (*run.Run, error) {
	runs, err := getRuns(ctx, q, d, []string{id}, envCache{}, new(int))
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, &NotFoundError{Ref: id}
	}
	return runs[0], nil
}

// GetMany returns the runs with these ids, in the order given, in a few
// queries per batch of ids rather than four per run (attribute report and
// fleet read thousands). An id that is not stored is a *NotFoundError.
//
// Runs whose stored environments are the same text (the runs of one boot)
// share one decoded *sysinfo.Snapshot: the environment is decoded once per
// distinct text, not once per run. Callers treat Env as read-only.
func (d *DB) GetMany(ctx context.Context, ids []string) ([]*run.Run, error) {
	out := make([]*run.Run, 0, len(ids))
	envs := envCache{}
	budget := new(int)
	for len(ids) > 0 {
		n := min(len(ids), getBatch)
		runs, err := getRuns(ctx, d.db, d, ids[:n], envs, budget)
		if err != nil {
			return nil, err
		}
		byID := make(map[string]*run.Run, len(runs))
		for _, r := range runs {
			byID[r.ID] = r
		}
		for _, id := range ids[:n] {
			r, ok := byID[id]
			if !ok {
				return nil, &NotFoundError{Ref: id}
			}
			out = append(out, r)
		}
		ids = ids[n:]
	}
	return out, nil
}

// getBatch is how many runs one query of GetMany names: well under
// SQLite's and PostgreSQL's limits on bound parameters.
const getBatch = 500

// inList is "(?1,?2,…)" for n parameters and the ids as arguments.
func inList(ids []string) (string, []any) {
	var b strings.Builder
	args := make([]any, len(ids))
	b.WriteByte('(')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("?" + strconv.Itoa(i+1))
		args[i] = id
	}
	b.WriteByte(')')
	return b.String(), args
}

// envCache holds the environments decoded so far, by the SHA-256 of their
// stored text (the digest, not the 10 kB text, is what the map keeps).
type envCache map[[sha256.Size]byte]*sysinfo.Snapshot

// runsQuery, resultsQuery and metricsQuery read the rows of getRuns, every
// column bounded (bounds.go) and every integer cast, so that a value of
// another type in an SQLite column is a number, not a failed scan.
var (
	runsQuery = `SELECT id, ` + textColumn("label", run.MaxLabelBytes) + `, ` + textColumn("started", maxTimeChars) + `, ` +
		textColumn("finished", maxTimeChars) + `, ` + textColumn("status", run.MaxNameBytes) + `, ` + textColumn("suite", run.MaxNameBytes) + `, ` +
		textColumn("engine", run.MaxNameBytes) + `, ` + textColumn("tool_version", run.MaxNameBytes) + `, ` +
		`CAST(runs AS BIGINT), CAST(warmup AS BIGINT), CAST(seed AS BIGINT), ` + textColumn("cpus", run.MaxTextBytes) + `, ` +
		textColumn("perf_version", run.MaxNameBytes) + `, ` + jsonColumn("env", "null", MaxReadEnvBytes) + `, ` +
		jsonColumn("extra", "{}", MaxReadJSONBytes) + ` FROM runs WHERE id IN `
	resultsQuery = `SELECT run_id, CAST(idx AS BIGINT), ` + textColumn("workload", run.MaxNameBytes) + `, ` + textColumn("engine", run.MaxNameBytes) + `, ` +
		jsonColumn("params", "{}", MaxReadJSONBytes) + `, ` + jsonColumn("warnings", "[]", MaxReadJSONBytes) + `, ` +
		jsonColumn("failures", "[]", MaxReadJSONBytes) + `, ` + jsonColumn("extra", "{}", MaxReadJSONBytes) + `
		FROM results WHERE run_id IN `
	metricsQuery = `SELECT run_id, CAST(result_idx AS BIGINT), CAST(idx AS BIGINT), ` + textColumn("name", run.MaxNameBytes) + `, ` +
		textColumn("unit", run.MaxNameBytes) + `, ` + textColumn("better", run.MaxNameBytes) + ` FROM metrics WHERE run_id IN `
)

// runText is the JSON text kept of one run so far (MaxReadRunTextBytes).
type runText map[string]int64

// take reports whether n more bytes of run id's JSON may be kept.
func (t runText) take(id string, n int64) bool {
	if t[id]+n > MaxReadRunTextBytes {
		return false
	}
	t[id] += n
	return true
}

// getRuns reads the runs with these ids (those that exist, in no
// particular order): one query per table. envs interns the decoded
// environments (see GetMany). budget counts the samples read by the
// whole command (MaxReadQuerySamples).
func getRuns(ctx context.Context, q querier, d *DB, ids []string, envs envCache, budget *int) ([]*run.Run, error) {
	in, args := inList(ids)
	rrows, err := q.QueryContext(ctx, runsQuery+in, args...)
	if err != nil {
		return nil, d.wrap(err)
	}
	var out []*run.Run
	byID := map[string]*run.Run{}
	text := runText{}
	for rrows.Next() {
		r := &run.Run{Schema: run.Schema}
		var started, finished, status, env, extra string
		var envLen, extraLen int64
		if err := rrows.Scan(&r.ID, &r.Label, &started, &finished, &status, &r.Suite, &r.Engine, &r.ToolVersion,
			&r.Repetitions, &r.Warmup, &r.Seed, &r.CPUs, &r.PerfVersion, &env, &envLen, &extra, &extraLen); err != nil {
			rrows.Close()
			return nil, d.wrap(err)
		}
		if envLen > MaxReadEnvBytes {
			d.notes.add("database %s: run %s: its stored environment of %d bytes is over the limit of %d MiB; read as none", d.path, shownID(r.ID), envLen, MaxReadEnvBytes>>20)
		}
		if extraLen > MaxReadJSONBytes {
			d.notes.add("database %s: run %s: its stored blocks of %d bytes are over the limit of %d MiB; read as none", d.path, shownID(r.ID), extraLen, MaxReadJSONBytes>>20)
		}
		text.take(r.ID, int64(len(env)+len(extra)))
		r.Label, r.Suite, r.Engine = d.readText(r.ID, "label", r.Label, run.MaxLabelBytes), d.readText(r.ID, "suite", r.Suite, run.MaxNameBytes), d.readText(r.ID, "engine", r.Engine, run.MaxNameBytes)
		r.ToolVersion, r.PerfVersion, r.CPUs = d.readText(r.ID, "tool version", r.ToolVersion, run.MaxNameBytes), d.readText(r.ID, "perf version", r.PerfVersion, run.MaxNameBytes), d.readText(r.ID, "cpus", r.CPUs, run.MaxTextBytes)
		if err := decodeRun(r, started, finished, cutText(status, run.MaxNameBytes), env, extra, envs); err != nil {
			rrows.Close()
			return nil, &RowError{r.ID, fmt.Sprintf("database %s: run %s: %s", d.path, shownID(r.ID), oneLine(err.Error()))}
		}
		out = append(out, r)
		byID[r.ID] = r
	}
	rrows.Close()
	if err := rrows.Err(); err != nil {
		return nil, d.wrap(err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, resultsQuery+in+` ORDER BY run_id, idx`, args...)
	if err != nil {
		return nil, d.wrap(err)
	}
	for rows.Next() {
		var id string
		var idx int
		var res run.Result
		var params, warnings, failures, rextra string
		var lens [4]int64
		if err := rows.Scan(&id, &idx, &res.Workload, &res.Engine, &params, &lens[0], &warnings, &lens[1], &failures, &lens[2], &rextra, &lens[3]); err != nil {
			rows.Close()
			return nil, d.wrap(err)
		}
		r := byID[id]
		if r == nil || idx != len(r.Results) || idx >= run.MaxResults {
			rows.Close()
			return nil, &RowError{id, fmt.Sprintf("database %s: run %s: results are not numbered 0..n-1 (at most %d)", d.path, shownID(id), run.MaxResults)}
		}
		for i, v := range []*string{&params, &warnings, &failures, &rextra} {
			if lens[i] > MaxReadJSONBytes || !text.take(id, int64(len(*v))) {
				d.notes.add("database %s: run %s: results[%d]: a stored column over the read limits; read as empty", d.path, shownID(id), idx)
				*v = [...]string{"{}", "[]", "[]", "{}"}[i]
			}
		}
		res.Workload, res.Engine = cutText(res.Workload, run.MaxNameBytes), cutText(res.Engine, run.MaxNameBytes)
		err1 := json.Unmarshal([]byte(params), &res.Params)
		err2 := json.Unmarshal([]byte(warnings), &res.Warnings)
		err3 := json.Unmarshal([]byte(failures), &res.Failures)
		err4 := applyExtra(rextra, &res)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			rows.Close()
			return nil, &RowError{id, fmt.Sprintf("database %s: run %s: results[%d]: %s", d.path, shownID(id), idx, oneLine(err.Error()))}
		}
		if len(res.Warnings) == 0 {
			res.Warnings = nil
		}
		if len(res.Failures) == 0 {
			res.Failures = nil
		}
		r.Results = append(r.Results, res)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.wrap(err)
	}
	mrows, err := q.QueryContext(ctx, metricsQuery+in+` ORDER BY run_id, result_idx, idx`, args...)
	if err != nil {
		return nil, d.wrap(err)
	}
	for mrows.Next() {
		var id string
		var ri, mi int
		var m run.Metric
		var better string
		if err := mrows.Scan(&id, &ri, &mi, &m.Name, &m.Unit, &better); err != nil {
			mrows.Close()
			return nil, d.wrap(err)
		}
		r := byID[id]
		if r == nil || ri < 0 || ri >= len(r.Results) || mi != len(r.Results[ri].Metrics) || mi >= run.MaxMetrics {
			mrows.Close()
			return nil, &RowError{id, fmt.Sprintf("database %s: run %s: metrics are not numbered 0..n-1 (at most %d)", d.path, shownID(id), run.MaxMetrics)}
		}
		m.Name, m.Unit = cutText(m.Name, run.MaxNameBytes), cutText(m.Unit, run.MaxNameBytes)
		m.Better = run.Better(cutText(better, run.MaxNameBytes))
		m.Samples = []float64{}
		r.Results[ri].Metrics = append(r.Results[ri].Metrics, m)
	}
	mrows.Close()
	if err := mrows.Err(); err != nil {
		return nil, d.wrap(err)
	}
	// The samples, run by run: two columns a row (the metric's position
	// as one integer, result × 2^20 + metric: a result has far fewer than
	// 2^20 metrics; and the value), because the driver's cost is per
	// column read, and 10^5 samples a metric are common. Positions out of
	// range are not read (a negative one would index nothing).
	sstmt, err := q.PrepareContext(ctx, `SELECT CAST(result_idx AS BIGINT) * 1048576 + metric_idx, value FROM samples
		WHERE run_id = ?1 AND result_idx >= 0 AND result_idx < `+strconv.Itoa(run.MaxResults)+`
		AND metric_idx >= 0 AND metric_idx < `+strconv.Itoa(run.MaxMetrics)+` ORDER BY result_idx, metric_idx, seq`)
	if err != nil {
		return nil, d.wrap(err)
	}
	defer sstmt.Close()
	for _, r := range out {
		if err := readSamples(ctx, sstmt, d, r, budget); err != nil {
			return nil, err
		}
	}
	for _, r := range out {
		if r.Results == nil {
			r.Results = []run.Result{}
		}
	}
	return out, nil
}

// readSamples appends to r's metrics their samples, read with stmt (see
// getRuns): at most MaxReadSamples a metric and MaxReadRunSamples a run;
// a value that is not a finite number is skipped. Each cut is a note.
func readSamples(ctx context.Context, stmt *sql.Stmt, d *DB, r *run.Run, budget *int) error {
	rows, err := stmt.QueryContext(ctx, r.ID)
	if err != nil {
		return d.wrap(err)
	}
	defer rows.Close()
	last := int64(-1)
	var m *run.Metric
	total := 0
	for rows.Next() {
		var pos int64
		var raw any
		if err := rows.Scan(&pos, &raw); err != nil {
			return d.wrap(err)
		}
		if total++; total > MaxReadRunSamples {
			d.notes.add("database %s: run %s: more than %d samples stored; the rest were not read", d.path, shownID(r.ID), MaxReadRunSamples)
			break
		}
		if *budget++; *budget > MaxReadQuerySamples {
			return fmt.Errorf("database %s: the runs named hold more than %d samples in all, more than one command reads: name fewer runs", d.path, MaxReadQuerySamples)
		}
		if pos != last {
			ri, mi := int(pos/1048576), int(pos%1048576)
			if ri >= len(r.Results) || mi >= len(r.Results[ri].Metrics) {
				return &RowError{r.ID, fmt.Sprintf("database %s: run %s: sample of an undeclared metric", d.path, shownID(r.ID))}
			}
			m, last = &r.Results[ri].Metrics[mi], pos
		}
		var v float64
		switch x := raw.(type) {
		case float64:
			v = x
		case int64:
			v = float64(x)
		default:
			v = math.NaN()
		}
		if !finite(v) {
			d.notes.add("database %s: run %s: a stored sample that is not a finite number was skipped", d.path, shownID(r.ID))
			continue
		}
		if len(m.Samples) >= MaxReadSamples {
			d.notes.add("database %s: run %s: more than %d samples of one metric stored; the rest were not read", d.path, shownID(r.ID), MaxReadSamples)
			continue
		}
		m.Samples = append(m.Samples, v)
	}
	return d.wrap(rows.Err())
}

// decodeRun fills the columns of a runs row that need decoding.
func decodeRun(r *run.Run, started, finished, status, env, extra string, envs envCache) error {
	if err := applyExtra(extra, r); err != nil {
		return err
	}
	r.Status = run.Status(status)
	var err1, err2 error
	r.Started, err1 = parseTime(started)
	r.Finished, err2 = parseTime(finished)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("bad time: %w", err)
	}
	if env != "null" && env != "" {
		key := sha256.Sum256([]byte(env))
		if r.Env = envs[key]; r.Env != nil {
			return nil
		}
		r.Env = new(sysinfo.Snapshot)
		if err := json.Unmarshal([]byte(env), r.Env); err != nil {
			return fmt.Errorf("env: %w", err)
		}
		envs[key] = r.Env
	}
	return nil
}

// Delete removes the run with exactly this id and all its samples.
func (d *DB) Delete(ctx context.Context, id string) error {
	return d.retry(ctx, func() error {
		res, err := d.db.ExecContext(ctx, `DELETE FROM runs WHERE id=?`, id)
		if err != nil {
			return d.wrap(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return &NotFoundError{Ref: id}
		}
		return nil
	})
}

// Doc returns the run with this id and its environment as stored.
func (d *DB) Doc(ctx context.Context, id string) (run.Doc, error) {
	r, err := d.Get(ctx, id)
	if err != nil {
		return run.Doc{}, err
	}
	env, err := d.rawEnv(ctx, id)
	if err != nil {
		return run.Doc{}, err
	}
	return run.Doc{Run: r, RawEnv: json.RawMessage(env)}, nil
}

// Env returns the environment of the run with this id as decoded JSON,
// with every field that was stored, including those the Go type of this
// build does not know (nil when the run has none).
func (d *DB) Env(ctx context.Context, id string) (map[string]any, error) {
	env, err := d.rawEnv(ctx, id)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(env), &m); err != nil {
		return nil, fmt.Errorf("database %s: run %s: env: %s", d.path, shownID(id), oneLine(err.Error()))
	}
	return m, nil
}

// rawEnv is the stored environment of run id as text, "null" when it is
// over MaxReadEnvBytes (with a note).
func (d *DB) rawEnv(ctx context.Context, id string) (string, error) {
	var env string
	var n int64
	err := d.db.QueryRowContext(ctx, `SELECT `+jsonColumn("env", "null", MaxReadEnvBytes)+` FROM runs WHERE id=?`, id).Scan(&env, &n)
	if errors.Is(err, sql.ErrNoRows) {
		return "", &NotFoundError{Ref: id}
	}
	if err != nil {
		return "", d.wrap(err)
	}
	if n > MaxReadEnvBytes {
		d.notes.add("database %s: run %s: its stored environment of %d bytes is over the limit of %d MiB; read as none", d.path, shownID(id), n, MaxReadEnvBytes>>20)
	}
	return env, nil
}

// Envs returns the stored environments of these runs as decoded JSON, in
// the order given (nil for a run stored without one), in one query per
// batch of ids. Runs whose environments are the same text share one
// decoded map, which callers treat as read-only. An id that is not stored
// is a *NotFoundError.
func (d *DB) Envs(ctx context.Context, ids []string) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(ids))
	seen := map[[sha256.Size]byte]map[string]any{}
	for len(ids) > 0 {
		n := min(len(ids), getBatch)
		in, args := inList(ids[:n])
		rows, err := d.db.QueryContext(ctx, `SELECT id, `+jsonColumn("env", "null", MaxReadEnvBytes)+` FROM runs WHERE id IN `+in, args...)
		if err != nil {
			return nil, d.wrap(err)
		}
		byID := make(map[string]map[string]any, n)
		for rows.Next() {
			var id, env string
			var envLen int64
			if err := rows.Scan(&id, &env, &envLen); err != nil {
				rows.Close()
				return nil, d.wrap(err)
			}
			key := sha256.Sum256([]byte(env))
			m, ok := seen[key]
			if !ok {
				if err := json.Unmarshal([]byte(env), &m); err != nil {
					rows.Close()
					return nil, fmt.Errorf("database %s: run %s: env: %s", d.path, shownID(id), oneLine(err.Error()))
				}
				seen[key] = m
			}
			byID[id] = m
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, d.wrap(err)
		}
		for _, id := range ids[:n] {
			m, ok := byID[id]
			if !ok {
				return nil, &NotFoundError{Ref: id}
			}
			out = append(out, m)
		}
		ids = ids[n:]
	}
	return out, nil
}
