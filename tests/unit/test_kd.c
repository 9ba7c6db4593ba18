/*
 * Kernel descriptions (src/workload/kd.h): the operations the interpreter
 * gives a warp (masks of ifs, loops, addresses for 1D and 2D blocks,
 * registers, scopes), the arguments and per-work-group ranges derived from
 * the description, shared bindings of identical launches, and the errors of
 * a description that is wrong.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"
#include "workload/kd.h"

static const char *const params[] = {"n", "w", NULL};
static const char *const bufs[] = {"a", "b", NULL};
static const char *const arrays[] = {"row", "col", NULL};
/* A graph of 4 vertices in compressed rows: 0 -> {1, 2, 3}, 1 -> {}, 2 -> {0}, 3 -> {0, 2} */
static const uint32_t row[] = {0, 3, 3, 4, 6};
static const uint32_t col[] = {1, 2, 3, 0, 0, 2};
static const struct kd_array graph[] = {{row, 5}, {col, 6}};
static const struct kernel_buf buf_a = {"a", 0x100000, 1 << 20};
static const struct kernel_buf buf_b = {"b", 0x200000, 1 << 20};
static const struct kernel_buf *const both[] = {&buf_a, &buf_b};

static struct kd_prog *compile(const char *body)
{
    return tkd_compile(params, bufs, arrays, body);
}

static void launch(struct kd_prog *p, struct kernel *k, uint32_t gx, uint32_t bx, uint32_t by,
                   int64_t n, int64_t w)
{
    int64_t v[] = {n, w};
    struct err e = {0};
    cr_assert_eq(kd_launch(p, k, (struct kernel_dim){gx, 1, 1}, (struct kernel_dim){bx, by, 1},
                           v, both, graph, &e),
                 0, "%s", e.msg);
}

static struct kernel_warp warp(const struct kernel *k, uint32_t wg, uint32_t idx, uint32_t lanes)
{
    return (struct kernel_warp){.k = k, .wg = wg, .wg_id = {wg, 0, 0}, .warp = idx,
                                .nlanes = lanes, .warp_size = 32};
}

static struct kernel_op next(const struct kernel *k, struct kernel_warp *w)
{
    struct kernel_op op = {0};
    k->next(k, w, &op);
    return op;
}

/* if gid < n: warps past n exit at once, the last one runs its first lanes. */
Test(kd, if_masks_lanes_and_skips_empty_blocks)
{
    struct kd_prog *p = compile("if gid < n\n"
                                "  load a[gid] 4 -> r1\n"
                                "  alu 3 lat 4 -> r2 < r1\n"
                                "  store b[gid*2 + 1] 8 < r1 r2 r5 gpu release\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 2, 64, 1, 100, 0);
    cr_expect_str_eq(k.name, "t");
    cr_expect_eq(k.nargs, 2);
    cr_expect_eq(k.args[0].mode, KERNEL_R);
    cr_expect_eq(k.args[1].mode, KERNEL_RW);
    struct kernel_warp w = warp(&k, 1, 1, 32); /* threads 96..127: 96..99 active */
    struct kernel_op op = next(&k, &w);
    cr_expect_eq(op.kind, KOP_LOAD);
    cr_expect_eq(op.mask, 0xfull);
    cr_expect_eq(op.base, 0x100000 + 96 * 4);
    cr_expect_eq(op.stride, 4);
    cr_expect_eq(op.dst, 1);
    op = next(&k, &w);
    cr_expect(op.kind == KOP_ALU && op.n == 3 && op.lat == 4 && op.dst == 2 && op.src[0] == 1);
    cr_expect_eq(op.mask, 0, "ALU ops carry no mask");
    op = next(&k, &w);
    cr_expect_eq(op.kind, KOP_STORE);
    cr_expect_eq(op.base, 0x200000 + (96 * 2 + 1) * 8);
    cr_expect_eq(op.stride, 16);
    cr_expect(op.src[0] == 1 && op.src[1] == 2 && op.srcs == 1ull << 5);
    cr_expect(op.scope == SCOPE_GPU && op.sem == SEM_RELEASE);
    cr_expect_eq(op.flags, 0);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    w = warp(&k, 1, 0, 32); /* threads 64..95 are all below 100 */
    cr_expect_eq(next(&k, &w).mask, 0xffffffffull);
    struct kernel_warp past = warp(&k, 1, 1, 32);
    past.wg_id.x = 5; /* no lane below n */
    cr_expect_eq(next(&k, &past).kind, KOP_EXIT);
    kd_prog_free(p);
}

/* Conditions whose two sides move by a fixed step per lane give a run of
 * lanes, from either end, the same as lane by lane in a 2D block. */
Test(kd, linear_conditions_give_runs_of_lanes)
{
    static const struct {
        const char *cond;
        uint64_t mask; /* warp 1 of work-group 0: threads 32..63 */
    } c[] = {
        {"if 100 - tx < 40\n", ~0ull << 29 & 0xffffffffull},         /* tx > 60 */
        {"if tx*3 < 2*tx + 40\n", 0xffull},                          /* tx < 40 */
        {"if n < tx\n", 0xffffffffull},                              /* n = 0: every lane */
        {"if tx < n\n", 0},
    };
    for (unsigned i = 0; i < 4; i++) {
        char body[128];
        snprintf(body, sizeof body, "%sload a[tx] 4 -> r1\nend\n", c[i].cond);
        struct kd_prog *p = compile(body);
        struct kernel k;
        launch(p, &k, 1, 64, 1, 0, 0);
        struct kernel_warp w = warp(&k, 0, 1, 32);
        struct kernel_op op = next(&k, &w);
        cr_expect_eq(op.kind == KOP_EXIT ? 0 : op.mask, c[i].mask, "%s: %#llx", c[i].cond,
                     (unsigned long long)op.mask);
        kd_prog_free(p);
    }
}

/* if A < B and C < D: the lanes where both hold; a warp with none skips the
 * block; in the ranges each condition narrows its own index (a tile with a
 * border on each side, here tx 2..13 of a 16 x 4 block, rows ty >= 1). */
Test(kd, conditions_joined_by_and)
{
    struct kd_prog *p = compile("if 1 < tx and tx < 14 and 0 < ty\n"
                                "  load a[ty*w + tx] 4 -> r1\n"
                                "end\n"
                                "if n < tx and tx < 2\n"
                                "  store b[tx] 4\n"
                                "end\n"
                                "alu 1\n");
    struct kernel k;
    launch(p, &k, 1, 16, 4, 0, 100);
    struct kernel_warp w = warp(&k, 0, 0, 32); /* rows 0 and 1 */
    struct kernel_op op = next(&k, &w);
    cr_expect_eq(op.kind, KOP_LOAD);
    cr_expect_eq(op.mask, 0x3ffcull << 16, "row 1, tx 2..13");
    cr_expect_eq(w.lane_addr[18], 0x100000 + (100 + 2) * 4);
    op = next(&k, &w);
    cr_expect_eq(op.kind, KOP_STORE, "n = 0: tx 1 passes both");
    cr_expect_eq(op.mask, 0x00020002ull);
    cr_expect_eq(next(&k, &w).kind, KOP_ALU);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    launch(p, &k, 1, 16, 4, 5, 100);
    w = warp(&k, 0, 1, 32);
    op = next(&k, &w);
    cr_expect_eq(op.mask, 0x3ffc3ffcull, "rows 2 and 3");
    cr_expect_eq(next(&k, &w).kind, KOP_ALU, "n = 5: no lane passes, the block is skipped");
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 3, "rows 1..3, each a piece");
    for (unsigned i = 0; i < 3; i++)
        cr_expect(r[i].lo == 0x100000 + ((i + 1) * 100 + 2) * 4 && r[i].hi == r[i].lo + 12 * 4,
                  "row %u: tx 2..13", i + 1);
    cr_assert_eq(k.ranges(&k, 0, 1, r, 4), 1);
    cr_expect(r[0].lo == r[0].hi, "no lane passes both: the empty range");
    kd_prog_free(p);
}

/* Operands given by expressions: registers that follow a loop variable (an
 * unrolled loop's loads into r1, r3, r5 ...) and ALU counts read from a
 * table, the same for every lane, evaluated at each issue. */
