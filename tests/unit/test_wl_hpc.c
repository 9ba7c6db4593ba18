/*
 * Workload models of the streams/HPC group (babelstream, square, hacc,
 * lulesh, pennant): each at its small size on the tiny machine under viper
 * and ideal with the annotation checker on (no stale read, no violation),
 * the documented kernel count and footprint, the exact ops of chosen warps
 * and the parameter errors.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "wl_harness.h"

extern const struct wl_ops wl_babelstream, wl_square, wl_hacc, wl_lulesh, wl_pennant;

/* "[workload]" with the small overrides and extra lines, the scheme, checks on. */
static void small_ini(char *buf, size_t n, const struct wl_ops *w, const char *extra,
                      const char *scheme)
{
    size_t o = (size_t)snprintf(buf, n, "[workload]\n");
    for (const char *const *s = w->small; *s; s++)
        o += (size_t)snprintf(buf + o, n - o, "%s\n", *s);
    o += (size_t)snprintf(buf + o, n - o,
                          "%s[coherence]\nscheme = %s\n[check]\nannotations = true\n",
                          extra ? extra : "", scheme);
}

static struct machine *open_wl(const struct wl_ops *w, const char *extra, const char *scheme)
{
    char ini[2048];
    struct err e;
    small_ini(ini, sizeof ini, w, extra, scheme);
    struct machine *m = machine_new_wl(ini, w, &e);
    cr_assert(m, "%s: %s", w->name, e.msg);
    return m;
}

/* Run at the small size (plus extra) under viper and ideal; check the
 * checker's counters, the kernel count and the footprint. */
static void run_small(const struct wl_ops *w, const char *extra, uint64_t kernels,
                      uint64_t footprint)
{
    static const char *const schemes[] = {"viper", "ideal"};
    for (int i = 0; i < 2; i++) {
        struct machine *m = open_wl(w, extra, schemes[i]);
        cr_expect_eq(wl_footprint(&m->env), footprint, "%s footprint %llu, want %llu", w->name,
                     (unsigned long long)wl_footprint(&m->env), (unsigned long long)footprint);
        cr_assert_eq(machine_run(m), SIM_DONE, "%s under %s", w->name, schemes[i]);
        cr_expect_eq(m->g.cp.st.kernels, kernels, "%s kernels %llu, want %llu", w->name,
                     (unsigned long long)m->g.cp.st.kernels, (unsigned long long)kernels);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0, "%s %s stale reads", w->name,
                     schemes[i]);
        cr_expect_eq(machine_stat(m, "checker.annotation_violations"), 0,
                     "%s %s annotation violations %llu", w->name, schemes[i],
                     (unsigned long long)machine_stat(m, "checker.annotation_violations"));
        cr_expect_gt(machine_stat(m, "core.warp_insts"), 1000, "%s warp insts", w->name);
        if (machine_stat(m, "checker.stale_reads") ||
            machine_stat(m, "checker.annotation_violations"))
            chk_print_reports(&m->g.chk, stderr);
        if (getenv("WL_HPC_VERBOSE"))
            fprintf(stderr, "%s/%s: %llu kernels, %llu warp insts, %llu cycles\n", w->name,
                    schemes[i], (unsigned long long)m->g.cp.st.kernels,
                    (unsigned long long)machine_stat(m, "core.warp_insts"),
                    (unsigned long long)((m->g.cp.last_end - m->g.cp.first_launch) /
                                         m->g.ms.gpu_clk.period));
        machine_free(m);
    }
}

/* ---- generator helpers ---- */

static void *gen_try(struct wlh *g, const struct wl_ops *w, const char *ini)
{
    return wlh_try(g, w, ini, 4, 240);
}

static void gen_open(struct wlh *g, const struct wl_ops *w, const char *ini)
{
    cr_assert_not_null(gen_try(g, w, ini), "%s", g->e.msg);
}

/* The same as for a machine of warp_size-lane warps (the hourglass kernels'
 * counts per warp). */
static void gen_open_ws(struct wlh *g, const struct wl_ops *w, const char *ini,
                        unsigned warp_size)
{
    cr_assert_not_null(wlh_try_ws(g, w, ini, 4, 240, warp_size), "%s", g->e.msg);
}

static void gen_close(struct wlh *g) { wlh_close(g); }

static void expect_error(const struct wl_ops *w, const char *ini, const char *want)
{
    struct wlh g;
    cr_expect_null(gen_try(&g, w, ini), "accepted: %s", ini);
    cr_expect_str_eq(g.e.msg, want);
    gen_close(&g);
}

/* Next op that is not compute. */
static struct kernel_op step_mem(const struct kernel *k, struct kernel_warp *w)
{
    struct kernel_op op;
    do
        op = wlh_step(k, w);
    while (op.kind == KOP_ALU);
    return op;
}

static uint64_t count_kernels(const struct wl_ops *w, const char *ini)
{
    struct wlh g;
    gen_open(&g, w, ini);
    struct kernel k;
    uint64_t n = 0;
    while (w->next_kernel(g.self, &k))
        n++;
    gen_close(&g);
    return n;
}

static const struct kernel_buf *find_buf(const struct wl_env *env, const char *name)
{
    for (size_t i = 0; i < env->nbufs; i++)
        if (!strcmp(env->bufs[i]->name, name))
            return env->bufs[i];
    cr_assert_fail("no buffer %s", name);
    return NULL;
}

/* ==== square ==== */

Test(wl_hpc, square_small_runs)
{
    /* 8192 floats x 2 arrays; one kernel per iteration */
    run_small(&wl_square, NULL, 2, 2 * 8192 * 4);
}

/* ==== babelstream ==== */

Test(wl_hpc, babelstream_small_runs)
{
    /* 1 + 5 x iterations kernels; a, b, c of n doubles and dot_blocks sums */
    run_small(&wl_babelstream, NULL, 1 + 5 * 2, 3 * 16384 * 8 + 8 * 8);
}

/* ==== lulesh ==== */

Test(wl_hpc, lulesh_small_runs)
{
    /* size 4, block 64: 125 nodes, 64 elements, 25 nodes per symmetry
     * plane, 1 work-group; 140 B per node (13 doubles, nodeElemCount, 8
     * corner-list entries), 976 B per element (114 doubles, 8 nodelist and 6
     * neighbour entries, matElemlist, elemBC), 12 B per symmetry node, 16 B
     * per element work-group */
    run_small(&wl_lulesh, NULL, 28 * 2, 140 * 125 + 976 * 64 + 12 * 25 + 16 * 1);
}

/* ==== pennant ==== */

Test(wl_hpc, pennant_small_runs)
{
    /* 8 x 6 zones: 55 points, 48 zones, 184 sides: 92 B per side, 84 per
     * point, 96 per zone, dtnext and idtnext */
    run_small(&wl_pennant, NULL, 1 + 5 * 3, 92 * 184 + 84 * 55 + 96 * 48 + 12);
}

/* ==== hacc ==== */

Test(wl_hpc, hacc_small_runs)
{
    /* 256 particles in 4 leaves of 64: 7 arrays of 4 B per particle (the
     * lists are read in place) */
    run_small(&wl_hacc, NULL, 4, 28 * 256);
}

/* ---- exact ops ---- */

/* Op a against the wanted b: a mask of 0 is the warp's lanes; where b gives
 * a base and a stride, a's lanes (w->lane_addr, however a gives them) must
 * be at those addresses. */
