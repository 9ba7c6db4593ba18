/*
 * sparse.h -- the sparse matrices (and graphs read as matrices) of the
 * benchmark library's SpMV-like workloads (spmv, spmv-jds, pagerank): the
 * pattern of a file named by the `input` key (Matrix Market, DIMACS, SNAP,
 * METIS, through pannotia/graph.h), or a generated one: `nnz` entries at
 * uniformly random positions off the diagonal of an n x n matrix (SHOC's
 * random matrices), or, with a band, spread evenly over the rows at random
 * columns within `band` of the diagonal (a banded matrix, as finite-element
 * matrices are), from sim.seed. Values are not kept: the kernels' access
 * pattern does not depend on them.
 */
#ifndef CHIPSIM_WL_SPARSE_H
#define CHIPSIM_WL_SPARSE_H

#include "workload/pannotia/graph.h"

/* CSR of the matrix the keys ask for; rows/nnz are the generated default's
 * (keys `rows` and `nnz`, named in errors), uniform (band 0) or banded.
 * 0, or -1 with the reason in e. */
int sparse_load(struct graph *c, const struct cfg_sec *sec, uint64_t band, uint64_t seed,
                struct err *e);

/* The keys of the generated matrix and of a file. */
#define SPARSE_KEYS(rows, nnz)                                                                   \
    {"rows", CFG_INT, rows, 2, 2147483647.0,                                                     \
     "rows (= columns) of the generated matrix", NULL},                                          \
    {"nnz", CFG_INT, nnz, 1, 2147483647.0,                                                       \
     "non-zeros of the generated matrix (random positions off the diagonal)", NULL},             \
    GRAPH_INPUT_KEYS

#endif