Test(kd, operands_from_expressions)
{
    struct kd_prog *p = compile("for m0 = 0 .. 3\n"
                                "  load a[m0*w + tx] 4 -> r(2*m0 + 1)\n"
                                "  load b[m0] 4 -> r(@col[m0] + 40)\n"
                                "  alu (@row[m0 + 1]) < r(2*m0 + 1) r(2*m0 + 2)\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 1, 64, 1, 0, 100);
    struct kernel_warp w = warp(&k, 0, 0, 32);
    static const uint32_t n[3] = {3, 3, 4}; /* row[1..3] */
    for (unsigned i = 0; i < 3; i++) {
        struct kernel_op op = next(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.dst == 2 * i + 1, "load %u: r%u", i, op.dst);
        cr_expect_eq(op.base, 0x100000 + i * 100 * 4);
        op = next(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.dst == col[i] + 40, "r(@col[m0] + 40): r%u", op.dst);
        cr_expect_eq(op.base, 0x200000 + i * 4, "the index ends at its own bracket");
        op = next(&k, &w);
        cr_expect(op.kind == KOP_ALU && op.n == n[i], "alu %u: n %u", i, op.n);
        cr_expect(op.src[0] == 2 * i + 1 && op.src[1] == 2 * i + 2, "alu %u: r%u r%u", i,
                  op.src[0], op.src[1]);
    }
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    kd_prog_free(p);
}

/* An index clamped at a grid's edge with min or max: each lane's own
 * address, and ranges that follow the clamp (the W neighbour of column 0
 * is column 0; the S neighbour of the last row is the last row). */
Test(kd, min_and_max_clamp_indices)
{
    struct kd_prog *p = compile("load a[ty*w + max(tx - 1, 0)] 4 -> r1\n"
                                "load b[min(ty + 1, n - 1)*w + tx] 4 -> r2\n");
    struct kernel k;
    launch(p, &k, 1, 16, 4, 4, 100);
    struct kernel_warp w = warp(&k, 0, 1, 32); /* rows 2 and 3 */
    struct kernel_op op = next(&k, &w);
    cr_expect(op.lanes);
    cr_expect_eq(w.lane_addr[0], 0x100000 + 200 * 4, "column 0 clamped");
    cr_expect_eq(w.lane_addr[5], 0x100000 + (200 + 4) * 4);
    op = next(&k, &w);
    cr_expect_eq(w.lane_addr[0], 0x200000 + 300 * 4, "row 2's S: row 3");
    cr_expect_eq(w.lane_addr[16], 0x200000 + 300 * 4, "row 3's S clamped to row 3");
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 4);
    for (unsigned i = 0; i < 4; i++)
        cr_expect(r[i].lo == 0x100000 + i * 100 * 4 && r[i].hi == r[i].lo + 15 * 4,
                  "row %u: columns 0..14", i);
    cr_assert_eq(k.ranges(&k, 0, 1, r, 4), 3);
    for (unsigned i = 0; i < 3; i++)
        cr_expect(r[i].lo == 0x200000 + (i + 1) * 100 * 4 && r[i].hi == r[i].lo + 16 * 4,
                  "rows 1..3");
    kd_prog_free(p);
}

/* alu N + M [A < B]: a bounds test that shares its block with the body's
 * first instructions, run as one op, longer in warps where a lane passes. */
Test(kd, alu_counts_that_depend_on_a_condition)
{
    struct kd_prog *p = compile("alu 12 + 13 [gid < n] -> r1 < r2\n"
                                "if gid < n\n"
                                "  load a[gid] 4 -> r3\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 2, 64, 1, 70, 0);
    struct kernel_warp w = warp(&k, 1, 0, 32); /* threads 64..95: 64..69 pass */
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_ALU && op.n == 25 && op.dst == 1 && op.src[0] == 2, "n %u", op.n);
    cr_expect_eq(next(&k, &w).mask, 0x3full);
    w = warp(&k, 1, 1, 32); /* threads 96..127: none */
    cr_expect_eq(next(&k, &w).n, 12);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    kd_prog_free(p);
}

/* alu N + M [A < B] + M2 [C < D]: each clause adds its count where some
 * active lane passes its own test, in one op; the clauses issue nothing of
 * their own. */
Test(kd, alu_counts_with_several_conditions)
{
    struct kd_prog *p = compile("alu 32 + 6 [gid < n] + 15 [gid < w] + 1 [tx < 1] -> r4\n"
                                "load a[gid] 4 -> r1\n");
    struct kernel k;
    launch(p, &k, 2, 64, 1, 70, 40);
    static const struct {
        uint32_t wg, warp, n;
    } c[] = {
        {0, 0, 32 + 6 + 15 + 1}, /* threads 0..31: all three */
        {0, 1, 32 + 6 + 15},     /* 32..63: gid < 40 and < 70 */
        {1, 0, 32 + 6 + 1},      /* 64..95: 64..69 < 70; tx 0 */
        {1, 1, 32},              /* 96..127: none */
    };
    for (unsigned i = 0; i < 4; i++) {
        struct kernel_warp w = warp(&k, c[i].wg, c[i].warp, 32);
        struct kernel_op op = next(&k, &w);
        cr_expect(op.kind == KOP_ALU && op.n == c[i].n && op.dst == 4, "case %u: n %u", i, op.n);
        op = next(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.site == 1, "case %u: then the load", i);
        cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    }
    kd_prog_free(p);
    struct kd_desc d = {.name = "t", .params = params, .bufs = bufs,
                        .body = "alu 1 + 1 [tx < 1] + 2 tx < 1\n"};
    struct err e = {0};
    cr_expect_null(kd_compile(&d, &e));
    cr_expect_str_eq(e.msg, "kernel t, line 1: alu N + '2': M [A < B] expected");
}

/* A loop whose bounds are the same in every lane runs its trip count with
 * the lanes that entered it (an enclosing if's), its variable stepping. */
Test(kd, uniform_loops_keep_their_lanes)
{
    struct kd_prog *p = compile("if tx < 3\n"
                                "  for m0 = 1 .. n step 2\n"
                                "    load a[m0*64 + tx] 4 -> r1..r2\n"
                                "  end\n"
                                "end\n"
                                "store b[tx] 4\n");
    struct kernel k;
    launch(p, &k, 1, 8, 1, 6, 0);
    struct kernel_warp w = warp(&k, 0, 0, 8);
    for (int64_t m0 = 1; m0 < 6; m0 += 2) {
        struct kernel_op op = next(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.mask == 0x7ull && op.dst == 1 + (m0 / 2) % 2);
        cr_expect_eq(op.base, 0x100000 + (addr_t)m0 * 64 * 4, "m0 %lld", (long long)m0);
    }
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_STORE && op.mask == 0 && op.base == 0x200000);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    kd_prog_free(p);
}

/* A clause's test may read an array, as any expression may. */
Test(kd, alu_clauses_that_read_an_array)
{
    struct kd_prog *p = compile("alu 4 + 3 [2 < @col[tx]] + 5 [@row[tx] < 1]\n");
    struct kernel k;
    launch(p, &k, 1, 4, 1, 0, 0);
    struct kernel_warp w = warp(&k, 0, 0, 4); /* col 1, 2, 3, 0; row 0, 3, 3, 4 */
    cr_expect_eq(next(&k, &w).n, 12);
    w = warp(&k, 0, 0, 2); /* col 1, 2: none above 2; row 0: below 1 */
    cr_expect_eq(next(&k, &w).n, 9);
    kd_prog_free(p);
}

/* A loop over m0 from bx to n: one load per iteration, then exit. */
Test(kd, loops_run_their_bounds)
{
    struct kd_prog *p = compile("for m0 = bx .. n\n"
                                "  load a[m0*w + tx] 4 -> r1\n"
                                "end\n"
                                "barrier\n");
    struct kernel k;
    launch(p, &k, 4, 32, 1, 4, 1000);
    struct kernel_warp w = warp(&k, 1, 0, 32);
    for (int64_t m = 1; m < 4; m++) {
        struct kernel_op op = next(&k, &w);
        cr_expect_eq(op.kind, KOP_LOAD);
        cr_expect_eq(op.base, 0x100000 + (addr_t)(m * 1000 * 4), "iteration %lld", (long long)m);
    }
    cr_expect_eq(next(&k, &w).kind, KOP_BARRIER);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    w = warp(&k, 3, 0, 32);
    w.wg_id.x = 4; /* from 4 to 4: no iteration */
    cr_expect_eq(next(&k, &w).kind, KOP_BARRIER);
    kd_prog_free(p);
}

/* A grid-stride loop, for m0 = gid .. n step gdx*bdx: each lane from its
 * own element by the grid's width; the ranges are each iteration's slice
 * (the step is wider than the work-group's first values), clipped at n. */
Test(kd, loops_with_a_step)
{
    struct kd_prog *p = compile("for m0 = gid .. n step gdx*bdx\n"
                                "  load a[m0] 4 -> r1\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 2, 32, 1, 150, 0);
    struct kernel_warp w = warp(&k, 1, 0, 32); /* gid 32..63: 32.., 96.., 160 >= 150 */
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.mask == 0xffffffffull && op.lanes);
    cr_expect(w.lane_addr[0] == 0x100000 + 32 * 4 && w.lane_addr[31] == 0x100000 + 63 * 4);
    op = next(&k, &w);
    cr_expect(op.mask == 0xffffffffull && w.lane_addr[0] == 0x100000 + 96 * 4);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    w = warp(&k, 0, 0, 32); /* 0.., 64.., 128..149 */
    next(&k, &w);
    next(&k, &w);
    op = next(&k, &w);
    cr_expect(op.mask == 0x3fffffull && w.lane_addr[21] == 0x100000 + 149 * 4, "mask %#llx",
              (unsigned long long)op.mask);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 2);
    cr_expect(r[0].lo == 0x100000 + 32 * 4 && r[0].hi == 0x100000 + 64 * 4);
    cr_expect(r[1].lo == 0x100000 + 96 * 4 && r[1].hi == 0x100000 + 128 * 4);
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 3);
    cr_expect(r[2].lo == 0x100000 + 128 * 4 && r[2].hi == 0x100000 + 150 * 4, "clipped at n");
    kd_prog_free(p);
    p = compile("for m0 = 0 .. n step tx + 1\n"
                "end\n");
    int64_t v[] = {10, 0};
    struct err e = {0};
    cr_expect_eq(kd_launch(p, &k, (struct kernel_dim){1, 1, 1}, (struct kernel_dim){32, 1, 1}, v,
                           both, graph, &e),
                 -1);
    cr_expect_str_eq(e.msg, "kernel t, statement 1: step 1: a positive value, the same in every "
                            "thread, expected");
    kd_prog_free(p);
}