static void op_is(const struct kernel_warp *w, struct kernel_op a, struct kernel_op b,
                  const char *what)
{
    uint64_t mask = a.mask ? a.mask : low_bits(w->nlanes);
    uint64_t want = b.mask ? b.mask : low_bits(w->nlanes);
    cr_expect_eq(a.kind, b.kind, "%s: kind %u, want %u", what, a.kind, b.kind);
    cr_expect_eq(a.size, b.size, "%s: size %u", what, a.size);
    cr_expect_eq(a.dst, b.dst, "%s: dst %u", what, a.dst);
    cr_expect_eq(a.src[0], b.src[0], "%s: src0 %u", what, a.src[0]);
    cr_expect_eq(a.src[1], b.src[1], "%s: src1 %u", what, a.src[1]);
    cr_expect_eq(a.n, b.n, "%s: n %u", what, a.n);
    if (a.kind != KOP_LOAD && a.kind != KOP_STORE && a.kind != KOP_ATOMIC &&
        a.kind != KOP_LDS_LOAD && a.kind != KOP_LDS_STORE)
        return;
    cr_expect_eq(mask, want, "%s: mask %#llx, want %#llx", what, (unsigned long long)mask,
                 (unsigned long long)want);
    for (uint64_t m = b.lanes ? 0 : mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        addr_t at = b.base + (addr_t)((int64_t)l * b.stride);
        cr_expect_eq(w->lane_addr[l], at, "%s: lane %u at %#llx, want %#llx", what, l,
                     (unsigned long long)w->lane_addr[l], (unsigned long long)at);
    }
}

#define OP(...) ((struct kernel_op){__VA_ARGS__})

static void expect_lane(const struct kernel_warp *w, unsigned lane, addr_t want, const char *what)
{
    cr_expect_eq(w->lane_addr[lane], want, "%s lane %u: %#llx, want %#llx", what, lane,
                 (unsigned long long)w->lane_addr[lane], (unsigned long long)want);
}

static void kernel_n(struct wlh *g, struct kernel *k, unsigned n)
{
    for (unsigned i = 0; i <= n; i++)
        cr_assert(g->ops->next_kernel(g->self, k), "kernel %u", i);
}

/* ==== babelstream: Table II sequence and ops ==== */

Test(wl_hpc, babelstream_table2_sequence)
{
    cr_expect_eq(count_kernels(&wl_babelstream, NULL), 1 + 5 * 100);
    struct wlh g;
    gen_open(&g, &wl_babelstream, NULL);
    cr_expect_eq(wl_footprint(&g.env), 3 * 524288 * 8 + 256 * 8);
    static const char *const names[] = {"init_kernel", "copy_kernel",  "mul_kernel",
                                        "add_kernel",  "triad_kernel", "dot_kernel"};
    struct kernel k;
    for (unsigned i = 0; i < 11; i++) {
        cr_assert(wl_babelstream.next_kernel(g.self, &k));
        unsigned kind = i ? 1 + (i - 1) % 5 : 0;
        cr_expect_str_eq(k.name, names[kind]);
        cr_expect_eq(k.grid.x, kind == 5 ? 256 : 512);
        cr_expect_eq(k.block.x, 1024);
        cr_expect_eq(k.lds_b, kind == 5 ? 8192 : 0);
        if (i == 1) { /* copy: a R (after init: same pattern), c RW */
            cr_expect_str_eq(k.args[0].buf->name, "a");
            cr_expect_eq(k.args[0].mode, KERNEL_R);
            cr_expect(k.args[0].same_pattern);
            cr_expect_str_eq(k.args[1].buf->name, "c");
            cr_expect_eq(k.args[1].mode, KERNEL_RW);
        }
        if (i == 5) { /* dot: a, b R with grid-stride slices; sums RW */
            cr_expect_eq(k.nargs, 3);
            cr_expect_not(k.args[0].same_pattern);
            cr_expect_not(k.args[2].same_pattern, "first dot");
            cr_expect_eq(k.args[2].mode, KERNEL_RW);
        }
        if (i == 6) /* second copy: a's previous user was dot */
            cr_expect_not(k.args[0].same_pattern);
        if (i == 10)
            cr_expect(k.args[2].same_pattern, "second dot: same sums slices");
    }
    gen_close(&g);
}

Test(wl_hpc, babelstream_ops)
{
    struct wlh g;
    gen_open(&g, &wl_babelstream, NULL);
    struct kernel k;
    kernel_n(&g, &k, 3); /* add_kernel */
    const struct kernel_buf *a = find_buf(&g.env, "a"), *b = find_buf(&g.env, "b"),
                            *c = find_buf(&g.env, "c"), *sums = find_buf(&g.env, "sums");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 3, 5);
    addr_t off = (3 * 1024 + 5 * 64) * 8;
    /* PTX counts: parameters, index, a's and b's addresses */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 10), "index");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LOAD, .size = 8, .stride = 8, .base = a->base + off, .dst = 1), "a");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LOAD, .size = 8, .stride = 8, .base = b->base + off, .dst = 2), "b");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 1), "address"); /* PTX: one add */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 1, .src = {1, 2}), "add");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_STORE, .size = 8, .stride = 8, .base = c->base + off, .src = {1, 2}), "c");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_EXIT), "exit");
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 3, 2, r, 4), 1);
    cr_expect_eq(r[0].lo, c->base + 3 * 1024 * 8);
    cr_expect_eq(r[0].hi, c->base + 4 * 1024 * 8);

    kernel_n(&g, &k, 1);   /* dot_kernel */
    wlh_warp_at(&w, &k, 1, 2); /* threads 128..191 of work-group 1 */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 22), "prologue"); /* PTX counts */
    for (uint64_t it = 0; it < 2; it++) {
        addr_t e = (1 * 1024 + 128 + it * 262144) * 8;
        op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 6), "loop");
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LOAD, .size = 8, .stride = 8, .base = a->base + e, .mask = ~0ull,
                 .dst = 1),
              "a");
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LOAD, .size = 8, .stride = 8, .base = b->base + e, .mask = ~0ull,
                 .dst = 2),
              "b");
        op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 1, .src = {1, 2}), "fma");
    }
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LDS_STORE, .size = 8, .stride = 8, .base = 128 * 8),
          "tb_sum");
    for (unsigned off2 = 512; off2; off2 /= 2) {
        op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 5), "step"); /* PTX counts */
        op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_BARRIER), "barrier");
        if (off2 <= 128)
            continue; /* no thread of this warp below the offset */
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LDS_LOAD, .size = 8, .stride = 8, .base = (128 + off2) * 8,
                 .mask = ~0ull, .dst = 3),
              "hi");
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LDS_LOAD, .size = 8, .stride = 8, .base = 128 * 8, .mask = ~0ull,
                 .dst = 4),
              "lo");
        /* PTX: the address of tb_sum[local_i + offset] and the add */
        op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 3, .src = {3, 4}), "add");
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LDS_STORE, .size = 8, .stride = 8, .base = 128 * 8, .mask = ~0ull,
                 .src = {3, 4}),
              "store");
    }
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_EXIT), "exit");
    /* warp 0: a 32-lane step, then thread 0 writes sums[1] */
    wlh_warp_at(&w, &k, 1, 0);
    struct kernel_op op;
    do
        op = wlh_step(&k, &w);
    while (!(op.kind == KOP_LDS_LOAD && op.mask == (1ull << 32) - 1));
    cr_expect_eq(op.base, 32 * 8);
    do
        op = wlh_step(&k, &w);
    while (op.kind != KOP_STORE);
    op_is(&w, op, /* the index, blockIdx.x, is the same in every lane: stride 0 */
          OP(.kind = KOP_STORE, .size = 8, .stride = 0, .base = sums->base + 8, .mask = 1,
             .src = {5}),
          "sums[1]");
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 2);
    cr_expect_eq(r[1].lo, a->base + (1024 + 262144) * 8);
    cr_assert_eq(k.ranges(&k, 1, 2, r, 4), 1);
    cr_expect_eq(r[0].lo, sums->base + 8);
    cr_expect_eq(r[0].hi, sums->base + 16);
    gen_close(&g);
}

