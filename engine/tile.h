/* tile.h: a validated graph turned into a chunk graph.
 *
 * Every tensor of the graph gets a chunk grid (per-axis chunk boundaries and
 * the job producing each chunk). Jobs are the unit of execution: each reads
 * the outputs of earlier jobs and produces one chunk. A job's input is either
 * another job's whole output, or an array assembled from pieces of several
 * outputs (strided copies: rechunking, slicing, transposing, reshaping and
 * concatenating all reduce to those). Element-wise chains fuse into one
 * program per chunk; reductions become map, combine and final jobs; matrix
 * products become block products summed over the contracted chunks.
 *
 * Jobs are created in dependency order: a job only reads jobs with smaller
 * indexes. All memory of a tile_t lives in its arena, freed by tile_free. */
#ifndef MARS_TILE_H
#define MARS_TILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "kern/kern.h"

typedef enum {
    JK_CREATE,      /* kern_create over the node's region at off */
    JK_RANDOM,      /* kern_random */
    JK_SOURCE,      /* a chunk that exists already (a session tensor's); supplied by the caller */
    JK_EW,          /* kern_ew_eval of the node's program */
    JK_GATHER,      /* input 0 assembled from pieces is the output */
    JK_ALIAS,       /* the output is input 0's buffer, same bytes, another shape */
    JK_RED_MAP,     /* kern_red_map: a partial result (bytes) */
    JK_RED_COMBINE, /* kern_red_combine of the inputs' partials */
    JK_RED_FINAL,   /* combine of the inputs' partials, then kern_red_final */
    JK_SCAN_LOCAL,
    JK_SCAN_CARRY, /* inputs: [prev_local] or [prev_carry, prev_local] */
    JK_SCAN_APPLY, /* inputs: [local, carry] */
    JK_TENSORDOT,  /* inputs: pairs (a_k, b_k); out = sum_k tensordot(a_k, b_k) */
    JK_MATMUL,     /* inputs: pairs (a_k, b_k); out = sum_k matmul(a_k, b_k) */
    JK_SYRK,       /* inputs: a_k; out = sum_k a_k a_kᵀ */
    JK_DF,         /* a DataFrame step (param->dfk, df/dfexec.h); its output is a frame blob
                    * whose size is known only when it runs (job.blob), or fixed bytes */
    JK_LA,         /* the linalg branch's step param->la_step (kern/la.h) */
    JK_FANCY,      /* advanced indexing (fancy.h): inputs whole; blob when held */
    JK_SS,         /* sortstat: kern_ss of the node's op over its inputs (sortstat.h) */
    JK__COUNT      /* not a kind: how many there are (job descriptors check against it) */
} job_kind_t;

