-- 0003: campaigns (sectax campaign): the plan of boots, where the
-- campaign stands, what it changed on the system, and per step the boot
-- it verified, the verification and the run it measured. Plain SQL that
-- SQLite and PostgreSQL both accept.
CREATE TABLE campaigns (
	id            TEXT PRIMARY KEY,
	created       TEXT NOT NULL,
	updated       TEXT NOT NULL,
	label         TEXT NOT NULL,
	via           TEXT NOT NULL,
	seed          BIGINT NOT NULL,
	configs       TEXT NOT NULL,
	options       TEXT NOT NULL DEFAULT '{}',
	base_cmdline  TEXT NOT NULL DEFAULT '',
	start_boot_id TEXT NOT NULL DEFAULT '',
	state         TEXT NOT NULL,
	next_step     BIGINT NOT NULL DEFAULT 0,
	message       TEXT NOT NULL DEFAULT '',
	changes       TEXT NOT NULL DEFAULT '[]',
	restore_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX campaigns_state ON campaigns(state);

CREATE TABLE campaign_steps (
	campaign_id   TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	idx           BIGINT NOT NULL,
	config        TEXT NOT NULL,
	boot          BIGINT NOT NULL,
	status        TEXT NOT NULL,
	attempts      BIGINT NOT NULL DEFAULT 0,
	from_boot_ids TEXT NOT NULL DEFAULT '[]',
	boot_id       TEXT NOT NULL DEFAULT '',
	verification  TEXT NOT NULL DEFAULT '',
	quiet         TEXT NOT NULL DEFAULT '',
	quiet_ms      BIGINT NOT NULL DEFAULT 0,
	run_id        TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (campaign_id, idx)
);
