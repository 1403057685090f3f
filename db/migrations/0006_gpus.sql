-- 0006_gpus.sql: each worker's CUDA devices as its last heartbeat saw them
-- (docs/gpu.md): a JSON list of {index, name, memory_total, memory_used,
-- utilization, store_used, store_limit, jobs}; memory and utilisation from
-- NVML (-1 where it is missing). Append-only, as every migration.
ALTER TABLE workers ADD COLUMN gpus jsonb NOT NULL DEFAULT '[]'::jsonb;
