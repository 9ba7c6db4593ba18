/*
 * bfs_relax.c -- Lonestar's topology-driven BFS ("BFS-relax" of spec
 * ladm.md 10; "bfs" on road-FLA in spec hmg.md 8): every iteration launches
 * one thread per vertex; a vertex already reached relaxes all its arcs
 * (dist[v] = min(dist[v], dist[u] + 1) with atomicMin where it improves)
 * and sets the host's `changed` flag; the host iterates until an iteration
 * changes nothing.
 *
 * Modelled (kernel descriptions, kd.h): that kernel. The host runs the BFS
 * in C (levels from the source) and binds, at every launch, the vertices'
 * levels and each arc's head level: in iteration t a vertex is reached when
 * its level is at most t, and an arc's atomicMin runs when its head is not
 * reached yet (levels as each iteration starts: a relaxation within the
 * same launch is not seen by later threads of it). Launches: the deepest
 * level + 1. Input: lsgraph.h (FLA, the real file through `input`). ALU
 * counts from nvcc 13 -arch=sm_90 PTX of a CUDA version
 * (docs/workloads/bfs-relax.md).
 * Abstracted: no data values; the host's copies of `changed`.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"
#include "workload/lonestar/lsgraph.h"

static const struct cfg_key bfr_keys[] = {
    LSGRAPH_KEYS,
    {"source", CFG_INT, "0", 0, 2147483647.0, "the source vertex", NULL},
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group (ladm.md: 256)", NULL},
    CFG_END,
};

/* PTX: the entry (parameters, u, its test: 14), after dist[u] the INF test
 * and &row[u] (4), between the bounds (3), the loop set-up (7); per arc
 * after col[i] (2), after dist[v] the compare (3), after the atomicMin
 * alt < old (2), the loop step (4); after the loop the flag's test (4). */
static const char *const bfr_params[] = {"n", "t", NULL};
static const char *const bfr_bufs[] = {"row", "col", "dist", "changed", NULL};
static const char *const bfr_arrays[] = {"row", "col", "lvl", "hl", "fw", NULL};
static const struct kd_desc bfr_kd = {
    .name = "drelax",
    .params = bfr_params,
    .bufs = bfr_bufs,
    .arrays = bfr_arrays,
    .body = "alu 14\n"
            "if gid < n\n"
            "  load dist[gid] 4 -> r1\n"
            "  alu 4 < r1\n"
            "  if @lvl[gid] < t + 1                       # reached: dist[u] < INF\n"
            "    load row[gid] 4 -> r2\n"
            "    alu 3\n"
            "    load row[gid + 1] 4 -> r3\n"
            "    alu 7 < r2 r3\n"
            "    for m0 = @row[gid] .. @row[gid + 1]\n"
            "      load col[m0] 4 -> r4\n"
            "      alu 2 < r4\n"
            "      load dist[@col[m0]] 4 -> r5\n"
            "      alu 3 < r5\n"
            "      if t < @hl[m0]                           # dist[u] + 1 < dist[v]\n"
            "        atomic dist[@col[m0]] 4 -> r6 gpu relaxed\n"
            "        alu 2 < r6\n"
            "      end\n"
            "      alu 4\n"
            "    end\n"
            "    alu 4\n"
            "    if 0 < @fw[gid]                            # an arc improved\n"
            "      if t < @lvl[gid] + 1\n"
            "        store changed[0] 1\n"
            "      end\n"
            "    end\n"
            "  end\n"
            "end\n",
};

struct bfr {
    struct kdw w;
    struct graph g;
    uint32_t *lvl, *hl, *fw; /* vertex levels, arc head levels, vertices with a deeper neighbour */
    uint32_t depth, block;
    const struct kernel_buf *bufs[4];
};

/* Levels from the source (UINT32_MAX: not reached), the deepest level, and
 * the arrays the launches read. */
