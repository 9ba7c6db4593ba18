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
 * Modelled: the colouring runs in the model first (the round each vertex is
 * coloured in), so every round knows its uncoloured lanes, which neighbours
 * are still uncoloured (the lanes that store *stop and load node_value) and
 * which vertices take the colour. Warps walk their lanes' neighbour lists
 * in SIMT lock step. Dynamic kernels: 2 x rounds.
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

#include "workload/pannotia/graph.h"
#include "workload/wl.h"

/*
 * ALU instructions per step: PTX counts of the kernels' basic blocks (see
 * the file header). The edge loop is unrolled 4 times after a rolled
 * remainder loop of degree mod 4 iterations; the counts are the remainder
 * loop's, the path of the road graphs' degrees 1 to 3.
 */
#define ALU_PRO1 17    /* color1: parameters, id, bounds test, col_array[tid]'s address */
#define ALU_PRO2 14    /* color2: the same */
#define ALU_TEST 2     /* col_array[tid] == -1 compare and branch */
#define ALU_ENDTEST 3  /* tid + 1 < num_nodes: add, compare, branch */
#define ALU_END 6      /* row[tid]'s address, the empty-loop test, max_d[tid]'s address */
#define ALU_SETUP 13   /* loop set-up: end - 1, trip count mod 4, the unrolled test, pointer */
#define ALU_EADDR 1    /* pointer increment of col[edge] */
#define ALU_NADDR 2    /* 64-bit address of col_array[col[edge]] */
#define ALU_UNCOL 4    /* col_array[..] != -1, start == end - 1, or, branch */
#define ALU_MAX 4      /* the constant 1, node_value[col[edge]]'s address, max */
#define ALU_LOOP 3     /* remainder count, compare, branch */
#define ALU_COLOR 5    /* node_value's and max_d's addresses, compare and branch */

static const struct cfg_key color_keys[] = {
    GRAPH_ROAD_KEYS,
    {"block", CFG_INT, "128", 1, 1024, "threads per work-group (Pannotia's local work size)", NULL},
    GRAPH_INPUT_KEYS,
    CFG_END,
};

struct color {
    struct graph g;
    uint32_t *round;      /* the round (1..) in which each vertex is coloured */
    uint32_t *wg_edges;   /* per work-group: first and end edge index */
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

static void *color_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct graph_coo coo;
    if (graph_load_road(&coo, sec, env->seed, e))
        return NULL;
    struct color *c = xcalloc(1, sizeof *c);
    graph_csr(&c->g, &coo, false);
    graph_coo_free(&coo);
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
    c->wg_edges = xmalloc(2 * (size_t)c->grid * sizeof *c->wg_edges);
    for (uint32_t g = 0; g < c->grid; g++) {
        c->wg_edges[2 * g] = c->g.row[(uint64_t)g * c->block];
        c->wg_edges[2 * g + 1] = c->g.row[min_u64((uint64_t)(g + 1) * c->block, c->n)];
    }
    color_alloc(c, env);
    return c;
}

static void color_destroy(void *self)
{
    struct color *c = self;
    graph_free(&c->g);
    free(c->round);
    free(c->wg_edges);
    free(c);
}

/* Lanes whose vertex is still uncoloured at round r (col_array == -1). */
static uint64_t uncolored(const struct color *c, const struct kernel_warp *w, uint32_t r)
{
    uint64_t m = 0, tid0 = kernel_gid(w, 0);
    for (unsigned l = 0; l < w->nlanes && tid0 + l < c->n; l++)
        m |= (uint64_t)(c->round[tid0 + l] >= r) << l;
    return m;
}

static uint32_t degree(const struct color *c, uint64_t v)
{
    return c->g.row[v + 1] - c->g.row[v];
}

/* Lanes of m with a neighbour at iteration j = r[1]; lane_addr = the edge's
 * element of buf (col) or the neighbour's (col_array, node_value). With
 * `live`, only lanes whose neighbour is uncoloured at round r and whose
 * vertex has more than one neighbour. */
static uint64_t edge_lanes(const struct color *c, struct kernel_warp *w, uint64_t m,
                           const struct kernel_buf *buf, bool neighbour, uint32_t live)
{
    uint64_t tid0 = kernel_gid(w, 0), out = 0;
    for (; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        uint64_t tid = tid0 + l;
        uint32_t deg = degree(c, tid);
        if (w->r[1] >= deg)
            continue;
        uint32_t e = c->g.row[tid] + (uint32_t)w->r[1], u = c->g.col[e];
        if (live && (c->round[u] < live || deg == 1))
            continue;
        w->lane_addr[l] = buf->base + (uint64_t)(neighbour ? u : e) * 4;
        out |= 1ull << l;
    }
    return out;
}

