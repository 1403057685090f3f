-- 0002_tensors.sql: the tensors a session holds (docs/cluster-protocol.md).
-- A task that succeeds records one row per fetched node, named by the node's
-- key; an upload records one row with task_id NULL. Later documents of the
-- session name these keys as inputs. Append-only, as every migration.
--
-- bounds: per axis the chunk offsets (nchunks+1 of them, 0 .. shape[d]), so
-- that uneven chunkings an earlier task produced are kept exactly.
-- chunk_keys: the chunk store keys of the chunks, grid C order.
CREATE TABLE tensors (
    session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    key        text NOT NULL,
    task_id    text,                        -- NULL for uploads; no foreign key: the task row may go first
    shape      bigint[] NOT NULL,
    dtype      text NOT NULL,
    bounds     jsonb NOT NULL,
    chunk_keys text[] NOT NULL,
    nbytes     bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, key)
);
-- Whether a chunk key is still referenced by some tensor (replacing a row
-- frees the old chunks only when none is).
CREATE INDEX tensors_chunk_keys_idx ON tensors USING gin (chunk_keys);
