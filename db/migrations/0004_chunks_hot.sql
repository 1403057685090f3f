-- 0004_chunks_hot.sql: cheaper chunk-row updates (docs/benchmarks.md, W7).
-- Append-only, as every migration.
--
-- A chunk row changes status a few times while its task runs. An index on
-- status made every change write a new entry in every index of the table;
-- without it, and with room left in each page, PostgreSQL updates the row
-- in place (a heap-only tuple). No query filters chunks by status alone:
-- they all name the task, which the primary key serves.
DROP INDEX IF EXISTS chunks_status_idx;
ALTER TABLE chunks SET (fillfactor = 70);