/* A 2D block of 16 x 8: lanes 16..31 of warp 0 are row ty = 1; addresses per lane. */
Test(kd, two_dimensional_blocks_give_lane_addresses)
{
    struct kd_prog *p = compile("load a[ty*w + tx] 4 -> r1\n");
    struct kernel k;
    launch(p, &k, 1, 16, 8, 0, 100);
    struct kernel_warp w = warp(&k, 0, 1, 32); /* rows 2 and 3 */
    struct kernel_op op = next(&k, &w);
    cr_expect(op.lanes);
    cr_expect_eq(w.lane_addr[0], 0x100000 + (2 * 100 + 0) * 4);
    cr_expect_eq(w.lane_addr[15], 0x100000 + (2 * 100 + 15) * 4);
    cr_expect_eq(w.lane_addr[16], 0x100000 + (3 * 100 + 0) * 4);
    cr_expect_eq(w.lane_addr[31], 0x100000 + (3 * 100 + 15) * 4);
    kd_prog_free(p);
}

/* In a 2D block, what no thread index moves is the same in every lane: a
 * condition decided at once, an address as a base with stride 0. */
Test(kd, uniform_values_in_two_dimensional_blocks)
{
    struct kd_prog *p = compile("for m0 = 0 .. 2\n"
                                "  if bx + m0 < n\n"
                                "    lds_load lds[m0*w + 3] 4 -> r1\n"
                                "    load a[ty*w + tx] 4 -> r2\n"
                                "  end\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 2, 16, 8, 2, 100);
    struct kernel_warp w = warp(&k, 1, 1, 32); /* bx = 1: m0 = 0 only */
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LDS_LOAD && !op.lanes && op.base == 12 && op.stride == 0);
    cr_expect_eq(op.mask, 0xffffffffull);
    op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.lanes);
    cr_expect_eq(w.lane_addr[17], 0x100000 + (3 * 100 + 1) * 4);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    w = warp(&k, 0, 0, 32); /* bx = 0: both iterations */
    next(&k, &w);
    next(&k, &w);
    op = next(&k, &w);
    cr_expect(!op.lanes && op.base == 412 && op.stride == 0);
    kd_prog_free(p);
}

/* In a 2D block a condition and an address that move by a fixed step along
 * a row are computed row by row: the lanes of each row that pass, and the
 * row's addresses from its first lane's. */
Test(kd, two_dimensional_blocks_run_row_by_row)
{
    struct kd_prog *p = compile("if tx + ty < 18\n"
                                "  for m0 = ty .. 5 step 3\n"
                                "    load a[m0*w + tx] 4 -> r1\n"
                                "    load b[@col[ty]] 4 -> r2\n"
                                "  end\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 1, 16, 8, 0, 100);
    struct kernel_warp w = warp(&k, 0, 1, 32); /* rows 2 and 3 */
    struct kernel_op op = next(&k, &w);
    uint64_t want = 0xffffull | 0x7fffull << 16; /* row 2: tx < 16; row 3: tx < 15 */
    cr_expect(op.lanes && op.mask == want, "mask %#llx", (unsigned long long)op.mask);
    cr_expect_eq(w.lane_addr[0], 0x100000 + (2 * 100 + 0) * 4);
    cr_expect_eq(w.lane_addr[15], 0x100000 + (2 * 100 + 15) * 4);
    cr_expect_eq(w.lane_addr[16], 0x100000 + (3 * 100 + 0) * 4);
    cr_expect_eq(w.lane_addr[30], 0x100000 + (3 * 100 + 14) * 4);
    op = next(&k, &w);
    cr_expect(op.lanes && op.mask == want);
    cr_expect(w.lane_addr[3] == 0x200000 + col[2] * 4 && w.lane_addr[20] == 0x200000 + col[3] * 4);
    op = next(&k, &w); /* m0 = 5, 6: row 2 only (5 < 5 fails) -- none */
    cr_expect_eq(op.kind, KOP_EXIT, "m0 = 2 + 3 and 3 + 3 are past 5");
    kd_prog_free(p);
}

/* A block 48 wide: warp 1 (threads 32..63) starts mid-row; an index whose
 * other terms are the same in every lane steps its thread terms along each
 * row (lanes 0..15 row 0, 16..31 row 1). */
Test(kd, thread_terms_step_along_the_rows)
{
    struct kd_prog *p = compile("for m0 = 0 .. 1\n"
                                "  if ty*w + tx + m0 < n\n"
                                "    load a[bx*1000 + ty*w + 2*tx + m0] 4 -> r1\n"
                                "  end\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 2, 48, 4, 60, 100);
    struct kernel_warp w = warp(&k, 1, 1, 32);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.lanes);
    cr_expect_eq(op.mask, 0xffffull, "row 0 (tx 32..47) passes, row 1 (100 + tx) does not");
    for (unsigned l = 0; l < 16; l++)
        cr_expect_eq(w.lane_addr[l], 0x100000 + (1000 + 2 * (32 + l)) * 4, "lane %u", l);
    for (unsigned l = 16; l < 32; l++)
        cr_expect_eq(w.lane_addr[l], 0x100000 + (1000 + 100 + 2 * (l - 16)) * 4, "lane %u", l);
    kd_prog_free(p);
}

/* Ranges: a work-group's accesses, clipped by `if index < n`, loops enumerated. */
Test(kd, ranges_are_derived_per_work_group)
{
    struct kd_prog *p = compile("if gid < n\n"
                                "  load a[gid] 4 -> r1\n"
                                "end\n"
                                "for m0 = 0 .. 3\n"
                                "  store b[m0*w + bx] 4 < r1\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 3, 64, 1, 150, 10);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 + 64 * 4 && r[0].hi == 0x100000 + 128 * 4);
    cr_assert_eq(k.ranges(&k, 2, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 + 128 * 4 && r[0].hi == 0x100000 + 150 * 4,
              "the last work-group stops at n");
    /* the loop is enumerated: elements 2, 12 and 22 of b */
    cr_assert_eq(k.ranges(&k, 2, 1, r, 4), 3);
    for (unsigned i = 0; i < 3; i++)
        cr_expect(r[i].lo == 0x200000 + (i * 10 + 2) * 4 && r[i].hi == r[i].lo + 4, "range %u", i);
    cr_assert_eq(k.ranges(&k, 2, 1, r, 2), 1, "more ranges than room: their span");
    cr_expect(r[0].lo == 0x200000 + 2 * 4 && r[0].hi == 0x200000 + 23 * 4);
    kd_prog_free(p);
}

/* A condition on one varying index narrows it: the ranges hold only what
 * the lanes that pass touch, from either side, in 1D and 2D blocks; a 2D
 * block's rows are pieces of their own unless the description joins them. */
Test(kd, conditions_narrow_the_ranges)
{
    struct addr_range r[4];
    struct kernel k;
    struct kd_prog *p = compile("if tx < n\n"
                                "  load a[bx*64 + tx*2] 4 -> r1\n"
                                "end\n"
                                "if 40 - tx < 10\n"
                                "  load b[tx] 4 -> r2\n"
                                "end\n");
    launch(p, &k, 1, 64, 1, 10, 0);
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 && r[0].hi == 0x100000 + 19 * 4, "tx < 10: elements 0..18");
    cr_assert_eq(k.ranges(&k, 0, 1, r, 4), 1);
    cr_expect(r[0].lo == 0x200000 + 31 * 4 && r[0].hi == 0x200000 + 64 * 4, "tx > 30");
    launch(p, &k, 1, 64, 1, 0, 0);
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 1);
    cr_expect(r[0].lo == r[0].hi, "no lane passes: the empty range");
    kd_prog_free(p);
    p = compile("if bx*4 + tx < n\n"
                "  if by*4 + ty < w\n"
                "    load a[(by*4 + ty)*100 + bx*4 + tx] 4 -> r1\n"
                "  end\n"
                "end\n");
    launch(p, &k, 1, 4, 4, 2, 3);
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 3, "columns 0..1 of rows 0..2, row by row");
    for (unsigned i = 0; i < 3; i++)
        cr_expect(r[i].lo == 0x100000 + i * 100 * 4 && r[i].hi == r[i].lo + 2 * 4, "row %u", i);
    kd_prog_free(p);
    static struct kd_desc joined; /* rows less than 400 B apart merge */
    joined = (struct kd_desc){.name = "j", .params = params, .bufs = bufs,
                              .body = "load a[ty*100 + tx] 4 -> r1\n", .range_join = 400};
    struct err e = {0};
    p = kd_compile(&joined, &e);
    cr_assert(p, "%s", e.msg);
    launch(p, &k, 1, 4, 4, 0, 0);
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 && r[0].hi == 0x100000 + (3 * 100 + 4) * 4);
    kd_prog_free(p);
}

static struct kd_prog *compile_desc(const struct kd_desc *d)
{
    struct err e = {0};
    struct kd_prog *p = kd_compile(d, &e);
    cr_assert(p, "%s", e.msg);
    return p;
}

/* range_reads: an index that reads an array gives a piece per run of
 * consecutive values its lanes read (without it, the whole structure); a
 * loop whose bounds read an array spans from the least first value to the
 * greatest bound either way. */