/* The steps of DataFrame ops. Per-job arguments are in job.off[]. */
typedef enum {
    DFJ_FROM_TENSOR, /* in: the rows' box of the tensor; off[0] = first row */
    DFJ_READ_CSV,    /* off[0] = range, off[1] = first row */
    DFJ_GETITEM,     /* in: a chunk */
    DFJ_EW,          /* in: chunks of the frame inputs, in input order */
    DFJ_FILTER,      /* in: chunk, mask chunk */
    DFJ_ASSIGN,      /* in: chunk, then a chunk of each Series */
    DFJ_HEAD,        /* in: chunks in order; off[0] = rows to take */
    DFJ_TO_TENSOR,   /* in: every chunk in order */
    DFJ_RED_MAP,     /* in: a chunk (or the tensor box of a from_tensor); fixed partials */
    DFJ_RED_COMBINE, /* fixed partials */
    DFJ_RED_FINAL,   /* a Series blob (DataFrame input) or a 0-d tensor (Series input) */
    DFJ_NU_MAP,
    DFJ_NU_COMBINE,
    DFJ_NU_FINAL,
    DFJ_DESCRIBE, /* in: every chunk */
    DFJ_GB_MAP,
    DFJ_GB_COMBINE,
    DFJ_GB_FINAL,
    DFJ_HASH_PART, /* a pack of off[0] parts by the node's key columns (off[1]: side) */
    DFJ_GB_PART,   /* in: every chunk's pack; off[0] = part: map, combine, final */
    DFJ_GB_MERGE,  /* in: every part's final, merged in key order */
    DFJ_SORT_SAMPLE,
    DFJ_SORT_SPLIT, /* in: every sample */
    DFJ_SORT_RANGE, /* in: chunk, splitters: a pack */
    DFJ_SORT_PART,  /* in: every chunk's pack; off[0] = part */
    DFJ_MERGE_PART, /* in: left packs then right packs; off[0] = part, off[1] = left count,
                     * off[2] = output chunks (DFJ_MERGE_ORDER follows) or 0, off[3] = the
                     * validated types (merge_conform); an outer merge with off[2]: then
                     * every chunk's row count (DFJ_JOIN_COUNT of the packs' last part) */
    /* row-wise ops of engine/df/clean.c (fillna, dropna, isna, ...), by the
     * node's op: in: a chunk, then (off[0] = 1) the carry from the chunks
     * before it (ffill) or after it (bfill) */
    DFJ_MAP,
    DFJ_CARRY_EDGE,    /* in: a chunk; its edge (the state it passes on) */
    DFJ_CARRY_COMBINE, /* in: the carry so far, the next chunk's edge */
    DFJ_WHOLE,         /* in: every chunk in order: engine/df/select.c's op on all the rows */
    /* df3: in: the chunks of every frame input, input after input; off[q]
     * the first of input q's, off[nin] their count (engine/df/df3.h) */
    DFJ_MULTI,
    DFJ_MULTIOUT, /* multiout (df/multi.c): a held output of an op with several results */
    /* merge and join, how inner or left: pandas' row order (left's). The
     * left rows' hash packs carry each row's position (off[3] = 1: a
     * hidden column, chunk << 32 | row, off[2] = the chunk), each part's
     * result is a pack split by left chunk (DFJ_MERGE_PART with off[2] =
     * left's chunk count), and this step makes output chunk off[0]: that
     * part of every part's pack, in position order, the hidden column
     * dropped */
    DFJ_MERGE_ORDER,
    /* merge and join with a small side (tile_df.c, bcast_side): in: a chunk
     * of the large side, then every chunk of the small one; off[0] = the
     * large side (0 left, 1 right), off[1] = 1: rows in right's order
     * (how right), off[3] = the validated types (merge_conform) */
    DFJ_MERGE_BCAST,
    /* an inner merge seen in order, with a small right side: pandas' rows
     * grouped by key, the keys in the order they first appear in left, at
     * positions computed ahead so that output chunks are even.
     * BKEYS: in: a chunk of left, then every chunk of right; the keys it
     * matches in the order they first appear in it (as right's first row
     * with the key) and the rows each gives. BPLAN: in: every BKEYS, in
     * left's order; a pack of off[0] parts, part k: where chunk k's rows of
     * each key start in the whole merge, and the rows per output chunk.
     * BPART: in: a chunk of left, BPLAN (its part off[0]), every chunk of
     * right; its merged rows split by output chunk (off[2] of them), each
     * row's place in its chunk in a hidden column, for DFJ_MERGE_ORDER
     * (off[1] = 1: places, not positions to sort by), its label its place
     * in the whole merge */
    DFJ_MERGE_BKEYS,
    DFJ_MERGE_BPLAN,
    DFJ_MERGE_BPART,
    /* a join on the index seen in order (tile_df.c, tile_index_order):
     * KEYS: in: a chunk of a side; a pack of off[0] parts of its index
     * levels alone, hashed, each row's position off[1] << 32 | row in a
     * column, then part off[0]: the chunk's row count. COUNT: in: every
     * KEYS, left's then right's (their part off[0]), or an outer merge's
     * HASH_PART packs (which then end with the same count part); the
     * counts in one column. CHECK: in: left's KEYS then right's (off[1] of left's),
     * part off[0], then COUNT; one row of counts: rows of each side,
     * labels repeated on each side, labels not at the same place on both
     * sides. The sort after it (SORT_SAMPLE, SORT_SPLIT with every sample
     * then every CHECK, off[0] parts and off[1] samples; SORT_RANGE with
     * off[0] the chunk of off[1]; SORT_PART with the splitters last) sorts
     * only where pandas does */
    DFJ_JOIN_KEYS,
    DFJ_JOIN_COUNT,
    DFJ_JOIN_CHECK,
    /* resample (df/resample.h): SPAN: in: a chunk (one input) or two or
     * more SPANs (a combine); the first and last time. BIN: in: a chunk, then the
     * whole SPAN when the bins need it; the chunk keyed by bin. FILL: in:
     * the groupby of the BINs; its empty bins added */
    DFJ_RS_SPAN,
    DFJ_RS_BIN,
    DFJ_RS_FILL,
    /* a DFJ_WHOLE job with off[3] = 1 makes a row of its op for each of
     * its inputs' rows, in their order (rank, duplicated ...): a pack, part
     * k the rows of input k. WHOLE_PART: in: that pack; its part off[0],
     * so that the op's chunks line up with its input's */
    DFJ_WHOLE_PART,
    DFJ__COUNT, /* not a step: how many there are */
} dfjob_t;

