-- 0003_dashboard.sql: what the dashboard reads (docs/dashboard.md).
-- Append-only, as every migration.
--
-- chunks.slot: the worker slot (0 .. n_cpu-1) that ran the job, as the
-- worker reported it with the completion; started_at and finished_at (0001)
-- then hold the worker's own start and end of the run. NULL when the job
-- has not run, or ran on a worker that did not report them.
ALTER TABLE chunks ADD COLUMN slot integer;

-- The newest tasks across sessions (GET /api/v1/tasks) without a sort of
-- the whole table.
CREATE INDEX tasks_submitted_idx ON tasks (submitted_at, id);