/* color1 state: r[0] uncoloured lanes, r[1] edge iteration j, r[2] the
 * largest degree among them, r[3] lanes with a live neighbour at j. */
enum { C1_PRO, C1_COLOR, C1_TEST, C1_START, C1_END, C1_ENDT, C1_EADDR, C1_EDGE, C1_NADDR,
       C1_NCOLOR, C1_NTEST, C1_STOP, C1_VALUE, C1_MAX, C1_LOOP, C1_STMAX, C1_EXIT };

static void c1_loop_op(const struct color *c, struct kernel_warp *w, struct kernel_op *op,
                       uint32_t r)
{
    switch (w->pc) {
    case C1_EADDR: graph_op_alu(op, ALU_EADDR, 0, 0); break;
    case C1_EDGE:
        graph_op_lanes(op, KOP_LOAD, 4, edge_lanes(c, w, w->r[0], c->col, false, 0));
        op->dst = 4;
        break;
    case C1_NADDR: graph_op_alu(op, ALU_NADDR, 4, 0); break;
    case C1_NCOLOR:
        graph_op_lanes(op, KOP_LOAD, 4, edge_lanes(c, w, w->r[0], c->colors, true, 0));
        op->dst = 5;
        break;
    case C1_NTEST:
        graph_op_alu(op, ALU_UNCOL, 5, 0);
        w->r[3] = edge_lanes(c, w, w->r[0], c->value, true, r);
        if (!w->r[3])
            w->pc = C1_LOOP - 1;
        break;
    case C1_STOP:
        graph_op_elem(op, KOP_STORE, c->stop, 0, 4, w->r[3]);
        op->stride = 0; /* *stop = 1 from every such lane */
        break;
    case C1_VALUE:
        graph_op_lanes(op, KOP_LOAD, 4, edge_lanes(c, w, w->r[3], c->value, true, r));
        op->dst = 6;
        break;
    case C1_MAX: graph_op_alu(op, ALU_MAX, 6, 0); break;
    default: /* C1_LOOP */
        graph_op_alu(op, ALU_LOOP, 0, 0);
        if (++w->r[1] < w->r[2])
            w->pc = C1_EADDR - 1;
        break;
    }
}

static void c1_setup(const struct color *c, struct kernel_warp *w, uint32_t r)
{
    uint64_t tid0 = kernel_gid(w, 0);
    w->r[0] = uncolored(c, w, r);
    w->r[2] = 0;
    for (uint64_t m = w->r[0]; m; m &= m - 1)
        w->r[2] = max_u64(w->r[2], degree(c, tid0 + (unsigned)__builtin_ctzll(m)));
}

/* color1 of round p[0]. */
static void color1_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct color *c = k->ctx;
    uint32_t r = (uint32_t)k->p[0];
    uint64_t tid0 = kernel_gid(w, 0), in = graph_lanes_below(w, c->n);
    if (!in)
        w->pc = C1_EXIT;
    switch (w->pc) {
    case C1_PRO: graph_op_alu(op, ALU_PRO1, 0, 0); break;
    case C1_COLOR:
        graph_op_elem(op, KOP_LOAD, c->colors, tid0, 4, in);
        op->dst = 1;
        break;
    case C1_TEST:
        graph_op_alu(op, ALU_TEST, 1, 0);
        c1_setup(c, w, r);
        if (!w->r[0])
            w->pc = C1_EXIT - 1;
        break;
    case C1_START:
        graph_op_elem(op, KOP_LOAD, c->row, tid0, 4, w->r[0]);
        op->dst = 2;
        break;
    case C1_END: /* row[tid + 1], except for the last vertex (end = num_edges) */
        if (!(w->r[0] & graph_lanes_below(w, c->n - 1))) {
            graph_op_alu(op, ALU_ENDTEST, 0, 0); /* only the last vertex: the tid + 1 test */
            break;
        }
        graph_op_elem(op, KOP_LOAD, c->row, tid0 + 1, 4, w->r[0] & graph_lanes_below(w, c->n - 1));
        op->dst = 3;
        break;
    case C1_ENDT: /* with the tid + 1 test where row[tid + 1] was loaded */
        graph_op_alu(op, ALU_END + (w->r[0] & graph_lanes_below(w, c->n - 1) ? ALU_ENDTEST : 0) +
                             (w->r[2] ? ALU_SETUP : 0), 2, 3);
        if (!w->r[2])
            w->pc = C1_STMAX - 1;
        break;
    case C1_STMAX:
        graph_op_elem(op, KOP_STORE, c->max, tid0, 4, w->r[0]);
        op->src[0] = 6;
        break;
    case C1_EXIT: op->kind = KOP_EXIT; return;
    default: c1_loop_op(c, w, op, r); break;
    }
    w->pc++;
}