/* A strided copy of a box out of a source chunk into the assembled array:
 * element (i_0..i_{n-1}), 0 <= i_d < count[d], is read at element
 * src_off + sum_d i_d*src_stride[d] of the source chunk and written at
 * element dst_off + sum_d i_d*dst_stride[d] (strides in elements, may be
 * negative for reversed slices). */
typedef struct {
    int32_t src; /* job index */
    int32_t ndim;
    int64_t *count, *src_stride, *dst_stride;
    int64_t src_off, dst_off;
} piece_t;

/* A box of a creation or random node generated inside the consuming job
 * (tile/gen.c), then copied into the assembled array by `p` (p.src is -1;
 * p's source strides and offset are in the generated box's C layout). */
typedef struct {
    int32_t node;
    int32_t ndim;       /* the node's */
    int64_t *off, *len; /* the box: global offset and shape in the node's tensor */
    piece_t p;
} gpiece_t;

typedef struct {
    int32_t job; /* >= 0: that job's whole output as is; -1: assembled */
    int32_t n_pieces;
    piece_t *pieces;
    /* >= 0: generated in the consuming job instead (job -1, no pieces): the
     * box at gen_off of creation or random node gen_node, whose chunks are
     * never materialised when it only feeds one element-wise or reduction
     * consumer */
    int32_t gen_node;
    int64_t *gen_off;
    /* Assembled (job -1) inputs may also take pieces of creation chunks, and
     * of random chunks that only this job reads, generated here: those chunks
     * never run (they are not live) and are not among `pieces`, so that a
     * scheduler sees no dependency on them. */
    int32_t n_gpieces;
    gpiece_t *gpieces;
    int ndim; /* the array the kernel sees */
    int64_t *shape;
    dtype_t dt;
} jin_t;

/* Kind-specific parameters, shared by the jobs of one node. */
typedef struct {
    op_t op;
    ew_prog_t *prog; /* JK_EW; JK_RED_MAP when fused (else NULL) */
    uint32_t axes;   /* reductions: reduced axes of the map's input */
    dtype_t in_dt;   /* reductions: dtype of the values reduced */
    int64_t n_reduced;
    int64_t ddof;
    const shape_t *gshape; /* argmin/argmax: the whole input's shape */
    int axis;              /* scans */
    int td_n;              /* tensordot */
    int td_a[MR_MAXDIM], td_b[MR_MAXDIM];
    uint8_t dfk;            /* JK_DF: dfjob_t */
    int la_step;            /* JK_LA: la_step_t (kern/la.h) */
    const struct fancy *fx; /* JK_FANCY: the job's own index when the node's is split, else NULL */
} jparam_t;

