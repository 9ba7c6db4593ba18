/*
 * The interpreter's common-case paths (src/workload/kd.c: the forms it
 * composes at each launch, the lane forms of loops over array bounds)
 * against its general paths (kd_desc.general_only): every operation of every
 * warp, and the address of every active lane, the same.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "workload/kd.h"

#define NV 300 /* vertices of the test graph */

static const char *const params[] = {"n", "w", NULL};
static const char *const bufs[] = {"a", "b", NULL};
static const char *const arrays[] = {"row", "col", NULL};
static const struct kernel_buf buf_a = {"a", 0x100000, 1 << 24};
static const struct kernel_buf buf_b = {"b", 0x2000000, 1 << 24};
static const struct kernel_buf *const both[] = {&buf_a, &buf_b};

/* Compressed rows of NV vertices with 0 to 5 arcs each, to scattered
 * vertices: the lanes of a warp leave a loop over their arcs at different
 * iterations. */
static uint32_t row[NV + 1], col[5 * NV];
static struct kd_array graph[2];

static void make_graph(void)
{
    row[0] = 0;
    for (uint32_t v = 0; v < NV; v++) {
        uint32_t deg = (v * 7 + v / 3) % 6;
        for (uint32_t j = 0; j < deg; j++)
            col[row[v] + j] = (v * 13 + j * 101) % NV;
        row[v + 1] = row[v] + deg;
    }
    graph[0] = (struct kd_array){row, NV + 1};
    graph[1] = (struct kd_array){col, row[NV]};
}

static struct kd_prog *compile(const char *body, const char *wg_items, bool general,
                               struct kd_desc *d)
{
    *d = (struct kd_desc){.name = "t", .params = params, .bufs = bufs, .arrays = arrays,
                          .body = body, .wg_items = wg_items, .general_only = general};
    struct err e = {0};
    struct kd_prog *p = kd_compile(d, &e);
    cr_assert(p, "%s", e.msg);
    return p;
}

static bool same_op(const struct kernel_op *x, const struct kernel_op *y)
{
    return x->kind == y->kind && x->size == y->size && x->scope == y->scope &&
           x->flags == y->flags && x->dst == y->dst && x->ndst == y->ndst &&
           x->src[0] == y->src[0] && x->src[1] == y->src[1] && x->lanes == y->lanes &&
           x->sem == y->sem && x->site == y->site && x->lat == y->lat && x->ii == y->ii &&
           x->n == y->n && x->wstride == y->wstride && x->srcs == y->srcs &&
           x->mask == y->mask && x->base == y->base && x->stride == y->stride;
}

/* Every warp of the launch, warp_size lanes each, op by op in both ways. */
static void compare_warps(const struct kernel *k0, const struct kernel *k1, const char *body,
                          unsigned warp_size)
{
    uint32_t threads = k0->block.x * k0->block.y * k0->block.z;
    uint32_t nwg = k0->grid.x * k0->grid.y * k0->grid.z;
    for (uint32_t g = 0; g < nwg; g++) {
        for (uint32_t idx = 0; idx * warp_size < threads; idx++) {
            struct kernel_warp w[2];
            for (unsigned j = 0; j < 2; j++)
                w[j] = (struct kernel_warp){
                    .k = j ? k1 : k0, .wg = g, .warp = idx, .warp_size = warp_size,
                    .wg_id = {g % k0->grid.x, g / k0->grid.x % k0->grid.y,
                              g / (k0->grid.x * k0->grid.y)},
                    .nlanes = threads - idx * warp_size < warp_size ? threads - idx * warp_size
                                                                    : warp_size};
            for (unsigned n = 0;; n++) {
                struct kernel_op op[2] = {{0}, {0}};
                k0->next(k0, &w[0], &op[0]);
                k1->next(k1, &w[1], &op[1]);
                cr_assert(same_op(&op[0], &op[1]), "%swork-group %u, warp %u, op %u: kind %u/%u",
                          body, g, idx, n, op[0].kind, op[1].kind);
                uint64_t m = op[0].mask ? op[0].mask
                                        : (w[0].nlanes >= 64 ? ~0ull : (1ull << w[0].nlanes) - 1);
                for (; op[0].lanes && m; m &= m - 1) {
                    unsigned l = (unsigned)__builtin_ctzll(m);
                    cr_assert_eq(w[0].lane_addr[l], w[1].lane_addr[l],
                                 "%swork-group %u, warp %u, op %u, lane %u", body, g, idx, n, l);
                }
                if (op[0].kind == KOP_EXIT)
                    break;
                cr_assert(n < 100000, "%s: no exit", body);
            }
        }
    }
}

static void compare_items(const char *body, const char *wg_items, struct kernel_dim grid,
                          struct kernel_dim block, int64_t n, int64_t w)
{
    struct kd_desc d[2];
    struct kd_prog *p[2];
    struct kernel k[2];
    int64_t v[] = {n, w};
    for (unsigned j = 0; j < 2; j++) {
        struct err e = {0};
        p[j] = compile(body, wg_items, j == 1, &d[j]);
        cr_assert_eq(kd_launch(p[j], &k[j], grid, block, v, both, graph, &e), 0, "%s", e.msg);
    }
    compare_warps(&k[0], &k[1], body, 32);
    compare_warps(&k[0], &k[1], body, 64);
    for (unsigned j = 0; j < 2; j++)
        kd_prog_free(p[j]);
}