/* Lanes coloured in round r. */
static uint64_t colored_now(const struct color *c, const struct kernel_warp *w, uint32_t r)
{
    uint64_t m = 0, tid0 = kernel_gid(w, 0);
    for (unsigned l = 0; l < w->nlanes && tid0 + l < c->n; l++)
        m |= (uint64_t)(c->round[tid0 + l] == r) << l;
    return m;
}

/* color2 of round p[0]. pc: prologue, load col_array, test, load
 * node_value, load max_d, compare, store col_array, exit. */
static void color2_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct color *c = k->ctx;
    uint32_t r = (uint32_t)k->p[0];
    uint64_t tid0 = kernel_gid(w, 0), in = graph_lanes_below(w, c->n);
    if (!in)
        w->pc = 7;
    switch (w->pc) {
    case 0: graph_op_alu(op, ALU_PRO2, 0, 0); break;
    case 1:
        graph_op_elem(op, KOP_LOAD, c->colors, tid0, 4, in);
        op->dst = 1;
        break;
    case 2:
        graph_op_alu(op, ALU_TEST, 1, 0);
        w->r[0] = uncolored(c, w, r);
        if (!w->r[0])
            w->pc = 6;
        break;
    case 3:
        graph_op_elem(op, KOP_LOAD, c->value, tid0, 4, w->r[0]);
        op->dst = 2;
        break;
    case 4:
        graph_op_elem(op, KOP_LOAD, c->max, tid0, 4, w->r[0]);
        op->dst = 3;
        break;
    case 5:
        graph_op_alu(op, ALU_COLOR, 2, 3);
        w->r[0] = colored_now(c, w, r);
        if (!w->r[0])
            w->pc = 6;
        break;
    case 6: graph_op_elem(op, KOP_STORE, c->colors, tid0, 4, w->r[0]); break;
    default: op->kind = KOP_EXIT; return;
    }
    w->pc++;
}

/* color1 args: row, col, node_value, col_array, stop, max_d. */
static unsigned color1_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                              struct addr_range *out, unsigned max)
{
    const struct color *c = k->ctx;
    uint64_t first = (uint64_t)wg * c->block;
    if (max < 1)
        return 0;
    switch (arg) {
    case 0: return graph_slice(c->row, first, c->block + 1, c->n, 4, out);
    case 1:
        return graph_slice(c->col, c->wg_edges[2 * wg],
                           c->wg_edges[2 * wg + 1] - c->wg_edges[2 * wg], c->g.m, 4, out);
    case 4: return graph_slice(c->stop, 0, 1, 1, 4, out);
    case 5: return graph_slice(c->max, first, c->block, c->n, 4, out);
    default: return 0; /* neighbours' values and colours: irregular */
    }
}

/* color2 args: node_value, col_array, max_d: the work-group's vertices. */
static unsigned color2_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                              struct addr_range *out, unsigned max)
{
    const struct color *c = k->ctx;
    if (max < 1 || arg >= k->nargs)
        return 0;
    return graph_slice(k->args[arg].buf, (uint64_t)wg * c->block, c->block, c->n, 4, out);
}

static bool color_next_kernel(void *self, struct kernel *k)
{
    struct color *c = self;
    uint32_t r = c->kernels / 2 + 1;
    if (r > c->rounds)
        return false;
    if (c->kernels % 2 == 0) {
        wl_kernel_init(k, "color1", c->grid, 1, c->block, 1, color1_next);
        wl_kernel_arg(k, c->row, KERNEL_R);
        wl_kernel_arg(k, c->col, KERNEL_R);
        wl_kernel_arg(k, c->value, KERNEL_R);
        wl_kernel_arg(k, c->colors, KERNEL_R);
        wl_kernel_arg(k, c->stop, KERNEL_RW);
        wl_kernel_arg(k, c->max, KERNEL_RW);
        /* the CSR arrays: read-only, same work-group ranges every round */
        k->args[0].same_pattern = k->args[1].same_pattern = r > 1;
        k->ranges = color1_ranges;
    } else {
        wl_kernel_init(k, "color2", c->grid, 1, c->block, 1, color2_next);
        wl_kernel_arg(k, c->value, KERNEL_R);
        wl_kernel_arg(k, c->colors, KERNEL_RW);
        wl_kernel_arg(k, c->max, KERNEL_R);
        k->ranges = color2_ranges;
    }
    k->p[0] = r;
    k->ctx = c;
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
