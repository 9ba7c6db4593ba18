/*
 * bfs.c -- Rodinia 3.1 BFS (cuda/bfs: bfs.cu, kernel.cu, kernel2.cu), the
 * level-synchronous breadth-first search from node 0:
 *     do { Kernel(nodes, edges, mask, updating, visited, cost, n);
 *          Kernel2(mask, updating, visited, over, n); } while (over);
 * one thread per node, tid = blockIdx.x * 512 + threadIdx.x, blocks of
 * MAX_THREADS_PER_BLOCK = 512 threads (one block of n threads if n <= 512).
 *
 * Modelled (kernel descriptions, src/workload/kd.h): the search runs in the
 * model first (levels of every node). Each launch binds the array `flag`:
 * the frontier (mask[tid] set: level i) for Kernel, the nodes reached
 * (updating[tid] set: level i + 1) for Kernel2; Kernel also reads the CSR
 * arrays and, per edge, its neighbour's level (`alev`): the neighbour is
 * still unvisited where that is above i, exactly the lanes that load
 * cost[tid] and store cost[id] and updating[id]. Each warp walks its lanes'
 * edge lists in SIMT lock step (a lane active while it has edges left).
 * Each work-group's slices are derived from the descriptions. Dynamic
 * kernels: 2 x (depth + 1).
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * kernel.cu and kernel2.cu (every instruction but global loads and stores,
 * ret and cvta.to.global); blocks with no op of their own are counted in
 * the nearest op run as often. See docs/workloads/bfs.md.
 * Abstracted: no data values; the host's resets of `over` are not
 * simulated.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/pannotia/graph.h"
#include "workload/wl.h"

#define BFS_MAX_THREADS 512 /* MAX_THREADS_PER_BLOCK */

static const struct cfg_key bfs_keys[] = {
    {"nodes", CFG_INT, "131072", 1, 2147483647.0,
     "nodes of the generated graph (Rodinia graphgen: 2..4 random undirected edges added per "
     "node; Table II graph128k.txt)", NULL},
    GRAPH_INPUT_KEYS,
    CFG_END,
};

/*
 * The kernels, with the ALU counts of their PTX basic blocks (see the file
 * header). Prologue: parameters (7 / 5), ids, tid, the bounds test and the
 * flag's address (15 / 13). The compare of the loaded flag and its branch
 * (2); Kernel2's store block (the stored constants and addresses, 4) in
 * the test's op of warps that store. Kernel, after nodes[tid]: mask's
 * stored constant, the node address, the degree test and branch (6) and
 * the loop preheader (cost[tid]'s and the first edge's addresses, the
 * counter: 5). Per edge: the pointer increment (1, at the loop latch in
 * PTX); visited[id]'s address (1); its compare and branch (2);
 * g_cost[tid] + 1, cost[id]'s and updating[id]'s addresses and the stored
 * constant (5); the bound (no_of_edges + starting), i++, compare, branch
 * (4).
 */
static const char *const bfs_params[] = {"n", "lvl", NULL};
static const char *const bfs_arrays[] = {"row", "col", "alev", "flag", NULL};
static const char *const k1_bufs[] = {"nodes", "edges", "mask", "updating", "visited", "cost",
                                      NULL};
static const char *const k2_bufs[] = {"mask", "updating", "visited", "over", NULL};
static const struct kd_desc bfs_kd[2] = {
    {.name = "Kernel", .params = bfs_params, .bufs = k1_bufs, .arrays = bfs_arrays,
     .body = "if gid < n\n"
             "  alu 15\n"
             "  load mask[gid] 1 -> r1\n"
             "  alu 2 < r1\n"
             "  if 0 < @flag[gid]                     # the frontier\n"
             "    store mask[gid] 1\n"
             "    load nodes[gid] 8 -> r2\n"
             "    alu 11 < r2\n"
             "    for m0 = @row[gid] .. @row[gid + 1]\n"
             "      alu 1\n"
             "      load edges[m0] 4 -> r3\n"
             "      alu 1 < r3\n"
             "      load visited[@col[m0]] 1 -> r4\n"
             "      alu 2 < r4\n"
             "      if lvl < @alev[m0]                # the neighbour is unvisited\n"
             "        load cost[gid] 4 -> r5\n"
             "        alu 5 < r5\n"
             "        store cost[@col[m0]] 4 < r5\n"
             "        store updating[@col[m0]] 1\n"
             "      end\n"
             "      alu 4\n"
             "    end\n"
             "  end\n"
             "end\n"},
    {.name = "Kernel2", .params = bfs_params, .bufs = k2_bufs, .arrays = bfs_arrays,
     .body = "if gid < n\n"
             "  alu 13\n"
             "  load updating[gid] 1 -> r1\n"
             "  alu 2 + 4 [0 < @flag[gid]] < r1\n"
             "  if 0 < @flag[gid]                     # reached in this level\n"
             "    store mask[gid] 1\n"
             "    store visited[gid] 1\n"
             "    store over[0] 1                     # every such lane writes *g_over\n"
             "    store updating[gid] 1\n"
             "  end\n"
             "end\n"},
};

