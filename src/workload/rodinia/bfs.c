/*
 * bfs.c -- Rodinia 3.1 BFS (cuda/bfs: bfs.cu, kernel.cu, kernel2.cu), the
 * level-synchronous breadth-first search from node 0:
 *     do { Kernel(nodes, edges, mask, updating, visited, cost, n);
 *          Kernel2(mask, updating, visited, over, n); } while (over);
 * one thread per node, tid = blockIdx.x * 512 + threadIdx.x, blocks of
 * MAX_THREADS_PER_BLOCK = 512 threads (one block of n threads if n <= 512).
 *
 * Modelled: the search runs in the model first (levels of every node), so
 * each Kernel knows its frontier (mask[tid] set = level i), and for every
 * edge whether the neighbour is still unvisited (level i + 1): exactly the
 * lanes that load cost[tid] and store cost[id] and updating[id]. Each warp
 * walks its lanes' edge lists in SIMT lock step (iteration j is active for
 * the lanes with degree > j). Kernel2 sets mask, visited and the over flag
 * for the nodes of level i + 1. Dynamic kernels: 2 x (depth + 1).
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * kernel.cu and kernel2.cu (every instruction but global loads and stores,
 * ret and cvta.to.global); blocks with no op of their own are counted in
 * the nearest op run as often. See docs/workloads/bfs.md.
 * Abstracted: no data values; the host's resets of `over` are not
 * simulated.
 */
#include <stdlib.h>

#include "workload/pannotia/graph.h"
#include "workload/wl.h"

#define BFS_MAX_THREADS 512 /* MAX_THREADS_PER_BLOCK */

/* ALU instructions per op, PTX basic blocks of Kernel and Kernel2 (see the
 * file header). Prologue: parameters (7 / 5), ids, tid, the bounds test and
 * the flag's address (15 / 13). */
#define ALU_PROLOGUE 15
#define ALU_PROLOGUE2 13
#define ALU_TEST 2     /* compare of the loaded flag, branch */
#define ALU_STORES2 4  /* Kernel2's store block: the stored constants and addresses,
                        * in the ALU_TEST op of warps that store */
#define ALU_END 11     /* mask's stored constant, the node address, the degree
                        * test and branch (6); the loop preheader: cost[tid]'s and
                        * the first edge's addresses, the counter (5) */
#define ALU_ADDR 1     /* the edge pointer increment (at the loop latch in PTX) */
#define ALU_VADDR 1    /* visited[id]'s address */
#define ALU_VISIT 2    /* compare on visited[id], branch */
#define ALU_COST 5     /* g_cost[tid] + 1, cost[id]'s and updating[id]'s addresses,
                        * the stored constant */
#define ALU_LOOP 4     /* the bound (no_of_edges + starting), i++, compare, branch */

static const struct cfg_key bfs_keys[] = {
    {"nodes", CFG_INT, "131072", 1, 2147483647.0,
     "nodes of the generated graph (Rodinia graphgen: 2..4 random undirected edges added per "
     "node; Table II graph128k.txt)", NULL},
    GRAPH_INPUT_KEYS,
    CFG_END,
};

struct bfs {
    struct graph g;       /* Node.starting = row[v], no_of_edges = row[v + 1] - row[v] */
    int32_t *level;       /* BFS level from node 0, -1 if not reached */
    uint32_t *wg_edges;   /* per work-group: first and end edge index */
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

static void *bfs_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct graph_coo coo;
    int rc = graph_load(&coo, sec, e);
    if (rc < 0)
        return NULL;
    if (rc > 0)
        graph_gen_rodinia(&coo, (uint32_t)cfg_uint(sec, "nodes"), env->seed);
    struct bfs *b = xcalloc(1, sizeof *b);
    graph_csr(&b->g, &coo, false);
    graph_coo_free(&coo);
    b->n = b->g.n;
    b->block = b->n > BFS_MAX_THREADS ? BFS_MAX_THREADS : b->n;
    b->grid = (uint32_t)div_ceil(b->n, b->block);
    b->level = xmalloc((size_t)b->n * sizeof *b->level);
    bfs_levels(b);
    b->wg_edges = xmalloc(2 * (size_t)b->grid * sizeof *b->wg_edges);
    for (uint32_t g = 0; g < b->grid; g++) {
        b->wg_edges[2 * g] = b->g.row[g * b->block];
        b->wg_edges[2 * g + 1] = b->g.row[min_u64((uint64_t)(g + 1) * b->block, b->n)];
    }
    bfs_alloc(b, env);
    return b;
}

static void bfs_destroy(void *self)
{
    struct bfs *b = self;
    graph_free(&b->g);
    free(b->level);
    free(b->wg_edges);
    free(b);
}

/* Lanes whose node has BFS level lvl. */
static uint64_t bfs_at_level(const struct bfs *b, const struct kernel_warp *w, int32_t lvl)
{
    uint64_t m = 0, tid0 = kernel_gid(w, 0);
    for (unsigned l = 0; l < w->nlanes && tid0 + l < b->n; l++)
        m |= (uint64_t)(b->level[tid0 + l] == lvl) << l;
    return m;
}