Test(kd, ranges_from_the_values_read)
{
    static struct kd_desc d;
    d = (struct kd_desc){.name = "r", .params = params, .bufs = bufs, .arrays = arrays,
                         .body = "load a[@col[tx + 3] + 10*bx] 4 -> r1\n"
                                 "for m0 = @row[tx] .. @row[tx + 1]\n"
                                 "  store b[m0 + 100] 4 < r1\n"
                                 "end\n",
                         .range_reads = true};
    struct kd_prog *p = compile_desc(&d);
    struct kernel k;
    launch(p, &k, 2, 3, 1, 0, 0);
    struct addr_range r[4];
    /* col[3..5] = 0, 0, 2: elements 10 and 12 of work-group 1 */
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 2);
    cr_expect(r[0].lo == 0x100000 + 10 * 4 && r[0].hi == 0x100000 + 11 * 4);
    cr_expect(r[1].lo == 0x100000 + 12 * 4 && r[1].hi == 0x100000 + 13 * 4);
    /* m0 from row[0..2] = 0, 3, 3 up to row[1..3] = 3, 3, 4: 0..3 */
    cr_assert_eq(k.ranges(&k, 1, 1, r, 4), 1);
    cr_expect(r[0].lo == 0x200000 + 100 * 4 && r[0].hi == 0x200000 + 104 * 4);
    kd_prog_free(p);
    d.range_reads = false;
    p = compile_desc(&d);
    launch(p, &k, 2, 3, 1, 0, 0);
    cr_expect_eq(k.ranges(&k, 1, 0, r, 4), 0, "the whole structure");
    cr_assert_eq(k.ranges(&k, 1, 1, r, 4), 1, "loop bounds are spanned without it too");
    cr_expect(r[0].lo == 0x200000 + 100 * 4 && r[0].hi == 0x200000 + 104 * 4);
    kd_prog_free(p);
}

/* range_join_param: the join of each launch from a parameter. */
Test(kd, range_join_from_a_parameter)
{
    static struct kd_desc d;
    d = (struct kd_desc){.name = "j", .params = params, .bufs = bufs,
                         .body = "load a[ty*100 + tx] 4 -> r1\n", .range_join_param = "w"};
    struct kd_prog *p = compile_desc(&d);
    struct kernel k;
    struct addr_range r[4];
    launch(p, &k, 1, 4, 4, 0, 400); /* rows 384 B apart merge */
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 && r[0].hi == 0x100000 + (3 * 100 + 4) * 4);
    launch(p, &k, 1, 4, 4, 0, 384); /* not less than 384 B apart: one a row */
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 4);
    kd_prog_free(p);
    d.range_join_param = "x";
    struct err e = {0};
    cr_expect_null(kd_compile(&d, &e));
    cr_expect_str_eq(e.msg, "kernel j: range_join_param 'x' is not a parameter");
}

/* Lanes whose elements are not adjacent (a column of a row-major matrix)
 * are pieces of their own; more pieces than room give their span. */
Test(kd, strided_lanes_are_pieces_of_their_own)
{
    struct kd_prog *p = compile("load a[tx*n + bx] 4 -> r1\n");
    struct kernel k;
    launch(p, &k, 2, 3, 1, 10, 0);
    struct kernel_warp w = warp(&k, 1, 0, 3);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && !op.lanes && op.base == 0x100000 + 4 && op.stride == 40);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 3);
    for (unsigned i = 0; i < 3; i++)
        cr_expect(r[i].lo == 0x100000 + (i * 10 + 1) * 4 && r[i].hi == r[i].lo + 4, "lane %u", i);
    cr_assert_eq(k.ranges(&k, 1, 0, r, 2), 1);
    cr_expect(r[0].lo == 0x100000 + 4 && r[0].hi == 0x100000 + 22 * 4);
    kd_prog_free(p);
}

/* if A < B < C: the lanes where both halves hold, as a run in a 1D block
 * and lane by lane in a 2D one; the ranges narrowed from both sides. */
Test(kd, two_sided_conditions)
{
    struct kd_prog *p = compile("if n < bx*64 + tx < w\n"
                                "  load a[tx] 4 -> r1\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 2, 64, 1, 40, 50);
    struct kernel_warp w = warp(&k, 0, 1, 32); /* threads 32..63: 41..49 pass */
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && !op.lanes && op.base == 0x100000 + 32 * 4);
    cr_expect_eq(op.mask, 0x1ffull << 9);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    w = warp(&k, 1, 0, 32);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT, "work-group 1: no lane passes");
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 + 41 * 4 && r[0].hi == 0x100000 + 50 * 4);
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 1);
    cr_expect(r[0].lo == r[0].hi, "nothing: the empty range");
    kd_prog_free(p);
    p = compile("if 0 < ty < 3\n"
                "  store b[ty*100 + tx] 4\n"
                "end\n");
    launch(p, &k, 1, 8, 4, 0, 0);
    w = warp(&k, 0, 0, 32);
    op = next(&k, &w);
    cr_expect(op.kind == KOP_STORE && op.lanes && op.mask == 0xffff00ull);
    cr_expect(w.lane_addr[8] == 0x200000 + 100 * 4 && w.lane_addr[23] == 0x200000 + 207 * 4);
    cr_assert_eq(k.ranges(&k, 0, 1, r, 4), 2, "rows 1 and 2");
    cr_expect(r[0].lo == 0x200000 + 400 && r[0].hi == 0x200000 + 432);
    cr_expect(r[1].lo == 0x200000 + 800 && r[1].hi == 0x200000 + 832);
    kd_prog_free(p);
}

/* Flags: what a microbenchmark measures, on the accesses that carry them. */
Test(kd, accesses_carry_their_flags)
{
    struct kd_prog *p = compile("load a[gid] 16 -> r1 measure measure_bw\n"
                                "load b[gid] 4 -> r2 gpu acquire measure\n");
    struct kernel k;
    launch(p, &k, 1, 64, 1, 0, 0);
    struct kernel_warp w = warp(&k, 0, 0, 32);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.flags == (KOP_F_MEASURE | KOP_F_MEASURE_BW));
    op = next(&k, &w);
    cr_expect(op.flags == KOP_F_MEASURE && op.scope == SCOPE_GPU && op.sem == SEM_ACQUIRE);
    kd_prog_free(p);
}

/* An array read at an index with one value in the work-group (its block
 * index, an enumerated loop) is known in the ranges; one per lane gives the
 * runs of values its lanes read. */
Test(kd, ranges_read_arrays_at_work_group_indices)
{
    static const char body[] = "load a[@row[bx]*2 + tx] 4 -> r1\n"
                               "for m0 = 0 .. 2\n"
                               "  store b[@col[bx*2 + m0]*10 + tx] 4\n"
                               "end\n";
    struct kd_prog *p = compile(body);
    struct kernel k;
    launch(p, &k, 3, 2, 1, 0, 0);
    struct addr_range r[4];
    cr_expect_eq(k.ranges(&k, 1, 0, r, 4), 0, "without range_reads: the whole structure");
    kd_prog_free(p);
    static struct kd_desc reads;
    reads = (struct kd_desc){.name = "r", .params = params, .bufs = bufs, .arrays = arrays,
                             .body = body, .range_reads = true};
    struct err e = {0};
    p = kd_compile(&reads, &e);
    cr_assert(p, "%s", e.msg);
    launch(p, &k, 3, 2, 1, 0, 0);
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 + 6 * 4 && r[0].hi == 0x100000 + 8 * 4, "row[1] = 3");
    cr_assert_eq(k.ranges(&k, 1, 1, r, 4), 2, "col[2] = 3, col[3] = 0");
    cr_expect(r[0].lo == 0x200000 && r[0].hi == 0x200000 + 2 * 4);
    cr_expect(r[1].lo == 0x200000 + 30 * 4 && r[1].hi == 0x200000 + 32 * 4);
    kd_prog_free(p);
    reads.body = "load a[@col[tx]] 4 -> r1\n";
    p = kd_compile(&reads, &e);
    cr_assert(p, "%s", e.msg);
    launch(p, &k, 1, 2, 1, 0, 0);
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 1, "a read per lane: the run of values read");
    cr_expect(r[0].lo == 0x100000 + 1 * 4 && r[0].hi == 0x100000 + 3 * 4, "col[0..1] = 1, 2");
    kd_prog_free(p);
}

Test(kd, identical_launches_share_a_binding)
{
    struct kd_prog *p = compile("load a[gid] 4 -> r1\n");
    struct kernel k1, k2, k3;
    launch(p, &k1, 2, 64, 1, 1, 0);
    launch(p, &k2, 2, 64, 1, 1, 0);
    launch(p, &k3, 2, 64, 1, 2, 0);
    cr_expect_eq(k1.ctx, k2.ctx);
    cr_expect_neq(k1.ctx, k3.ctx);
    cr_expect_eq(p->nlaunch, 2);
    kd_prog_free(p);
}

/* Launches that all differ (one per leaf of a tree, say) keep the last
 * KD_MAX_LAUNCHES bound; the oldest is bound again when it comes back. */
