/*
 * graph.h -- graph inputs of the graph workloads (Rodinia BFS, Pannotia
 * Color-max, SSSP and FW): an arc list read from a file or made by a
 * deterministic generator, and the CSR arrays the kernels walk.
 *
 * Readers: DIMACS 9th-challenge `.gr` (`p sp` + `a u v w` arcs; also the
 * PACE `p tw` + `u v` form of the road graphs and DIMACS colouring `p edge`
 * + `e u v`), SNAP edge lists (`#` comments, `u v [w]`, ids compacted in
 * increasing order), METIS adjacency lists, Matrix Market coordinate files
 * (the pattern only; the diagonal is dropped) and Rodinia's BFS format.
 * Undirected inputs get both arcs. A bad file gives "file:line: reason".
 * Generators: Rodinia's graphgen, a road-like sparse planar graph (a grid of
 * highways with local roads hanging off it) and a uniform random digraph.
 * Abstracted: vertex weights and coordinates are not kept.
 */
#ifndef CHIPSIM_WL_GRAPH_H
#define CHIPSIM_WL_GRAPH_H

#include "config/cfg.h"

enum graph_fmt { GRAPH_AUTO, GRAPH_DIMACS, GRAPH_SNAP, GRAPH_METIS, GRAPH_MTX, GRAPH_RODINIA };
enum graph_weights { GRAPH_W_AUTO, GRAPH_W_UNIT, GRAPH_W_RANDOM };

/* The DIMACS TIGER/Line Alaska road graph AK.gr (Table II's Color-max and
 * SSSP input): 69,082 vertices, 156,584 arcs = 78,292 undirected edges. */
#define GRAPH_AK_NODES 69082u
#define GRAPH_AK_EDGES 78292u

/* The most arcs a graph may have (the real kernels index edges with int). */
#define GRAPH_MAX_ARCS 2147483647ull

/* The keys every graph workload has (in its [workload] table). */
#define GRAPH_INPUT_KEYS                                                                         \
    {"input", CFG_STR, "", 0, 0,                                                                 \
     "graph file to read instead of the generated default (path relative to the working "      \
     "directory)", NULL},                                                                        \
    {"format", CFG_ENUM, "auto", 0, 0,                                                           \
     "input file format (auto: by extension, then by content)",                                  \
     "auto|dimacs|snap|metis|mtx|rodinia"},                                                      \
    {"max_nodes", CFG_INT, "0", 0, 2147483647.0,                                                 \
     "keep only vertices 1..max_nodes (0-based ids below it) of the input file and the arcs "    \
     "between them; 0 = all", NULL}
/* SSSP and FW also choose arc weights. */
#define GRAPH_WEIGHT_KEYS                                                                        \
    {"weights", CFG_ENUM, "auto", 0, 0,                                                          \
     "arc weights of an input file: auto (the file's integer weights, else random), unit, "      \
     "random (1..100, the same both ways of an edge, from sim.seed)", "auto|unit|random"}

/* An arc list: arc i goes src[i] -> dst[i] with weight w[i]. */
struct graph_coo {
    uint32_t n;
    uint64_t m, cap;
    uint32_t *src, *dst;
    int32_t *w;
    bool weighted; /* the weights came from the input */
};

/* Compressed sparse rows: the arcs of vertex v are row[v] .. row[v + 1] - 1. */
struct graph {
    uint32_t n, m;
    uint32_t *row; /* n + 1 */
    uint32_t *col; /* m */
    int32_t *w;    /* m */
};

void graph_coo_add(struct graph_coo *g, uint32_t u, uint32_t v, int32_t w);
void graph_coo_free(struct graph_coo *g);

/* Read a graph file; 0, or -1 with "path:line: reason" (or "path: reason"). */
int graph_read(struct graph_coo *g, const char *path, enum graph_fmt fmt, struct err *e);
/* Keep vertices below max (0: all) and the arcs between them. */
void graph_induce(struct graph_coo *g, uint32_t max);
/* Replace the weights per policy (GRAPH_W_AUTO keeps file weights). */
void graph_set_weights(struct graph_coo *g, enum graph_weights how, uint64_t seed);

/* Generators (deterministic in seed). Rodinia's graphgen: every vertex adds
 * 2..4 random undirected edges of weight 1..10. */
void graph_gen_rodinia(struct graph_coo *g, uint32_t n, uint64_t seed);
/* A connected road-like graph of n vertices and `edges` undirected edges
 * (0: AK.gr's edges per vertex); -1 with a reason in e if `edges` is outside
 * what the grid allows. */
int graph_gen_road(struct graph_coo *g, uint32_t n, uint64_t edges, uint64_t seed,
                   struct err *e);
/* The fewest edges graph_gen_road() accepts for n vertices. */
uint64_t graph_road_min_edges(uint32_t n);
/* The edge count of a road graph of n vertices with AK.gr's edges per vertex. */
static inline uint64_t graph_road_edges(uint32_t n)
{
    return ((uint64_t)n * GRAPH_AK_EDGES + GRAPH_AK_NODES / 2) / GRAPH_AK_NODES;
}
/* m arcs u -> v (u != v) uniformly at random with weights 0..max_w-1, in
 * increasing order of u (Pannotia's FW inputs). */
void graph_gen_uniform(struct graph_coo *g, uint32_t n, uint64_t m, uint32_t max_w, uint64_t seed);

/* CSR of g (transpose: of the reversed arcs); arcs keep their input order. */
void graph_csr(struct graph *c, const struct graph_coo *g, bool transpose);
void graph_free(struct graph *c);

/* The input as the workload's keys ask: the file in `input` (with `format`,
 * `max_nodes`) or, when it is empty, nothing (returns 1: generate). */
int graph_load(struct graph_coo *g, const struct cfg_sec *sec, struct err *e);
/* The input file, or the road graph of keys `nodes` and `edges`; 0 or -1. */
int graph_load_road(struct graph_coo *g, const struct cfg_sec *sec, uint64_t seed, struct err *e);
/* The keys of the generated road graph (Color-max, SSSP). */
#define GRAPH_ROAD_KEYS                                                                          \
    {"nodes", CFG_INT, "69082", 1, 2147483647.0,                                                 \
     "vertices of the generated road-like graph (Table II AK.gr: 69082)", NULL},                 \
    {"edges", CFG_INT, "0", 0, 4294967295.0,                                                     \
     "undirected edges of the generated graph (each gives two arcs); 0 = AK.gr's 78292 per "     \
     "69082 vertices", NULL}

#endif