struct bfs {
    struct wl_env *env;
    struct kd_prog *prog[2];
    struct graph g;       /* Node.starting = row[v], no_of_edges = row[v + 1] - row[v] */
    int32_t *level;       /* BFS level from node 0, -1 if not reached */
    uint32_t *alev;       /* per edge: its neighbour's level (UINT32_MAX: not reached) */
    uint32_t *flag;       /* per node: in the set this launch works on */
    struct kd_array arrays[4];
    uint32_t n, block, grid, depth;
    unsigned kernels;
    const struct kernel_buf *nodes, *edges, *mask, *updating, *visited, *cost, *over;
};

static void bfs_levels(struct bfs *b)
{
    uint32_t *queue = xmalloc((size_t)b->n * sizeof *queue), head = 0, tail = 0;
    for (uint32_t v = 0; v < b->n; v++)
        b->level[v] = -1;
    b->level[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t i = b->g.row[u]; i < b->g.row[u + 1]; i++) {
            uint32_t v = b->g.col[i];
            if (b->level[v] < 0) {
                b->level[v] = b->level[u] + 1;
                b->depth = (uint32_t)b->level[v];
                queue[tail++] = v;
            }
        }
    }
    free(queue);
}

static void bfs_alloc(struct bfs *b, struct wl_env *env)
{
    b->nodes = wl_alloc(env, "graph_nodes", (uint64_t)b->n * 8);
    b->edges = wl_alloc(env, "graph_edges", (uint64_t)b->g.m * 4);
    b->mask = wl_alloc(env, "graph_mask", b->n);
    b->updating = wl_alloc(env, "updating_graph_mask", b->n);
    b->visited = wl_alloc(env, "graph_visited", b->n);
    b->cost = wl_alloc(env, "cost", (uint64_t)b->n * 4);
    b->over = wl_alloc(env, "over", 1);
}

static void bfs_destroy(void *self)
{
    struct bfs *b = self;
    kd_progs_free(b->prog, 2);
    graph_free(&b->g);
    free(b->level);
    free(b->alev);
    free(b->flag);
    free(b);
}

/* The arrays bound to the kernels: the CSR, each edge's neighbour level
 * and the per-launch node flags. */
static void bfs_arrays_init(struct bfs *b)
{
    b->alev = xmalloc(((size_t)b->g.m + 1) * sizeof *b->alev);
    for (uint32_t e = 0; e < b->g.m; e++)
        b->alev[e] = (uint32_t)b->level[b->g.col[e]]; /* -1: UINT32_MAX */
    b->flag = xcalloc((size_t)b->n + 1, sizeof *b->flag);
    b->arrays[0] = (struct kd_array){b->g.row, (uint64_t)b->n + 1};
    b->arrays[1] = (struct kd_array){b->g.col, b->g.m};
    b->arrays[2] = (struct kd_array){b->alev, b->g.m};
    b->arrays[3] = (struct kd_array){b->flag, b->n};
}

static void *bfs_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct graph_coo coo;
    int rc = graph_load(&coo, sec, e);
    if (rc < 0)
        return NULL;
    if (rc > 0)
        graph_gen_rodinia(&coo, (uint32_t)cfg_uint(sec, "nodes"), env->seed);
    struct bfs *b = xcalloc(1, sizeof *b);
    b->env = env;
    graph_csr(&b->g, &coo, false);
    graph_coo_free(&coo);
    if (kd_compile_all(bfs_kd, 2, b->prog, e)) {
        bfs_destroy(b);
        return NULL;
    }
    b->n = b->g.n;
    b->block = b->n > BFS_MAX_THREADS ? BFS_MAX_THREADS : b->n;
    b->grid = (uint32_t)div_ceil(b->n, b->block);
    b->level = xmalloc((size_t)b->n * sizeof *b->level);
    bfs_levels(b);
    bfs_arrays_init(b);
    bfs_alloc(b, env);
    return b;
}

static bool bfs_next_kernel(void *self, struct kernel *k)
{
    struct bfs *b = self;
    unsigned it = b->kernels / 2, kind = b->kernels % 2;
    if (it > b->depth)
        return false;
    for (uint32_t v = 0; v < b->n; v++) /* Kernel: level it; Kernel2: level it + 1 */
        b->flag[v] = b->level[v] == (int32_t)(it + kind);
    const struct kernel_buf *bufs[2][6] = {
        {b->nodes, b->edges, b->mask, b->updating, b->visited, b->cost},
        {b->mask, b->updating, b->visited, b->over},
    };
    int64_t params[] = {b->n, it};
    struct err e;
    if (kd_launch(b->prog[kind], k, (struct kernel_dim){b->grid, 1, 1},
                  (struct kernel_dim){b->block, 1, 1}, params, bufs[kind], b->arrays, &e))
        return wl_fail(b->env, &e);
    /* the CSR arrays: read-only, same work-group ranges in every Kernel */
    if (kind == 0)
        k->args[0].same_pattern = k->args[1].same_pattern = it > 0;
    b->kernels++;
    return true;
}

static const char *const bfs_small[] = {"nodes=2048", NULL};

const struct wl_ops wl_bfs = {
    .name = "bfs",
    .suite = "Rodinia",
    .desc = "Rodinia BFS: level-synchronous search, Kernel + Kernel2 per level over node masks",
    .keys = bfs_keys,
    .small = bfs_small,
    .create = bfs_create,
    .next_kernel = bfs_next_kernel,
    .destroy = bfs_destroy,
};
