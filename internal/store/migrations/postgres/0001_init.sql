-- 0001 for PostgreSQL: the same tables as migrations/0001_init.sql, with
-- 64-bit integers (SQLite's INTEGER is 64 bits, PostgreSQL's 32) and
-- double-precision samples (PostgreSQL's REAL is single precision).
CREATE TABLE runs (
	id           TEXT PRIMARY KEY,
	label        TEXT NOT NULL DEFAULT '',
	started      TEXT NOT NULL,
	finished     TEXT NOT NULL DEFAULT '',
	status       TEXT NOT NULL,
	suite        TEXT NOT NULL DEFAULT '',
	engine       TEXT NOT NULL DEFAULT '',
	tool_version TEXT NOT NULL DEFAULT '',
	runs         BIGINT NOT NULL DEFAULT 0,
	warmup       BIGINT NOT NULL DEFAULT 0,
	seed         BIGINT NOT NULL DEFAULT 0,
	cpus         TEXT NOT NULL DEFAULT '',
	perf_version TEXT NOT NULL DEFAULT '',
	env          TEXT NOT NULL DEFAULT 'null'
);
CREATE INDEX runs_label ON runs(label);

CREATE TABLE results (
	run_id   TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	idx      BIGINT NOT NULL,
	workload TEXT NOT NULL,
	engine   TEXT NOT NULL DEFAULT '',
	params   TEXT NOT NULL DEFAULT '{}',
	warnings TEXT NOT NULL DEFAULT '[]',
	failures TEXT NOT NULL DEFAULT '[]',
	PRIMARY KEY (run_id, idx)
);

CREATE TABLE metrics (
	run_id     TEXT NOT NULL,
	result_idx BIGINT NOT NULL,
	idx        BIGINT NOT NULL,
	name       TEXT NOT NULL,
	unit       TEXT NOT NULL,
	better     TEXT NOT NULL,
	PRIMARY KEY (run_id, result_idx, idx),
	UNIQUE (run_id, result_idx, name),
	FOREIGN KEY (run_id, result_idx) REFERENCES results(run_id, idx) ON DELETE CASCADE
);

CREATE TABLE samples (
	run_id     TEXT NOT NULL,
	result_idx BIGINT NOT NULL,
	metric_idx BIGINT NOT NULL,
	seq        BIGINT NOT NULL,
	value      DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (run_id, result_idx, metric_idx, seq),
	FOREIGN KEY (run_id, result_idx, metric_idx) REFERENCES metrics(run_id, result_idx, idx) ON DELETE CASCADE
);