Test(wl_hpc, babelstream_errors)
{
    expect_error(&wl_babelstream, "[workload]\nn = 1000\n",
                 "t.ini:2: [workload] n = 1000: must be a multiple of tbsize (1024), as HIPStream "
                 "requires");
    expect_error(&wl_babelstream, "[workload]\nn = 960\ntbsize = 96\n",
                 "t.ini:3: [workload] tbsize = 96: must be a power of two and a multiple of the "
                 "warp size (64)");
    struct wlh g;
    cr_expect_null(gen_try(&g, &wl_babelstream, NULL) ? NULL : NULL);
    gen_close(&g);
}

Test(wl_hpc, babelstream_float)
{
    struct wlh g;
    gen_open(&g, &wl_babelstream, "[workload]\ntype = float\nn = 2048\n");
    cr_expect_eq(wl_footprint(&g.env), 3 * 2048 * 4 + 256 * 4);
    gen_close(&g);
}

/* ==== lulesh ==== */

Test(wl_hpc, lulesh_kernel_count)
{
    /* stop time 1e-2 is far beyond 10 steps of dt <= 1e-7 x 1.2^n: the cap decides */
    cr_expect_eq(count_kernels(&wl_lulesh, "[workload]\nsize = 2\n"), 28 * 10);
    /* dt 1e-7, then 1e-7 (2/3 of the remaining 1.5e-7), then the last 0.5e-7 */
    cr_expect_eq(count_kernels(&wl_lulesh, "[workload]\nsize = 2\nstoptime = 2.5e-7\n"
                                           "iterations = 100\n"),
                 28 * 3);
    struct wlh g;
    gen_open(&g, &wl_lulesh, NULL);
    cr_expect_eq(wl_footprint(&g.env), 140ull * 97336 + 976ull * 91125 + 12 * 2116 + 16 * 356);
    gen_close(&g);
}

/* Ops the warp issues before it exits. */
static unsigned ops_left(const struct kernel *k, struct kernel_warp *w)
{
    unsigned n = 0;
    while (wlh_step(k, w).kind != KOP_EXIT)
        n++;
    return n;
}

/* The ops of a 32-lane warp of work-group wg (as in docs/workloads/lulesh.md):
 * compute instructions, global, LDS and barrier ops. */
struct lk_mix {
    unsigned alu, glb, lds, bar;
};

static struct lk_mix warp32(const struct kernel *k, uint32_t wg, uint32_t warp, unsigned lanes)
{
    struct kernel_warp w = {.k = k, .wg = wg, .wg_id = {wg, 0, 0}, .warp = warp, .warp_size = 32,
                            .nlanes = lanes};
    struct lk_mix m = {0};
    for (struct kernel_op op = wlh_step(k, &w); op.kind != KOP_EXIT; op = wlh_step(k, &w)) {
        m.alu += op.kind == KOP_ALU ? op.n : 0;
        m.glb += op.kind == KOP_LOAD || op.kind == KOP_STORE;
        m.lds += op.kind == KOP_LDS_LOAD || op.kind == KOP_LDS_STORE;
        m.bar += op.kind == KOP_BARRIER;
    }
    return m;
}

static void expect_mix(struct lk_mix m, struct lk_mix want, const char *what)
{
    cr_expect(m.alu == want.alu && m.glb == want.glb && m.lds == want.lds && m.bar == want.bar,
              "%s: alu %u glb %u lds %u bar %u, want %u %u %u %u", what, m.alu, m.glb, m.lds,
              m.bar, want.alu, want.glb, want.lds, want.bar);
}

/* Per thread of every kernel of a step at Table II, the PTX instruction
 * counts and memory operations of the real kernels' path (docs/workloads/
 * lulesh.md, "Where the ALU counts come from"), on 32-lane warps: E,
 * elements 2080-2111 (work-group 8, warp 1: interior elements of row y = 1
 * of plane z = 1); N, nodes 5216-5247 (work-group 20, warp 3: some interior,
 * 8 corners); S, the symmetry kernel's first warp; W, warp 0 of work-group 8
 * (in the hourglass kernels node 0, which takes every reduction step; in the
 * time constraints every reduction step and thread 0's store). */
Test(wl_hpc, lulesh_ptx_counts)
{
    enum { E, N, S, W };
    static const uint32_t at[4][2] = {[E] = {8, 1}, [N] = {20, 3}, [S] = {0, 0}, [W] = {8, 0}};
    static const struct {
        const char *name;
        int at;
        struct lk_mix m;
    } want[28] = {
        {"InitStressTermsForElems", E, {20, 5, 0, 0}},
        {"IntegrateStressForElems", E, {448, 8 + 24 + 1 + 3 + 24, 0, 0}},
        {"AddNodeForcesFromElems", N, {39 + 8 * 9 + 4, 1 + 8 * 4 + 3, 0, 0}},
        {"CalcHourglassControlForElems", W, {136 + 12, 13, 2 + 3 * 24 + 2, 8}},
        {"CalcFBHourglassForceForElems", W, {344 + 1 + 1 + 4, 17, 24 * 11, 24 * 6}},
        {"AddNodeForcesFromElems2", N, {39 + 8 * 9 + 7, 1 + 8 * 4 + 6, 0, 0}},
        {"CalcAccelerationForNodes", N, {25, 9, 0, 0}},
        {"ApplyAccelerationBoundaryConditionsForNodes", S, {24, 6, 0, 0}},
        {"CalcVelocityForNodes", N, {34, 9, 0, 0}},
        {"CalcPositionForNodes", N, {24, 9, 0, 0}},
        {"CalcKinematicsForElems", E, {512, 2 * (8 + 24) + 2 + 6, 0, 0}},
        {"CalcLagrangeElementsPart2", E, {22, 3 + 1 + 3 * 2, 0, 0}},
        {"CalcMonotonicQGradientsForElems", E, {304, 8 + 48 + 2 + 6, 0, 0}},
        {"CalcMonotonicQRegionForElems", E, {185, 3 + 6 * 2 + 2 + 1 + 6 + 2, 0, 0}},
        {"ApplyMaterialPropertiesForElemsPart1", E, {26, 3, 0, 0}},
        {"EvalEOSForElemsPart1", E, {64, 12 + 9, 0, 0}},
        {"CalcEnergyForElemsPart1", E, {28, 6, 0, 0}},
        {"CalcPressureForElems", E, {37, 7, 0, 0}},
        {"CalcEnergyForElemsPart2", E, {64, 14 + 3, 0, 0}},
        {"CalcPressureForElems", E, {37, 7, 0, 0}},
        {"CalcEnergyForElemsPart3", E, {65, 12 + 1, 0, 0}},
        {"CalcPressureForElems", E, {37, 7, 0, 0}},
        {"CalcEnergyForElemsPart4", E, {45, 8 + 2, 0, 0}},
        {"EvalEOSForElemsPart2", E, {24, 7, 0, 0}},
        {"CalcSoundSpeedForElems", E, {33, 7, 0, 0}},
        {"UpdateVolumesForElems", E, {17, 2, 0, 0}},
        {"CalcCourantConstraintForElems", W, {86, 5, 1 + 8 * 4 + 1, 4}},
        {"CalcHydroConstraintForElems", W, {71, 3, 1 + 8 * 4 + 1, 4}},
    };
    struct wlh g;
    gen_open_ws(&g, &wl_lulesh, NULL, 32);
    struct kernel k;
    for (unsigned i = 0; i < 28; i++) {
        cr_assert(wl_lulesh.next_kernel(g.self, &k));
        cr_expect_str_eq(k.name, want[i].name);
        expect_mix(warp32(&k, at[want[i].at][0], at[want[i].at][1], 32), want[i].m, k.name);
    }
    gen_close(&g);
}

