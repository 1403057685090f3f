-- 0005_chunks_update.sql: the supervisor's batched chunk-row update
-- (docs/benchmarks.md, W7). Append-only, as every migration.
--
-- chunks_update(task, keys, ...) writes the changed rows of one task, the
-- i-th element of every array for the row of keys[i]. Each row is found by
-- its primary key (a correlated lookup per key) and updated by its ctid.
-- The statement lives here rather than in the supervisor for the settings
-- it runs under: with the statistics of a table whose task has just been
-- inserted (a million rows the planner has not seen), PostgreSQL planned a
-- hash join over a sequential scan of the whole table, or an index scan of
-- the whole task, for every batch of 1000 rows (0.1-0.6 s a batch, growing
-- with the task). Without hash joins, merge joins and sequential scans the
-- only plan left is a nested loop of index lookups: about 15 us a row
-- whatever the statistics say.
CREATE FUNCTION chunks_update(p_task text, p_key text[], p_status text[], p_attempt int[],
                              p_nbytes bigint[], p_worker text[], p_slot int[],
                              p_t0 bigint[], p_t1 bigint[])
RETURNS void LANGUAGE sql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
AS $$
UPDATE chunks c SET status = u.st, attempt = u.a,
    nbytes = NULLIF(u.nb, -1), worker_id = NULLIF(u.w, ''),
    slot = CASE WHEN u.t1 > 0 THEN NULLIF(u.sl, -1) ELSE c.slot END,
    queued_at = CASE WHEN u.st = 'queued' THEN now() ELSE c.queued_at END,
    -- a run the worker reported carries its own start and end (its wall
    -- clock); otherwise the end is when the supervisor learnt of it
    started_at = CASE WHEN u.t1 > 0 THEN to_timestamp(u.t0 / 1000.0) ELSE c.started_at END,
    finished_at = CASE WHEN u.t1 > 0 THEN to_timestamp(u.t1 / 1000.0)
                       WHEN u.st = 'done' AND c.finished_at IS NULL THEN now()
                       ELSE c.finished_at END
FROM (SELECT u.*, (SELECT x.ctid FROM chunks x WHERE x.task_id = p_task AND x.key = u.k) AS row_id
      FROM unnest(p_key, p_status, p_attempt, p_nbytes, p_worker, p_slot, p_t0, p_t1)
           AS u(k, st, a, nb, w, sl, t0, t1)) u
WHERE c.ctid = u.row_id;
$$;
