/*
 * fw.c -- Pannotia Floyd-Warshall (graph_app/fw): all-pairs shortest paths
 * on an n x n distance matrix, one kernel per pivot k:
 *     for (k = 0; k < n; k++) floydwarshall(dist, next, n, k);
 *     i = global id y, j = global id x (16 x 16 work-groups)
 *     if (dist[i*n + k] + dist[k*n + j] < dist[i*n + j])
 *         { dist[i*n + j] = dist[i*n + k] + dist[k*n + j]; next[i*n + j] = k; }
 * The input is Pannotia's 512_65536.gr (512 vertices, 65536 random arcs of
 * weight 0..99): generated equivalently by default, or read from a file.
 *
 * Modelled: the algorithm runs in the model, one pivot per launch, so each
 * kernel knows exactly which elements improve (the lanes that store dist
 * and next). Row k and column k do not change during pivot k (weights are
 * non-negative), so the result does not depend on the order of the warps.
 * Each work-group declares its tile of both matrices plus row k and column
 * k of dist. Dynamic kernels: n.
 * Abstracted: no data values (BIGNUM, the "no arc" distance, is infinity);
 * duplicate arcs: the last one in the file wins, the diagonal is 0.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of the HIP port's
 * kernel (gem5-resources, pannotia/fw), every instruction but global loads
 * and stores, ret and cvta.to.global; blocks with no op of their own are
 * counted in the nearest op run as often. See docs/workloads/fw.md.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/pannotia/graph.h"
#include "workload/wl.h"

#define FW_TILE 16        /* 16 x 16 work-groups */
#define FW_MAX_NODES 8192 /* the model keeps an n x n matrix of 64-bit distances */
#define FW_INF INT64_MAX

/* ALU instructions per step: PTX counts of the kernel's basic blocks. */
#define ALU_INDEX 16 /* parameters, i and j from the ids, the two bounds tests, branch */
#define ALU_ADDR 11  /* the addresses of dist[ik], dist[kj] and dist[ij] */
#define ALU_ADD 1    /* dist[ik] + dist[kj] */
#define ALU_CMP 2    /* compare with dist[ij], branch */
#define ALU_NEXT 2   /* next[ij]'s address, in warps that store */

static const struct cfg_key fw_keys[] = {
    {"nodes", CFG_INT, "512", 1, FW_MAX_NODES,
     "vertices of the generated graph (Table II 512_65536.gr: 512)", NULL},
    {"arcs", CFG_INT, "65536", 0, 4294967295.0,
     "random arcs u -> v (u != v, duplicates allowed) of the generated graph", NULL},
    {"max_weight", CFG_INT, "100", 1, 1000000, "generated weights are 0..max_weight-1", NULL},
    GRAPH_INPUT_KEYS,
    GRAPH_WEIGHT_KEYS,
    CFG_END,
};

struct fw {
    int64_t *dist;          /* the model's distance matrix */
    uint64_t *upd;          /* elements improved by the current pivot */
    uint32_t n, tiles;      /* tiles per side */
    unsigned k;             /* kernels issued */
    const struct kernel_buf *d, *next;
};

static int fw_input(struct graph_coo *g, const struct cfg_sec *sec, uint64_t seed, struct err *e)
{
    int rc = graph_load(g, sec, e);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        graph_gen_uniform(g, (uint32_t)cfg_uint(sec, "nodes"), cfg_uint(sec, "arcs"),
                          (uint32_t)cfg_uint(sec, "max_weight"), seed);
        return 0;
    }
    graph_set_weights(g, (enum graph_weights)cfg_enum(sec, "weights"), seed);
    if (g->n > FW_MAX_NODES) {
        cfg_err(e, sec, "input", "%u vertices: FW keeps an n x n matrix, at most %u (set "
                "workload.max_nodes)", g->n, FW_MAX_NODES);
        graph_coo_free(g);
        return -1;
    }
    return 0;
}

static void *fw_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct graph_coo g;
    if (fw_input(&g, sec, env->seed, e))
        return NULL;
    struct fw *f = xcalloc(1, sizeof *f);
    f->n = g.n;
    f->tiles = (uint32_t)div_ceil(f->n, FW_TILE);
    uint64_t nn = (uint64_t)f->n * f->n;
    f->dist = xmalloc(nn * sizeof *f->dist);
    f->upd = xcalloc(div_ceil(nn, 64) + 1, sizeof *f->upd);
    for (uint64_t i = 0; i < nn; i++)
        f->dist[i] = FW_INF;
    for (uint64_t a = 0; a < g.m; a++) /* the last duplicate wins */
        f->dist[(uint64_t)g.src[a] * f->n + g.dst[a]] = g.w[a];
    for (uint32_t i = 0; i < f->n; i++)
        f->dist[(uint64_t)i * f->n + i] = 0;
    graph_coo_free(&g);
    f->d = wl_alloc(env, "dist", nn * 4);
    f->next = wl_alloc(env, "next", nn * 4);
    return f;
}

static void fw_destroy(void *self)
{
    struct fw *f = self;
    free(f->dist);
    free(f->upd);
    free(f);
}

/* Pivot k: improve every element through k and mark the improved ones. */
static void fw_pivot(struct fw *f, uint32_t k)
{
    uint64_t n = f->n;
    memset(f->upd, 0, div_ceil(n * n, 64) * sizeof *f->upd);
    for (uint64_t i = 0; i < n; i++) {
        int64_t ik = f->dist[i * n + k];
        if (ik == FW_INF)
            continue;
        const int64_t *rk = &f->dist[k * n];
        int64_t *ri = &f->dist[i * n];
        for (uint64_t j = 0; j < n; j++)
            if (rk[j] != FW_INF && ik + rk[j] < ri[j]) {
                ri[j] = ik + rk[j];
                f->upd[(i * n + j) / 64] |= 1ull << (i * n + j) % 64;
            }
    }
}