/* The hourglass kernels per node (32-lane warp n of a work-group is node n of
 * 32 elements): CalcElemVolumeDerivative's switch takes 12, 21, 19, ...
 * instructions; the FB kernel adds 4 where the mode's sign is negative (1
 * otherwise, from mode 1 on) and skips one add per reduction step its
 * threads sit out (threads below 128, 64 and 32 take part). A 64-lane warp
 * holds two nodes and runs both nodes' blocks. */
Test(wl_hpc, lulesh_hourglass_nodes)
{
    static const unsigned sw[8] = {12, 21, 19, 21, 19, 21, 19, 21};
    static const unsigned sits_out[8] = {0, 1, 2, 2, 3, 3, 3, 3};
    static const uint8_t neg[4] = {0x3c, 0x96, 0xaa, 0xa5};
    struct wlh g;
    gen_open_ws(&g, &wl_lulesh, NULL, 32);
    struct kernel hg, fb;
    kernel_n(&g, &hg, 3);
    cr_expect_eq(kernel_nwg(&hg), (91125 + 31) / 32, "32 elements per work-group");
    cr_expect_eq(hg.lds_b, 2 * 256 * 8);
    kernel_n(&g, &fb, 0);
    for (unsigned n = 0; n < 8; n++) {
        unsigned sign = 0;
        for (unsigned m = 0; m < 4; m++)
            sign += neg[m] >> n & 1 ? 4 : m ? 1 : 0;
        expect_mix(warp32(&hg, 8, n, 32), (struct lk_mix){136 + sw[n], 13, 76, 8}, "hg");
        expect_mix(warp32(&fb, 8, n, 32),
                   (struct lk_mix){344 + sign - 24 * sits_out[n], 17,
                                   24 * (2 + 3 * (3 - sits_out[n])), 144},
                   "fb");
    }
    gen_close(&g);
    gen_open(&g, &wl_lulesh, NULL);
    kernel_n(&g, &hg, 3);
    struct kernel_warp w;
    wlh_warp_at(&w, &hg, 8, 1); /* nodes 2 and 3 */
    unsigned alu = 0;
    for (struct kernel_op op = wlh_step(&hg, &w); op.kind != KOP_EXIT; op = wlh_step(&hg, &w))
        alu += op.kind == KOP_ALU ? op.n : 0;
    cr_expect_eq(alu, 136 + 8 + 2 + 2 + 7 + 2 + 7, "the switch: both nodes' blocks");
    gen_close(&g);
}

/* The LDS kernels' lanes: the hourglass kernels' threads are node-major
 * (element t % 32 of the work-group, node t / 32); the time constraints'
 * threads past the last element skip the loads but join the reduction. */
Test(wl_hpc, lulesh_lds_ops)
{
    struct wlh g;
    gen_open(&g, &wl_lulesh, NULL);
    const struct kernel_buf *nl = find_buf(&g.env, "nodelist");
    struct kernel k;
    kernel_n(&g, &k, 3);
    cr_expect_str_eq(k.name, "CalcHourglassControlForElems");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0); /* nodes 0 and 1 of elements 32-63 */
    op_is(&w, step_mem(&k, &w), OP(.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = ~0ull, .dst = 1),
          "nodelist[elem + numElem * node]");
    expect_lane(&w, 0, nl->base + 32 * 4, "element 32, node 0");
    expect_lane(&w, 33, nl->base + (91125 + 33) * 4, "element 33, node 1");
    for (int i = 0; i < 3; i++)
        cr_expect_eq(step_mem(&k, &w).kind, KOP_LOAD, "x, y, z of the node");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_BARRIER);
    op_is(&w, step_mem(&k, &w),
          OP(.kind = KOP_LDS_STORE, .size = 8, .stride = 8, .mask = ~0ull, .src = {3}), "y");
    op_is(&w, step_mem(&k, &w),
          OP(.kind = KOP_LDS_STORE, .size = 8, .base = 256 * 8, .stride = 8, .mask = ~0ull,
             .src = {4}),
          "z");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_BARRIER);
    /* the first operand of dvdx: neighbour 1 of the node (node 2 of node 0's
     * element, node 3 of node 1's), its y */
    op_is(&w, step_mem(&k, &w),
          OP(.kind = KOP_LDS_LOAD, .size = 8, .base = 64 * 8, .stride = 8, .mask = ~0ull, .dst = 6),
          "y of a neighbour");
    expect_lane(&w, 5, (2 * 32 + 5) * 8, "node 0 reads node 2");
    expect_lane(&w, 37, (3 * 32 + 5) * 8, "node 1 reads node 3");

    kernel_n(&g, &k, 22);
    cr_expect_str_eq(k.name, "CalcCourantConstraintForElems");
    const struct kernel_buf *dt = find_buf(&g.env, "dtcourant_blk");
    wlh_warp_at(&w, &k, 355, 3); /* threads 192-255 of the last work-group: 53 elements */
    op_is(&w, step_mem(&k, &w),
          OP(.kind = KOP_LOAD, .size = 4, .stride = 4,
             .base = find_buf(&g.env, "matElemlist")->base + (355 * 256 + 192) * 4,
             .mask = (1ull << 53) - 1, .dst = 1),
          "matElemlist");
    for (int i = 0; i < 3; i++)
        step_mem(&k, &w);
    op_is(&w, step_mem(&k, &w),
          OP(.kind = KOP_LDS_STORE, .size = 8, .base = 192 * 8, .stride = 8, .mask = ~0ull),
          "every thread's dtcourant");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_BARRIER, "before the step over 128");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_BARRIER, "before the step over 64");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_BARRIER, "before the first 32 threads' steps");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_BARRIER, "before thread 0's store");
    cr_expect_eq(ops_left(&k, &w), 1, "the compare of the test, then exit");
    wlh_warp_at(&w, &k, 5, 0);
    for (int i = 0; i < 4 + 1 + 1 + 1; i++) /* 4 loads, the store, barrier, s[tid] */
        step_mem(&k, &w);
    op_is(&w, step_mem(&k, &w),
          OP(.kind = KOP_LDS_LOAD, .size = 8, .base = 128 * 8, .stride = 8, .mask = ~0ull,
             .dst = 15),
          "min(s[tid], s[tid + 128])");
    struct kernel_op op;
    do
        op = step_mem(&k, &w);
    while (op.kind != KOP_STORE);
    op_is(&w, op,
          OP(.kind = KOP_STORE, .size = 8, .stride = 8, .base = dt->base + 5 * 8, .mask = 1,
             .src = {14}),
          "thread 0: dtcourant of work-group 5");
    gen_close(&g);
}

