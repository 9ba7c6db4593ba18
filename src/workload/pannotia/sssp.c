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
 * Modelled: the relaxation runs in the model, one round per spmv launch, so
 * vector_diff knows exactly which lanes store *stop; the loop ends after the
 * first round that changes nothing. Dynamic kernels: 1 + 3 x rounds.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of the HIP port's
 * kernels (gem5-resources, pannotia/sssp), every instruction but global
 * loads and stores, ret and cvta.to.global; blocks with no op of their own
 * are counted in the nearest op run as often. See docs/workloads/sssp.md.
 * Abstracted: no data values (distances are exact 64-bit integers in the
 * model, BIGNUM is infinity); the host's reset of *stop is not simulated.
 */
#include <stdlib.h>

#include "workload/pannotia/graph.h"
#include "workload/wl.h"

#define SSSP_INF INT64_MAX

/*
 * ALU instructions per step: PTX counts of the kernels' basic blocks (see
 * the file header). The prologues hold the parameter loads, the global id,
 * the bounds test and the first addresses; vector_assign's also the store
 * address, which has no op of its own.
 */
static const unsigned alu_prologue[] = {
    [0] = 10, /* vector_init: parameters, id, bounds test (K_INIT) */
    [1] = 12, /* vector_assign: the same, d2's and d1's addresses (K_ASSIGN) */
    [2] = 15, /* spmv: the same, the addresses of row[tid] and d1[tid] (K_SPMV) */
    [3] = 13, /* vector_diff: the same, the addresses of d1 and d2 (K_DIFF) */
};
#define ALU_INIT 9     /* tid == source test and branches, BIGNUM, d2's address */
#define ALU_INIT_SRC 4 /* the other path, in the warp holding the source vertex */
#define ALU_BOUNDS 3   /* row_end <= row_start test and branch, d2's address */
#define ALU_SETUP 13   /* loop set-up: trip count mod 4, its pointers, the unrolled test */
#define ALU_ADDR 2     /* pointer increment (col, data); 64-bit address of d1[col[i]] */
#define ALU_RELAX 2    /* data[i] + d1[col[i]], min */
#define ALU_LOOP 4     /* i++, remainder count, compare, branch */
#define ALU_DIFF 2     /* d1 != d2 compare and branch */
#define ALU_DIFF_ST 1  /* the constant 1, in warps that store *stop */

static const struct cfg_key sssp_keys[] = {
    GRAPH_ROAD_KEYS,
    {"block", CFG_INT, "128", 1, 1024, "threads per work-group (Pannotia's local work size)", NULL},
    GRAPH_INPUT_KEYS,
    GRAPH_WEIGHT_KEYS,
    CFG_END,
};

enum sssp_kind { K_INIT, K_ASSIGN, K_SPMV, K_DIFF };

struct sssp {
    struct graph g;          /* transposed CSR: col = predecessor, w = arc weight */
    int64_t *prev, *cur;     /* d1 and d2 of the round being run */
    uint64_t *changed;       /* vertices whose distance changed in the last round */
    uint32_t *wg_edges;      /* per work-group: first and end edge index */
    uint32_t n, block, grid, rounds;
    unsigned kernels;
    bool last;               /* the last spmv changed nothing: stop after its diff */
    const struct kernel_buf *row, *col, *data, *d1, *d2, *stop;
};

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
    graph_csr(&s->g, &coo, true);
    graph_coo_free(&coo);
    s->n = s->g.n;
    s->block = (uint32_t)cfg_uint(sec, "block");
    s->grid = (uint32_t)div_ceil(s->n, s->block);
    s->prev = xmalloc((size_t)s->n * sizeof *s->prev);
    s->cur = xmalloc((size_t)s->n * sizeof *s->cur);
    s->changed = xcalloc(div_ceil(s->n, 64) + 1, sizeof *s->changed);
    for (uint32_t v = 0; v < s->n; v++)
        s->cur[v] = v ? SSSP_INF : 0;
    s->wg_edges = xmalloc(2 * (size_t)s->grid * sizeof *s->wg_edges);
    for (uint32_t g = 0; g < s->grid; g++) {
        s->wg_edges[2 * g] = s->g.row[(uint64_t)g * s->block];
        s->wg_edges[2 * g + 1] = s->g.row[min_u64((uint64_t)(g + 1) * s->block, s->n)];
    }
    sssp_alloc(s, env);
    return s;
}

static void sssp_destroy(void *self)
{
    struct sssp *s = self;
    graph_free(&s->g);
    free(s->prev);
    free(s->cur);
    free(s->changed);
    free(s->wg_edges);
    free(s);
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
        bool ch = best != s->prev[v];
        s->changed[v / 64] = (s->changed[v / 64] & ~(1ull << v % 64)) | (uint64_t)ch << v % 64;
        any |= ch;
    }
    return any;
}

