/*
 * color.c -- Pannotia graph colouring, max variant (graph_app/color,
 * coloring_max host code with kernels color1 and color2): each round, every
 * uncoloured vertex whose random value is the largest among its uncoloured
 * neighbours takes the round's colour:
 *     while (stop) { stop = 0;
 *         color1(row, col, node_value, col_array, stop, max_d, color, n, m);
 *         color2(node_value, col_array, max_d, color, n, m); color++; }
 * color1: if col_array[tid] == -1, max over neighbours e of node_value[col[e]]
 * where col_array[col[e]] == -1 and start != end - 1 (then *stop = 1);
 * max_d[tid] = that max (-1 if none). color2: if col_array[tid] == -1 and
 * node_value[tid] >= max_d[tid], col_array[tid] = color. One thread per
 * vertex, end = row[tid + 1] (num_edges for the last vertex).
 *
 * Modelled (kernel descriptions, src/workload/kd.h): the colouring runs in
 * the model first (the round each vertex is coloured in, the array `round`),
 * so every round knows its uncoloured lanes (round >= r), which neighbours
 * are still uncoloured (the array `live`, per edge: its neighbour's round,
 * 0 where the vertex has one neighbour; the lanes that store *stop and load
 * node_value) and which vertices take the colour (round == r). Warps walk
 * their lanes' neighbour lists in SIMT lock step through the CSR arrays.
 * Each work-group's slices are derived from the descriptions. Dynamic
 * kernels: 2 x rounds.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of the HIP port's
 * kernels (gem5-resources, pannotia/color kernel_max.h), every instruction
 * but global loads and stores, ret and cvta.to.global; blocks with no op
 * of their own are counted in the nearest op run as often. See
 * docs/workloads/color.md.
 * Abstracted: no data values; the host's reset of *stop is not simulated;
 * the compiler's reload of col[edge] after the store to *stop (the pointers
 * may alias) is not modelled, only its address arithmetic.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/pannotia/graph.h"
#include "workload/wl.h"

static const struct cfg_key color_keys[] = {
    GRAPH_ROAD_KEYS,
    {"block", CFG_INT, "128", 1, 1024, "threads per work-group (Pannotia's local work size)", NULL},
    GRAPH_INPUT_KEYS,
    CFG_END,
};

/*
 * The kernels, with the ALU counts of their PTX basic blocks (see the file
 * header). Prologues: parameters, id, bounds test, col_array[tid]'s address
 * (17 in color1, 14 in color2); the col_array[tid] == -1 compare and branch
 * (2). color1: row[tid]'s address, the empty-loop test and max_d[tid]'s
 * address (6) and tid + 1 < num_nodes (add, compare, branch: 3), after
 * row[tid + 1]; the loop set-up in warps with an edge (13: end -
 * 1, trip count mod 4, the unrolled test, pointer). The edge loop is
 * unrolled 4 times after a rolled remainder loop of degree mod 4
 * iterations; the counts are the remainder loop's, the path of the road
 * graphs' degrees 1 to 3: the pointer increment of col[edge] (1); the
 * 64-bit address of col_array[col[edge]] (2); col_array[..] != -1, start
 * == end - 1, or, branch (4); the constant 1, node_value[col[edge]]'s
 * address, max (4); remainder count, compare, branch (3). color2:
 * node_value's and max_d's addresses, compare and branch (5).
 */
static const char *const color_params[] = {"n", "r", NULL};
static const char *const color_arrays[] = {"row", "col", "round", "live", NULL};
static const char *const c1_bufs[] = {"row", "col", "node_value", "col_array", "stop", "max_d",
                                      NULL};
static const char *const c2_bufs[] = {"node_value", "col_array", "max_d", NULL};
static const struct kd_desc color_kd[2] = {
    {.name = "color1", .params = color_params, .bufs = c1_bufs, .arrays = color_arrays,
     .body = "if gid < n\n"
             "  alu 17\n"
             "  load col_array[gid] 4 -> r1\n"
             "  alu 2 < r1\n"
             "  if r - 1 < @round[gid]               # uncoloured\n"
             "    load row[gid] 4 -> r2\n"
             "    if gid < n - 1                     # else end = num_edges\n"
             "      load row[gid + 1] 4 -> r3\n"
             "    end\n"
             "    alu 9 + 13 [@row[gid] < @row[gid + 1]] < r2 r3\n"
             "    for m0 = @row[gid] .. @row[gid + 1]\n"
             "      alu 1\n"
             "      load col[m0] 4 -> r4\n"
             "      alu 2 < r4\n"
             "      load col_array[@col[m0]] 4 -> r5\n"
             "      alu 4 < r5\n"
             "      if r - 1 < @live[m0]             # an uncoloured neighbour\n"
             "        store stop[0] 4                # *stop = 1 from every such lane\n"
             "        load node_value[@col[m0]] 4 -> r6\n"
             "        alu 4 < r6\n"
             "      end\n"
             "      alu 3\n"
             "    end\n"
             "    store max_d[gid] 4 < r6\n"
             "  end\n"
             "end\n"},
    {.name = "color2", .params = color_params, .bufs = c2_bufs, .arrays = color_arrays,
     .body = "if gid < n\n"
             "  alu 14\n"
             "  load col_array[gid] 4 -> r1\n"
             "  alu 2 < r1\n"
             "  if r - 1 < @round[gid]               # uncoloured\n"
             "    load node_value[gid] 4 -> r2\n"
             "    load max_d[gid] 4 -> r3\n"
             "    alu 5 < r2 r3\n"
             "    if @round[gid] < r + 1             # coloured in this round\n"
             "      store col_array[gid] 4\n"
             "    end\n"
             "  end\n"
             "end\n"},
};

