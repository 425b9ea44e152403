package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

// Campaign is the stored state of one `sectax campaign`: its plan (the
// configurations and the shuffled steps), where it stands, and what it
// changed on the system. The campaign package owns the meaning of the
// fields; the store keeps them, every change in one transaction.
type Campaign struct {
	ID      string
	Created time.Time
	Updated time.Time
	// Label is the prefix of the runs' labels (PREFIX-CONFIG).
	Label string
	// Via is the reboot mechanism: kexec, wsl or manual.
	Via  string
	Seed int64
	// Configs and Options are JSON documents of the campaign package (the
	// configurations of the plan, and how each boot is measured).
	Configs string
	Options string
	// BaseCmdline is the command line of the boot the campaign started
	// from; StartBootID that boot's id (never measured).
	BaseCmdline string
	StartBootID string
	// State is running, finished, failed or aborted.
	State string
	// Next is the index of the step the campaign is at (len(Steps) when
	// every step is measured).
	Next int
	// Message says why the campaign stopped, or what it waits for.
	Message string
	// Changes is a JSON list of what the campaign changed on the system
	// and has not put back yet; RestoreError why putting it back failed.
	Changes      string
	RestoreError string
	Steps        []CampaignStep
	// Damage says what of the stored steps could not be read back (a
	// row edited into invalid JSON): the campaign package refuses to
	// drive such a campaign, and abort still restores what it safely can.
	Damage []string
	// MoreSteps counts the stored steps beyond MaxCampaignSteps, which
	// are not read.
	MoreSteps int
}

// MaxCampaignSteps bounds the steps read back of one campaign: a row
// with more (no campaign sectax plans has) is read up to it, and the rest
// only counted.
const MaxCampaignSteps = 1000

// Bounds of the text read back of a campaign: a field of its row, one of
// its JSON documents, a step's verification.
const (
	maxCampaignText = 64 << 10
	maxCampaignJSON = 4 << 20
)

// CampaignStep is one boot of the plan.
type CampaignStep struct {
	Index int
	// Config names the configuration; Boot counts its boots (1-based).
	Config string
	Boot   int
	// Status is pending, booting, verified, measuring, measured or
	// refused.
	Status string
	// Attempts counts the boots requested for this step.
	Attempts int
	// FromBootIDs are the boots that requested this step's boots.
	FromBootIDs []string
	// BootID is the boot verified for the step; Verification the last
	// check of a boot against the step.
	BootID       string
	Verification *run.Verification
	// Quiet says how the start was judged settled; QuietWait how long
	// the measurement waited for it.
	Quiet     string
	QuietWait time.Duration
	// RunID is the run measuring the step.
	RunID string
}

// ErrNoCampaign says that no campaign matches.
var ErrNoCampaign = errors.New("no campaign")

// ActiveCampaignError says that a campaign is still running.
type ActiveCampaignError struct{ ID string }

func (e *ActiveCampaignError) Error() string {
	return fmt.Sprintf("campaign %s is still running; finish it with 'sectax campaign resume' or stop it with 'sectax campaign abort'", e.ID)
}

// ExitKind says that starting a second campaign is a usage error.
func (e *ActiveCampaignError) ExitKind() exit.Kind { return exit.Usage }

// CreateCampaign stores a new campaign and its steps in one transaction.
// Which campaigns run where is not the store's to say: each host keeps
// its own (the campaign package), so many hosts run theirs at once.
func (d *DB) CreateCampaign(ctx context.Context, c *Campaign) error {
	return d.SaveCampaign(ctx, c)
}