Test(kd, distinct_launches_keep_the_last_ones)
{
    struct kd_prog *p = compile("load a[gid + n] 4 -> r1\n");
    struct kernel k, first;
    launch(p, &first, 1, 64, 1, 0, 0);
    for (int64_t n = 1; n <= KD_MAX_LAUNCHES; n++)
        launch(p, &k, 1, 64, 1, n, 0);
    cr_expect_eq(p->nlaunch, KD_MAX_LAUNCHES);
    struct kernel_warp w = warp(&k, 0, 0, 32);
    cr_expect_eq(next(&k, &w).base, 0x100000 + KD_MAX_LAUNCHES * 4, "the last launch");
    struct kernel again;
    launch(p, &again, 1, 64, 1, 1, 0); /* still kept: shared */
    cr_expect_eq(p->nlaunch, KD_MAX_LAUNCHES);
    launch(p, &again, 1, 64, 1, 0, 0); /* dropped with the first: bound again */
    w = warp(&again, 0, 0, 32);
    cr_expect_eq(next(&again, &w).base, 0x100000);
    kd_prog_free(p);
}

static void expect_error(const char *body, const char *want)
{
    struct kd_desc d = {.name = "bad", .params = params, .bufs = bufs, .arrays = arrays,
                        .body = body};
    struct err e = {0};
    cr_expect_null(kd_compile(&d, &e), "%s", body);
    cr_expect_str_eq(e.msg, want);
}

Test(kd, wrong_descriptions_are_refused_with_their_line)
{
    expect_error("load a[gid] 4 -> r1\nfrob\n", "kernel bad, line 2: unknown statement 'frob'");
    expect_error("load c[gid] 4 -> r1\n", "kernel bad, line 1: unknown buffer 'c'");
    expect_error("load a[gid] 3 -> r1\n",
                 "kernel bad, line 1: size '3': 1, 2, 4, 8 or 16 bytes, or a parameter, "
                 "expected");
    expect_error("load a[gid] 4 -> r64\n",
                 "kernel bad, line 1: 'r64' is not a register r1..r63");
    expect_error("\n# a comment\nif gid < n\nload a[gid] 4 -> r1\n",
                 "kernel bad, line 3: no 'end' for this block");
    expect_error("end\n", "kernel bad, line 1: 'end' without an if or a for");
    expect_error("load a[gid + q] 4 -> r1\n",
                 "kernel bad, line 1: index 'gid + q': unknown name 'q'");
    expect_error("for m4 = 0 .. n\nend\n",
                 "kernel bad, line 1: 'm4': for mK = FROM .. TO expected (K 0..3)");
    expect_error("fence cta\n", "kernel bad, line 1: fence: scope gpu or sys expected");
    expect_error("alu 3 + 2 gid < n\n", "kernel bad, line 1: alu N + '2': M [A < B] expected");
    expect_error("load a[@nope[gid]] 4 -> r1\n", "kernel bad, line 1: unknown array 'nope'");
    expect_error("load a[@row[@col[gid]]] 4 -> r1\n",
                 "kernel bad, line 1: '@row[@col[gid]]': one array read per expression");
    expect_error("lds_load b[tx] 4 -> r1\n", "kernel bad, line 1: 'b[tx] 4 -> r1': lds[INDEX] expected");
    expect_error("for m0 = 0 .. 4\nfor m0 = 0 .. 2\nend\nend\n",
                 "kernel bad, line 2: a loop inside another over the same variable");
    expect_error("store a[gid] 4 fresh\n",
                 "kernel bad, line 1: 'fresh': only a global load takes it");
    expect_error("load a[gid] 4 -> r1 spin\n",
                 "kernel bad, line 1: count '': a number or a parameter expected");
    expect_error("alu x\n", "kernel bad, line 1: count 'x': a number or a parameter expected");
    expect_error("load a[gid] 4 -> r2..r5\n",
                 "kernel bad, line 1: registers rA..rB rotate only inside a loop");
    expect_error("for m0 = 0 .. 4\nload a[gid] 4 -> r2..r5 < r3..r4\nend\n",
                 "kernel bad, line 2: 'r3..r4': rA..rB with A < B, one length per statement, "
                 "expected");
    expect_error("load a[max(tx, @row[tx])] 4 -> r1\n",
                 "kernel bad, line 1: 'max(tx, @row[tx])': one array read, min or max per "
                 "expression");
    expect_error("load a[min(tx 0)] 4 -> r1\n",
                 "kernel bad, line 1: 'min(tx 0)': min(A, B) or max(A, B) expected");
    expect_error("alu (tx + 1)\n",
                 "kernel bad, line 1: '(tx + 1)': the same in every lane expected (no thread "
                 "index)");
    expect_error("load a[tx] 4 -> r(gid)\n",
                 "kernel bad, line 1: '(gid)': the same in every lane expected (no thread index)");
    expect_error("alu 1 < r1 r2 r(m0)\n", "kernel bad, line 1: 'r(m0)' is not a register r1..r63");
}

Test(kd, launches_that_cannot_be_bound_are_refused)
{
    struct kd_prog *p = compile("load a[bx*tx] 4 -> r1\n");
    struct kernel k;
    int64_t v[] = {1, 1};
    struct err e = {0};
    cr_expect_eq(kd_launch(p, &k, (struct kernel_dim){1, 1, 1}, (struct kernel_dim){32, 1, 1}, v,
                           both, graph, &e),
                 -1);
    cr_expect_str_eq(e.msg, "kernel t, statement 1: a term multiplies bx by tx: not affine per "
                            "thread");
    kd_prog_free(p);
}

/* CSR: lane v walks the arcs of vertex v, from row[v] to row[v + 1]; the
 * warp loops until its longest row is done (3 arcs), each lane active while
 * it has arcs left, and reads b[col[j]] (a gather: per-lane addresses). */
