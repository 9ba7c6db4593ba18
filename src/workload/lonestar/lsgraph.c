/*
 * lsgraph.c -- see lsgraph.h.
 */
#include "workload/lonestar/lsgraph.h"

int lsgraph_load(struct graph *c, const struct cfg_sec *sec, uint64_t seed, struct err *e)
{
    struct graph_coo g = {0};
    if (graph_load_road(&g, sec, seed, e))
        return -1;
    graph_set_weights(&g, GRAPH_W_AUTO, seed);
    graph_csr(c, &g, false);
    graph_coo_free(&g);
    return 0;
}
