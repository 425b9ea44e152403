-- 0001 for PostgreSQL: the same tables as migrations/0001_init.sql, with
-- 64-bit integers (SQLite's INTEGER is 64 bits, PostgreSQL's 32) and
-- double-precision samples (PostgreSQL's REAL is single precision), and
-- byte-wise text order (COLLATE "C", as SQLite's BINARY) so that runs sort
-- the same on both engines whatever the server's locale.
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