struct color {
    struct wl_env *env;
    struct kd_prog *prog[2];
    struct graph g;
    uint32_t *round;      /* the round (1..) in which each vertex is coloured */
    uint32_t *live;       /* per edge: its neighbour's round, 0 if its vertex has one edge */
    struct kd_array arrays[4];
    uint32_t n, block, grid, rounds;
    unsigned kernels;
    const struct kernel_buf *row, *col, *value, *colors, *stop, *max;
};

/* Run the algorithm: the round of every vertex and the number of rounds. */
static void color_run(struct color *c, const float *value)
{
    float *max = xmalloc((size_t)c->n * sizeof *max + 4);
    uint32_t left = c->n;
    for (uint32_t r = 1;; r++) {
        bool stop = false;
        for (uint32_t v = 0; v < c->n; v++) {
            if (c->round[v])
                continue;
            uint32_t start = c->g.row[v], end = c->g.row[v + 1];
            max[v] = -1;
            for (uint32_t e = start; e < end; e++) {
                uint32_t u = c->g.col[e];
                if (c->round[u] == 0 && start != end - 1) {
                    stop = true;
                    max[v] = value[u] > max[v] ? value[u] : max[v];
                }
            }
        }
        for (uint32_t v = 0; v < c->n; v++)
            if (!c->round[v] && value[v] >= max[v]) {
                c->round[v] = r;
                left--;
            }
        if (!stop) {
            c->rounds = r;
            break;
        }
    }
    BUG_ON(left);
    free(max);
}

static void color_alloc(struct color *c, struct wl_env *env)
{
    c->row = wl_alloc(env, "row", (uint64_t)c->n * 4);
    c->col = wl_alloc(env, "col", (uint64_t)c->g.m * 4);
    c->value = wl_alloc(env, "node_value", (uint64_t)c->n * 4);
    c->colors = wl_alloc(env, "col_array", (uint64_t)c->n * 4);
    c->stop = wl_alloc(env, "stop", 4);
    c->max = wl_alloc(env, "max_d", (uint64_t)c->n * 4);
}

static void color_destroy(void *self)
{
    struct color *c = self;
    kd_progs_free(c->prog, 2);
    graph_free(&c->g);
    free(c->round);
    free(c->live);
    free(c);
}

/* The arrays bound to the kernels: the CSR, the rounds, and per edge the
 * round its neighbour is coloured in (0 where the vertex has one edge:
 * start == end - 1, never a live neighbour). */
static void color_arrays_init(struct color *c)
{
    c->live = xmalloc(((size_t)c->g.m + 1) * sizeof *c->live);
    for (uint32_t v = 0; v < c->n; v++)
        for (uint32_t e = c->g.row[v]; e < c->g.row[v + 1]; e++)
            c->live[e] = c->g.row[v + 1] - c->g.row[v] == 1 ? 0 : c->round[c->g.col[e]];
    c->arrays[0] = (struct kd_array){c->g.row, (uint64_t)c->n + 1};
    c->arrays[1] = (struct kd_array){c->g.col, c->g.m};
    c->arrays[2] = (struct kd_array){c->round, c->n};
    c->arrays[3] = (struct kd_array){c->live, c->g.m};
}

static void *color_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct graph_coo coo;
    if (graph_load_road(&coo, sec, env->seed, e))
        return NULL;
    struct color *c = xcalloc(1, sizeof *c);
    c->env = env;
    graph_csr(&c->g, &coo, false);
    graph_coo_free(&coo);
    if (kd_compile_all(color_kd, 2, c->prog, e)) {
        color_destroy(c);
        return NULL;
    }
    c->n = c->g.n;
    c->block = (uint32_t)cfg_uint(sec, "block");
    c->grid = (uint32_t)div_ceil(c->n, c->block);
    float *value = xmalloc((size_t)c->n * sizeof *value + 4);
    struct rng r;
    rng_seed(&r, env->seed ^ 0xc0104ull);
    for (uint32_t v = 0; v < c->n; v++) /* node_value[i] = rand() / (float)RAND_MAX */
        value[v] = (float)rng_unit(&r);
    c->round = xcalloc((size_t)c->n + 1, sizeof *c->round);
    color_run(c, value);
    free(value);
    color_arrays_init(c);
    color_alloc(c, env);
    return c;
}

static bool color_next_kernel(void *self, struct kernel *k)
{
    struct color *c = self;
    uint32_t r = c->kernels / 2 + 1, kind = c->kernels % 2;
    if (r > c->rounds)
        return false;
    const struct kernel_buf *bufs[2][6] = {
        {c->row, c->col, c->value, c->colors, c->stop, c->max},
        {c->value, c->colors, c->max},
    };
    int64_t params[] = {c->n, r};
    struct err e;
    if (kd_launch(c->prog[kind], k, (struct kernel_dim){c->grid, 1, 1},
                  (struct kernel_dim){c->block, 1, 1}, params, bufs[kind], c->arrays, &e))
        return wl_fail(c->env, &e);
    /* the CSR arrays: read-only, same work-group ranges every round */
    if (kind == 0)
        k->args[0].same_pattern = k->args[1].same_pattern = r > 1;
    c->kernels++;
    return true;
}

static const char *const color_small[] = {"nodes=1024", NULL};

const struct wl_ops wl_color = {
    .name = "color",
    .suite = "Pannotia",
    .desc = "Pannotia Color-max: max-value graph colouring, color1 + color2 per round (CSR)",
    .keys = color_keys,
    .small = color_small,
    .create = color_create,
    .next_kernel = color_next_kernel,
    .destroy = color_destroy,
};