static uint32_t bfs_degree(const struct bfs *b, uint64_t tid)
{
    return b->g.row[tid + 1] - b->g.row[tid];
}

/* Kernel1 state: r[0] frontier lanes, r[1] edge iteration j, r[2] the
 * largest frontier degree, r[3] lanes whose neighbour is unvisited. */
enum { K1_PRO, K1_MASK, K1_TEST, K1_CLEAR, K1_NODE, K1_END, K1_EADDR, K1_EDGE, K1_VADDR,
       K1_VISITED, K1_VTEST, K1_COST, K1_ADD, K1_STCOST, K1_STUPD, K1_LOOP, K1_EXIT };

/* Lanes with an edge at iteration j; lane_addr = that edge's element of buf
 * (edge array) or of the neighbour (visited, cost, updating). */
static uint64_t k1_edge_lanes(const struct bfs *b, struct kernel_warp *w, uint64_t m,
                              const struct kernel_buf *buf, unsigned es, bool neighbour)
{
    uint64_t tid0 = kernel_gid(w, 0), out = 0;
    for (; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        uint64_t tid = tid0 + l;
        if (w->r[1] >= bfs_degree(b, tid))
            continue;
        uint32_t e = b->g.row[tid] + (uint32_t)w->r[1];
        w->lane_addr[l] = buf->base + (uint64_t)(neighbour ? b->g.col[e] : e) * es;
        out |= 1ull << l;
    }
    return out;
}

/* Lanes of m whose neighbour at iteration j is not yet visited (level i + 1). */
static uint64_t k1_unvisited(const struct bfs *b, const struct kernel_warp *w, uint64_t m,
                             int32_t lvl)
{
    uint64_t tid0 = kernel_gid(w, 0), out = 0;
    for (; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        uint64_t tid = tid0 + l;
        if (w->r[1] >= bfs_degree(b, tid))
            continue;
        int32_t nl = b->level[b->g.col[b->g.row[tid] + w->r[1]]];
        out |= (uint64_t)(nl < 0 || nl > lvl) << l;
    }
    return out;
}

static void k1_setup(const struct bfs *b, struct kernel_warp *w, int32_t lvl)
{
    w->r[0] = bfs_at_level(b, w, lvl);
    w->r[2] = 0;
    uint64_t tid0 = kernel_gid(w, 0);
    for (uint64_t m = w->r[0]; m; m &= m - 1)
        w->r[2] = max_u64(w->r[2], bfs_degree(b, tid0 + (unsigned)__builtin_ctzll(m)));
}

static void k1_loop_op(const struct bfs *b, struct kernel_warp *w, struct kernel_op *op,
                       int32_t lvl)
{
    uint64_t tid0 = kernel_gid(w, 0);
    switch (w->pc) {
    case K1_EADDR: graph_op_alu(op, ALU_ADDR, 0, 0); break;
    case K1_EDGE:
        graph_op_lanes(op, KOP_LOAD, 4, k1_edge_lanes(b, w, w->r[0], b->edges, 4, false));
        op->dst = 3;
        break;
    case K1_VADDR: graph_op_alu(op, ALU_VADDR, 3, 0); break;
    case K1_VISITED:
        graph_op_lanes(op, KOP_LOAD, 1, k1_edge_lanes(b, w, w->r[0], b->visited, 1, true));
        op->dst = 4;
        break;
    case K1_VTEST:
        graph_op_alu(op, ALU_VISIT, 4, 0);
        w->r[3] = k1_unvisited(b, w, w->r[0], lvl);
        if (!w->r[3])
            w->pc = K1_LOOP - 1;
        break;
    case K1_COST:
        graph_op_elem(op, KOP_LOAD, b->cost, tid0, 4, w->r[3]);
        op->dst = 5;
        break;
    case K1_ADD: graph_op_alu(op, ALU_COST, 5, 0); break;
    case K1_STCOST:
        graph_op_lanes(op, KOP_STORE, 4, k1_edge_lanes(b, w, w->r[3], b->cost, 4, true));
        op->src[0] = 5;
        break;
    case K1_STUPD:
        graph_op_lanes(op, KOP_STORE, 1, k1_edge_lanes(b, w, w->r[3], b->updating, 1, true));
        break;
    default: /* K1_LOOP */
        graph_op_alu(op, ALU_LOOP, 0, 0);
        if (++w->r[1] < w->r[2])
            w->pc = K1_EADDR - 1;
        break;
    }
}