Test(wl_hpc, lulesh_nodelist_gather)
{
    struct wlh g;
    gen_open(&g, &wl_lulesh, "[workload]\nsize = 3\nblock = 64\n");
    struct kernel k;
    kernel_n(&g, &k, 1);
    cr_expect_str_eq(k.name, "IntegrateStressForElems");
    cr_expect_eq(k.grid.x, 1);
    const struct kernel_buf *nl = find_buf(&g.env, "nodelist"), *x = find_buf(&g.env, "x");
    const struct kernel_buf *fxe = find_buf(&g.env, "fx_elem");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    /* element 13 = (1, 1, 1): nodes 21, 22, 26, 25, 37, 38, 42, 41 */
    static const unsigned nodes[8] = {21, 22, 26, 25, 37, 38, 42, 41};
    uint64_t mask = (1ull << 27) - 1;
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 18 + 41), "prologue, nodelist addresses");
    for (unsigned j = 0; j < 8; j++)
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LOAD, .size = 4, .stride = 4, .base = nl->base + j * 27 * 4,
                 .mask = mask, .dst = 1),
              "nodelist");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 41, .src = {1}), "coordinate addresses");
    for (unsigned j = 0; j < 8; j++) {
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LOAD, .size = 8, .lanes = true, .mask = mask, .dst = 2, .src = {1}),
              "x");
        expect_lane(&w, 13, x->base + nodes[j] * 8, "x[n]");
        expect_lane(&w, 0, x->base + (j == 0 ? 0 : nodes[j] - 21) * 8, "element 0");
    }
    for (unsigned j = 0; j < 16; j++)
        cr_expect_eq(wlh_step(&k, &w).kind, KOP_LOAD, "y, z");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 23, .src = {2}), "shape functions");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_STORE, .size = 8, .stride = 8, .base = find_buf(&g.env, "determ")->base,
             .mask = mask),
          "determ, before the stresses are read");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 251), "shape functions, node normals");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_LOAD, "sigyy");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_LOAD, "sigzz");
    cr_expect_eq(step_mem(&k, &w).kind, KOP_LOAD, "sigxx");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 70, .src = {5}), "24 corner forces");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_STORE, .size = 8, .stride = 8, .base = fxe->base, .mask = mask),
          "fx_elem plane 0");
    /* annotations: nodelist and fx_elem by the work-group's elements in 8 planes */
    cr_expect_eq(k.args[0].buf, nl);
    struct addr_range r[8];
    cr_assert_eq(k.ranges(&k, 0, 0, r, 8), 1, "the 8 planes of all 27 elements touch");
    cr_expect_eq(r[0].lo, nl->base);
    cr_expect_eq(r[0].hi, nl->base + 8 * 27 * 4);
    cr_expect_eq(k.ranges(&k, 0, 1, r, 8), 0, "x: reached through nodelist");
    gen_close(&g);
}

/* nodeElemCornerList as the port lays it out: the j-th corner of node i at
 * i + numNode * j (coalesced), a corner being k * numElem + e. */
Test(wl_hpc, lulesh_corner_gather_and_neighbours)
{
    struct wlh g;
    gen_open(&g, &wl_lulesh, "[workload]\nsize = 3\nblock = 64\n");
    struct kernel k;
    kernel_n(&g, &k, 2);
    cr_expect_str_eq(k.name, "AddNodeForcesFromElems");
    const struct kernel_buf *fxe = find_buf(&g.env, "fx_elem"),
                            *cl = find_buf(&g.env, "nodeElemCornerList");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0); /* nodes 0..63 */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 39), "prologue, loop set-up, stores' addresses");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_LOAD, "nodeElemCount");
    /* node 21 = (1, 1, 1) is interior: 8 corners, the first of element 0 (corner 6) */
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = ~0ull, .dst = 3, .src = {1}),
          "corner");
    expect_lane(&w, 21, cl->base + 21 * 4, "node 21's first corner");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 2, .src = {3}), "its address");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LOAD, .size = 8, .lanes = true, .mask = ~0ull, .dst = 4, .src = {3}),
          "fx_elem");
    expect_lane(&w, 21, fxe->base + (6 * 27 + 0) * 8, "node 21 corner 0");
    expect_lane(&w, 0, fxe->base + (0 * 27 + 0) * 8, "node 0: element 0 corner 0");
    step_mem(&k, &w);
    step_mem(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 7, .src = {4}), "adds, loop control");
    /* second corner: node 0 has only one, node 21 has element 1's corner 7 */
    struct kernel_op op = wlh_step(&k, &w);
    cr_expect_eq(op.kind, KOP_LOAD);
    cr_expect_eq(op.mask & 1, 0, "node 0 is done after one corner");
    expect_lane(&w, 21, cl->base + (21 + 64) * 4, "node 21's second corner");
    op = step_mem(&k, &w);
    expect_lane(&w, 21, fxe->base + (7 * 27 + 1) * 8, "node 21 corner 1");
    gen_close(&g);

    gen_open(&g, &wl_lulesh, "[workload]\nsize = 3\nblock = 64\n");
    kernel_n(&g, &k, 13);
    cr_expect_str_eq(k.name, "CalcMonotonicQRegionForElems");
    const struct kernel_buf *dxi = find_buf(&g.env, "delv_xi");
    uint64_t xm = 0, xp = 0; /* elements with a xi- neighbour (x > 0), with a xi+ one */
    for (unsigned e = 0; e < 27; e++) {
        xm |= (uint64_t)(e % 3 > 0) << e;
        xp |= (uint64_t)(e % 3 < 2) << e;
    }
    wlh_warp_at(&w, &k, 0, 0);
    for (unsigned i = 0; i < 6; i++) /* prologue, matElemlist, delv_xi, elemBC, the test */
        wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 4), "x = 0: the symmetry case");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 2), "x > 0: lxim's address");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = xm, .dst = 3, .src = {1}),
          "lxim, where x > 0");
    expect_lane(&w, 13, find_buf(&g.env, "lxim..lzetap")->base + 13 * 4, "lxim[13]");
    wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LOAD, .size = 8, .lanes = true, .mask = xm, .dst = 4, .src = {3}),
          "delv_xi[lxim[i]]");
    expect_lane(&w, 13, dxi->base + 12 * 8, "delv_xi[lxim[13]]");
    wlh_step(&k, &w); /* the xi+ test */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 2), "x = 2: the free-surface case");
    wlh_step(&k, &w);
    op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.mask == xp, "lxip, where x < 2");
    expect_lane(&w, 13, find_buf(&g.env, "lxim..lzetap")->base + (27 + 13) * 4, "lxip[13]");
    gen_close(&g);
}

Test(wl_hpc, lulesh_same_pattern_and_errors)
{
    struct wlh g;
    gen_open(&g, &wl_lulesh, "[workload]\nsize = 4\nblock = 64\n"); /* 8 elements per group */
    struct kernel k;
    kernel_n(&g, &k, 0);
    cr_expect_str_eq(k.args[0].buf->name, "p");
    cr_expect_not(k.args[0].same_pattern, "first use of p");
    kernel_n(&g, &k, 27);
    cr_expect_str_eq(k.name, "InitStressTermsForElems");
    cr_expect(k.args[0].same_pattern,
              "p: last written by EvalEOSForElemsPart2 over the same elements");
    kernel_n(&g, &k, 0);
    cr_expect_str_eq(k.args[1].buf->name, "x");
    cr_expect_not(k.args[1].same_pattern, "x: no ranges");
    kernel_n(&g, &k, 2);
    cr_expect_str_eq(k.name, "CalcFBHourglassForceForElems");
    cr_expect(k.args[0].same_pattern, "determ: written by the hourglass control, 32 elements "
                                      "per work-group both");
    kernel_n(&g, &k, 0);
    cr_expect(k.args[0].same_pattern, "nodeElemCount: the nodes of AddNodeForcesFromElems");
    gen_close(&g);
    /* 27 elements: the hourglass kernels' last work-group clamps its element
     * through @elc, and their element arrays are declared whole */
    gen_open(&g, &wl_lulesh, "[workload]\nsize = 3\nblock = 64\n");
    kernel_n(&g, &k, 4);
    cr_expect_str_eq(k.name, "CalcFBHourglassForceForElems");
    cr_expect_not(k.args[0].same_pattern, "determ: no ranges where the element is clamped");
    gen_close(&g);
    expect_error(
        &wl_lulesh, "[workload]\nblock = 96\n",
        "t.ini:2: [workload] block = 96: must be a power of two and a multiple of the warp "
        "size (64)");
}

