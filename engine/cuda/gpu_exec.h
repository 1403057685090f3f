/* gpu_exec.h: chunk jobs on a CUDA device (docs/gpu.md). Which jobs a
 * device runs, and running one: its inputs are looked up in the device
 * store (gpu.h) by their host buffers, or copied in; its output stays on the
 * device until a CPU reader asks for it (gpu_to_host). Everything else runs
 * on the CPU, job by job. Built in every build: without CUDA nothing opens,
 * so nothing reaches a device. */
#ifndef MARS_GPU_EXEC_H
#define MARS_GPU_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../tile.h"
#include "gpu.h"

/* Whether job ji's kind, dtypes and ops have a device kernel. */
bool gpu_job_supported(const tile_t *t, int32_t ji);
/* Whether it goes to a device under place (the document's "device"): supported, and for "auto" one
 * of the dot family, a gather whose sources all go to a device (pref: the
 * answers for the jobs before ji, or NULL), or a job over at least
 * GPU_AUTO_BYTES. */
#define GPU_AUTO_BYTES ((size_t)1 << 20)
bool gpu_job_preferred(const tile_t *t, int32_t ji, graph_device_t place, const uint8_t *pref);

/* The bytes of a job's input as the kernel sees it (what gpu_exec_job
 * copies in, and a prefetch of it should). */
size_t gpu_input_bytes(const jin_t *in);

/* Runs job ji on device dev. get(ctx, k) returns the host buffer of job k's
 * output without copying it back (the store finds its device copy);
 * get_host(ctx, k) returns it with its bytes on the host (for inputs
 * assembled from pieces). out: the host buffer of ji's output, a
 * device-only chunk afterwards. keep_inputs: keep the inputs copied in (the
 * caller calls gpu_forget before freeing any host buffer it passed).
 * Returns 0, 1 when the job has no device kernel after all or does not fit
 * the device store's limit (run it on the CPU; nothing was kept), or -1
 * with a message. Once this job's kernels are queued, the chunks that the
 * next jobs on this device read are copied in, so the copies overlap them
 * (gpu_job_prefetch: only where the store has room): pre's (or NULL:
 * none; kept alive by the caller until gpu_exec_job returns), and those of
 * the jobs waiting for the device meanwhile (gpu_job_begin's reads: this
 * job's own are listed so while it waits). */
int gpu_exec_job(int dev, const tile_t *t, int32_t ji, const void *(*get)(void *ctx, int32_t job),
                 const void *(*get_host)(void *ctx, int32_t job), void *ctx, void *out,
                 bool keep_inputs, const gpu_prefetch_t *pre, char *err, size_t errlen);

#endif