/* Lane l's element (i, j); false if outside the matrix. */
static bool fw_elem(const struct fw *f, const struct kernel_warp *w, unsigned l, uint64_t *i,
                    uint64_t *j)
{
    uint32_t t = kernel_tid(w, l);
    *i = (uint64_t)w->wg_id.y * FW_TILE + t / FW_TILE;
    *j = (uint64_t)w->wg_id.x * FW_TILE + t % FW_TILE;
    return *i < f->n && *j < f->n;
}

/* Lane addresses of element (row, col) of buf per lane, where which = 0:
 * (i, j), 1: (i, k), 2: (k, j); with `improved`, only improved elements. */
static uint64_t fw_lanes(const struct fw *f, struct kernel_warp *w, const struct kernel_buf *buf,
                         unsigned which, uint64_t k, bool improved)
{
    uint64_t m = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint64_t i, j;
        if (!fw_elem(f, w, l, &i, &j))
            continue;
        uint64_t e = i * f->n + j;
        if (improved && !(f->upd[e / 64] >> e % 64 & 1))
            continue;
        uint64_t r = which == 2 ? k : i, c = which == 1 ? k : j;
        w->lane_addr[l] = buf->base + (r * f->n + c) * 4;
        m |= 1ull << l;
    }
    return m;
}

/* pc: index math, load dist[ij], address math, load dist[ik], load
 * dist[kj], add, compare, store dist[ij], store next[ij], exit. r[0]: the
 * lanes inside the matrix, r[1]: the improved ones. */
static void fw_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct fw *f = k->ctx;
    uint64_t piv = k->p[0];
    switch (w->pc) {
    case 0:
        graph_op_alu(op, ALU_INDEX, 0, 0);
        w->r[0] = fw_lanes(f, w, f->d, 0, piv, false);
        if (!w->r[0])
            w->pc = 9;
        break;
    case 1:
    case 3:
    case 4:
        graph_op_lanes(op, KOP_LOAD, 4, fw_lanes(f, w, f->d, w->pc == 1 ? 0 : w->pc - 2, piv, false));
        op->dst = (uint8_t)(w->pc == 1 ? 1 : w->pc - 1);
        break;
    case 2: graph_op_alu(op, ALU_ADDR, 0, 0); break;
    case 5: graph_op_alu(op, ALU_ADD, 2, 3); break;
    case 6:
        w->r[1] = fw_lanes(f, w, f->d, 0, piv, true);
        graph_op_alu(op, ALU_CMP + (w->r[1] ? ALU_NEXT : 0), 1, 0);
        if (!w->r[1])
            w->pc = 8;
        break;
    case 7:
    case 8:
        graph_op_lanes(op, KOP_STORE, 4, fw_lanes(f, w, w->pc == 7 ? f->d : f->next, 0, piv, true));
        break;
    default: op->kind = KOP_EXIT; return;
    }
    w->pc++;
}

/* The longest cache line: one access never spans more. Ranges less than a
 * line apart are joined, since the checker sees a line request as the span
 * of its bytes, and when n is not a multiple of 16 one line can hold the end
 * of one tile row and the start of the next. */
#define FW_LINE_MAX 128

/* dist: the tile's rows, column k of those rows and row k of its columns;
 * next: the tile's rows. */
static unsigned fw_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct addr_range *out, unsigned max)
{
    const struct fw *f = k->ctx;
    uint64_t n = f->n, bx = wg % f->tiles, by = wg / f->tiles, piv = k->p[0];
    uint64_t j0 = bx * FW_TILE, j1 = min_u64(j0 + FW_TILE, n);
    uint64_t i0 = by * FW_TILE, i1 = min_u64(i0 + FW_TILE, n);
    addr_t base = k->args[arg].buf->base;
    if (arg > 1)
        return 0;
    struct range_list l;
    range_list_init(&l, out, max, FW_LINE_MAX);
    for (uint64_t i = i0; i < i1; i++) {
        range_list_add(&l, base + (i * n + j0) * 4, base + (i * n + j1) * 4);
        if (arg == 0 && (piv < j0 || piv >= j1))
            range_list_add(&l, base + (i * n + piv) * 4, base + (i * n + piv + 1) * 4);
    }
    if (arg == 0 && (piv < i0 || piv >= i1))
        range_list_add(&l, base + (piv * n + j0) * 4, base + (piv * n + j1) * 4);
    return range_list_done(&l, base);
}

static bool fw_next_kernel(void *self, struct kernel *k)
{
    struct fw *f = self;
    if (f->k == f->n)
        return false;
    fw_pivot(f, f->k);
    wl_kernel_init(k, "floydwarshall", f->tiles, f->tiles, FW_TILE, FW_TILE, fw_next);
    wl_kernel_arg(k, f->d, KERNEL_RW);
    wl_kernel_arg(k, f->next, KERNEL_RW);
    k->args[1].same_pattern = f->k > 0; /* next: the same tile of every work-group */
    k->ranges = fw_ranges;
    k->p[0] = f->k;
    k->ctx = f;
    f->k++;
    return true;
}

static const char *const fw_small[] = {"nodes=64", "arcs=1024", NULL};

const struct wl_ops wl_fw = {
    .name = "fw",
    .suite = "Pannotia",
    .desc = "Pannotia Floyd-Warshall: one 2D kernel per pivot over the n x n distance matrix",
    .keys = fw_keys,
    .small = fw_small,
    .create = fw_create,
    .next_kernel = fw_next_kernel,
    .destroy = fw_destroy,
};