/* ==== pennant ==== */

Test(wl_hpc, pennant_kernel_count)
{
    cr_expect_eq(count_kernels(&wl_pennant, NULL), 1 + 5 * 479);
    /* no hydro limit (no flow, no sound speed): dtinit every cycle */
    cr_expect_eq(count_kernels(&wl_pennant, "[workload]\nnzx = 4\nnzy = 4\nuinitradial = 0\n"
                                            "ssmin = 0\ndtinit = 0.1\ndtfac = 1\n"),
                 1 + 5 * 6);
    cr_expect_eq(count_kernels(&wl_pennant, "[workload]\nnzx = 4\nnzy = 4\ncstop = 4\n"),
                 1 + 5 * 4);
    struct wlh g;
    gen_open(&g, &wl_pennant, NULL);
    /* 40 x 40: 1641 points, 1600 zones, 6360 sides */
    cr_expect_eq(wl_footprint(&g.env), 92 * 6360 + 84 * 1641 + 96 * 1600 + 12);
    gen_close(&g);
    expect_error(&wl_pennant, "[workload]\nchunk = 96\n",
                 "t.ini:2: [workload] chunk = 96: must be a power of two (the dt reduction halves "
                 "it)");
}

/* The first op from w's next that is of `kind` and touches buffer b (its
 * lowest active lane). */
static struct kernel_op step_to(const struct kernel *k, struct kernel_warp *w, uint8_t kind,
                                const struct kernel_buf *b, const char *what)
{
    for (;;) {
        struct kernel_op op = wlh_step(k, w);
        cr_assert_neq(op.kind, KOP_EXIT, "no %s", what);
        if (op.kind != kind)
            continue;
        addr_t a = op.lanes ? w->lane_addr[__builtin_ctzll(op.mask)] : op.base;
        if (a >= b->base && a < b->base + b->size)
            return op;
    }
}

/* gpuMain2's first ops (the PTX counts of docs/workloads/pennant.md); 8 x 6
 * zones: zone 0 = triangle (0, 1, 2), zone 8 = quad (1, 10, 11, 2) from side
 * 24. */
Test(wl_hpc, pennant_main2_ops)
{
    struct wlh g;
    gen_open(&g, &wl_pennant, "[workload]\nnzx = 8\nnzy = 6\n");
    struct kernel k;
    kernel_n(&g, &k, 2);
    cr_expect_str_eq(k.name, "gpuMain2");
    cr_expect_eq(k.grid.x, 3, "side chunks [0, 64), [64, 128), [128, 184)");
    cr_expect_eq(k.lds_b, 32 * 64, "dss3, dss4, ctemp, ctemp2");
    const struct kernel_buf *maps = find_buf(&g.env, "mapsp1..mapss4"),
                            *pxp = find_buf(&g.env, "pxp"), *zvol = find_buf(&g.env, "zvol");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 10 + 4), "ids");
    for (int i = 0; i < 4; i++) {
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LOAD, .size = 4, .stride = 4, .base = maps->base + i * 184 * 4,
                 .mask = ~0ull, .dst = 1),
              "mapsp1, mapsp2, mapsz, mapss4");
        op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = i < 3 ? 2 : 5, .src = {i < 3 ? 0 : 1}),
              "addresses");
    }
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LDS_STORE, .size = 4, .stride = 4, .base = 0,
                               .mask = ~0ull, .src = {1}),
          "dss4[s0]");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 4), "s04");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LDS_STORE, .size = 4, .lanes = true, .mask = ~0ull, .src = {1}),
          "dss3[s04]");
    expect_lane(&w, 2, 64 * 4 + 0, "side 2's next is side 0");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_BARRIER), "barrier");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 1), "dss3's address");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LDS_LOAD, .size = 4, .stride = 4, .base = 64 * 4,
                               .mask = ~0ull, .dst = 7),
          "dss3[s0]");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 4), "zvol's address");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LOAD, .size = 8, .lanes = true, .mask = ~0ull, .dst = 2, .src = {1}),
          "zvol[z] (every side)");
    expect_lane(&w, 24, zvol->base + 8 * 8, "side 24: zone 8");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 2, .src = {2}), "zvol0's address");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_STORE, .size = 8, .lanes = true, .mask = ~0ull,
                               .src = {2}),
          "zvol0[z] = zvol[z]");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 8), "pxp's address");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LOAD, .size = 16, .lanes = true, .mask = ~0ull, .dst = 5, .src = {1}),
          "pxp[p1]");
    expect_lane(&w, 0, pxp->base + 0, "side 0");
    expect_lane(&w, 1, pxp->base + 1 * 16, "side 1");
    expect_lane(&w, 24, pxp->base + 1 * 16, "side 24");
    expect_lane(&w, 25, pxp->base + 10 * 16, "side 25");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LDS_STORE, .size = 16, .stride = 16, .base = 8 * 64,
                               .mask = ~0ull, .src = {5}),
          "ctemp2[s0]");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_BARRIER), "barrier");
    wlh_step(&k, &w);
    wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 3 + 2), "loop test and set-up");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 2), "the zone loop");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LDS_LOAD, .size = 16, .lanes = true, .mask = ~0ull,
                               .dst = 8, .src = {7}),
          "ctemp2[sn]");
    expect_lane(&w, 24, 8 * 64 + 25 * 16, "zone 8: next side");
    expect_lane(&w, 2, 8 * 64 + 0, "zone 0: side 2's next is side 0");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 5), "zxtot");
    op_is(&w, wlh_step(&k, &w),
          OP(.kind = KOP_LDS_LOAD, .size = 4, .lanes = true, .mask = ~0ull, .dst = 7), "dss4[sn]");
    expect_lane(&w, 24, 25 * 4, "zone 8: next side");
    /* pgasCalcStateAtHalf: only the zones' first sides (0, 3, ..., 21, then 24, 28, ...) */
    const struct kernel_buf *ze = find_buf(&g.env, "ze");
    struct kernel_op op = step_to(&k, &w, KOP_LOAD, ze, "ze");
    cr_expect_eq(op.mask & 0x1f000009ull, 0x11000009ull, "first sides 0, 3, 24, 28: %#llx",
                 (unsigned long long)op.mask);
    /* zone ranges: chunk 1 holds zones [18, 34); planes of the side maps and of zp, zss */
    const struct kernel_buf *zm = find_buf(&g.env, "zm"), *zpss = find_buf(&g.env, "zp, zss");
    struct addr_range r[8];
    cr_expect_str_eq(k.args[4].buf->name, "zm");
    cr_assert_eq(k.ranges(&k, 1, 4, r, 4), 1);
    cr_expect_eq(r[0].lo, zm->base + 18 * 8);
    cr_expect_eq(r[0].hi, zm->base + 34 * 8);
    cr_assert_eq(k.ranges(&k, 1, 0, r, 8), 4, "four side-map planes");
    cr_expect_eq(r[3].lo, maps->base + (3 * 184 + 64) * 4);
    cr_expect_str_eq(k.args[14].buf->name, "zp, zss");
    cr_assert_eq(k.ranges(&k, 1, 14, r, 8), 2, "zp and zss");
    cr_expect_eq(r[1].lo, zpss->base + (48 + 18) * 8);
    cr_expect_eq(k.nargs, 16);
    gen_close(&g);
}