// SaveCampaign writes the campaign and every step in one transaction: a
// transition of the campaign is stored whole or not at all, and the row
// and its steps become exactly c (a row that is missing is made again,
// steps beyond c's are removed).
func (d *DB) SaveCampaign(ctx context.Context, c *Campaign) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO campaigns(id, created, updated, label, via, seed, configs, options,
		base_cmdline, start_boot_id, state, next_step, message, changes, restore_error)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET created=excluded.created, updated=excluded.updated, label=excluded.label,
		via=excluded.via, seed=excluded.seed, configs=excluded.configs, options=excluded.options,
		base_cmdline=excluded.base_cmdline, start_boot_id=excluded.start_boot_id, state=excluded.state,
		next_step=excluded.next_step, message=excluded.message, changes=excluded.changes, restore_error=excluded.restore_error`,
		c.ID, fmtTime(c.Created), fmtTime(c.Updated), c.Label, c.Via, c.Seed, orJSON(c.Configs, "[]"), orJSON(c.Options, "{}"),
		c.BaseCmdline, c.StartBootID, c.State, c.Next, c.Message, orJSON(c.Changes, "[]"), c.RestoreError); err != nil {
		return d.wrap(err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM campaign_steps WHERE campaign_id=? AND (idx < 0 OR idx >= ?)`, c.ID, len(c.Steps)); err != nil {
		return d.wrap(err)
	}
	for i := range c.Steps {
		s := &c.Steps[i]
		if _, err := tx.ExecContext(ctx, `INSERT INTO campaign_steps(campaign_id, idx, config, boot, status) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (campaign_id, idx) DO UPDATE SET config=excluded.config, boot=excluded.boot`,
			c.ID, s.Index, s.Config, s.Boot, s.Status); err != nil {
			return d.wrap(err)
		}
		if err := updateStep(ctx, tx, c.ID, s); err != nil {
			return d.wrap(err)
		}
	}
	return d.wrap(tx.Commit())
}

func updateStep(ctx context.Context, q querier, id string, s *CampaignStep) error {
	from, err := jsonText(nonNil(s.FromBootIDs))
	if err != nil {
		return err
	}
	ver := ""
	if s.Verification != nil {
		if ver, err = jsonText(s.Verification); err != nil {
			return err
		}
	}
	_, err = q.ExecContext(ctx, `UPDATE campaign_steps SET status=?, attempts=?, from_boot_ids=?, boot_id=?,
		verification=?, quiet=?, quiet_ms=?, run_id=? WHERE campaign_id=? AND idx=?`,
		s.Status, s.Attempts, from, s.BootID, ver, s.Quiet, s.QuietWait.Milliseconds(), s.RunID, id, s.Index)
	return err
}

func orJSON(s, empty string) string {
	if strings.TrimSpace(s) == "" {
		return empty
	}
	return s
}

// CampaignIDs returns the ids of every campaign, oldest first.
func (d *DB) CampaignIDs(ctx context.Context) ([]string, error) {
	return d.ids(ctx, `SELECT id FROM campaigns ORDER BY created, id`)
}

// FindCampaign returns the campaign ref names: an exact id or a unique
// prefix of one; "" is the running campaign, else the newest one. No
// match is ErrNoCampaign.
func (d *DB) FindCampaign(ctx context.Context, ref string) (*Campaign, error) {
	ids, err := d.CampaignIDs(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w in %s; start one with 'sectax campaign start'", ErrNoCampaign, d.path)
	}
	if ref == "" {
		var active string
		err := d.db.QueryRowContext(ctx, `SELECT id FROM campaigns WHERE state='running' ORDER BY created LIMIT 1`).Scan(&active)
		switch {
		case err == nil:
			return d.Campaign(ctx, active)
		case !errors.Is(err, sql.ErrNoRows):
			return nil, d.wrap(err)
		}
		return d.Campaign(ctx, ids[len(ids)-1])
	}
	var match []string
	for _, id := range ids {
		if id == ref {
			return d.Campaign(ctx, id)
		}
		if strings.HasPrefix(id, ref) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		return nil, fmt.Errorf("%w matches %q; campaigns: %s", ErrNoCampaign, ref, someOf(ids))
	case 1:
		return d.Campaign(ctx, match[0])
	}
	return nil, fmt.Errorf("campaign %q is ambiguous: %s; give more of the id", ref, someOf(match))
}

// FindCampaignOf is the campaign whose options hold mark (a host's key,
// as the campaign package writes it): its running one, else its newest.
// None is ErrNoCampaign.
func (d *DB) FindCampaignOf(ctx context.Context, mark string) (*Campaign, error) {
	esc := strings.NewReplacer(`!`, `!!`, `%`, `!%`, `_`, `!_`).Replace(mark)
	var id string
	err := d.db.QueryRowContext(ctx, `SELECT id FROM campaigns WHERE options LIKE ? ESCAPE '!'
		ORDER BY CASE WHEN state='running' THEN 0 ELSE 1 END, created DESC, id DESC LIMIT 1`, "%"+esc+"%").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w of this host in %s", ErrNoCampaign, d.path)
	}
	if err != nil {
		return nil, d.wrap(err)
	}
	return d.Campaign(ctx, id)
}

