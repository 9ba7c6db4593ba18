/*
 * sparse.c -- see sparse.h.
 */
#include "workload/shoc/sparse.h"

int sparse_load(struct graph *c, const struct cfg_sec *sec, uint64_t seed, struct err *e)
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