/* gpuMain3: the two gathers along each point's chain, the fixed boundaries;
 * gpuMain5: the dt reduction and the atomic on dtnext; gpuInvMap's stores. */
Test(wl_hpc, pennant_point_zone_ops)
{
    struct wlh g;
    gen_open(&g, &wl_pennant, "[workload]\nnzx = 8\nnzy = 6\n");
    struct kernel k;
    kernel_n(&g, &k, 0);
    cr_expect_str_eq(k.name, "gpuInvMap");
    const struct kernel_buf *psf = find_buf(&g.env, "mappsfirst");
    const struct kernel_buf *nx = find_buf(&g.env, "mapssnext");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    /* sorted entries: the centre's 8 sides (0, 3, ..., 21) first, then point 1's (1, 24) */
    struct kernel_op op = step_to(&k, &w, KOP_STORE, psf, "mappsfirst");
    cr_expect_eq(op.mask & 0x7ff, 0x501, "runs start at entries 0, 8, 10");
    struct kernel_op last = step_to(&k, &w, KOP_STORE, nx, "mapssnext = -1");
    struct kernel_op next = step_to(&k, &w, KOP_STORE, nx, "mapssnext = next");
    cr_expect_eq(last.mask & 0x3ff, 0x280, "runs end at entries 7, 9");
    cr_expect_eq(last.mask | next.mask, ~0ull);
    cr_expect_eq(last.mask & next.mask, 0);

    kernel_n(&g, &k, 2);
    cr_expect_str_eq(k.name, "gpuMain3");
    const struct kernel_buf *cm = find_buf(&g.env, "cmaswt"), *cf = find_buf(&g.env, "cftot");
    const struct kernel_buf *pu0 = find_buf(&g.env, "pu0");
    wlh_warp_at(&w, &k, 0, 0);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 12), "ids");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LOAD, .size = 4, .stride = 4, .base = psf->base,
                               .mask = (1ull << 55) - 1, .dst = 1),
          "mappsfirst");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 4 + 4), "loop test, set-up");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 2), "gather 1");
    /* point 1's sides (mapsp1 = 1): 1 and 24, in side order */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LOAD, .size = 8, .lanes = true,
                               .mask = (1ull << 55) - 1, .dst = 2, .src = {1}),
          "cmaswt");
    expect_lane(&w, 1, cm->base + 1 * 8, "point 1 side 1");
    expect_lane(&w, 0, cm->base + 0, "centre: side 0");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 3), "gather 1");
    wlh_step(&k, &w);
    expect_lane(&w, 1, nx->base + 1 * 4, "mapssnext[1]");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 2, .src = {2}), "gather 1");
    wlh_step(&k, &w);
    op = wlh_step(&k, &w);
    expect_lane(&w, 1, cm->base + 24 * 8, "point 1 side 24");
    cr_expect(op.mask & 1, "the centre has 8 sides");
    op = step_to(&k, &w, KOP_LOAD, cf, "the second gather");
    expect_lane(&w, 1, cf->base + 1 * 16, "point 1 side 1, again");
    op = step_to(&k, &w, KOP_LOAD, pu0, "the x = 0 boundary");
    cr_expect_eq(op.mask, 0x40201008040201ull, "the centre and points 9 j (angle 90 degrees)");
    op = step_to(&k, &w, KOP_LOAD, pu0, "the y = 0 boundary");
    cr_expect_eq(op.mask, 0x402010080403ull, "the centre and points 1 + 9 (j - 1) (angle 0)");

    kernel_n(&g, &k, 1);
    cr_expect_str_eq(k.name, "gpuMain5");
    cr_expect_eq(k.lds_b, 24 * 64, "ctemp, ctemp2");
    const struct kernel_buf *dtn = find_buf(&g.env, "dtnext");
    wlh_warp_at(&w, &k, 0, 0);
    /* 48 zones: z0 < 24 takes z0 + 24, then z0 < 12: + 12, < 6: + 6, < 3: + 3,
     * z0 < 1: + 2, + 1 */
    static const unsigned half[6] = {24, 12, 6, 3, 1, 1}, len[6] = {24, 12, 6, 3, 2, 1};
    unsigned loads = 0, atomics = 0;
    do {
        op = wlh_step(&k, &w);
        if (op.kind == KOP_LDS_LOAD && op.size == 8 && loads < 12) { /* then ctemp[0] */
            cr_expect_eq(op.mask, (1ull << half[loads / 2]) - 1, "step %u", loads / 2);
            expect_lane(&w, 0, loads % 2 ? len[loads / 2] * 8 : 0, "ctemp[z0], ctemp[z0 + len]");
            loads++;
        }
        if (op.kind == KOP_ATOMIC) {
            atomics++;
            op_is(&w, op, OP(.kind = KOP_ATOMIC, .size = 8, .lanes = true, .mask = 1, .dst = 12),
                  "atomicMin(dtnext)");
            expect_lane(&w, 0, dtn->base, "dtnext");
        }
    } while (op.kind != KOP_EXIT);
    cr_expect_eq(loads, 12, "6 steps of 2 loads");
    cr_expect_eq(atomics, 1, "thread 0");
    gen_close(&g);
}

/* ==== hacc ==== */

Test(wl_hpc, hacc_kernel_count)
{
    /* 512 particles halved at the median down to 8 per leaf: 64 leaves, 2 steps */
    cr_expect_eq(count_kernels(&wl_hacc, NULL), 2 * 64);
    cr_expect_eq(count_kernels(&wl_hacc, "[workload]\nnp = 1000\nsteps = 3\nleaf = 100\n"), 3 * 16);
    struct wlh g;
    gen_open(&g, &wl_hacc, NULL);
    /* 7 arrays of 512 floats */
    cr_expect_eq(wl_footprint(&g.env), 28 * 512);
    /* 8 particles per leaf: ceil(8 / BLOCKY) = 2 rows of work-groups, one
     * column per 32 list entries */
    struct kernel k;
    for (int i = 0; i < 64; i++) {
        cr_assert(g.ops->next_kernel(g.self, &k));
        cr_expect_eq(k.grid.y, 2);
        cr_expect_geq(k.grid.x, 1);
    }
    gen_close(&g);
}

/* The documented Step10 counts (docs/workloads/hacc.md): the prologue with
 * the second loop's test, and the set-up of each loop it enters. */
enum { HP_PRO = 32, HP_I = 6, HP_K = 15 };

/* The shuffle reduction and atomic of each particle of a tile, per axis. */
static void expect_tile_update(const struct kernel *k, struct kernel_warp *w,
                               const struct kernel_buf *const v[3], uint64_t mask, addr_t first)
{
    static const uint32_t n[12] = {34, 23, 30, 23, 30, 23, 30, 23, 30, 23, 30, 23 + 4};
    for (unsigned i = 0; i < 12; i++) {
        op_is(w, wlh_step(k, w), OP(.kind = KOP_ALU, .n = n[i]), "reduction");
        op_is(w, wlh_step(k, w), OP(.kind = KOP_ATOMIC, .size = 4, .lanes = true, .mask = mask),
              "atomic");
        expect_lane(w, 0, v[i % 3]->base + (first + i / 3) * 4, "particle of the tile");
    }
}

