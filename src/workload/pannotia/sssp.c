/*
 * sssp.c -- Pannotia single-source shortest paths, CSR version
 * (graph_app/sssp: sssp_csr host code, kernels vector_init, vector_assign,
 * spmv_min_dot_plus_kernel, vector_diff): Bellman-Ford as a (min, +)
 * sparse matrix-vector product from source vertex 0:
 *     vector_init(d1, d2, 0, n);                       d1 = d2 = BIGNUM, 0 at the source
 *     while (stop) { stop = 0;
 *         vector_assign(d1, d2, n);                    d1[tid] = d2[tid]
 *         spmv_min_dot_plus_kernel(n, row, col, data, d1, d2);
 *                      d2[tid] = min(d1[tid], min over i of data[i] + d1[col[i]])
 *         vector_diff(d1, d2, stop, n); }              if (d2[tid] != d1[tid]) *stop = 1
 * one thread per vertex. The rows are the transposed graph (row v lists
 * the arcs u -> v), so the product relaxes every vertex from its
 * predecessors.
 *
 * Modelled (kernel descriptions, src/workload/kd.h): the relaxation runs in
 * the model, one round per spmv launch, and gives vector_diff the vertices
 * whose distance changed (the array `changed`, the lanes that store *stop);
 * the loop ends after the first round that changes nothing. The kernels
 * walk the CSR arrays bound as arrays (`@row[gid]`, `@col[m0]`); each
 * work-group's slices (its vertices, its arcs) are derived from the
 * descriptions. Dynamic kernels: 1 + 3 x rounds.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of the HIP port's
 * kernels (gem5-resources, pannotia/sssp), every instruction but global
 * loads and stores, ret and cvta.to.global; blocks with no op of their own
 * are counted in the nearest op run as often. See docs/workloads/sssp.md.
 * Abstracted: no data values (distances are exact 64-bit integers in the
 * model, BIGNUM is infinity); the host's reset of *stop is not simulated.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/pannotia/graph.h"
#include "workload/wl.h"

#define SSSP_INF INT64_MAX

static const struct cfg_key sssp_keys[] = {
    GRAPH_ROAD_KEYS,
    {"block", CFG_INT, "128", 1, 1024, "threads per work-group (Pannotia's local work size)", NULL},
    GRAPH_INPUT_KEYS,
    GRAPH_WEIGHT_KEYS,
    CFG_END,
};

enum { K_INIT, K_ASSIGN, K_SPMV, K_DIFF, K_N };

/*
 * The kernels, with the ALU counts of their PTX basic blocks (see the file
 * header). Each prologue holds the parameter loads, the global id, the
 * bounds test and the first addresses (vector_assign's also the store's).
 * vector_init: the tid == source test and branches, BIGNUM, d2's address
 * (9), and the other path in the warp of the source vertex (4).
 * spmv: the row_end <= row_start test and branch and y's address (3); the
 * arc loop's set-up in warps with an arc (13: trip count mod 4, its
 * pointers, the unrolled test). The compiler unrolls the arc loop 4 times
 * after a rolled remainder loop of in-degree mod 4 iterations; the counts
 * are the remainder loop's (10 per arc), the path of the road graphs'
 * in-degrees 1 to 3: the pointer increments (2), x[col[i]]'s 64-bit
 * address (2), data[i] + x[col[i]] and the min (2), i++, the remainder
 * count, compare, branch (4).
 * vector_diff: the d1 != d2 compare and branch (2), the constant 1 in warps
 * that store *stop (1).
 */
static const char *const sssp_params[] = {"n", NULL};
static const char *const sssp_arrays[] = {"row", "col", "changed", NULL};
static const char *const init_bufs[] = {"d1", "d2", NULL};
static const char *const spmv_bufs[] = {"row", "col", "data", "x", "y", NULL};
static const char *const diff_bufs[] = {"d1", "d2", "stop", NULL};
#define SSSP_KD(kname, b, text)                                                                  \
    {.name = kname, .params = sssp_params, .bufs = b, .arrays = sssp_arrays, .body = text}
static const struct kd_desc sssp_kd[K_N] = {
    [K_INIT] = SSSP_KD("vector_init", init_bufs,
                       "if gid < n\n"
                       "  alu 10\n"
                       "  alu 9 + 4 [gid < 1]               # the source vertex 0\n"
                       "  store d1[gid] 4\n"
                       "  store d2[gid] 4\n"
                       "end\n"),
    [K_ASSIGN] = SSSP_KD("vector_assign", init_bufs,
                         "if gid < n\n"
                         "  alu 12\n"
                         "  load d2[gid] 4 -> r1\n"
                         "  store d1[gid] 4 < r1\n"
                         "end\n"),
    [K_SPMV] = SSSP_KD("spmv_min_dot_plus_kernel", spmv_bufs,
                       "if gid < n\n"
                       "  alu 15\n"
                       "  load row[gid] 4 -> r1\n"
                       "  load row[gid + 1] 4 -> r2\n"
                       "  load x[gid] 4 -> r3\n"
                       "  alu 3 + 13 [@row[gid] < @row[gid + 1]] < r1 r2\n"
                       "  for m0 = @row[gid] .. @row[gid + 1]\n"
                       "    alu 2\n"
                       "    load col[m0] 4 -> r4\n"
                       "    load data[m0] 4 -> r5\n"
                       "    alu 2 < r4\n"
                       "    load x[@col[m0]] 4 -> r6\n"
                       "    alu 2 < r5 r6\n"
                       "    alu 4\n"
                       "  end\n"
                       "  store y[gid] 4 < r3 r6\n"
                       "end\n"),
    [K_DIFF] = SSSP_KD("vector_diff", diff_bufs,
                       "if gid < n\n"
                       "  alu 13\n"
                       "  load d1[gid] 4 -> r1\n"
                       "  load d2[gid] 4 -> r2\n"
                       "  alu 2 + 1 [0 < @changed[gid]] < r1 r2\n"
                       "  if 0 < @changed[gid]\n"
                       "    store stop[0] 4                   # *stop = 1 from every such lane\n"
                       "  end\n"
                       "end\n"),
};