static uint64_t changed_lanes(const struct sssp *s, const struct kernel_warp *w)
{
    uint64_t m = 0, tid0 = kernel_gid(w, 0);
    for (unsigned l = 0; l < w->nlanes && tid0 + l < s->n; l++)
        m |= (s->changed[(tid0 + l) / 64] >> (tid0 + l) % 64 & 1) << l;
    return m;
}

static uint32_t in_degree(const struct sssp *s, uint64_t v)
{
    return s->g.row[v + 1] - s->g.row[v];
}

/* vector_init, vector_assign and vector_diff: short straight-line kernels. */
static void vec_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct sssp *s = k->ctx;
    uint64_t tid0 = kernel_gid(w, 0), in = graph_lanes_below(w, s->n);
    enum sssp_kind kind = (enum sssp_kind)k->p[0];
    if (!in || w->pc == 0) {
        if (!in)
            op->kind = KOP_EXIT;
        else
            graph_op_alu(op, alu_prologue[kind], 0, 0);
        w->pc++;
        return;
    }
    unsigned step = w->pc++;
    if (kind == K_INIT) {
        if (step == 1) /* source vertex 0: both paths in the first warp */
            graph_op_alu(op, ALU_INIT + (tid0 == 0 ? ALU_INIT_SRC : 0), 0, 0);
        else if (step <= 3)
            graph_op_elem(op, KOP_STORE, step == 2 ? s->d1 : s->d2, tid0, 4, in);
        else
            op->kind = KOP_EXIT;
    } else if (kind == K_ASSIGN) {
        if (step == 1) {
            graph_op_elem(op, KOP_LOAD, s->d2, tid0, 4, in);
            op->dst = 1;
        } else if (step == 2) {
            graph_op_elem(op, KOP_STORE, s->d1, tid0, 4, in);
            op->src[0] = 1;
        } else {
            op->kind = KOP_EXIT;
        }
    } else { /* K_DIFF */
        uint64_t ch = changed_lanes(s, w);
        if (step <= 2) {
            graph_op_elem(op, KOP_LOAD, step == 1 ? s->d1 : s->d2, tid0, 4, in);
            op->dst = (uint8_t)step;
        } else if (step == 3) {
            graph_op_alu(op, ALU_DIFF + (ch ? ALU_DIFF_ST : 0), 1, 2);
        } else if (step == 4 && ch) {
            graph_op_elem(op, KOP_STORE, s->stop, 0, 4, ch);
            op->stride = 0; /* *stop = 1 from every lane that differs */
        } else {
            op->kind = KOP_EXIT;
        }
    }
}

/* Lanes of m with an arc at iteration j = r[1]; lane_addr = that arc's
 * element of buf, or its source vertex's element (d1[col[i]]). */
static uint64_t arc_lanes(const struct sssp *s, struct kernel_warp *w, uint64_t m,
                          const struct kernel_buf *buf, bool vertex)
{
    uint64_t tid0 = kernel_gid(w, 0), out = 0;
    for (; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        uint64_t tid = tid0 + l;
        if (w->r[1] >= in_degree(s, tid))
            continue;
        uint32_t i = s->g.row[tid] + (uint32_t)w->r[1];
        w->lane_addr[l] = buf->base + (uint64_t)(vertex ? s->g.col[i] : i) * 4;
        out |= 1ull << l;
    }
    return out;
}

enum { S_PRO, S_START, S_END, S_MIN, S_BOUNDS, S_IADDR, S_COL, S_DATA, S_XADDR, S_X, S_RELAX,
       S_LOOP, S_STORE, S_EXIT };

/* spmv_min_dot_plus_kernel. r[1]: arc iteration j, r[2]: largest in-degree.
 * The compiler unrolls the arc loop 4 times with a rolled remainder loop
 * run first (in-degree mod 4 iterations); the counts are the remainder
 * loop's (10 per arc), the path of the road graphs' in-degrees 1 to 3, and
 * its set-up (13) runs in warps with an arc. */