Test(kd, loops_with_per_lane_bounds_and_array_reads)
{
    struct kd_prog *p = compile("for m0 = @row[gid] .. @row[gid + 1]\n"
                                "  load a[m0] 4 -> r1\n"
                                "  load b[@col[m0]] 8 -> r2\n"
                                "  alu 2 < r1 r2\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 1, 4, 1, 0, 0);
    struct kernel_warp w = warp(&k, 0, 0, 4);
    /* iteration 0: lanes 0, 2, 3 (vertex 1 has no arc) */
    struct kernel_op op = next(&k, &w);
    cr_expect_eq(op.mask, 0xdull);
    cr_expect(op.lanes, "each lane's own arc");
    cr_expect(w.lane_addr[0] == 0x100000 + 0 * 4 && w.lane_addr[2] == 0x100000 + 3 * 4 &&
              w.lane_addr[3] == 0x100000 + 4 * 4);
    op = next(&k, &w);
    cr_expect_eq(op.site, 2);
    cr_expect(w.lane_addr[0] == 0x200000 + 1 * 8 && w.lane_addr[2] == 0x200000 + 0 * 8 &&
              w.lane_addr[3] == 0x200000 + 0 * 8);
    cr_expect_eq(next(&k, &w).kind, KOP_ALU);
    /* iteration 1: lanes 0 and 3 */
    cr_expect_eq(next(&k, &w).mask, 0x9ull);
    op = next(&k, &w);
    cr_expect(w.lane_addr[0] == 0x200000 + 2 * 8 && w.lane_addr[3] == 0x200000 + 2 * 8);
    cr_expect_eq(next(&k, &w).kind, KOP_ALU);
    /* iteration 2: lane 0 alone, then the loop ends */
    cr_expect_eq(next(&k, &w).mask, 0x1ull);
    cr_expect_eq(next(&k, &w).kind, KOP_LOAD);
    cr_expect_eq(next(&k, &w).kind, KOP_ALU);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    struct addr_range r[2];
    cr_expect_eq(k.ranges(&k, 0, 1, r, 2), 0, "an index from an array: the whole structure");
    kd_prog_free(p);
}

/* A loop whose bounds read an array spans, in the ranges, from the least
 * first bound to the greatest second bound the work-group's lanes read; an
 * array index beyond the array (or over 4,096 elements) gives the whole
 * structure. */
Test(kd, loops_over_array_bounds_span_the_values_read)
{
    struct kd_prog *p = compile("if gid < n\n"
                                "  for m0 = @row[gid] .. @row[gid + 1]\n"
                                "    load a[m0] 4 -> r1\n"
                                "    store b[m0*2 + 1] 4 < r1\n"
                                "  end\n"
                                "end\n");
    struct kernel k;
    struct addr_range r[2];
    launch(p, &k, 2, 2, 1, 4, 0); /* vertices 0, 1 | 2, 3 */
    cr_assert_eq(k.ranges(&k, 0, 0, r, 2), 1);
    cr_expect(r[0].lo == 0x100000 && r[0].hi == 0x100000 + 3 * 4, "arcs 0..2");
    cr_assert_eq(k.ranges(&k, 1, 0, r, 2), 1);
    cr_expect(r[0].lo == 0x100000 + 3 * 4 && r[0].hi == 0x100000 + 6 * 4, "arcs 3..5");
    cr_assert_eq(k.ranges(&k, 1, 1, r, 2), 1);
    cr_expect(r[0].lo == 0x200000 + 7 * 4 && r[0].hi == 0x200000 + 12 * 4, "b[7] .. b[11]");
    launch(p, &k, 2, 2, 1, 3, 0); /* n = 3: vertex 2 alone in work-group 1 */
    cr_assert_eq(k.ranges(&k, 1, 0, r, 2), 1);
    cr_expect(r[0].lo == 0x100000 + 3 * 4 && r[0].hi == 0x100000 + 4 * 4, "arc 3");
    launch(p, &k, 4, 1, 1, 4, 0); /* vertex 1 alone: no arc, the empty range */
    cr_assert_eq(k.ranges(&k, 1, 0, r, 2), 1);
    cr_expect(r[0].lo == 0x100000 && r[0].hi == 0x100000);
    kd_prog_free(p);
    p = compile("for m0 = @row[gid] .. @row[gid + 1]\n"
                "  load a[m0] 4 -> r1\n"
                "end\n");
    launch(p, &k, 1, 8, 1, 0, 0); /* gid + 1 up to 8: beyond row */
    cr_expect_eq(k.ranges(&k, 0, 0, r, 2), 0);
    kd_prog_free(p);
}

/* The test of alu N + M [A < B] may read an array. */
Test(kd, alu_conditions_that_read_arrays)
{
    struct kd_prog *p = compile("alu 2 + 5 [@row[gid] < @row[gid + 1]] < r1\n");
    struct kernel k;
    launch(p, &k, 4, 1, 1, 0, 0);
    struct kernel_warp w = warp(&k, 0, 0, 1); /* vertex 0: three arcs */
    cr_expect_eq(next(&k, &w).n, 7);
    w = warp(&k, 1, 0, 1); /* vertex 1: none */
    cr_expect_eq(next(&k, &w).n, 2);
    kd_prog_free(p);
}

/* An array read at an index that moves by a fixed step per lane, plus a
 * part that does too (a per-thread offset table), gives each lane its
 * element: the same addresses, and the same lanes of a condition, as lane
 * by lane. */
Test(kd, array_reads_at_a_step_per_lane)
{
    struct kd_prog *p = compile("for m0 = 0 .. 2\n"
                                "  load a[@col[tx] + 2*m0 + bx] 4 -> r1\n"
                                "  lds_load lds[@col[tx + 1]*2 + tx] 4 -> r2\n"
                                "end\n"
                                "if @col[tx] + tx < 4\n"
                                "  store b[tx] 4\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 2, 5, 1, 0, 0);
    struct kernel_warp w = warp(&k, 1, 0, 5);
    for (int64_t m0 = 0; m0 < 2; m0++) {
        struct kernel_op op = next(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.lanes && op.mask == 0x1full);
        for (unsigned l = 0; l < 5; l++)
            cr_expect_eq(w.lane_addr[l], 0x100000 + (col[l] + 2 * m0 + 1) * 4, "lane %u", l);
        op = next(&k, &w);
        cr_expect(op.kind == KOP_LDS_LOAD && op.lanes);
        for (unsigned l = 0; l < 5; l++)
            cr_expect_eq(w.lane_addr[l], (col[l + 1] * 2 + l) * 4, "lane %u", l);
    }
    /* col 1, 2, 3, 0, 0 plus lanes 0..4 below 4: lanes 0, 1 and 3 */
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_STORE && op.mask == 0xbull, "mask %#llx",
              (unsigned long long)op.mask);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    kd_prog_free(p);
}

/* An array read at an index the same in every lane (a table of reduction
 * offsets, say) keeps the access a base and a stride. */
Test(kd, uniform_array_reads_keep_base_and_stride)
{
    struct kd_prog *p = compile("for m0 = 1 .. 3\n"
                                "  load a[tx + @row[m0]] 4 -> r1\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 1, 64, 1, 0, 0);
    struct kernel_warp w = warp(&k, 0, 1, 32);
    for (unsigned m = 1; m < 3; m++) {
        struct kernel_op op = next(&k, &w);
        cr_expect(!op.lanes);
        cr_expect_eq(op.base, 0x100000 + (32 + row[m]) * 4);
        cr_expect_eq(op.stride, 4);
    }
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    kd_prog_free(p);
}

/* A launch of p with parameters n and w that cannot be bound, for the reason want. */
static void expect_launch_error(struct kd_prog *p, int64_t n, int64_t w, const char *want)
{
    struct kernel k;
    int64_t v[] = {n, w};
    struct err e = {0};
    cr_expect_eq(kd_launch(p, &k, (struct kernel_dim){1, 1, 1}, (struct kernel_dim){32, 1, 1}, v,
                           both, graph, &e),
                 -1);
    cr_expect_str_eq(e.msg, want);
}

/* A size given by a parameter: the element of each launch. */
Test(kd, sizes_from_parameters)
{
    struct kd_prog *p = compile("load a[gid] w -> r1\n");
    struct kernel k;
    launch(p, &k, 1, 64, 1, 0, 8);
    struct kernel_warp w = warp(&k, 0, 1, 32);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.size == 8 && op.base == 0x100000 + 32 * 8 && op.stride == 8);
    expect_launch_error(p, 0, 3,
                        "kernel t, statement 1: size 3: 1, 2, 4, 8 or 16 bytes expected");
    kd_prog_free(p);
}

/* SIZE/UNIT: 16 bytes at each lane's float (a tile of four read from its
 * first): the stride is the unit, the ranges end at the last access's end. */
Test(kd, wide_accesses_at_narrow_elements)
{
    struct kd_prog *p = compile("load a[4*tx + n] 16/4 -> r1\n"
                                "load b[@col[tx]] 16/4 -> r2\n");
    struct kernel k;
    launch(p, &k, 1, 4, 1, 1, 0);
    struct kernel_warp w = warp(&k, 0, 0, 4);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.size == 16 && !op.lanes && op.base == 0x100000 + 4 && op.stride == 16);
    op = next(&k, &w);
    cr_expect(op.size == 16 && op.lanes && w.lane_addr[0] == 0x200000 + 1 * 4 &&
              w.lane_addr[3] == 0x200000 + 0);
    struct addr_range r[2];
    cr_assert_eq(k.ranges(&k, 0, 0, r, 2), 1);
    cr_expect(r[0].lo == 0x100000 + 4 && r[0].hi == 0x100000 + 4 + 3 * 16 + 16);
    kd_prog_free(p);
    struct kd_desc d = {.name = "t", .params = params, .bufs = bufs,
                        .body = "load a[tx] 16/3 -> r1\n"};
    struct err e = {0};
    cr_expect_null(kd_compile(&d, &e));
    cr_expect_str_eq(e.msg, "kernel t, line 1: unit '3': 1, 2, 4, 8 or 16 bytes expected");
}

/* Up to 16 parameters (a GEMM's sizes, strides, offsets and split); a 17th is refused. */
Test(kd, sixteen_parameters)
{
    static const char *const many[] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8",
                                       "p9", "p10", "p11", "p12", "p13", "p14", "p15", NULL};
    struct kd_desc d = {.name = "many", .params = many, .bufs = bufs,
                        .body = "load a[p15*tx + p8 + p0] 4 -> r1\n"};
    struct err e = {0};
    struct kd_prog *p = kd_compile(&d, &e);
    cr_assert(p, "%s", e.msg);
    int64_t v[16] = {[0] = 5, [8] = 100, [15] = 2};
    struct kernel k;
    cr_assert_eq(kd_launch(p, &k, (struct kernel_dim){1, 1, 1}, (struct kernel_dim){32, 1, 1}, v,
                           both, NULL, &e),
                 0, "%s", e.msg);
    struct kernel_warp w = warp(&k, 0, 0, 32);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.base == 0x100000 + 105 * 4 && op.stride == 8, "base %#llx stride %lld",
              (unsigned long long)op.base, (long long)op.stride);
    kd_prog_free(p);
    static const char *const too_many[] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8",
                                           "p9", "p10", "p11", "p12", "p13", "p14", "p15", "p16",
                                           NULL};
    d.params = too_many;
    cr_expect_null(kd_compile(&d, &e));
    cr_expect_str_eq(e.msg, "kernel many: more than 16 parameters, 16 buffers or 8 arrays");
}

/* LDS accesses: byte offsets in the work-group's LDS, numbered as sites. */
Test(kd, lds_accesses)
{
    struct kd_prog *p = compile("load a[gid] 4 -> r1\n"
                                "lds_store lds[tx] 4 < r1\n"
                                "barrier\n"
                                "lds_load lds[63 - tx] 4 -> r2\n");
    struct kernel k;
    launch(p, &k, 1, 64, 1, 0, 0);
    cr_expect_eq(k.nargs, 2);
    struct kernel_warp w = warp(&k, 0, 1, 32);
    cr_expect_eq(next(&k, &w).site, 1);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LDS_STORE && op.base == 32 * 4 && op.stride == 4 && op.site == 2);
    cr_expect_eq(next(&k, &w).kind, KOP_BARRIER);
    op = next(&k, &w);
    cr_expect(op.kind == KOP_LDS_LOAD && op.base == (63 - 32) * 4 && op.stride == -4);
    kd_prog_free(p);
}

/* Loads that spin on a flag (at most N re-issues, N a number or a
 * parameter), that expect data written in this kernel, or whose latency is
 * measured; an ALU count from a parameter. */
