-- 0002: fields of the run document that have no column of their own
-- (run notes, a result's worker footprint, and whatever later versions
-- add), kept as JSON objects so that a run round-trips unchanged.
ALTER TABLE runs ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';
ALTER TABLE results ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';
