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
 * Modelled (a kernel description, src/workload/kd.h): the algorithm runs in
 * the model, one pivot per launch, and binds the elements the pivot
 * improves (the array `upd`: the lanes that store dist and next). Row k and
 * column k do not change during pivot k (weights are non-negative), so the
 * result does not depend on the order of the warps. Each work-group's
 * ranges (its tile of both matrices plus row k and column k of dist) are
 * derived from the description. Dynamic kernels: n.
 * Abstracted: no data values (BIGNUM, the "no arc" distance, is infinity);
 * duplicate arcs: the last one in the file wins, the diagonal is 0.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of the HIP port's
 * kernel (gem5-resources, pannotia/fw), every instruction but global loads
 * and stores, ret and cvta.to.global; blocks with no op of their own are
 * counted in the nearest op run as often. See docs/workloads/fw.md.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kd.h"
#include "workload/pannotia/graph.h"
#include "workload/wl.h"

#define FW_TILE 16        /* 16 x 16 work-groups */
#define FW_MAX_NODES 8192 /* the model keeps an n x n matrix of 64-bit distances */
#define FW_INF INT64_MAX

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

/*
 * The kernel, with the ALU counts of its PTX basic blocks: parameters, i
 * and j from the ids, the two bounds tests and the branch (16); the
 * addresses of dist[ik], dist[kj] and dist[ij] (11); dist[ik] + dist[kj]
 * (1); the compare with dist[ij] and its branch (2), with next[ij]'s
 * address in warps that store (2). Ranges less than the longest cache
 * line (128 B) apart are joined: the checker sees a line request as the
 * span of its bytes, and when n is not a multiple of 16 one line can hold
 * the end of one tile row and the start of the next.
 */
static const char *const fw_params[] = {"n", "k", NULL};
static const char *const fw_bufs[] = {"dist", "next", NULL};
static const char *const fw_arrays[] = {"upd", NULL};
static const struct kd_desc fw_kd = {
    .name = "floydwarshall",
    .params = fw_params,
    .bufs = fw_bufs,
    .arrays = fw_arrays,
    .range_join = 128,
    .body = "alu 16\n"
            "if by*bdy + ty < n                     # i\n"
            "  if bx*bdx + tx < n                   # j\n"
            "    load dist[(by*bdy + ty)*n + bx*bdx + tx] 4 -> r1\n"
            "    alu 11\n"
            "    load dist[(by*bdy + ty)*n + k] 4 -> r2\n"
            "    load dist[k*n + bx*bdx + tx] 4 -> r3\n"
            "    alu 1 < r2 r3\n"
            "    alu 2 + 2 [0 < @upd[(by*bdy + ty)*n + bx*bdx + tx]] < r1\n"
            "    if 0 < @upd[(by*bdy + ty)*n + bx*bdx + tx]   # improved through k\n"
            "      store dist[(by*bdy + ty)*n + bx*bdx + tx] 4\n"
            "      store next[(by*bdy + ty)*n + bx*bdx + tx] 4\n"
            "    end\n"
            "  end\n"
            "end\n",
};

struct fw {
    struct wl_env *env;
    struct kd_prog *prog;
    int64_t *dist;          /* the model's distance matrix */
    uint32_t *upd;          /* 1 where the current pivot improves the element */
    uint32_t n, tiles;      /* tiles per side */
    unsigned k;             /* kernels issued */
    const struct kernel_buf *bufs[2];
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

static void fw_destroy(void *self)
{
    struct fw *f = self;
    kd_prog_free(f->prog);
    free(f->dist);
    free(f->upd);
    free(f);
}

static void *fw_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct graph_coo g;
    if (fw_input(&g, sec, env->seed, e))
        return NULL;
    struct fw *f = xcalloc(1, sizeof *f);
    f->env = env;
    if (!(f->prog = kd_compile(&fw_kd, e))) {
        graph_coo_free(&g);
        fw_destroy(f);
        return NULL;
    }
    f->n = g.n;
    f->tiles = (uint32_t)div_ceil(f->n, FW_TILE);
    uint64_t nn = (uint64_t)f->n * f->n;
    f->dist = xmalloc(nn * sizeof *f->dist);
    f->upd = xcalloc(nn + 1, sizeof *f->upd);
    for (uint64_t i = 0; i < nn; i++)
        f->dist[i] = FW_INF;
    for (uint64_t a = 0; a < g.m; a++) /* the last duplicate wins */
        f->dist[(uint64_t)g.src[a] * f->n + g.dst[a]] = g.w[a];
    for (uint32_t i = 0; i < f->n; i++)
        f->dist[(uint64_t)i * f->n + i] = 0;
    graph_coo_free(&g);
    f->bufs[0] = wl_alloc(env, "dist", nn * 4);
    f->bufs[1] = wl_alloc(env, "next", nn * 4);
    return f;
}

/* Pivot k: improve every element through k and mark the improved ones. */
static void fw_pivot(struct fw *f, uint32_t k)
{
    uint64_t n = f->n;
    memset(f->upd, 0, n * n * sizeof *f->upd);
    for (uint64_t i = 0; i < n; i++) {
        int64_t ik = f->dist[i * n + k];
        if (ik == FW_INF)
            continue;
        const int64_t *rk = &f->dist[k * n];
        int64_t *ri = &f->dist[i * n];
        for (uint64_t j = 0; j < n; j++)
            if (rk[j] != FW_INF && ik + rk[j] < ri[j]) {
                ri[j] = ik + rk[j];
                f->upd[i * n + j] = 1;
            }
    }
}

static bool fw_next_kernel(void *self, struct kernel *k)
{
    struct fw *f = self;
    if (f->k == f->n)
        return false;
    fw_pivot(f, f->k);
    int64_t params[] = {f->n, f->k};
    struct kd_array upd = {f->upd, (uint64_t)f->n * f->n};
    struct err e;
    if (kd_launch(f->prog, k, (struct kernel_dim){f->tiles, f->tiles, 1},
                  (struct kernel_dim){FW_TILE, FW_TILE, 1}, params, f->bufs, &upd, &e))
        return wl_fail(f->env, &e);
    k->args[1].same_pattern = f->k > 0; /* next: the same tile of every work-group */
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