static void bfr_levels(struct bfr *b, uint32_t src)
{
    const struct graph *g = &b->g;
    b->lvl = xmalloc(g->n * sizeof *b->lvl);
    uint32_t *queue = xmalloc(g->n * sizeof *queue), head = 0, tail = 0;
    memset(b->lvl, 0xff, g->n * sizeof *b->lvl);
    b->lvl[src] = 0;
    queue[tail++] = src;
    b->depth = 0;
    while (head < tail) {
        uint32_t u = queue[head++];
        b->depth = b->lvl[u];
        for (uint32_t i = g->row[u]; i < g->row[u + 1]; i++)
            if (b->lvl[g->col[i]] == UINT32_MAX) {
                b->lvl[g->col[i]] = b->lvl[u] + 1;
                queue[tail++] = g->col[i];
            }
    }
    free(queue);
    b->hl = xmalloc((g->m ? g->m : 1) * sizeof *b->hl);
    b->fw = xcalloc(g->n, sizeof *b->fw);
    for (uint32_t u = 0; u < g->n; u++)
        for (uint32_t i = g->row[u]; i < g->row[u + 1]; i++) {
            b->hl[i] = b->lvl[g->col[i]];
            b->fw[u] |= b->lvl[u] != UINT32_MAX && b->hl[i] > b->lvl[u];
        }
}

static int bfr_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct bfr *b = (struct bfr *)w;
    if (lsgraph_load(&b->g, sec, w->env->seed, e))
        return -1;
    uint64_t src = cfg_uint(sec, "source");
    if (src >= b->g.n)
        return cfg_err(e, sec, "source", "the graph has %u vertices", b->g.n);
    b->block = (uint32_t)cfg_uint(sec, "block");
    bfr_levels(b, (uint32_t)src);
    const uint64_t size[] = {((uint64_t)b->g.n + 1) * 4, (uint64_t)b->g.m * 4,
                             (uint64_t)b->g.n * 4, 1};
    for (unsigned i = 0; i < 4; i++)
        b->bufs[i] = wl_alloc(w->env, bfr_bufs[i], size[i]);
    return 0;
}

/* Iteration i of depth + 1. */
static bool bfr_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct bfr *b = (const struct bfr *)w;
    if (i > b->depth)
        return false;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(b->g.n, b->block), 1, 1};
    l->block = (struct kernel_dim){b->block, 1, 1};
    l->params[0] = b->g.n;
    l->params[1] = (int64_t)i;
    l->arrays[0] = (struct kd_array){b->g.row, (uint64_t)b->g.n + 1};
    l->arrays[1] = (struct kd_array){b->g.col, b->g.m};
    l->arrays[2] = (struct kd_array){b->lvl, b->g.n};
    l->arrays[3] = (struct kd_array){b->hl, b->g.m};
    l->arrays[4] = (struct kd_array){b->fw, b->g.n};
    memcpy(l->bufs, b->bufs, sizeof b->bufs);
    return true;
}

static uint64_t bfr_count(const struct kdw *w)
{
    return ((const struct bfr *)w)->depth + 1ull;
}

static void bfr_release(struct kdw *w)
{
    struct bfr *b = (struct bfr *)w;
    graph_free(&b->g);
    free(b->lvl), free(b->hl), free(b->fw);
}

static const struct kd_desc *const bfr_descs[] = {&bfr_kd, NULL};
static const struct kdw_model bfr_model = {.size = sizeof(struct bfr), .descs = bfr_descs,
                                           .setup = bfr_setup, .plan = bfr_plan,
                                           .count = bfr_count, .release = bfr_release};

static void *bfr_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&bfr_model, env, sec, e);
}

static const char *const bfr_small[] = {"nodes=128", "edges=0", NULL};

const struct wl_ops wl_bfs_relax = {
    .name = "bfs-relax",
    .suite = "Lonestar",
    .desc = "Lonestar topology-driven BFS: every reached vertex relaxes its arcs each iteration "
            "(FLA-sized road graph; FLA.gr via input)",
    .keys = bfr_keys,
    .small = bfr_small,
    .create = bfr_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