/* Kernel: expand the frontier of level p[0]. */
static void bfs_k1_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct bfs *b = k->ctx;
    int32_t lvl = (int32_t)k->p[0];
    uint64_t tid0 = kernel_gid(w, 0), in = graph_lanes_below(w, b->n);
    if (!in)
        w->pc = K1_EXIT;
    switch (w->pc) {
    case K1_PRO: graph_op_alu(op, ALU_PROLOGUE, 0, 0); break;
    case K1_MASK:
        graph_op_elem(op, KOP_LOAD, b->mask, tid0, 1, in);
        op->dst = 1;
        break;
    case K1_TEST:
        graph_op_alu(op, ALU_TEST, 1, 0);
        k1_setup(b, w, lvl);
        if (!w->r[0])
            w->pc = K1_EXIT - 1;
        break;
    case K1_CLEAR: graph_op_elem(op, KOP_STORE, b->mask, tid0, 1, w->r[0]); break;
    case K1_NODE:
        graph_op_elem(op, KOP_LOAD, b->nodes, tid0, 8, w->r[0]);
        op->dst = 2;
        break;
    case K1_END:
        graph_op_alu(op, ALU_END, 2, 0);
        if (!w->r[2])
            w->pc = K1_EXIT - 1;
        break;
    case K1_EXIT: op->kind = KOP_EXIT; return;
    default: k1_loop_op(b, w, op, lvl); break;
    }
    w->pc++;
}

/* Kernel2: the nodes reached in this level (level p[0] + 1) join the
 * frontier. pc: prologue, load updating, test, store mask, visited, over,
 * updating, exit. */
static void bfs_k2_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct bfs *b = k->ctx;
    uint64_t tid0 = kernel_gid(w, 0), in = graph_lanes_below(w, b->n);
    if (!in)
        w->pc = 7;
    switch (w->pc) {
    case 0: graph_op_alu(op, ALU_PROLOGUE2, 0, 0); break;
    case 1:
        graph_op_elem(op, KOP_LOAD, b->updating, tid0, 1, in);
        op->dst = 1;
        break;
    case 2:
        w->r[0] = bfs_at_level(b, w, (int32_t)k->p[0] + 1);
        graph_op_alu(op, ALU_TEST + (w->r[0] ? ALU_STORES2 : 0), 1, 0);
        if (!w->r[0])
            w->pc = 6;
        break;
    case 3: graph_op_elem(op, KOP_STORE, b->mask, tid0, 1, w->r[0]); break;
    case 4: graph_op_elem(op, KOP_STORE, b->visited, tid0, 1, w->r[0]); break;
    case 5:
        graph_op_elem(op, KOP_STORE, b->over, 0, 1, w->r[0]);
        op->stride = 0; /* every lane writes *g_over */
        break;
    case 6: graph_op_elem(op, KOP_STORE, b->updating, tid0, 1, w->r[0]); break;
    default: op->kind = KOP_EXIT; return;
    }
    w->pc++;
}

/* Kernel args: nodes, edges, mask, updating, visited, cost. */
static unsigned bfs_k1_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                              struct addr_range *out, unsigned max)
{
    const struct bfs *b = k->ctx;
    uint64_t first = (uint64_t)wg * b->block;
    if (max < 1)
        return 0;
    switch (arg) {
    case 0: return graph_slice(b->nodes, first, b->block, b->n, 8, out);
    case 1: return graph_slice(b->edges, b->wg_edges[2 * wg], b->wg_edges[2 * wg + 1] - b->wg_edges[2 * wg], b->g.m, 4, out);
    case 2: return graph_slice(b->mask, first, b->block, b->n, 1, out);
    default: return 0; /* neighbours: irregular */
    }
}

/* Kernel2 args: mask, updating, visited (the work-group's nodes), over. */
static unsigned bfs_k2_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                              struct addr_range *out, unsigned max)
{
    const struct bfs *b = k->ctx;
    if (max < 1 || arg >= k->nargs)
        return 0;
    if (arg == 3)
        return graph_slice(b->over, 0, 1, 1, 1, out);
    return graph_slice(k->args[arg].buf, (uint64_t)wg * b->block, b->block, b->n, 1, out);
}

static bool bfs_next_kernel(void *self, struct kernel *k)
{
    struct bfs *b = self;
    unsigned it = b->kernels / 2;
    if (it > b->depth)
        return false;
    if (b->kernels % 2 == 0) {
        wl_kernel_init(k, "Kernel", b->grid, 1, b->block, 1, bfs_k1_next);
        wl_kernel_arg(k, b->nodes, KERNEL_R);
        wl_kernel_arg(k, b->edges, KERNEL_R);
        wl_kernel_arg(k, b->mask, KERNEL_RW);
        wl_kernel_arg(k, b->updating, KERNEL_RW);
        wl_kernel_arg(k, b->visited, KERNEL_R);
        wl_kernel_arg(k, b->cost, KERNEL_RW);
        /* the CSR arrays: read-only, same work-group ranges in every Kernel */
        k->args[0].same_pattern = k->args[1].same_pattern = it > 0;
        k->ranges = bfs_k1_ranges;
    } else {
        wl_kernel_init(k, "Kernel2", b->grid, 1, b->block, 1, bfs_k2_next);
        wl_kernel_arg(k, b->mask, KERNEL_RW);
        wl_kernel_arg(k, b->updating, KERNEL_RW);
        wl_kernel_arg(k, b->visited, KERNEL_RW);
        wl_kernel_arg(k, b->over, KERNEL_RW);
        k->ranges = bfs_k2_ranges;
    }
    k->p[0] = it;
    k->ctx = b;
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
