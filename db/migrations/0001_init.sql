-- 0001_init.sql: the cluster's durable state (ARCHITECTURE.md, "Where state
-- lives"). Applied by mars-supervisor at start, inside the migration
-- runner's transaction (services/common/mig.c). Append-only: change the
-- schema with a new numbered file, never by editing this one.
--
-- Ids are opaque text (the REST API hands them out as strings). Times are
-- timestamptz; the API renders them as RFC 3339 in UTC. Status columns are
-- text with CHECK constraints: readable in psql, and a new status is one
-- ALTER of the constraint.

-- Supervisors: one row per process start. The REST API derives alive /
-- suspect / dead from last_heartbeat (services/common/proto.h).
CREATE TABLE supervisors (
    id             text PRIMARY KEY,
    address        text NOT NULL,               -- host:port of its service port
    web_address    text,                        -- host:port of the gateway it serves (-w), if any
    hostname       text NOT NULL,
    pid            integer NOT NULL,
    status         text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'stopped')),
    started_at     timestamptz NOT NULL DEFAULT now(),
    last_heartbeat timestamptz NOT NULL DEFAULT now(),
    stopped_at     timestamptz
);

-- Workers: one row per process start, refreshed by its heartbeat with the
-- resources it reports (the fields of GET /api/v1/workers).
CREATE TABLE workers (
    id             text PRIMARY KEY,
    address        text NOT NULL,               -- host:port of its service port
    hostname       text NOT NULL,
    pid            integer NOT NULL,
    status         text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'stopped')),
    n_cpu          integer NOT NULL CHECK (n_cpu > 0),
    n_io           integer NOT NULL CHECK (n_io > 0),
    cuda_devices   integer[] NOT NULL DEFAULT '{}',
    cpu_usage      double precision NOT NULL DEFAULT 0 CHECK (cpu_usage >= 0),  -- cores in use
    memory_used    bigint NOT NULL DEFAULT 0,   -- bytes resident
    memory_limit   bigint NOT NULL,             -- --phy-mem
    cache_used     bigint NOT NULL DEFAULT 0,
    cache_limit    bigint NOT NULL,             -- --cache-mem
    chunks_running integer NOT NULL DEFAULT 0,
    chunks_done    bigint NOT NULL DEFAULT 0,
    started_at     timestamptz NOT NULL DEFAULT now(),
    last_heartbeat timestamptz NOT NULL DEFAULT now(),
    stopped_at     timestamptz
);
CREATE INDEX workers_address_idx ON workers (address);

CREATE TABLE sessions (
    id         text PRIMARY KEY DEFAULT gen_random_uuid()::text,
    name       text,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Tasks: one submitted graph document each. A supervisor owns a task while
-- its lease holds (owner_id, lease_expires_at); another may claim it once
-- the lease has expired. chunks_total / chunks_done are the progress the
-- API reports.
CREATE TABLE tasks (
    id               text PRIMARY KEY DEFAULT gen_random_uuid()::text,
    session_id       text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    graph            json NOT NULL,             -- the document as submitted (json keeps it verbatim)
    status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'cancelled')),
    error            text,
    owner_id         text REFERENCES supervisors (id) ON DELETE SET NULL,
    lease_expires_at timestamptz,
    cancel_requested boolean NOT NULL DEFAULT false,
    chunks_total     integer NOT NULL DEFAULT 0 CHECK (chunks_total >= 0),
    chunks_done      integer NOT NULL DEFAULT 0 CHECK (chunks_done >= 0),
    submitted_at     timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    finished_at      timestamptz
);
CREATE INDEX tasks_session_idx ON tasks (session_id, submitted_at);
-- What supervisors scan for work to claim or leases to take over.
CREATE INDEX tasks_open_idx ON tasks (lease_expires_at) WHERE status IN ('pending', 'running');
CREATE INDEX tasks_owner_idx ON tasks (owner_id) WHERE owner_id IS NOT NULL;

-- Chunks: the tiled chunk graph of a task, one row per output chunk.
-- key is the deterministic chunk key (also its key in the chunk store);
-- node_key the graph node it belongs to; chunk_index its position in the
-- node's chunk grid. attempt counts dispatches: a completion reported with
-- an older attempt is stale and ignored. worker_id has no foreign key: rows
-- are written in large batches and a worker's row may be pruned first.
-- Edges are not stored: chunk keys are deterministic, so a supervisor that
-- takes a task over re-tiles its graph and finds the same chunks.
CREATE TABLE chunks (
    task_id     text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    key         text NOT NULL,
    node_key    text NOT NULL,
    op          text NOT NULL,
    chunk_index bigint[] NOT NULL DEFAULT '{}',
    shape       bigint[] NOT NULL,
    dtype       text NOT NULL,
    status      text NOT NULL DEFAULT 'waiting'
                CHECK (status IN ('waiting', 'queued', 'running', 'done', 'failed', 'freed')),
    worker_id   text,
    attempt     integer NOT NULL DEFAULT 0,
    nbytes      bigint,
    error       text,
    queued_at   timestamptz,
    started_at  timestamptz,
    finished_at timestamptz,
    PRIMARY KEY (task_id, key)
);
CREATE INDEX chunks_status_idx ON chunks (task_id, status);

-- What happened to a task, in order: submitted, claimed, tiled, chunk
-- retried, failed, ... (kind) with details as JSON.
CREATE TABLE task_events (
    id      bigserial PRIMARY KEY,
    task_id text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    at      timestamptz NOT NULL DEFAULT now(),
    kind    text NOT NULL,
    detail  jsonb
);
CREATE INDEX task_events_task_idx ON task_events (task_id, id);