static void spmv_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct sssp *s = k->ctx;
    uint64_t tid0 = kernel_gid(w, 0), in = graph_lanes_below(w, s->n);
    if (!in)
        w->pc = S_EXIT;
    switch (w->pc) {
    case S_PRO: graph_op_alu(op, alu_prologue[K_SPMV], 0, 0); break;
    case S_START:
    case S_END:
        graph_op_elem(op, KOP_LOAD, s->row, tid0 + (w->pc == S_END), 4, in);
        op->dst = (uint8_t)w->pc; /* r1: row_start, r2: row_end */
        break;
    case S_MIN:
        graph_op_elem(op, KOP_LOAD, s->d1, tid0, 4, in);
        op->dst = 3;
        break;
    case S_BOUNDS:
        for (uint64_t m = in; m; m &= m - 1)
            w->r[2] = max_u64(w->r[2], in_degree(s, tid0 + (unsigned)__builtin_ctzll(m)));
        graph_op_alu(op, ALU_BOUNDS + (w->r[2] ? ALU_SETUP : 0), 1, 2);
        if (!w->r[2])
            w->pc = S_STORE - 1;
        break;
    case S_IADDR: graph_op_alu(op, ALU_ADDR, 0, 0); break;
    case S_COL:
    case S_DATA:
        graph_op_lanes(op, KOP_LOAD, 4, arc_lanes(s, w, in, w->pc == S_COL ? s->col : s->data, false));
        op->dst = w->pc == S_COL ? 4 : 5;
        break;
    case S_XADDR: graph_op_alu(op, ALU_ADDR, 4, 0); break;
    case S_X:
        graph_op_lanes(op, KOP_LOAD, 4, arc_lanes(s, w, in, s->d1, true));
        op->dst = 6;
        break;
    case S_RELAX: graph_op_alu(op, ALU_RELAX, 5, 6); break;
    case S_LOOP:
        graph_op_alu(op, ALU_LOOP, 0, 0);
        if (++w->r[1] < w->r[2])
            w->pc = S_IADDR - 1;
        break;
    case S_STORE:
        graph_op_elem(op, KOP_STORE, s->d2, tid0, 4, in);
        op->src[0] = 3;
        op->src[1] = 6;
        break;
    default: op->kind = KOP_EXIT; return;
    }
    w->pc++;
}

/* The work-group's vertices in argument arg (elements of 4 bytes). */
static unsigned vec_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                           struct addr_range *out, unsigned max)
{
    const struct sssp *s = k->ctx;
    if (max < 1 || arg >= k->nargs)
        return 0;
    if (k->args[arg].buf == s->stop)
        return graph_slice(s->stop, 0, 1, 1, 4, out);
    return graph_slice(k->args[arg].buf, (uint64_t)wg * s->block, s->block, s->n, 4, out);
}

/* spmv args: row, col, data, d1 (x), d2 (y). */
static unsigned spmv_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                            struct addr_range *out, unsigned max)
{
    const struct sssp *s = k->ctx;
    uint64_t first = (uint64_t)wg * s->block;
    if (max < 1)
        return 0;
    switch (arg) {
    case 0: return graph_slice(s->row, first, s->block + 1, (uint64_t)s->n + 1, 4, out);
    case 1:
    case 2:
        return graph_slice(k->args[arg].buf, s->wg_edges[2 * wg],
                           s->wg_edges[2 * wg + 1] - s->wg_edges[2 * wg], s->g.m, 4, out);
    case 4: return graph_slice(s->d2, first, s->block, s->n, 4, out);
    default: return 0; /* d1[col[i]]: irregular */
    }
}

static void vec_kernel(struct sssp *s, struct kernel *k, const char *name, enum sssp_kind kind)
{
    wl_kernel_init(k, name, s->grid, 1, s->block, 1, vec_next);
    k->ranges = vec_ranges;
    k->p[0] = kind;
}

static bool sssp_next_kernel(void *self, struct kernel *k)
{
    struct sssp *s = self;
    unsigned phase = s->kernels ? (s->kernels - 1) % 3 + 1 : 0;
    if (phase == 1 && s->last)
        return false;
    if (phase == 0) {
        vec_kernel(s, k, "vector_init", K_INIT);
        wl_kernel_arg(k, s->d1, KERNEL_RW);
        wl_kernel_arg(k, s->d2, KERNEL_RW);
    } else if (phase == 1) {
        vec_kernel(s, k, "vector_assign", K_ASSIGN);
        wl_kernel_arg(k, s->d1, KERNEL_RW);
        wl_kernel_arg(k, s->d2, KERNEL_R);
        s->rounds++;
    } else if (phase == 2) {
        wl_kernel_init(k, "spmv_min_dot_plus_kernel", s->grid, 1, s->block, 1, spmv_next);
        wl_kernel_arg(k, s->row, KERNEL_R);
        wl_kernel_arg(k, s->col, KERNEL_R);
        wl_kernel_arg(k, s->data, KERNEL_R);
        wl_kernel_arg(k, s->d1, KERNEL_R);
        wl_kernel_arg(k, s->d2, KERNEL_RW);
        /* the CSR arrays: read-only, same work-group ranges every round */
        for (unsigned a = 0; a < 3; a++)
            k->args[a].same_pattern = s->rounds > 1;
        k->ranges = spmv_ranges;
        s->last = !sssp_round(s); /* the last round is the one that changes nothing */
    } else {
        vec_kernel(s, k, "vector_diff", K_DIFF);
        wl_kernel_arg(k, s->d1, KERNEL_R);
        wl_kernel_arg(k, s->d2, KERNEL_R);
        wl_kernel_arg(k, s->stop, KERNEL_RW);
    }
    k->ctx = s;
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