Test(kd, load_flags_and_counts_from_parameters)
{
    struct kd_prog *p = compile("load a[0] 4 -> r1 gpu acquire spin w\n"
                                "load a[gid] 16 -> r2 < r1 fresh\n"
                                "load b[0] 8 -> r3 spin 5 measure\n"
                                "alu n < r3\n");
    struct kernel k;
    launch(p, &k, 1, 64, 1, 7, 9);
    struct kernel_warp w = warp(&k, 0, 1, 32);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.flags == KOP_F_SPIN && op.n == 9 && op.dst == 1);
    cr_expect(op.scope == SCOPE_GPU && op.sem == SEM_ACQUIRE && op.base == 0x100000);
    op = next(&k, &w);
    cr_expect(op.flags == KOP_F_FRESH && op.n == 0 && op.size == 16 && op.src[0] == 1);
    op = next(&k, &w);
    cr_expect(op.flags == (KOP_F_SPIN | KOP_F_MEASURE) && op.n == 5 && op.base == 0x200000);
    op = next(&k, &w);
    cr_expect(op.kind == KOP_ALU && op.n == 7 && op.src[0] == 3);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    expect_launch_error(p, 0, 9, "kernel t, statement 4: count 0: 1 or more expected");
    kd_prog_free(p);
}

/* Registers rA..rB rotate with the innermost loop's iterations: eight loads
 * in flight in r2..r9, each waiting for the previous load into its register. */
Test(kd, registers_rotate_with_the_innermost_loop)
{
    struct kd_prog *p = compile("for m1 = 0 .. 2\n"
                                "  for m0 = 0 .. 10\n"
                                "    load a[m0*bdx + tx] 4 -> r2..r9 < r2..r9 r1\n"
                                "  end\n"
                                "  alu 1 < r1..r2\n"
                                "end\n");
    struct kernel k;
    launch(p, &k, 1, 32, 1, 0, 0);
    struct kernel_warp w = warp(&k, 0, 0, 32);
    for (unsigned pass = 0; pass < 2; pass++) {
        for (unsigned m = 0; m < 10; m++) {
            struct kernel_op op = next(&k, &w);
            cr_expect_eq(op.base, 0x100000 + m * 32 * 4);
            cr_expect(op.dst == 2 + m % 8 && op.src[0] == 2 + m % 8 && op.src[1] == 1,
                      "load %u: r%u < r%u r%u", m, op.dst, op.src[0], op.src[1]);
        }
        struct kernel_op op = next(&k, &w);
        cr_expect(op.kind == KOP_ALU && op.src[0] == 1 + pass, "m1's pass %u", pass);
    }
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    kd_prog_free(p);
}

/* Compile d and launch it over gx work-groups of bx threads with n, 0 and
 * arrays arr. */
static struct kd_prog *compile_launch(const struct kd_desc *d, struct kernel *k, uint32_t gx,
                                      uint32_t bx, int64_t n, const struct kd_array *arr)
{
    struct err e = {0};
    struct kd_prog *p = kd_compile(d, &e);
    cr_assert(p, "%s", e.msg);
    int64_t v[] = {n, 0};
    cr_assert_eq(kd_launch(p, k, (struct kernel_dim){gx, 1, 1}, (struct kernel_dim){bx, 1, 1}, v,
                           both, arr, &e),
                 0, "%s", e.msg);
    return p;
}

/* wg_items: an irregular partition of the items (chunks of 3, 5 and 1 in
 * blocks of 8): work-group g's threads below its chunk's size run, its
 * accesses index the chunk's items and its LDS slots are relative to the
 * chunk (the next item of a ring per chunk); the ranges are the chunk's
 * items; a partition too short for the grid is a launch error. */
Test(kd, irregular_work_group_chunks)
{
    static const uint32_t items[] = {0, 3, 8, 9}, nxt[] = {1, 2, 0, 4, 5, 6, 7, 3, 8};
    static const struct kd_array arr[] = {{items, 4}, {nxt, 9}};
    static const char *const names[] = {"items", "next", NULL};
    static const struct kd_desc d = {
        .name = "chunks", .params = params, .bufs = bufs, .arrays = names, .wg_items = "items",
        .range_reads = true,
        .body = "if wg0 + tx < wg1\n"
                "  load a[wg0 + tx] 4 -> r1\n"
                "  lds_store lds[@next[wg0 + tx] - wg0] 4 < r1\n"
                "  store b[n + @next[wg0 + tx]] 8\n"
                "end\n"};
    struct kernel k;
    struct kd_prog *p = compile_launch(&d, &k, 3, 8, 10, arr);
    struct kernel_warp w = warp(&k, 1, 0, 8); /* items 3..7 */
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.mask == 0x1f && !op.lanes && op.stride == 4);
    cr_expect_eq(op.base, 0x100000 + 3 * 4);
    op = next(&k, &w);
    cr_expect(op.kind == KOP_LDS_STORE && op.mask == 0x1f && op.lanes && op.src[0] == 1);
    cr_expect(w.lane_addr[0] == 1 * 4 && w.lane_addr[3] == 4 * 4 && w.lane_addr[4] == 0,
              "slots 1, 2, 3, 4, 0 of the chunk");
    op = next(&k, &w);
    cr_expect(op.kind == KOP_STORE && op.mask == 0x1f && op.lanes);
    cr_expect_eq(w.lane_addr[4], 0x200000 + (10 + 3) * 8);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    w = warp(&k, 2, 0, 8); /* item 8 alone */
    op = next(&k, &w);
    cr_expect(op.mask == 1 && op.base == 0x100000 + 8 * 4);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 + 3 * 4 && r[0].hi == 0x100000 + 8 * 4, "items 3..7 of a");
    cr_assert_eq(k.ranges(&k, 1, 1, r, 4), 1);
    cr_expect(r[0].lo == 0x200000 + 13 * 8 && r[0].hi == 0x200000 + 18 * 8, "of b");
    struct err e = {0};
    cr_expect_eq(kd_launch(p, &k, (struct kernel_dim){4, 1, 1}, (struct kernel_dim){8, 1, 1},
                           (int64_t[]){10, 0}, both, arr, &e),
                 -1);
    cr_expect_str_eq(e.msg, "kernel chunks: wg_items 'items' has 4 entries, 4 work-groups need 5");
    kd_prog_free(p);
    struct kd_desc bad = d;
    bad.wg_items = "nope";
    cr_expect_null(kd_compile(&bad, &e));
    cr_expect_str_eq(e.msg, "kernel chunks: wg_items 'nope' is not an array");
}

/* whole: a buffer so named has no derived ranges (the whole structure, its
 * mode unchanged); the others keep theirs; a name that is not a buffer is
 * an error. */
Test(kd, buffers_annotated_whole)
{
    static const char *const whole[] = {"b", NULL};
    static const struct kd_desc d = {.name = "w", .params = params, .bufs = bufs, .whole = whole,
                                     .body = "if gid < n\n"
                                             "  load a[gid] 4 -> r1\n"
                                             "  store b[gid] 4 < r1\n"
                                             "end\n"};
    struct kernel k;
    struct kd_prog *p = compile_launch(&d, &k, 2, 64, 100, NULL);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 1);
    cr_expect(r[0].lo == 0x100000 + 64 * 4 && r[0].hi == 0x100000 + 100 * 4);
    cr_expect_eq(k.ranges(&k, 1, 1, r, 4), 0, "b: the whole structure");
    cr_expect_eq(k.ranges(&k, 1, 1, r, KERNEL_MAX_RANGES), 0);
    cr_expect_eq(k.args[1].mode, KERNEL_RW);
    kd_prog_free(p);
    struct kd_desc bad = d;
    bad.whole = (const char *const[]){"c", NULL};
    struct err e = {0};
    cr_expect_null(kd_compile(&bad, &e));
    cr_expect_str_eq(e.msg, "kernel w: whole 'c' is not a buffer");
}

/* arrays_fixed: an identical launch keeps the ranges its binding derived
 * from the arrays (here changed behind its back, which a description that
 * says so never does); without it they are derived again. */
Test(kd, ranges_kept_where_the_arrays_are_fixed)
{
    static uint32_t at[] = {5};
    static const struct kd_array arr[] = {{at, 1}};
    static const char *const names[] = {"at", NULL};
    struct kd_desc d = {.name = "f", .params = params, .bufs = bufs, .arrays = names,
                        .range_reads = true, .body = "load a[@at[0] + tx] 4 -> r1\n"};
    for (int fixed = 0; fixed < 2; fixed++) {
        d.arrays_fixed = fixed;
        at[0] = 5;
        struct kernel k;
        struct kd_prog *p = compile_launch(&d, &k, 1, 4, 0, arr);
        struct addr_range r[KERNEL_MAX_RANGES];
        cr_assert_eq(k.ranges(&k, 0, 0, r, KERNEL_MAX_RANGES), 1);
        cr_expect_eq(r[0].lo, 0x100000 + 5 * 4);
        at[0] = 7;
        struct err e = {0};
        cr_assert_eq(kd_launch(p, &k, (struct kernel_dim){1, 1, 1}, (struct kernel_dim){4, 1, 1},
                               (int64_t[]){0, 0}, both, arr, &e),
                     0);
        cr_assert_eq(k.ranges(&k, 0, 0, r, KERNEL_MAX_RANGES), 1);
        cr_expect_eq(r[0].lo, 0x100000 + (fixed ? 5 : 7) * 4, "fixed %d", fixed);
        kd_prog_free(p);
    }
}

/* A quotient by a launch constant, per lane: the flat elements of a tile of
 * rows of w (el / w its row, el % w its column) at each lane's own address;
 * a condition on the same quotient narrows the ranges row by row; floor
 * below zero. */
