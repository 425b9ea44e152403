-- 0001_init.sql
-- 0001: runs, their results, metric declarations and samples.
CREATE TABLE runs (
	id           TEXT COLLATE "C" PRIMARY KEY,
	label        TEXT COLLATE "C" NOT NULL DEFAULT '',
	started      TEXT COLLATE "C" NOT NULL,
	finished     TEXT COLLATE "C" NOT NULL DEFAULT '',
	status       TEXT COLLATE "C" NOT NULL,
	suite        TEXT COLLATE "C" NOT NULL DEFAULT '',
	engine       TEXT COLLATE "C" NOT NULL DEFAULT '',
	tool_version TEXT COLLATE "C" NOT NULL DEFAULT '',
	runs         BIGINT NOT NULL DEFAULT 0,
	warmup       BIGINT NOT NULL DEFAULT 0,
	seed         BIGINT NOT NULL DEFAULT 0,
	cpus         TEXT COLLATE "C" NOT NULL DEFAULT '',
	perf_version TEXT COLLATE "C" NOT NULL DEFAULT '',
	env          TEXT COLLATE "C" NOT NULL DEFAULT 'null'
);
CREATE INDEX runs_label ON runs(label);

CREATE TABLE results (
	run_id   TEXT COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	idx      BIGINT NOT NULL,
	workload TEXT COLLATE "C" NOT NULL,
	engine   TEXT COLLATE "C" NOT NULL DEFAULT '',
	params   TEXT COLLATE "C" NOT NULL DEFAULT '{}',
	warnings TEXT COLLATE "C" NOT NULL DEFAULT '[]',
	failures TEXT COLLATE "C" NOT NULL DEFAULT '[]',
	PRIMARY KEY (run_id, idx)
);

CREATE TABLE metrics (
	run_id     TEXT COLLATE "C" NOT NULL,
	result_idx BIGINT NOT NULL,
	idx        BIGINT NOT NULL,
	name       TEXT COLLATE "C" NOT NULL,
	unit       TEXT COLLATE "C" NOT NULL,
	better     TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (run_id, result_idx, idx),
	UNIQUE (run_id, result_idx, name),
	FOREIGN KEY (run_id, result_idx) REFERENCES results(run_id, idx) ON DELETE CASCADE
);

CREATE TABLE samples (
	run_id     TEXT COLLATE "C" NOT NULL,
	result_idx BIGINT NOT NULL,
	metric_idx BIGINT NOT NULL,
	seq        BIGINT NOT NULL,
	value      DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (run_id, result_idx, metric_idx, seq),
	FOREIGN KEY (run_id, result_idx, metric_idx) REFERENCES metrics(run_id, result_idx, idx) ON DELETE CASCADE
);

-- 0002_extra.sql
-- 0002: fields of the run document that have no column of their own
-- (run notes, a result's worker footprint, and whatever later versions
-- add), kept as JSON objects so that a run round-trips unchanged.
ALTER TABLE runs ADD COLUMN extra TEXT COLLATE "C" NOT NULL DEFAULT '{}';
ALTER TABLE results ADD COLUMN extra TEXT COLLATE "C" NOT NULL DEFAULT '{}';

-- 0003_campaign.sql
-- 0003: campaigns (sectax campaign): the plan of boots, where the
-- campaign stands, what it changed on the system, and per step the boot
-- it verified, the verification and the run it measured. Plain SQL that
-- SQLite and PostgreSQL both accept.
CREATE TABLE campaigns (
	id            TEXT COLLATE "C" PRIMARY KEY,
	created       TEXT COLLATE "C" NOT NULL,
	updated       TEXT COLLATE "C" NOT NULL,
	label         TEXT COLLATE "C" NOT NULL,
	via           TEXT COLLATE "C" NOT NULL,
	seed          BIGINT NOT NULL,
	configs       TEXT COLLATE "C" NOT NULL,
	options       TEXT COLLATE "C" NOT NULL DEFAULT '{}',
	base_cmdline  TEXT COLLATE "C" NOT NULL DEFAULT '',
	start_boot_id TEXT COLLATE "C" NOT NULL DEFAULT '',
	state         TEXT COLLATE "C" NOT NULL,
	next_step     BIGINT NOT NULL DEFAULT 0,
	message       TEXT COLLATE "C" NOT NULL DEFAULT '',
	changes       TEXT COLLATE "C" NOT NULL DEFAULT '[]',
	restore_error TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX campaigns_state ON campaigns(state);

CREATE TABLE campaign_steps (
	campaign_id   TEXT COLLATE "C" NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	idx           BIGINT NOT NULL,
	config        TEXT COLLATE "C" NOT NULL,
	boot          BIGINT NOT NULL,
	status        TEXT COLLATE "C" NOT NULL,
	attempts      BIGINT NOT NULL DEFAULT 0,
	from_boot_ids TEXT COLLATE "C" NOT NULL DEFAULT '[]',
	boot_id       TEXT COLLATE "C" NOT NULL DEFAULT '',
	verification  TEXT COLLATE "C" NOT NULL DEFAULT '',
	quiet         TEXT COLLATE "C" NOT NULL DEFAULT '',
	quiet_ms      BIGINT NOT NULL DEFAULT 0,
	run_id        TEXT COLLATE "C" NOT NULL DEFAULT '',
	PRIMARY KEY (campaign_id, idx)
);