Test(wl_hpc, hacc_tiles)
{
    struct wlh g;
    gen_open(&g, &wl_hacc, "[workload]\nnp = 8\nleaf = 4\nrmax = 1\n");
    cr_expect_eq(wl_footprint(&g.env), 28 * 8);
    struct kernel k;
    kernel_n(&g, &k, 1); /* leaf 1: particles 4..7, list = all 8 */
    cr_expect_str_eq(k.name, "Step10_kernel");
    /* ceil(8 / 32) x ceil(4 / 4) work-groups of 32 x 4 */
    cr_expect_eq(k.grid.x, 1);
    cr_expect_eq(k.grid.y, 1);
    cr_expect_eq(k.block.x, 32);
    cr_expect_eq(k.block.y, 4);
    const struct kernel_buf *xx = find_buf(&g.env, "xx");
    const struct kernel_buf *v[3] = {find_buf(&g.env, "vx"), find_buf(&g.env, "vy"),
                                     find_buf(&g.env, "vz")};
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0); /* rows 0, 1: only row 0 has a tile (4 / 4 = 1) */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = HP_PRO + HP_I), "prologue");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 10), "tile addresses");
    uint64_t row0 = 0xffffffffull;
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LOAD, .size = 16, .lanes = true, .mask = row0, .dst = 3),
          "own tile xx");
    expect_lane(&w, 31, xx->base + 4 * 4, "the leaf's first tile");
    wlh_step(&k, &w);
    wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 17 + 2), "sums, tests, list loop set-up");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 6), "list tile addresses");
    static const char *const pos[4] = {"xx", "yy", "zz", "mass"};
    for (int i = 0; i < 4; i++) {
        op_is(&w, wlh_step(&k, &w),
              OP(.kind = KOP_LOAD, .size = 16, .lanes = true, .mask = 3, .dst = 1),
              "list tile: lanes x = 0, 1 (8 / 4 = 2 tiles)");
        const struct kernel_buf *b = find_buf(&g.env, pos[i]);
        expect_lane(&w, 0, b->base, "list entries 0-3");
        expect_lane(&w, 1, b->base + 4 * 4, "list entries 4-7");
    }
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 857, .src = {1, 3}), "16 pair forces");
    expect_tile_update(&k, &w, v, 1, 4);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_EXIT), "exit");
    wlh_warp_at(&w, &k, 0, 1); /* rows 2, 3: no tile */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = HP_PRO), "prologue only");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_EXIT), "exit");
    struct addr_range r[2];
    cr_assert_eq(k.ranges(&k, 0, 5, r, 2), 1, "no particle past the tiles: no second range");
    cr_expect_eq(r[0].lo, v[1]->base + 4 * 4);
    cr_expect_eq(r[0].hi, v[1]->base + 8 * 4);
    cr_expect_eq(k.ranges(&k, 0, 0, r, 2), 0, "positions: no ranges");
    gen_close(&g);
    expect_error(&wl_hacc, "[workload]\nblockx = 48\n",
                 "t.ini:2: [workload] blockx = 48: must divide the warp size (64): a row stays in "
                 "one warp");
    expect_error(&wl_hacc, "[workload]\nblockx = 64\nblocky = 32\n",
                 "t.ini:3: [workload] blocky = 32: blockx x blocky = 2048 threads, more than 1024");
}

Test(wl_hpc, hacc_remainders)
{
    struct wlh g;
    gen_open(&g, &wl_hacc, "[workload]\nnp = 6\nleaf = 3\nrmax = 1\n");
    struct kernel k;
    kernel_n(&g, &k, 1); /* leaf 1: particles 3..5, no tile; list = all 6: 1 tile and 2 */
    const struct kernel_buf *xx = find_buf(&g.env, "xx"), *yy = find_buf(&g.env, "yy");
    const struct kernel_buf *vx = find_buf(&g.env, "vx");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0); /* rows 0, 1: particles 3, 4 */
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = HP_PRO + HP_K), "prologue");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 8), "particle index");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = ~0ull, .dst = 3),
          "own xx");
    expect_lane(&w, 0, xx->base + 3 * 4, "row 0");
    expect_lane(&w, 32, xx->base + 4 * 4, "row 1");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 5), "yy's test and address");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = ~0ull, .dst = 3),
          "own yy");
    expect_lane(&w, 0, yy->base + 3 * 4, "row 0");
    wlh_step(&k, &w);
    wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 6 + 4 + 1), "both list loops entered");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 6), "list tile addresses");
    uint64_t x0 = 1 | 1ull << 32, x01 = 3 | 3ull << 32;
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LOAD, .size = 16, .lanes = true, .mask = x0, .dst = 1),
          "list tile 0");
    expect_lane(&w, 32, xx->base, "entries 0-3");
    for (int i = 0; i < 3; i++)
        wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 207, .src = {1, 3}), "4 pair forces");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 5), "entry addresses");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = x01, .dst = 1),
          "list entries 4, 5");
    expect_lane(&w, 1, xx->base + 5 * 4, "entry 5");
    for (int i = 0; i < 3; i++)
        wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 54, .src = {1, 3}), "1 pair force");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 33), "reduction");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ATOMIC, .size = 4, .lanes = true, .mask = x0), "vx");
    expect_lane(&w, 32, vx->base + 4 * 4, "row 1");
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 24), "reduction");
    wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_ALU, .n = 31 + 3), "reduction, loop test");
    wlh_step(&k, &w);
    op_is(&w, wlh_step(&k, &w), OP(.kind = KOP_EXIT), "exit");
    struct addr_range r[2];
    cr_assert_eq(k.ranges(&k, 0, 4, r, 2), 1, "no tile: only the remainder's range");
    cr_expect_eq(r[0].lo, vx->base + 3 * 4);
    cr_expect_eq(r[0].hi, vx->base + 6 * 4);
    gen_close(&g);
}

/* A leaf of more tiles than the grid has rows (the grid is capped at 256
 * rows): each row of work-groups takes tiles y and y + 256; its velocity
 * ranges are those two tiles (docs/workloads/hacc.md). */
Test(wl_hpc, hacc_capped_grid_ranges)
{
    struct wlh g;
    gen_open(&g, &wl_hacc, "[workload]\nnp = 1100\nleaf = 1100\nblocky = 1\n");
    struct kernel k;
    kernel_n(&g, &k, 0); /* the one leaf: 275 tiles, no remainder */
    cr_expect_eq(k.grid.y, 256);
    const struct kernel_buf *vy = find_buf(&g.env, "vy");
    struct addr_range r[4];
    uint32_t wg = 3 * k.grid.x; /* row 3 */
    cr_assert_eq(k.ranges(&k, wg, 5, r, 4), 2);
    cr_expect(r[0].lo == vy->base + 3 * 16 && r[0].hi == vy->base + 4 * 16, "tile 3");
    cr_expect(r[1].lo == vy->base + 259 * 16 && r[1].hi == vy->base + 260 * 16, "tile 259");
    cr_assert_eq(k.ranges(&k, 20 * k.grid.x, 5, r, 4), 1, "row 20: tile 20 only");
    cr_expect(r[0].lo == vy->base + 20 * 16 && r[0].hi == vy->base + 21 * 16);
    gen_close(&g);
}