typedef struct {
    uint8_t kind; /* job_kind_t */
    uint8_t dt;   /* output dtype (partials: DT_BOOL, shape = [nbytes]) */
    int8_t ndim;
    bool keep;       /* a chunk of a fetched tensor: kept after its consumers ran */
    bool blob;       /* JK_DF: the output is a frame blob (or a pack of them) whose size only
                      * the kernel knows; job_nbytes is 0 */
    int32_t node;    /* the graph node it serves */
    int64_t *shape;  /* output chunk shape */
    int64_t *off;    /* global offset of the chunk in its tensor (creation, random, arg maps);
                      * JK_RED_MAP: n_regions offsets, one after the other */
    int64_t *vshape; /* JK_RED_MAP with a program: the shape of the values reduced, per region */
    int32_t n_in;
    jin_t *in;
    const jparam_t *param;
    int64_t source_index; /* JK_SOURCE: the chunk's index in the session tensor's grid */
    /* JK_RED_MAP: the regions reduced (0 or 1: one), each by n_in / n_regions
     * inputs, their partials then combined into the output */
    int32_t n_regions;
} job_t;

/* A chunked tensor: bounds[d] has nchunks[d]+1 offsets (0 ... shape.d[d]);
 * an axis of size 0 has one empty chunk. job[] maps the chunk at grid
 * position (C order over nchunks) to the job producing it. */
typedef struct {
    shape_t shape;
    dtype_t dt;
    int64_t nchunks[MR_MAXDIM];
    int64_t *bounds[MR_MAXDIM];
    int64_t total;
    int32_t *job;
} tgrid_t;

typedef struct tile tile_t;
struct tile {
    const graph_t *g;
    int32_t n_jobs, cap_jobs;
    job_t *jobs;
    tgrid_t **grid; /* per graph node; NULL for nodes fused into their consumer */
    struct arena *arena;
    uint8_t *live; /* per job: needed for a kept chunk (others never run) */
    int32_t *ids;  /* a decoded job descriptor's: the task's job index of each job; NULL */
};

typedef struct {
    int64_t target_chunk_bytes; /* default chunk size when a document gives none */
    bool keep_all; /* keep every node's chunks (cluster sessions), not only fetched ones */
    /* a sort of one line of more bytes than this runs as a merge network
     * of blocks of half as many (sortstat.h); default SS_MAX_BLOCK_BYTES */
    int64_t sort_block_bytes;
    /* Cluster sessions: the chunk bounds of session tensor n (an
     * OP_SESSION_TENSOR node), which an earlier task may have left uneven.
     * Returns 0 with nch[d] and bounds[d] (nch[d]+1 offsets, owned by ctx,
     * valid during tile_build), or -1 to use regular chunks of n->chunk. */
    int (*source_bounds)(void *ctx, const graph_node_t *n, int64_t *nch, const int64_t **bounds);
    void *source_ctx;
} tile_opts_t;

void tile_opts_default(tile_opts_t *o);

/* Tiles a validated graph. Returns 0, or -1 with a message naming the node
 * (chunk counts over lim's quotas). The graph must outlive the tile. */
int tile_build(const graph_t *g, const graph_limits_t *lim, const tile_opts_t *opts, tile_t **out,
               char *err, size_t errlen);
void tile_free(tile_t *t);

/* Bytes of a job's output (0 for a blob job: see job.blob). */
size_t job_nbytes(const job_t *j);

/* The distinct live inputs (deps[dep_off[j] .. dep_off[j+1])) and
 * consumers (cons[con_off[j] .. con_off[j+1])) of every live job j; dead
 * jobs have none. Both executors walk it. */
typedef struct {
    int32_t *dep_off, *deps, *con_off, *cons;
} tile_edges_t;
/* 0, or -1 on OOM (or more than 2^31 edges); free with tile_edges_free. */
int tile_edges(const tile_t *t, tile_edges_t *e);
void tile_edges_free(tile_edges_t *e);

/* The parameters kern_create and kern_random take for creation or random
 * node n. */
void tile_gen_params(const graph_node_t *n, kern_gen_t *out);

/* Copies pieces into dst (an array of the input's shape and dtype). */
void tile_gather(const jin_t *in, const void *const *srcs_by_piece, void *dst);
/* Generates the input's gpieces into dst (an array of its shape and dtype).
 * Returns 0, or -1 when out of memory. */
int tile_gen_pieces(const tile_t *t, const jin_t *in, void *dst);
/* Whether generated box g's piece copies the whole box, in C order, from
 * its start (the box can be made where the piece puts it). */
bool tile_gpiece_contiguous(const gpiece_t *g);