Test(kd, quotients_per_lane)
{
    struct kd_prog *p = compile("for m0 = 0 .. 2\n"
                                "  if tx + m0*8 < 15\n"
                                "    load a[(tx + m0*8) / w * n + (tx + m0*8) % w] 4 -> r1\n"
                                "    if (tx + m0*8) / w < 2\n"
                                "      store b[(tx + m0*8) / w * n + (tx + m0*8) % w] 4 < r1\n"
                                "    end\n"
                                "  end\n"
                                "end\n"
                                "load b[(tx - 3) / 4 + 1] 4 -> r2\n");
    struct kernel k;
    launch(p, &k, 1, 8, 1, 100, 5); /* rows 100 elements apart, tiles 5 wide */
    struct kernel_warp w = warp(&k, 0, 0, 8);
    struct kernel_op op = next(&k, &w); /* elements 0..7: row 0, then row 1 */
    cr_expect(op.kind == KOP_LOAD && op.lanes && op.mask == 0xffull);
    for (unsigned l = 0; l < 8; l++)
        cr_expect_eq(w.lane_addr[l], 0x100000 + (l < 5 ? l : 100 + l - 5) * 4, "lane %u", l);
    op = next(&k, &w); /* the store: rows 0 and 1, every lane */
    cr_expect(op.kind == KOP_STORE && op.mask == 0xffull);
    cr_expect_eq(w.lane_addr[7], 0x200000 + 102 * 4);
    op = next(&k, &w); /* elements 8..14: row 1 columns 3, 4, row 2 */
    cr_expect(op.kind == KOP_LOAD && op.mask == 0x7full);
    cr_expect_eq(w.lane_addr[1], 0x100000 + 104 * 4);
    cr_expect_eq(w.lane_addr[2], 0x100000 + 200 * 4);
    cr_expect_eq(w.lane_addr[6], 0x100000 + 204 * 4);
    op = next(&k, &w); /* the store: row 1's two lanes */
    cr_expect(op.kind == KOP_STORE && op.mask == 0x3ull);
    op = next(&k, &w); /* floor((tx - 3) / 4) + 1: 0, 0, 0, 1, 1, 1, 1, 2 */
    cr_expect(op.kind == KOP_LOAD && op.lanes);
    for (unsigned l = 0; l < 8; l++)
        cr_expect_eq(w.lane_addr[l], 0x200000 + (l < 3 ? 0 : l < 7 ? 1 : 2) * 4, "lane %u", l);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 3, "the tile's three rows");
    for (unsigned i = 0; i < 3; i++)
        cr_expect(r[i].lo == 0x100000 + i * 100 * 4 && r[i].hi == r[i].lo + 5 * 4, "row %u", i);
    cr_assert_eq(k.ranges(&k, 0, 1, r, 4), 2, "b: rows 0 and 1 (elements 0..2 in row 0)");
    cr_expect(r[0].lo == 0x200000 && r[0].hi == 0x200000 + 5 * 4);
    cr_expect(r[1].lo == 0x200000 + 100 * 4 && r[1].hi == r[1].lo + 5 * 4);
    kd_prog_free(p);
    expect_error("load a[tx / w + tx % n] 4 -> r1\n",
                 "kernel bad, line 1: index 'tx / w + tx % n': one quotient per expression");
    expect_error("load a[@row[tx] / w] 4 -> r1\n",
                 "kernel bad, line 1: '@row[tx] / w': one array read, min, max or quotient per "
                 "expression");
    expect_error("for m0 = 0 .. n step w / 2\nend\n",
                 "kernel bad, line 1: index 'w / 2': '/' is not allowed here");
    p = compile("load a[gid / tx] 4 -> r1\n");
    int64_t v[] = {1, 1};
    struct err e = {0};
    cr_expect_eq(kd_launch(p, &k, (struct kernel_dim){1, 1, 1}, (struct kernel_dim){32, 1, 1}, v,
                           both, graph, &e),
                 -1);
    cr_expect_str_eq(e.msg, "kernel t, statement 1: a divisor of 0: a positive value, the same in "
                            "every thread, expected");
    kd_prog_free(p);
}

/* A memory statement's test: the active lanes that fail it access the
 * fallback element instead (padding lanes that read element 0) and stay
 * active; the ranges hold the passing lanes' elements, and the fallback's
 * only where some lane of the work-group fails. */
Test(kd, fallback_index_where_a_test_fails)
{
    struct kd_prog *p = compile("if tx < n\n"
                                "  load a[tx*2 + 100] 4 -> r1 if 3 < tx and tx < 6 else [0]\n"
                                "end\n"
                                "load b[tx] 4 -> r2 if -1 < tx < 8 else [100]\n"
                                "store b[tx + 8] 4 < r2 if tx % 4 < 2 else [tx / 4]\n");
    struct kernel k;
    launch(p, &k, 1, 8, 1, 7, 0);
    struct kernel_warp w = warp(&k, 0, 0, 8);
    struct kernel_op op = next(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.lanes && op.mask == 0x7full && op.dst == 1);
    for (unsigned l = 0; l < 7; l++)
        cr_expect_eq(w.lane_addr[l], 0x100000 + (l == 4 || l == 5 ? (l * 2 + 100) * 4 : 0),
                     "lane %u", l);
    op = next(&k, &w); /* every lane passes: base and stride */
    cr_expect(op.kind == KOP_LOAD && !op.lanes && op.base == 0x200000 && op.stride == 4);
    op = next(&k, &w); /* lanes 2, 3, 6, 7 fail: elements tx / 4 */
    cr_expect(op.kind == KOP_STORE && op.lanes && op.mask == 0);
    for (unsigned l = 0; l < 8; l++)
        cr_expect_eq(w.lane_addr[l], 0x200000 + (l % 4 < 2 ? l + 8 : l / 4) * 4, "lane %u", l);
    cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 0, 0, r, 4), 3, "element 0, then 108 and 110");
    cr_expect(r[0].lo == 0x100000 && r[0].hi == 0x100000 + 4);
    cr_expect(r[1].lo == 0x100000 + 108 * 4 && r[1].hi == r[1].lo + 4);
    cr_expect(r[2].lo == 0x100000 + 110 * 4 && r[2].hi == r[2].lo + 4);
    cr_assert_eq(k.ranges(&k, 0, 1, r, 4), 2, "b: 0..7 (no 100), 8, 9, 12, 13 (and 0, 1)");
    cr_expect(r[0].lo == 0x200000 && r[0].hi == 0x200000 + 10 * 4);
    cr_expect(r[1].lo == 0x200000 + 12 * 4 && r[1].hi == 0x200000 + 14 * 4);
    kd_prog_free(p);
    expect_error("load a[tx] 4 -> r1 if tx < n\n",
                 "kernel bad, line 1: 'if tx < n': if TEST else [INDEX] expected");
    expect_error("load a[tx] 4 -> r1 if tx < n else 0\n",
                 "kernel bad, line 1: 'if tx < n else 0': if TEST else [INDEX] expected");
}

/* A clause's count may be an expression, as an alu's count may: the
 * instructions inside a branch per iteration, read from a table (0 too). */
Test(kd, alu_clause_counts_from_expressions)
{
    struct kd_prog *p = compile("for m0 = 0 .. 4\n"
                                "  alu (@row[m0 + 1]) + (@col[m0]) [tx < n] + (m0 + 1) [tx < w]\n"
                                "end\n");
    struct kernel k;
    static const uint32_t want[2][4] = {{3 + 1, 3 + 2, 4 + 3, 6 + 0}, {5, 7, 10, 10}};
    for (int64_t wv = 0; wv < 2; wv++) {
        launch(p, &k, 1, 4, 1, 2, wv);
        struct kernel_warp w = warp(&k, 0, 0, 4);
        for (unsigned i = 0; i < 4; i++) {
            struct kernel_op op = next(&k, &w);
            cr_expect(op.kind == KOP_ALU && op.n == want[wv][i], "w %lld, m0 %u: n %u",
                      (long long)wv, i, op.n);
        }
        cr_expect_eq(next(&k, &w).kind, KOP_EXIT);
    }
    kd_prog_free(p);
    expect_error("alu 3 + (tx) [tx < n]\n",
                 "kernel bad, line 1: '(tx)': the same in every lane expected (no thread index)");
}

/* Lanes whose elements are not adjacent but less than range_join apart
 * span their values instead of being enumerated one by one: the same
 * ranges, and the enumeration budget is left for the loops, which still
 * narrow their conditions in the last rows. */
Test(kd, pieces_closer_than_the_join_span)
{
    static struct kd_desc d;
    d = (struct kd_desc){.name = "j", .params = params, .bufs = bufs, .range_join = 64,
                         .body = "for m0 = 0 .. 60\n"
                                 "  for m1 = 0 .. 3\n"
                                 "    if tx*2 + m1 < n\n"
                                 "      load a[m0*w + tx*2 + m1] 4 -> r1\n"
                                 "    end\n"
                                 "  end\n"
                                 "end\n"};
    struct kd_prog *p = compile_desc(&d);
    struct kernel k;
    launch(p, &k, 1, 64, 1, 100, 1000);
    struct addr_range r[64];
    cr_assert_eq(k.ranges(&k, 0, 0, r, 64), 60);
    for (unsigned i = 0; i < 60; i++)
        cr_expect(r[i].lo == 0x100000 + i * 1000 * 4 && r[i].hi == r[i].lo + 100 * 4,
                  "row %u: elements 0..99", i);
    kd_prog_free(p);
}
