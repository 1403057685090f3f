/* rsample.h: numpy's sampling ops with parameters that are lists:
 * random.choice, random.permutation, random.multinomial and
 * random.multivariate_normal (docs/graph-format.md, "Sampling: choice,
 * permutation, multinomial, multivariate_normal").
 *
 *   graph_rsample.c  parameters (numpy 1.24 keywords, checks and messages),
 *                    the result's shape and dtype, and the tables the
 *                    kernels read (graph_node_t.data, layout below)
 *   kern/random2.c   the kernels, chunk-invariant as every random op:
 *                    each value depends on the seed, the shape and its
 *                    position only
 *
 * They are random ops (OPK_RANDOM) with no tensor input: generated where
 * they are used, tiled and carried in job descriptors as every random op.
 * A tensor to sample from is the client's take(x, indices) (the Python
 * client does it for choice, permutation and shuffle of a tensor).
 *
 * Tables (graph_node_t.data, kern_gen_t.data), all 8-byte slots:
 *   choice       low: the population size; high: RS_* flags; data: with
 *                RS_P, pop doubles (the normalised cumulative sums with
 *                replacement, p itself without); then with RS_VALUES, pop
 *                values of `a` in the output dtype (int64 or float64)
 *   permutation  low: n; data with RS_VALUES: the n values of `x`
 *   multinomial  low: the number of trials; data: the k pvals
 *   multivariate_normal
 *                data: the k means, then the k x k factor F (row-major)
 *                with F^T F = cov, as numpy makes it: sqrt(s)[:, None] * vh
 *                of svd(cov) */
#ifndef MARS_RSAMPLE_H
#define MARS_RSAMPLE_H

#include <stdint.h>

enum {
    RS_REPLACE = 1, /* choice: with replacement */
    RS_P = 2,       /* choice: probabilities given */
    RS_VALUES = 4,  /* choice, permutation: `a` or `x` a list (values, not indices) */
};

/* choice without replacement and with p ranks the whole population in
 * every generated block: its size is bounded. */
#define RS_MAX_WEIGHTED_POP ((int64_t)1 << 22)
/* multivariate_normal's factor is an SVD of cov made wherever the document
 * is read (gateway, supervisor, workers): its dimension is bounded. */
#define RS_MAX_MVN_DIM 1024

/* graph_rsample_owns and graph_rsample_parse: graph_internal.h (kernels
 * include this header for the flags, and kernels do not see graph.h). */

#endif
