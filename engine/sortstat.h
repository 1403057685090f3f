/* sortstat.h: the "sorting and searching" and "statistics" tensor ops
 * (sort, argsort, partition, argpartition, topk, searchsorted, isin, in1d,
 * percentile, quantile, median and their nan forms, average, digitize, cov,
 * corrcoef, allclose): their parameters, inference, tiling and kernels.
 *
 *   graph_ss.c         parameters (numpy 1.24 keywords) and inference
 *   tile/sortstat.c    tiling: each op reads whole lines along its axis (the
 *                      input rechunked so the axis is one chunk), whole small
 *                      operands (a sorted array, bins, test elements), or the
 *                      whole input (axis None, cov, allclose): every such
 *                      gathered block is checked against SS_MAX_BLOCK_BYTES
 *   kern/sortstat.c    the kernels (JK_SS jobs), run by exec_job
 *
 * docs/graph-format.md, "Sorting, searching and statistics", is the
 * contract. */
#ifndef MARS_SORTSTAT_H
#define MARS_SORTSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kern/kern.h"

struct graph;
struct graph_node;

/* The most bytes one job may gather into one block (a whole line along a
 * sorted axis, a flattened input, a sorted array searched): a tiling of a
 * node that needs more is refused with a message naming the node and this
 * limit. 256 MiB keeps such a job (its block, a copy and an index array)
 * well inside a worker's 1 GiB memory budget. */
#define SS_MAX_BLOCK_BYTES ((int64_t)256 << 20)

/* A sort of one line longer than tile_opts_t.sort_block_bytes (1-D, or
 * axis None) runs as a merge network instead of one job (tile/sortstat.c):
 * the line in blocks of sort_block_bytes / 2, each block sorted (a JK_SS
 * job as any), then Batcher's odd-even merge network over the blocks,
 * each comparator two JK_SS jobs reading both blocks, with jparam_t
 * la_step one of these: the first block's length of smallest values, or
 * the second's of largest. Every job so reads at most sort_block_bytes. */
enum {
    SS_STEP_LINE = 0,
    SS_SPLIT_LOW = 1,
    SS_SPLIT_HIGH = 2,
    SS_PACK = 3,
    SS_SORT1 = 4, /* a block sorted (the network of a percentile, quantile, median) */
    SS_QPICK = 5, /* in: the order statistics gathered (two per q, then the last value) */
    /* nanpercentile, nanquantile, nanmedian of a long line: the sorted
     * blocks hold the NaN last, so the statistics are those of the first
     * m - (NaN count) values, a count known when it runs */
    SS_NANCOUNT = 6, /* in: a sorted block; out: int64[1], its NaN */
    SS_NPICK = 7,    /* in: a sorted block at job.off[0], then every block's NaN count;
                      * out: the order statistics (two per q) that fall in it, 0 elsewhere */
    SS_NQPICK = 8,   /* in: every block's picks, then every block's NaN count; job.off:
                      * the p + 1 block bounds; out: the result */
    /* average of lines longer than a job's block: each chunk of the input
     * along the axis sums its part of every line, then one job per chunk of
     * the other axes adds the parts in order and divides */
    SS_AVGPART = 9, /* in: a chunk (and its weights); out: float64, extent 2 along the
                     * axis: each line's sum of a * w, then of w (or its count) */
    SS_AVGFIN = 10, /* in: the chunks' parts along the axis in order; out: the result */
};
/* argsort's network carries (value, index) pairs: each block is packed as
 * an int64 buffer [n values; n global indexes], the values in 8-byte slots
 * (floats as float64 bits, integers and bools as int64), sorted by value
 * then index (numpy's stable order); SS_PACK makes one from a block at
 * global offset job.off[0], the split steps merge pairs, and the result's
 * chunks are gathers of the index halves. */

/* kern/sortstat.c: the merge network's step: ins[0] and ins[1] sorted (1-D,
 * one dtype) into o, the ins[0].len smallest (low) or the ins[1].len
 * largest (high) of both, sorted (numpy's order: NaN last). */
int kern_ss_split(const arr_t *ins, arr_t *o, bool high, char *err, size_t errlen);
/* the same for blocks of any ndim: every line along axis split alone */
int kern_ss_split_axis(const arr_t *ins, arr_t *o, bool high, int axis, char *err, size_t errlen);
/* argsort's steps: a block of dtype in->dt at global offset off packed and
 * sorted; two packed blocks of values of dtype vdt split as above */
