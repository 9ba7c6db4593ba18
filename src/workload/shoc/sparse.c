/*
 * sparse.c -- see sparse.h.
 */
#include "workload/shoc/sparse.h"

/* nnz entries spread evenly over the n rows (the first nnz % n get one
 * more), each at a random column within band of the row, off the diagonal. */
static void gen_band(struct graph_coo *g, uint32_t n, uint64_t nnz, uint64_t band, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    *g = (struct graph_coo){.n = n};
    for (uint32_t u = 0; u < n; u++) {
        uint64_t lo = u > band ? u - band : 0, hi = min_u64(n - 1, u + band);
        for (uint64_t i = 0; i < nnz / n + (u < nnz % n); i++) {
            uint64_t v = lo + rng_below(&r, hi - lo); /* hi - lo columns besides u */
            v += v >= u;
            graph_coo_add(g, u, (uint32_t)v, 1);
        }
    }
}

int sparse_load(struct graph *c, const struct cfg_sec *sec, uint64_t band, uint64_t seed,
                struct err *e)
{
    struct graph_coo g = {0};
    int r = graph_load(&g, sec, e);
    if (r < 0)
        return -1;
    if (r) {
        uint64_t n = cfg_uint(sec, "rows"), nnz = cfg_uint(sec, "nnz");
        if (nnz > n * (n - 1))
            return cfg_err(e, sec, "nnz", "more than the %llu places off the diagonal of %llu rows",
                           (unsigned long long)(n * (n - 1)), (unsigned long long)n);
        if (band)
            gen_band(&g, (uint32_t)n, nnz, band, seed);
        else
            graph_gen_uniform(&g, (uint32_t)n, nnz, 1, seed);
    }
    if (!g.m) {
        graph_coo_free(&g);
        return cfg_err(e, sec, "input", "the matrix has no entry off the diagonal");
    }
    graph_csr(c, &g, false);
    graph_coo_free(&g);
    return 0;
}
