/*
 * lsgraph.h -- the input of the Lonestar graph workloads (bfs-relax, mst):
 * HMG's road-FLA runs (spec hmg.md 8), the DIMACS Florida road network
 * (1,070,376 vertices, 1,343,951 undirected edges). The real file is read
 * through `input` (../shared/data/road-dimacs9-pace/FLA.gr); by default a
 * generated road-like graph of the same size stands in for it
 * (pannotia/graph.h), from sim.seed. Undirected: both arcs of every edge.
 * Weights: a file's integer weights, else random 1..100, the same both ways
 * of an edge (the PACE road files have none; mst needs them).
 */
#ifndef CHIPSIM_WL_LSGRAPH_H
#define CHIPSIM_WL_LSGRAPH_H

#include "workload/pannotia/graph.h"

#define LSGRAPH_FLA_NODES 1070376u
#define LSGRAPH_FLA_EDGES 1343951u

#define LSGRAPH_KEYS                                                                             \
    GRAPH_INPUT_KEYS,                                                                            \
    {"nodes", CFG_INT, "1070376", 2, 2147483647.0,                                               \
     "vertices of the generated road-like graph (FLA.gr: 1070376)", NULL},                       \
    {"edges", CFG_INT, "1343951", 0, 4294967295.0,                                               \
     "undirected edges of the generated graph (FLA.gr: 1343951; 0: AK.gr's ratio)", NULL}

/* CSR of the graph the keys ask for; 0, or -1 with the reason in e. */
int lsgraph_load(struct graph *c, const struct cfg_sec *sec, uint64_t seed, struct err *e);

#endif
