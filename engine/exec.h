/* exec.h: runs a chunk graph in this process on a thread pool, releasing
 * each intermediate chunk as soon as its last consumer has run. Also runs
 * one job at a time for callers that hold the inputs themselves (workers). */
#ifndef MARS_EXEC_H
#define MARS_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/gpu_exec.h"
#include "tile.h"

typedef struct {
    int threads; /* >= 1 */
    /* Supplies the bytes of a JK_SOURCE chunk (session tensors); NULL when
     * the graph has none. Returns 0, or -1 with a message. */
    int (*source)(void *ctx, const tile_t *t, int32_t job, void *dst, char *err, size_t errlen);
    void *source_ctx;
    /* CUDA devices (opened with gpu_open): one more thread each, running
     * the jobs gpu_job_preferred gives a device under place (docs/gpu.md) */
    int n_gpus;
    const int *gpus;
    graph_device_t place;
} exec_opts_t;

typedef struct exec_result exec_result_t;

/* Chunk buffers (megabytes each: inputs assembled, outputs, packs) come
 * and go with every job. glibc would map each one anew and unmap it when
 * freed, and the kernel then zeroes every page on its first touch (a third
 * of a worker's CPU in W8, 30% of mars-run's in W5o). Called once at the
 * start of a process that runs jobs: such buffers up to 32 MiB come from
 * malloc's heaps, and up to 256 MiB free at the top of each heap is kept
 * (a worker's memguard gives it back, malloc_trim, before it spills). */
void exec_keep_freed_memory(void);

/* Runs every live job of t. On success returns 0 and *out holds the kept
 * chunks (exec_result_free). On failure returns -1 with the first error. */
int exec_run(const tile_t *t, const exec_opts_t *o, exec_result_t **out, char *err, size_t errlen);
/* The data of kept job j (a chunk of a fetched tensor), owned by r. */
const void *exec_result_chunk(const exec_result_t *r, int32_t j);
/* Its size in bytes (a frame blob's real length for blob jobs). */
size_t exec_result_chunk_len(const exec_result_t *r, int32_t j);
void exec_result_free(exec_result_t *r);
/* Peak bytes of chunk data held at once during the run. */
size_t exec_result_peak_bytes(const exec_result_t *r);
/* Jobs that ran on a device. */
int64_t exec_result_gpu_jobs(const exec_result_t *r);

/* Input in of a job as one host array: a source job's output, or assembled
 * into a fresh scratch buffer (*owned, the caller scratch_frees it). NULL
 * when out of memory. */
const void *exec_input_data(const tile_t *t, const jin_t *in, const void *(*get)(void *, int32_t),
                            void *ctx, void **owned);

/* Runs job ji alone: get(ctx, k) returns the output bytes of job k for every
 * job ji reads; out has job_nbytes(ji) bytes. JK_SOURCE jobs cannot run here. */
int exec_job(const tile_t *t, int32_t ji, const void *(*get)(void *ctx, int32_t job), void *ctx,
             void *out, char *err, size_t errlen);

/* Runs job ji alone when its output may be a blob (JK_DF: tile.h's
 * job.blob), or any job: get(ctx, k, &len) returns job k's output and its
 * length. A blob job sets *blob (malloc'ed, the caller frees) and *blob_len;
 * any other writes job_nbytes bytes at out (*blob stays NULL). */
int exec_job_any(const tile_t *t, int32_t ji,
                 const void *(*get)(void *ctx, int32_t job, size_t *len), void *ctx, void *out,
                 void **blob, size_t *blob_len, char *err, size_t errlen);

#endif