// Campaign reads the campaign with id and its steps, each field bounded
// (MaxCampaignSteps, and the text bounds above).
func (d *DB) Campaign(ctx context.Context, id string) (*Campaign, error) {
	c := &Campaign{ID: id}
	var created, updated string
	err := d.db.QueryRowContext(ctx, `SELECT `+textColumn("created", 63)+`, `+textColumn("updated", 63)+`, `+textColumn("label", maxCampaignText-1)+`,
		`+textColumn("via", 63)+`, seed, `+textColumn("configs", maxCampaignJSON-1)+`, `+textColumn("options", maxCampaignJSON-1)+`, `+textColumn("base_cmdline", maxCampaignText-1)+`,
		`+textColumn("start_boot_id", 255)+`, `+textColumn("state", 63)+`, next_step, `+textColumn("message", maxCampaignText-1)+`, `+textColumn("changes", maxCampaignJSON-1)+`,
		`+textColumn("restore_error", maxCampaignText-1)+` FROM campaigns WHERE id=?`, id).Scan(
		&created, &updated, &c.Label, &c.Via, &c.Seed, &c.Configs, &c.Options, &c.BaseCmdline,
		&c.StartBootID, &c.State, &c.Next, &c.Message, &c.Changes, &c.RestoreError)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w %s in %s", ErrNoCampaign, id, d.path)
	}
	if err != nil {
		return nil, d.wrap(err)
	}
	if c.Created, err = parseTime(created); err != nil {
		return nil, fmt.Errorf("campaign %s: created: %w", id, err)
	}
	if c.Updated, err = parseTime(updated); err != nil {
		return nil, fmt.Errorf("campaign %s: updated: %w", id, err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT idx, `+textColumn("config", 255)+`, boot, `+textColumn("status", 63)+`, attempts,
		`+textColumn("from_boot_ids", 2047)+`, `+textColumn("boot_id", 255)+`, `+textColumn("verification", 16383)+`, `+textColumn("quiet", 255)+`,
		quiet_ms, `+textColumn("run_id", 255)+` FROM campaign_steps WHERE campaign_id=? ORDER BY idx LIMIT `+fmt.Sprint(MaxCampaignSteps+1), id)
	if err != nil {
		return nil, d.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s CampaignStep
		var from, ver string
		var quietMS int64
		if err := rows.Scan(&s.Index, &s.Config, &s.Boot, &s.Status, &s.Attempts, &from, &s.BootID,
			&ver, &s.Quiet, &quietMS, &s.RunID); err != nil {
			return nil, d.wrap(err)
		}
		if err := json.Unmarshal([]byte(from), &s.FromBootIDs); err != nil {
			c.Damage = append(c.Damage, fmt.Sprintf("step %d: from_boot_ids is not valid JSON (%v)", s.Index+1, err))
			s.FromBootIDs = nil
		}
		if len(s.FromBootIDs) == 0 {
			s.FromBootIDs = nil
		}
		if ver != "" {
			s.Verification = &run.Verification{}
			if err := json.Unmarshal([]byte(ver), s.Verification); err != nil {
				c.Damage = append(c.Damage, fmt.Sprintf("step %d: the stored verification is not valid JSON (%v)", s.Index+1, err))
				s.Verification = nil
			}
		}
		s.QuietWait = time.Duration(quietMS) * time.Millisecond
		c.Steps = append(c.Steps, s)
	}
	if err := rows.Err(); err != nil {
		return nil, d.wrap(err)
	}
	if len(c.Steps) > MaxCampaignSteps {
		c.Steps = c.Steps[:MaxCampaignSteps]
		var n int
		if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM campaign_steps WHERE campaign_id=?`, id).Scan(&n); err != nil {
			return nil, d.wrap(err)
		}
		c.MoreSteps = n - MaxCampaignSteps
	}
	return c, nil
}