struct sssp {
    struct wl_env *env;
    struct kd_prog *prog[K_N];
    struct graph g;          /* transposed CSR: col = predecessor, w = arc weight */
    int64_t *prev, *cur;     /* d1 and d2 of the round being run */
    uint32_t *changed;       /* 1 where the last round changed the distance */
    struct kd_array arrays[3];
    uint32_t n, block, grid, rounds;
    unsigned kernels;
    bool last;               /* the last spmv changed nothing: stop after its diff */
    const struct kernel_buf *row, *col, *data, *d1, *d2, *stop;
};

static void sssp_destroy(void *self)
{
    struct sssp *s = self;
    kd_progs_free(s->prog, K_N);
    graph_free(&s->g);
    free(s->prev);
    free(s->cur);
    free(s->changed);
    free(s);
}

static void sssp_alloc(struct sssp *s, struct wl_env *env)
{
    s->row = wl_alloc(env, "row", ((uint64_t)s->n + 1) * 4);
    s->col = wl_alloc(env, "col", (uint64_t)s->g.m * 4);
    s->data = wl_alloc(env, "data", (uint64_t)s->g.m * 4);
    s->d1 = wl_alloc(env, "vector_d1", (uint64_t)s->n * 4);
    s->d2 = wl_alloc(env, "vector_d2", (uint64_t)s->n * 4);
    s->stop = wl_alloc(env, "stop", 4);
}

static void *sssp_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct graph_coo coo;
    if (graph_load_road(&coo, sec, env->seed, e))
        return NULL;
    graph_set_weights(&coo, (enum graph_weights)cfg_enum(sec, "weights"), env->seed);
    struct sssp *s = xcalloc(1, sizeof *s);
    s->env = env;
    graph_csr(&s->g, &coo, true);
    graph_coo_free(&coo);
    if (kd_compile_all(sssp_kd, K_N, s->prog, e)) {
        sssp_destroy(s);
        return NULL;
    }
    s->n = s->g.n;
    s->block = (uint32_t)cfg_uint(sec, "block");
    s->grid = (uint32_t)div_ceil(s->n, s->block);
    s->prev = xmalloc((size_t)s->n * sizeof *s->prev);
    s->cur = xmalloc((size_t)s->n * sizeof *s->cur);
    s->changed = xcalloc((size_t)s->n + 1, sizeof *s->changed);
    for (uint32_t v = 0; v < s->n; v++)
        s->cur[v] = v ? SSSP_INF : 0;
    s->arrays[0] = (struct kd_array){s->g.row, (uint64_t)s->n + 1};
    s->arrays[1] = (struct kd_array){s->g.col, s->g.m};
    s->arrays[2] = (struct kd_array){s->changed, s->n};
    sssp_alloc(s, env);
    return s;
}

/* One round: prev = cur (vector_assign), cur = relax(prev) (spmv); true if
 * some distance changed (what vector_diff reports). */
static bool sssp_round(struct sssp *s)
{
    int64_t *t = s->prev;
    s->prev = s->cur;
    s->cur = t;
    bool any = false;
    for (uint32_t v = 0; v < s->n; v++) {
        int64_t best = s->prev[v];
        for (uint32_t i = s->g.row[v]; i < s->g.row[v + 1]; i++) {
            int64_t d = s->prev[s->g.col[i]];
            if (d != SSSP_INF && d + s->g.w[i] < best)
                best = d + s->g.w[i];
        }
        s->cur[v] = best;
        s->changed[v] = best != s->prev[v];
        any |= s->changed[v];
    }
    return any;
}

static bool sssp_next_kernel(void *self, struct kernel *k)
{
    struct sssp *s = self;
    unsigned kind = s->kernels ? (s->kernels - 1) % 3 + 1 : K_INIT;
    if (kind == K_ASSIGN && s->last)
        return false;
    const struct kernel_buf *bufs[K_N][5] = {
        [K_INIT] = {s->d1, s->d2},
        [K_ASSIGN] = {s->d1, s->d2},
        [K_SPMV] = {s->row, s->col, s->data, s->d1, s->d2},
        [K_DIFF] = {s->d1, s->d2, s->stop},
    };
    int64_t n = s->n;
    struct err e;
    if (kd_launch(s->prog[kind], k, (struct kernel_dim){s->grid, 1, 1},
                  (struct kernel_dim){s->block, 1, 1}, &n, bufs[kind], s->arrays, &e))
        return wl_fail(s->env, &e);
    s->rounds += kind == K_ASSIGN;
    if (kind == K_SPMV) {
        /* the CSR arrays: read-only, same work-group ranges every round */
        for (unsigned a = 0; a < 3; a++)
            k->args[a].same_pattern = s->rounds > 1;
        s->last = !sssp_round(s); /* the last round is the one that changes nothing */
    }
    s->kernels++;
    return true;
}
static const char *const sssp_small[] = {"nodes=256", NULL};

const struct wl_ops wl_sssp = {
    .name = "sssp",
    .suite = "Pannotia",
    .desc = "Pannotia SSSP (CSR): Bellman-Ford as (min,+) SpMV, assign + spmv + diff per round",
    .keys = sssp_keys,
    .small = sssp_small,
    .create = sssp_create,
    .next_kernel = sssp_next_kernel,
    .destroy = sssp_destroy,
};