static void compare(const char *body, struct kernel_dim grid, struct kernel_dim block, int64_t n,
                    int64_t w)
{
    compare_items(body, NULL, grid, block, n, w);
}

#define DIM(x, y) ((struct kernel_dim){x, y, 1})

/* A grid-stride loop with a tail (square): the op, memory, if and loop-end
 * statements of the common case. */
Test(kd_paths, grid_stride_loop_with_a_tail)
{
    make_graph();
    compare("alu 13\n"
            "for m0 = 0 .. w\n"
            "  if gid + m0*gdx*bdx < n\n"
            "    alu 2\n"
            "    load a[gid + m0*gdx*bdx] 4 -> r1\n"
            "    alu 4\n"
            "    store b[gid + m0*gdx*bdx] 4 < r1\n"
            "  end\n"
            "end\n",
            DIM(3, 1), DIM(96, 1), 1000, 4);
}

/* A 2D block: rows of lanes, a bound in both indices, a loop over rows that
 * is the same in every lane. */
Test(kd_paths, two_dimensional_blocks)
{
    make_graph();
    compare("if tx < w and ty < w\n"
            "  load a[(by*bdy + ty)*n + bx*bdx + tx] 4 -> r1\n"
            "end\n"
            "for m0 = 0 .. 3\n"
            "  load b[m0*n + by] 4 -> r2\n"
            "  if ty < m0 + 1\n"
            "    store a[ty*n + tx + m0] 4 < r2\n"
            "  end\n"
            "end\n",
            DIM(2, 2), DIM(12, 6), 64, 10);
}

/* A loop over a vertex's arcs (sssp): bounds and indices read arrays, the
 * lanes leave the loop one by one, an array read at an index read from an
 * array. */
Test(kd_paths, loops_over_array_bounds)
{
    make_graph();
    compare("if gid < n\n"
            "  alu 3 + 13 [@row[gid] < @row[gid + 1]]\n"
            "  for m0 = @row[gid] .. @row[gid + 1]\n"
            "    load a[m0] 4 -> r1\n"
            "    load b[@col[m0]] 4 -> r2\n"
            "    alu 2 < r1 r2\n"
            "  end\n"
            "  store a[gid] 4\n"
            "end\n",
            DIM(3, 1), DIM(128, 1), NV - 7, 0);
}

/* Nested loops: an outer one in every lane's first value of an inner one
 * over array bounds, and indices that combine both. */
Test(kd_paths, nested_loops_over_array_bounds)
{
    make_graph();
    compare("for m1 = 0 .. 2\n"
            "  for m0 = @row[gid] + m1 .. @row[gid + 1]\n"
            "    load b[@col[m0]*2 + m1] 4 -> r1\n"
            "    load a[m0 + 3*m1 + tx] 8 -> r2\n"
            "  end\n"
            "end\n",
            DIM(2, 1), DIM(100, 1), 0, 0);
}

/* Loops whose first value differs per lane, with a step; a < b < c;
 * coefficients other than 1 and negative ones. */
Test(kd_paths, strided_loops_and_two_sided_tests)
{
    make_graph();
    compare("for m0 = tx .. n step bdx\n"
            "  if 2 < m0 + 1 < w\n"
            "    load a[m0*2] 8 -> r1\n"
            "  end\n"
            "  store b[n - m0 - 1] 4\n"
            "end\n"
            "if 3*tx < w\n"
            "  load a[5*tx + bx] 4 -> r3\n"
            "end\n",
            DIM(2, 1), DIM(80, 1), 700, 150);
}

/* Conditions and indices that read an array at a fixed step per lane. */
Test(kd_paths, conditions_that_read_arrays)
{
    make_graph();
    compare("if @col[gid] < 150\n"
            "  load a[@col[gid] + tx] 4 -> r1\n"
            "end\n"
            "if @row[gid] < @row[gid + 1]\n"
            "  store b[gid] 4\n"
            "end\n",
            DIM(2, 1), DIM(96, 1), 0, 0);
}

/* A predicate computed by an alu clause, then branched on (vector_diff): the
 * if takes the clause's lanes. Counted loops over m1 and over m0 inside it,
 * each body ending in an access whose index has its loop's variable. */
Test(kd_paths, predicates_and_nested_counted_loops)
{
    make_graph();
    compare("if gid < n\n"
            "  alu 2 + 1 [0 < @col[gid]]\n"
            "  if 0 < @col[gid]\n"
            "    store b[0] 4\n"
            "  end\n"
            "end\n"
            "for m1 = 0 .. 3\n"
            "  load a[gid + m1*n] 4 -> r1\n"
            "  for m0 = 0 .. 2\n"
            "    store b[gid + m0*n + m1] 4 < r1\n"
            "  end\n"
            "  store a[gid + 2*m1] 4\n"
            "end\n",
            DIM(3, 1), DIM(96, 1), 250, 0);
}

/* An irregular partition (wg_items): each work-group's chunk of items, its
 * bounds wg0 and wg1 in the indices and the tests. */
Test(kd_paths, irregular_chunks)
{
    make_graph();
    compare_items("if wg0 + tx < wg1\n"
                  "  load a[wg0 + tx] 4 -> r1\n"
                  "  load b[@col[wg0 + tx]] 4 -> r2\n"
                  "  for m0 = 0 .. 2\n"
                  "    store a[wg0 + tx + 8*m0] 4\n"
                  "  end\n"
                  "end\n",
                  "row", DIM(40, 1), DIM(8, 1), 0, 0);
}