/* ---- Accessors: what code outside the engine reads of a tile (services
 * never touch the structs' fields). j is a job index in [0, tile_n_jobs). */
int32_t tile_n_jobs(const tile_t *t);
const graph_t *tile_graph(const tile_t *t);
/* false for an index out of range too */
bool tile_job_is_live(const tile_t *t, int32_t j);
job_kind_t tile_job_kind(const tile_t *t, int32_t j);
bool tile_job_is_source(const tile_t *t, int32_t j); /* JK_SOURCE */
bool tile_job_keep(const tile_t *t, int32_t j);      /* a chunk of a fetched tensor */
bool tile_job_is_blob(const tile_t *t, int32_t j);   /* see job.blob */
int32_t tile_job_node(const tile_t *t, int32_t j);
size_t tile_job_nbytes(const tile_t *t, int32_t j); /* job_nbytes */
dtype_t tile_job_dtype(const tile_t *t, int32_t j);
/* The output chunk's ndim; *shape its extents (owned by t). */
int tile_job_shape(const tile_t *t, int32_t j, const int64_t **shape);
/* JK_SOURCE: the chunk's index in the session tensor's grid; else -1. */
int64_t tile_job_source_index(const tile_t *t, int32_t j);
/* An upper bound on the job's distinct inputs (the size tile_job_sources
 * needs at out). */
int tile_job_n_reads(const tile_t *t, int32_t j);
/* The distinct jobs j reads, in the order exec reads them, into out;
 * their number. */
int tile_job_sources(const tile_t *t, int32_t j, int32_t *out);
/* A DataFrame shuffle consumer reads one part of each partition pack
 * (engine/df/dfexec.h): the part of src's output job j takes, or -1 when it
 * reads src whole. */
int64_t tile_job_pack_part(const tile_t *t, int32_t j, int32_t src);
/* Chunk grids, per graph node: -1 from tile_grid_total when the node has
 * none (fused into its consumer); the others only for nodes that have one.
 * li is a grid position (C order over the per-axis chunk counts). */
int64_t tile_grid_total(const tile_t *t, int32_t node);
int32_t tile_grid_job(const tile_t *t, int32_t node, int64_t li);
const shape_t *tile_grid_shape(const tile_t *t, int32_t node);
dtype_t tile_grid_dtype(const tile_t *t, int32_t node);
int64_t tile_grid_nchunks(const tile_t *t, int32_t node, int d);
const int64_t *tile_grid_bounds(const tile_t *t, int32_t node, int d); /* nchunks+1 offsets */
void tile_grid_coords(const tile_t *t, int32_t node, int64_t li, int64_t *co);
/* Job j's position in its node's grid, or -1 (a job outside any grid). */
int64_t tile_job_grid_pos(const tile_t *t, int32_t j);

/* ---- Job descriptors (engine/tile/jobdesc.c): one job with everything a
 * worker needs to run it without tiling the document (kind, dtypes, shapes,
 * offsets, inputs with their pieces and generated pieces, the node's
 * parameters with its element-wise program), in a binary form.
 *
 * tile_job_encode: job ji of t as malloc'ed bytes (*out, *len). 0, or -1
 * when out of memory.
 *
 * jobdesc_decode: a descriptor against g (the task's document, parsed as
 * the encoder's tile was): a small tile whose job 0 is the job and jobs
 * 1..n the distinct jobs it reads (their kind, dtype, shape, flags and
 * node only: they never run here), all live, without grids. Run it with
 * exec_job_any(t, 0, ...): the get callback is asked for jobs 1..n;
 * tile_job_id gives their index in the task. Everything is checked (counts
 * against the bytes left before allocating, indices, kinds, dtypes, ops,
 * that every copy stays inside its arrays): 0, or -1 with a message. */
int tile_job_encode(const tile_t *t, int32_t ji, void **out, size_t *len);
int jobdesc_decode(const void *buf, size_t len, const graph_t *g, tile_t **out, char *err,
                   size_t errlen);
/* The task's job index of job j (j itself for a tile from tile_build). */
int32_t tile_job_id(const tile_t *t, int32_t j);

#endif
