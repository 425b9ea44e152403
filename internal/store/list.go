package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"time"

	"github.com/sectax/sectax/internal/run"
)

// Summary is one row of List: a run without its samples.
type Summary struct {
	ID       string
	Label    string
	Started  time.Time
	Finished time.Time
	Status   run.Status
	Suite    string
	Engine   string
	// Env is the run's environment as decoded JSON (nil when absent), read
	// generically so that fields this build does not know still show.
	Env map[string]any
	// Accel is the lab block's accelerator (kvm, tcg) of a run measured in
	// a QEMU guest by sectax lab, "" for a run measured on a machine;
	// VMWall the lab block's wall time of its whole boot (QEMU's start to
	// its exit; 0 when unknown).
	Accel  string
	VMWall time.Duration
	// LabHost is run.Lab.Host of a run measured in the lab ("" otherwise):
	// what a list shows as its host.
	LabHost string
}

// List returns every run, oldest first.
func (d *DB) List(ctx context.Context) ([]Summary, error) { return d.list(ctx, false) }

// ListBrief is List with only the part of each environment that lists and
// selectors read (BriefEnvPaths): a run's whole environment is tens of
// kilobytes of decoded JSON, and 10^4 runs of it were 430 MB.
func (d *DB) ListBrief(ctx context.Context) ([]Summary, error) { return d.list(ctx, true) }

// RunIDs returns the id of every stored run, in List's order (oldest
// first), reading nothing else: for a caller that loads the runs
// themselves (GetMany) and would only throw a summary away.
func (d *DB) RunIDs(ctx context.Context) ([]string, error) {
	return d.ids(ctx, `SELECT id FROM runs ORDER BY started, id`)
}

// ids runs a query of one text column and returns its values.
func (d *DB) ids(ctx context.Context, query string) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, query)
	if err != nil {
		return nil, d.wrap(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, d.wrap(err)
		}
		ids = append(ids, id)
	}
	return ids, d.wrap(rows.Err())
}

// BriefEnvPaths are the environment fields ListBrief keeps.
var BriefEnvPaths = []string{"hostname", "kernel.release", "mitigation_mode", "cpu.model_name"}

// briefEnv decodes the BriefEnvPaths of an environment document.
type briefEnv struct {
	Hostname       *string `json:"hostname"`
	MitigationMode *string `json:"mitigation_mode"`
	Kernel         *struct {
		Release *string `json:"release"`
	} `json:"kernel"`
	CPU *struct {
		ModelName *string `json:"model_name"`
	} `json:"cpu"`
}

// maxBriefBytes bounds each field of a brief environment (a host name is
// at most 64 bytes, a kernel release and a CPU model name far less).
const maxBriefBytes = 256

// decodeBriefEnv returns the brief environment as the same shape of
// decoded JSON as the whole one (nil when there is none).
func decodeBriefEnv(env string) map[string]any {
	var b briefEnv
	if json.Unmarshal([]byte(env), &b) != nil {
		return nil
	}
	// A list shows these in a column: each is cut to a line's worth.
	m := map[string]any{}
	if b.Hostname != nil {
		m["hostname"] = cutText(*b.Hostname, maxBriefBytes)
	}
	if b.MitigationMode != nil {
		m["mitigation_mode"] = cutText(*b.MitigationMode, maxBriefBytes)
	}
	if b.Kernel != nil && b.Kernel.Release != nil {
		m["kernel"] = map[string]any{"release": cutText(*b.Kernel.Release, maxBriefBytes)}
	}
	if b.CPU != nil && b.CPU.ModelName != nil {
		m["cpu"] = map[string]any{"model_name": cutText(*b.CPU.ModelName, maxBriefBytes)}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// listQuery reads the runs table for List, every column bounded
// (bounds.go); a row's times and id are checked in Go.
var listQuery = `SELECT ` + textColumn("id", run.MaxIDBytes) + `, ` + textColumn("label", run.MaxLabelBytes) + `, ` +
	textColumn("started", maxTimeChars) + `, ` + textColumn("finished", maxTimeChars) + `, ` + textColumn("status", run.MaxNameBytes) + `, ` +
	textColumn("suite", run.MaxNameBytes) + `, ` + textColumn("engine", run.MaxNameBytes) + `, ` +
	jsonColumn("env", "null", MaxReadEnvBytes) + `, ` + jsonColumn("extra", "{}", MaxReadJSONBytes) + `
	FROM runs ORDER BY ` + textColumn("started", maxTimeChars) + `, id`

// maxTimeChars bounds a stored time (RFC 3339 with nanoseconds and an
// offset is 35 characters).
const maxTimeChars = 64

func (d *DB) list(ctx context.Context, brief bool) ([]Summary, error) {
	rows, err := d.db.QueryContext(ctx, listQuery)
	if err != nil {
		return nil, d.wrap(err)
	}
	defer rows.Close()
	var out []Summary
	briefs := map[[sha256.Size]byte]map[string]any{} // the runs of one environment share its brief
	for rows.Next() {
		var s Summary
		var started, finished, status, env, extra string
		var envLen, extraLen int64
		if err := rows.Scan(&s.ID, &s.Label, &started, &finished, &status, &s.Suite, &s.Engine, &env, &envLen, &extra, &extraLen); err != nil {
			return nil, d.wrap(err)
		}
		// One bad row is reported and skipped; the others still list,
		// compare and delete.
		if len(s.ID) > run.MaxIDBytes || notRead(s.ID) {
			d.notes.add("database %s: a run id of more than %d bytes (%s) was skipped", d.path, run.MaxIDBytes, shownID(s.ID))
			continue
		}
		s.Status = run.Status(status)
		var err1, err2 error
		s.Started, err1 = parseTime(started)
		s.Finished, err2 = parseTime(finished)
		if errors.Join(err1, err2) != nil {
			d.notes.add("database %s: run %s has no valid start or finish time; it was skipped ('sectax rm %s' deletes it)", d.path, shownID(s.ID), shownID(s.ID))
			continue
		}
		s.Label = d.readText(s.ID, "label", s.Label, run.MaxLabelBytes)
		s.Suite, s.Engine = d.readText(s.ID, "suite", s.Suite, run.MaxNameBytes), d.readText(s.ID, "engine", s.Engine, run.MaxNameBytes)
		s.Status = run.Status(cutText(status, run.MaxNameBytes))
		if envLen > MaxReadEnvBytes {
			d.notes.add("database %s: run %s: its stored environment of %d bytes is over the limit of %d MiB; read as none", d.path, shownID(s.ID), envLen, MaxReadEnvBytes>>20)
		}
		if brief {
			key := sha256.Sum256([]byte(env))
			m, ok := briefs[key]
			if !ok {
				m = decodeBriefEnv(env)
				briefs[key] = m
			}
			s.Env = m
		} else {
			_ = json.Unmarshal([]byte(env), &s.Env)
		}
		var blocks struct {
			Lab *run.Lab `json:"lab"`
		}
		if json.Unmarshal([]byte(extra), &blocks) == nil && blocks.Lab != nil {
			s.Accel = cutText(blocks.Lab.Accel, run.MaxNameBytes)
			s.VMWall = blocks.Lab.VMWall()
			s.LabHost = cutText(blocks.Lab.Host(), maxBriefBytes)
		}
		out = append(out, s)
	}
	return out, d.wrap(rows.Err())
}