int kern_ss_pack(const arr_t *in, int64_t off, arr_t *o, char *err, size_t errlen);
int kern_ss_sort1(const arr_t *in, arr_t *o, char *err, size_t errlen);
/* every line of a block along axis sorted (numpy's order: NaN last) */
int kern_ss_sort1_axis(const arr_t *in, arr_t *o, int axis, char *err, size_t errlen);
/* the same two steps on blocks of any ndim, every line along axis alone
 * (packed lines: 2 len slots along axis) */
int kern_ss_pack_axis(const arr_t *in, int64_t off, arr_t *o, int axis, char *err, size_t errlen);
int kern_ss_split_pairs_axis(const arr_t *ins, arr_t *o, bool high, dtype_t vdt, int axis,
                             char *err, size_t errlen);
/* percentile, quantile, median of a line of m values from its picks (the
 * values at ss_quantile_pos's ranks per q, then the last one) */
/* the nan-statistics' steps (SS_NANCOUNT, SS_NPICK, SS_NQPICK above) on
 * lines along axis (1-D: axis 0); m the lines' length, p their blocks */
int kern_ss_nancount(const arr_t *in, int axis, arr_t *o);
/* average's steps (SS_AVGPART, SS_AVGFIN): w NULL without weights, w_line
 * for 1-D weights along axis (w then the chunk's part of them) */
int kern_ss_avgpart(const arr_t *a, const arr_t *w, bool w_line, int axis, arr_t *o);
int kern_ss_avgfin(const arr_t *parts, int64_t p, bool weighted, int axis, arr_t *o, char *err,
                   size_t errlen);
int kern_ss_npick(const struct graph_node *n, int64_t m, int64_t off, const arr_t *block, int axis,
                  const arr_t *counts, int64_t p, arr_t *o, char *err, size_t errlen);
int kern_ss_nqpick(const struct graph_node *n, int64_t m, const int64_t *bounds, int64_t p,
                   int axis, const arr_t *picks, const arr_t *counts, arr_t *o, char *err,
                   size_t errlen);
/* the same for every line along axis of picks (2 per q and the last along
 * axis); o: the q axis first (a list of q), then the lines in order */
int kern_ss_qpick_axis(const struct graph_node *n, int64_t m, const arr_t *picks, int axis,
                       arr_t *o, char *err, size_t errlen);
int kern_ss_qpick(const struct graph_node *n, int64_t m, const arr_t *picks, arr_t *o, char *err,
                  size_t errlen);
/* numpy 1.24's linear method: the ranks of the two neighbours of the
 * virtual index (m - 1) q, and the weight g of the second */
void ss_quantile_pos(int64_t m, double q, int64_t *pi, int64_t *ni, double *g);
int kern_ss_split_pairs(const arr_t *ins, arr_t *o, bool high, dtype_t vdt, char *err,
                        size_t errlen);

typedef struct ss_node {
    /* axis: axis_none (null); else axis as given, normalised by inference */
    bool axis_none;
    int64_t axis;
    bool keepdims;
    int nkth;
    int64_t *kth; /* partition, argpartition */
    int64_t k;    /* topk */
    bool largest, sorted;
    bool side_right; /* searchsorted */
    bool invert;     /* isin, in1d */
    int nq;
    double *q; /* percentile (already / 100), quantile */
    bool q_scalar;
    bool right;        /* digitize */
    bool rowvar;       /* cov, corrcoef */
    bool bias;         /* cov */
    bool has_ddof;     /* cov */
    int64_t ddof;      /* cov */
    double rtol, atol; /* allclose */
    bool equal_nan;
    /* inferred */
    bool w_line; /* average: weights are 1-D along the axis (else a's shape) */
    int nvar;    /* cov, corrcoef: number of variables */
} ss_node_t;

/* graph_ss.c (graph.c and graph_infer.c call these for OPK_SORTSTAT) */
void graph_ss_arity(int op, int *lo, int *hi);
/* Refuses unknown fields and parses the parameters into n->ss. */
int graph_ss_parse(struct graph_node *n, void *json_obj, char *err, size_t errlen);
int graph_ss_infer(struct graph *g, struct graph_node *n, char *err, size_t errlen);
void graph_ss_free(ss_node_t *s);

/* kern/sortstat.c: one JK_SS job of node n: ins (n_in arrays, as the tiler
 * ordered them) into o; axis is the axis of ins[0] its lines run along.
 * Returns 0, or -1 with a message (bins not monotonic, weights summing to
 * zero, a sorter index out of range, out of memory). */
int kern_ss(const struct graph_node *n, int axis, const arr_t *ins, int n_in, arr_t *o, char *err,
            size_t errlen);

#endif
