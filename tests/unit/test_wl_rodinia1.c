/*
 * Rodinia dense workload models (backprop, gaussian, hotspot, hotspot3d,
 * lud): each runs at its small size on the tiny machine under viper and
 * ideal with no stale read and no annotation violation; dynamic kernel
 * counts and footprints follow the documented formulas; chosen ops of
 * chosen warps are the real code's (driven directly, without a GPU);
 * ranges; parameter errors.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "wl_harness.h"
#include "test_util.h"
#include "workload/wl.h"

extern const struct wl_ops wl_backprop, wl_gaussian, wl_hotspot, wl_hotspot3d, wl_lud;

/* ---- whole runs on the tiny machine ---------------------------------------- */

struct run_result {
    uint64_t kernels, footprint, warp_insts;
};

/* Run w with its small overrides plus `extra` ("key = value\n" lines of
 * [workload]) under scheme; checks completion, stale reads, annotations. */
static struct run_result run_wl(const struct wl_ops *w, const char *scheme, const char *extra)
{
    char ini[2048];
    int n = snprintf(ini, sizeof ini, "[coherence]\nscheme = %s\n[check]\nannotations = true\n"
                                      "[workload]\n", scheme);
    for (const char *const *o = w->small; *o; o++) {
        const char *eq = strchr(*o, '=');
        n += snprintf(ini + n, sizeof ini - (size_t)n, "%.*s = %s\n", (int)(eq - *o), *o, eq + 1);
    }
    snprintf(ini + n, sizeof ini - (size_t)n, "%s", extra ? extra : "");
    struct err e;
    struct machine *m = machine_new_wl(ini, w, &e);
    cr_assert(m, "%s: %s", w->name, e.msg);
    cr_assert_eq(machine_run(m), SIM_DONE, "%s under %s", w->name, scheme);
    if (machine_stat(m, "checker.stale_reads") || machine_stat(m, "checker.annotation_violations"))
        chk_print_reports(&m->g.chk, stderr);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0, "%s under %s: stale reads", w->name,
                 scheme);
    cr_expect_eq(machine_stat(m, "checker.annotation_violations"), 0,
                 "%s under %s: annotation violations", w->name, scheme);
    struct run_result r = {m->g.cp.st.kernels, wl_footprint(&m->env),
                           machine_stat(m, "warp_insts")};
    machine_free(m);
    return r;
}

static void run_both(const struct wl_ops *w, const char *extra, uint64_t kernels,
                     uint64_t footprint)
{
    const char *schemes[] = {"viper", "ideal"};
    for (int i = 0; i < 2; i++) {
        struct run_result r = run_wl(w, schemes[i], extra);
        cr_expect_eq(r.kernels, kernels, "%s under %s: %llu kernels, want %llu", w->name,
                     schemes[i], (unsigned long long)r.kernels, (unsigned long long)kernels);
        cr_expect_eq(r.footprint, footprint, "%s: footprint %llu, want %llu", w->name,
                     (unsigned long long)r.footprint, (unsigned long long)footprint);
        cr_expect_gt(r.warp_insts, 0);
    }
}

Test(rodinia1, backprop_small_runs)
{
    /* layer_size 1024: 2 kernels; buffers 4(in+1) + 68 + 2 x 68(in+1) + 4 in + 68 */
    uint64_t in = 1024;
    run_both(&wl_backprop, NULL, 2, 4 * (in + 1) + 68 + 2 * 68 * (in + 1) + 4 * in + 68);
}

Test(rodinia1, gaussian_small_runs)
{
    /* size 30: 2 x 29 kernels; m and a 4 x 30 x 30 bytes, b 4 x 30 */
    run_both(&wl_gaussian, NULL, 58, 2 * 3600 + 120);
}

Test(rodinia1, hotspot_small_runs)
{
    /* grid 64, pyramid 2, 5 steps: ceil(5 / 2) = 3 kernels; 3 buffers of 4 x 64 x 64 */
    run_both(&wl_hotspot, NULL, 3, 3 * 4 * 64 * 64);
}

Test(rodinia1, hotspot3d_small_runs)
{
    /* 64 x 64 x 4, 2 steps: 2 kernels; 3 buffers of 4 x 64 x 64 x 4 */
    run_both(&wl_hotspot3d, NULL, 2, 3 * 4 * 64 * 64 * 4);
}

Test(rodinia1, lud_small_runs)
{
    /* size 64: 3 (64 / 16 - 1) + 1 = 10 kernels; d_m 4 x 64 x 64 */
    run_both(&wl_lud, NULL, 10, 4 * 64 * 64);
}

/* ---- driving the generators directly ------------------------------------- */

/* Create w from [workload] INI text on a 4-chiplet machine with 64-lane warps. */
static void *gw_try(struct wlh *g, const struct wl_ops *w, const char *ini)
{
    return wlh_try(g, w, ini, 4, 240);
}

static void gw_open(struct wlh *g, const struct wl_ops *w, const char *ini)
{
    cr_assert_not_null(gw_try(g, w, ini), "%s", g->e.msg);
}

static void gw_close(struct wlh *g) { wlh_close(g); }

static void expect_error(const struct wl_ops *w, const char *ini, const char *want)
{
    struct wlh g;
    memset(&g, 0, sizeof g);
    g.ops = w;
    wl_env_init(&g.env, 4096, 64, 4, 240, 1);
    int rc = tcfg_load(&g.cfg, "workload", w->keys, NULL, ini, &g.e);
    if (!rc) {
        g.self = w->create(&g.env, cfg_sec(&g.cfg, "workload"), &g.e);
        cr_expect_null(g.self, "accepted: %s", ini);
    }
    cr_expect_str_eq(g.e.msg, want);
    gw_close(&g);
}

/* Kernel number n (from 0) of the workload. */
static void gw_kernel(struct wlh *g, unsigned n, struct kernel *k)
{
    for (unsigned i = 0; i <= n; i++)
        cr_assert(g->ops->next_kernel(g->self, k), "no kernel %u", i);
}

static unsigned gw_count(struct wlh *g)
{
    struct kernel k;
    unsigned n = 0;
    while (g->ops->next_kernel(g->self, &k))
        n++;
    return n;
}

/* The warp's next op, kept for expect_lane. */
static struct kernel_op last;

static struct kernel_op step(const struct kernel *k, struct kernel_warp *w)
{
    return last = wlh_step(k, w);
}

/* Skip n ops. */
static void skip(const struct kernel *k, struct kernel_warp *w, unsigned n)
{
    while (n--)
        step(k, w);
}

/* Ops until the exit (the exit not counted). */
static unsigned ops_to_exit(const struct kernel *k, struct kernel_warp *w)
{
    unsigned n = 0;
    while (step(k, w).kind != KOP_EXIT)
        cr_assert_lt(n++, 100000, "no exit");
    cr_expect_eq(step(k, w).kind, KOP_EXIT, "exit again");
    return n;
}

static void expect_alu(struct kernel_op op, uint32_t n, uint8_t s0, uint8_t s1, const char *what)
{
    cr_expect_eq(op.kind, KOP_ALU, "%s: kind %u", what, op.kind);
    cr_expect_eq(op.n, n, "%s: n %u, want %u", what, op.n, n);
    cr_expect(op.src[0] == s0 && op.src[1] == s1, "%s: src %u %u", what, op.src[0], op.src[1]);
}

/* A memory op of warp w: kind, active lanes (a mask of 0 is the warp's
 * lanes), register (dst of loads, src of stores). */
static void expect_mem(const struct kernel_warp *w, struct kernel_op op, uint8_t kind,
                       uint64_t mask, uint8_t reg, const char *what)
{
    uint64_t on = op.mask ? op.mask : low_bits(w->nlanes);
    cr_expect_eq(op.kind, kind, "%s: kind %u, want %u", what, op.kind, kind);
    cr_expect_eq(op.size, 4, "%s: size", what);
    cr_expect_eq(on, mask, "%s: mask %#llx, want %#llx", what, (unsigned long long)on,
                 (unsigned long long)mask);
    bool load = kind == KOP_LOAD || kind == KOP_LDS_LOAD;
    cr_expect_eq(load ? op.dst : op.src[0], reg, "%s: register %u, want %u", what,
                 load ? op.dst : op.src[0], reg);
}

/* Lane l's address in the last op, as the CU reads it (a list, or base + lane * stride). */
static void expect_lane(const struct kernel_warp *w, unsigned l, addr_t want, const char *what)
{
    addr_t a = last.lanes ? w->lane_addr[l] : last.base + (addr_t)((int64_t)l * last.stride);
    cr_expect_eq(a, want, "%s: lane %u at %#llx, want %#llx", what, l, (unsigned long long)a,
                 (unsigned long long)want);
}

static void expect_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          const struct addr_range *want, unsigned n)
{
    struct addr_range got[64];
    unsigned m = k->ranges(k, wg, arg, got, 64);
    cr_assert_eq(m, n, "%s wg %u arg %u: %u ranges, want %u", k->name, wg, arg, m, n);
    for (unsigned i = 0; i < n; i++)
        cr_expect(got[i].lo == want[i].lo && got[i].hi == want[i].hi,
                  "%s wg %u arg %u range %u: [%#llx, %#llx), want [%#llx, %#llx)", k->name, wg,
                  arg, i, (unsigned long long)got[i].lo, (unsigned long long)got[i].hi,
                  (unsigned long long)want[i].lo, (unsigned long long)want[i].hi);
}

static void expect_arg(const struct kernel *k, unsigned i, const char *name, uint64_t size,
                       enum kernel_mode mode, bool same)
{
    cr_assert_gt(k->nargs, i);
    cr_expect_str_eq(k->args[i].buf->name, name);
    cr_expect_eq(k->args[i].buf->size, size, "%s size %llu", name,
                 (unsigned long long)k->args[i].buf->size);
    cr_expect_eq(k->args[i].mode, mode, "%s mode", name);
    cr_expect_eq(k->args[i].same_pattern, same, "%s same_pattern", name);
}

static void expect_geom(const struct kernel *k, const char *name, uint32_t gx, uint32_t gy,
                        uint32_t bx, uint32_t by, uint32_t lds)
{
    cr_expect_str_eq(k->name, name);
    cr_expect(k->grid.x == gx && k->grid.y == gy && k->grid.z == 1, "%s grid %u x %u", name,
              k->grid.x, k->grid.y);
    cr_expect(k->block.x == bx && k->block.y == by && k->block.z == 1, "%s block %u x %u", name,
              k->block.x, k->block.y);
    cr_expect_eq(k->lds_b, lds, "%s lds %u", name, k->lds_b);
    cr_expect_not_null(k->ranges);
}

/* Every workload lists a description, keys and a small size. */
Test(rodinia1, ops_tables)
{
    const struct wl_ops *all[] = {&wl_backprop, &wl_gaussian, &wl_hotspot, &wl_hotspot3d,
                                  &wl_lud};
    const char *names[] = {"backprop", "gaussian", "hotspot", "hotspot3d", "lud"};
    for (int i = 0; i < 5; i++) {
        cr_expect_str_eq(all[i]->name, names[i]);
        cr_expect_not_null(all[i]->desc);
        cr_expect_not_null(all[i]->keys);
        cr_expect_not_null(all[i]->small);
    }
}

/* ---- backprop -------------------------------------------------------------- */

Test(rodinia1, backprop_table2_kernels_and_footprint)
{
    struct wlh g;
    gw_open(&g, &wl_backprop, NULL);
    /* in = 65536: 4(in+1) + 4 x 17 + 2 x 4 x 17(in+1) + 4 x 16 x in/16 + 4 x 17 */
    cr_expect_eq(wl_footprint(&g.env), 9437460);
    cr_expect_eq(gw_count(&g), 2);
    gw_close(&g);
}

Test(rodinia1, backprop_forward_ops)
{
    struct wlh g;
    gw_open(&g, &wl_backprop, "[workload]\nlayer_size = 1024\n");
    struct kernel k;
    gw_kernel(&g, 0, &k);
    expect_geom(&k, "bpnn_layerforward_CUDA", 1, 64, 16, 16, 64 + 1024);
    cr_expect_eq(k.nargs, 3);
    expect_arg(&k, 0, "input_cuda", 4 * 1025, KERNEL_R, false);
    expect_arg(&k, 1, "input_hidden_cuda", 4 * 17 * 1025, KERNEL_RW, false);
    expect_arg(&k, 2, "hidden_partial_sum", 4 * 1024, KERNEL_RW, false);
    addr_t in = k.args[0].buf->base, wt = k.args[1].buf->base, ps = k.args[2].buf->base;
    /* work-group by = 3, warp 1: threads 64..127, ty = 4..7 */
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 3, 1);
    const uint64_t tx0 = 0x0001000100010001ull;
    /* ALU counts: the kernel's PTX per basic block (backprop.c, bp_forward_next) */
    expect_alu(step(&k, &w), 36, 0, 0, "prologue");
    expect_mem(&w, step(&k, &w), KOP_LOAD, tx0, 1, "input_cuda[index_in]");
    expect_lane(&w, 16, in + (16 * 3 + 5 + 1) * 4, "index_in = HEIGHT by + ty + 1");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, tx0, 1, "input_node[ty]");
    expect_lane(&w, 16, 5 * 4, "input_node[5]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 2, "input_hidden_cuda[index]");
    /* lane 5: tx 5, ty 4: index = 17*16*3 + 17*4 + 5 + 1 + 17 = 907 */
    expect_lane(&w, 5, wt + 907 * 4, "index");
    expect_lane(&w, 63, wt + (816 + 17 * 7 + 15 + 1 + 17) * 4, "index of tx 15, ty 7");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, ~0ull, 2, "weight_matrix[ty][tx]");
    expect_lane(&w, 5, 64 + (4 * 16 + 5) * 4, "weight_matrix[4][5]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, ~0ull, 3, "weight_matrix[ty][tx]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, ~0ull, 4, "input_node[ty]");
    expect_lane(&w, 5, 4 * 4, "input_node[4]");
    expect_alu(step(&k, &w), 1, 3, 4, "multiply");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, ~0ull, 0, "weight_matrix[ty][tx]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    /* step 1, power_two 2: ty 4 and 6 add */
    expect_alu(step(&k, &w), 5, 0, 0, "step test");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0x0000ffff0000ffffull, 5, "wm[ty][tx]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0x0000ffff0000ffffull, 6, "wm[ty + 1][tx]");
    expect_lane(&w, 0, 64 + 5 * 16 * 4, "wm[5][0]");
    expect_alu(step(&k, &w), 5, 5, 6, "add");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, 0x0000ffff0000ffffull, 0, "wm[ty][tx]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    /* step 2, power_two 4: ty 4 */
    expect_alu(step(&k, &w), 5, 0, 0, "step test");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xffff, 5, "wm[ty][tx]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xffff, 6, "wm[ty + 2][tx]");
    expect_lane(&w, 0, 64 + 6 * 16 * 4, "wm[6][0]");
    skip(&k, &w, 3);
    /* steps 3 and 4: no thread of this warp adds */
    expect_alu(step(&k, &w), 5, 0, 0, "step 3 test");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_alu(step(&k, &w), 5, 0, 0, "step 4 test");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, ~0ull, 7, "weight_matrix[ty][tx]");
    expect_mem(&w, step(&k, &w), KOP_STORE, ~0ull, 7, "input_hidden_cuda[index]");
    expect_lane(&w, 5, wt + 907 * 4, "index");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, tx0, 8, "weight_matrix[tx][ty]");
    expect_lane(&w, 16, 64 + 5 * 4, "weight_matrix[0][5]");
    expect_mem(&w, step(&k, &w), KOP_STORE, tx0, 8, "hidden_partial_sum[by hid + ty]");
    expect_lane(&w, 16, ps + (3 * 16 + 5) * 4, "by hid + ty");
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    /* warp 0 holds ty = 0, which adds in all four steps */
    wlh_warp_at(&w, &k, 3, 0);
    cr_expect_eq(ops_to_exit(&k, &w), 12 + 4 * 6 + 5);
    /* ranges of work-group 3 */
    expect_ranges(&k, 3, 0, (struct addr_range[]){{in + 49 * 4, in + 65 * 4}}, 1);
    expect_ranges(&k, 3, 1, (struct addr_range[]){{wt + 834 * 4, wt + 1105 * 4}}, 1);
    expect_ranges(&k, 3, 2, (struct addr_range[]){{ps + 48 * 4, ps + 64 * 4}}, 1);
    gw_close(&g);
}

Test(rodinia1, backprop_adjust_ops)
{
    struct wlh g;
    gw_open(&g, &wl_backprop, "[workload]\nlayer_size = 1024\n");
    struct kernel k;
    gw_kernel(&g, 1, &k);
    expect_geom(&k, "bpnn_adjust_weights_cuda", 1, 64, 16, 16, 0);
    cr_expect_eq(k.nargs, 4);
    expect_arg(&k, 0, "hidden_delta_cuda", 68, KERNEL_R, false);
    expect_arg(&k, 1, "input_cuda", 4 * 1025, KERNEL_R, false);
    expect_arg(&k, 2, "input_hidden_cuda", 4 * 17 * 1025, KERNEL_RW, false);
    expect_arg(&k, 3, "input_prev_weights_cuda", 4 * 17 * 1025, KERNEL_RW, false);
    addr_t dl = k.args[0].buf->base, in = k.args[1].buf->base, wt = k.args[2].buf->base,
           pv = k.args[3].buf->base;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    /* ALU counts: the kernel's PTX per basic block (backprop.c, bp_adjust_next) */
    expect_alu(step(&k, &w), 18, 0, 0, "prologue");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 1, "delta[index_x]");
    expect_lane(&w, 17, dl + 2 * 4, "index_x = tx + 1");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 2, "ly[index_y]");
    expect_lane(&w, 17, in + 2 * 4, "index_y = HEIGHT by + ty + 1");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 3, "oldw[index]");
    expect_lane(&w, 17, pv + (17 + 1 + 1 + 17) * 4, "index of tx 1, ty 1");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 4, "w[index]");
    expect_alu(step(&k, &w), 8, 1, 2, "ETA delta ly");
    expect_alu(step(&k, &w), 6, 3, 4, "+ MOMENTUM oldw, w +=");
    expect_mem(&w, step(&k, &w), KOP_STORE, ~0ull, 0, "w[index]");
    expect_lane(&w, 17, wt + 36 * 4, "w[index]");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 1, "delta reloaded");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 2, "ly reloaded");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 3, "oldw reloaded");
    expect_alu(step(&k, &w), 3, 1, 2, "ETA delta ly");
    expect_alu(step(&k, &w), 4, 3, 0, "+ MOMENTUM oldw");
    expect_mem(&w, step(&k, &w), KOP_STORE, ~0ull, 0, "oldw[index]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_alu(step(&k, &w), 3, 0, 0, "ty == 0 && by == 0");
    expect_mem(&w, step(&k, &w), KOP_LOAD, 0xffff, 1, "delta[index_x]");
    expect_mem(&w, step(&k, &w), KOP_LOAD, 0xffff, 3, "oldw[index_x]");
    expect_lane(&w, 15, pv + 16 * 4, "oldw[16]");
    expect_mem(&w, step(&k, &w), KOP_LOAD, 0xffff, 4, "w[index_x]");
    expect_alu(step(&k, &w), 8, 1, 3, "ETA delta + MOMENTUM oldw");
    expect_alu(step(&k, &w), 3, 4, 0, "w +=");
    expect_mem(&w, step(&k, &w), KOP_STORE, 0xffff, 0, "w[index_x]");
    expect_lane(&w, 0, wt + 4, "w[1]");
    expect_mem(&w, step(&k, &w), KOP_LOAD, 0xffff, 1, "delta reloaded");
    expect_mem(&w, step(&k, &w), KOP_LOAD, 0xffff, 3, "oldw reloaded");
    expect_alu(step(&k, &w), 5, 1, 3, "ETA delta + MOMENTUM oldw");
    expect_mem(&w, step(&k, &w), KOP_STORE, 0xffff, 0, "oldw[index_x]");
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    wlh_warp_at(&w, &k, 0, 1); /* ty 4..7: no bias row */
    cr_expect_eq(ops_to_exit(&k, &w), 16);
    wlh_warp_at(&w, &k, 1, 0); /* by 1: no bias row */
    cr_expect_eq(ops_to_exit(&k, &w), 16);
    /* work-group 0 also owns the bias row w[1..16]: [1, 17) and [18, 289) merge */
    expect_ranges(&k, 0, 2, (struct addr_range[]){{wt + 4, wt + 289 * 4}}, 1);
    expect_ranges(&k, 1, 3, (struct addr_range[]){{pv + 290 * 4, pv + 561 * 4}}, 1);
    expect_ranges(&k, 5, 0, (struct addr_range[]){{dl + 4, dl + 17 * 4}}, 1);
    struct kernel end;
    cr_expect_not(g.ops->next_kernel(g.self, &end));
    gw_close(&g);
}

Test(rodinia1, backprop_errors)
{
    expect_error(&wl_backprop, "[workload]\nlayer_size = 1000\n",
                 "t.ini:2: [workload] layer_size = 1000: must be a multiple of 16 (the work-group "
                 "height)");
    expect_error(&wl_backprop, "[workload]\nlayer_size = 8\n",
                 "t.ini:2: [workload] layer_size = 8: out of range [16, 67108864]");
}

/* ---- gaussian -------------------------------------------------------------- */

Test(rodinia1, gaussian_table2_kernels_and_footprint)
{
    struct wlh g;
    gw_open(&g, &wl_gaussian, NULL);
    cr_expect_eq(wl_footprint(&g.env), 2 * 4 * 256 * 256 + 4 * 256);
    cr_expect_eq(gw_count(&g), 2 * (256 - 1));
    gw_close(&g);
}

Test(rodinia1, gaussian_fan1_ops)
{
    struct wlh g;
    gw_open(&g, &wl_gaussian, "[workload]\nsize = 30\n");
    struct kernel k;
    gw_kernel(&g, 6, &k); /* Fan1 of t = 3 */
    expect_geom(&k, "Fan1", 1, 1, 512, 1, 0);
    cr_expect_eq(k.nargs, 2);
    expect_arg(&k, 0, "m_cuda", 3600, KERNEL_RW, false);
    expect_arg(&k, 1, "a_cuda", 3600, KERNEL_R, false);
    addr_t m = k.args[0].buf->base, a = k.args[1].buf->base;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    /* ALU counts: the kernel's PTX per basic block (gaussian.c, fan1_next) */
    expect_alu(step(&k, &w), 25, 0, 0, "bounds test");
    struct kernel_op op = step(&k, &w); /* a[Size (i+t+1) + t]: one row per thread */
    cr_expect(op.kind == KOP_LOAD && op.size == 4 && !op.lanes && op.dst == 1);
    cr_expect_eq(op.mask, (1ull << 26) - 1, "threads below Size-1-t = 26");
    cr_expect_eq(op.base, a + (30 * 4 + 3) * 4);
    cr_expect_eq(op.stride, 30 * 4);
    op = step(&k, &w); /* a[Size t + t] */
    cr_expect(op.kind == KOP_LOAD && op.dst == 2 && op.base == a + (30 * 3 + 3) * 4 &&
              op.stride == 0 && op.mask == (1ull << 26) - 1);
    expect_alu(step(&k, &w), 2, 1, 2, "division");
    op = step(&k, &w);
    cr_expect(op.kind == KOP_STORE && op.base == m + (30 * 4 + 3) * 4 && op.stride == 120 &&
              op.mask == (1ull << 26) - 1);
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    wlh_warp_at(&w, &k, 0, 1); /* threads 64..127: all return */
    expect_alu(step(&k, &w), 12, 0, 0, "bounds test");
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    /* ranges, derived from the description: one element per active lane (a
     * column: lanes 120 B apart are pieces of their own), a[t][t] besides */
    struct addr_range col[27];
    col[0] = (struct addr_range){a + 93 * 4, a + 94 * 4};
    for (unsigned r = 0; r < 26; r++)
        col[r + 1] = (struct addr_range){a + (30 * (r + 4) + 3) * 4, a + (30 * (r + 4) + 4) * 4};
    expect_ranges(&k, 0, 1, col, 27);
    for (unsigned r = 0; r < 26; r++)
        col[r] = (struct addr_range){m + (30 * (r + 4) + 3) * 4, m + (30 * (r + 4) + 4) * 4};
    expect_ranges(&k, 0, 0, col, 26);
    gw_close(&g);
}

Test(rodinia1, gaussian_fan2_ops)
{
    struct wlh g;
    gw_open(&g, &wl_gaussian, "[workload]\nsize = 30\n");
    struct kernel k;
    gw_kernel(&g, 7, &k); /* Fan2 of t = 3 */
    expect_geom(&k, "Fan2", 8, 8, 4, 4, 0);
    cr_expect_eq(k.nargs, 3);
    expect_arg(&k, 0, "m_cuda", 3600, KERNEL_R, false);
    expect_arg(&k, 1, "a_cuda", 3600, KERNEL_RW, false);
    expect_arg(&k, 2, "b_cuda", 120, KERNEL_RW, false);
    addr_t m = k.args[0].buf->base, a = k.args[1].buf->base, b = k.args[2].buf->base;
    /* work-group (6, 0): x = 24..27 of which 24, 25 < 26; y = 0..3 < 27 */
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 6, 0);
    cr_expect_eq(w.nlanes, 16);
    const uint64_t on = 0x3333;
    /* ALU counts: the kernel's PTX per basic block (gaussian.c, fan2_next) */
    expect_alu(step(&k, &w), 20, 0, 0, "bounds tests");
    expect_alu(step(&k, &w), 10, 0, 0, "indices");
    expect_mem(&w, step(&k, &w), KOP_LOAD, on, 1, "m[Size (x+1+t) + t]");
    expect_lane(&w, 1, m + (30 * (25 + 1 + 3) + 3) * 4, "x 25");
    expect_lane(&w, 5, m + (30 * 29 + 3) * 4, "x 25, y 1");
    expect_mem(&w, step(&k, &w), KOP_LOAD, on, 2, "a[Size t + y+t]");
    expect_lane(&w, 4, a + (90 + 1 + 3) * 4, "y 1");
    expect_mem(&w, step(&k, &w), KOP_LOAD, on, 3, "a[Size (x+1+t) + y+t]");
    expect_lane(&w, 5, a + (30 * 29 + 1 + 3) * 4, "x 25, y 1");
    expect_alu(step(&k, &w), 5, 1, 2, "multiply");
    expect_alu(step(&k, &w), 1, 3, 0, "subtract");
    expect_mem(&w, step(&k, &w), KOP_STORE, on, 0, "a[Size (x+1+t) + y+t]");
    expect_lane(&w, 4, a + (30 * 28 + 1 + 3) * 4, "x 24, y 1");
    expect_alu(step(&k, &w), 2, 0, 0, "yidx == 0");
    expect_mem(&w, step(&k, &w), KOP_LOAD, 0x3, 1, "m reloaded");
    expect_lane(&w, 1, m + (30 * 29 + 3) * 4, "x 25");
    expect_mem(&w, step(&k, &w), KOP_LOAD, 0x3, 2, "b[t]");
    expect_lane(&w, 0, b + 3 * 4, "b[3]");
    expect_mem(&w, step(&k, &w), KOP_LOAD, 0x3, 3, "b[x+1+t]");
    expect_lane(&w, 1, b + 29 * 4, "b[29]");
    expect_alu(step(&k, &w), 7, 1, 2, "multiply");
    expect_alu(step(&k, &w), 1, 3, 0, "subtract");
    expect_mem(&w, step(&k, &w), KOP_STORE, 0x3, 0, "b[x+1+t]");
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    expect_ranges(&k, 6, 0,
                  (struct addr_range[]){{m + 843 * 4, m + 844 * 4}, {m + 873 * 4, m + 874 * 4}},
                  2);
    expect_ranges(&k, 6, 1,
                  (struct addr_range[]){{a + 93 * 4, a + 97 * 4},
                                          {a + 843 * 4, a + 847 * 4},
                                          {a + 873 * 4, a + 877 * 4}},
                  3);
    expect_ranges(&k, 6, 2, (struct addr_range[]){{b + 3 * 4, b + 4 * 4}, {b + 28 * 4, b + 30 * 4}},
                  2);
    /* work-group (1, 1): no thread with y == 0 touches b */
    expect_ranges(&k, 9, 2, (struct addr_range[]){{b, b}}, 1);
    /* work-group (7, 7): x = 28.. >= 26, every thread returns */
    wlh_warp_at(&w, &k, 63, 0);
    /* the x test only (PTX counts, gaussian.c) */
    expect_alu(step(&k, &w), 13, 0, 0, "bounds tests");
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    expect_ranges(&k, 63, 1, (struct addr_range[]){{a, a}}, 1);
    gw_close(&g);
}

Test(rodinia1, gaussian_errors)
{
    expect_error(&wl_gaussian, "[workload]\nsize = 1\n",
                 "t.ini:2: [workload] size = 1: out of range [2, 32768]");
}

/* ---- hotspot --------------------------------------------------------------- */

Test(rodinia1, hotspot_table2_kernels_and_footprint)
{
    struct wlh g;
    gw_open(&g, &wl_hotspot, NULL);
    cr_expect_eq(wl_footprint(&g.env), 3 * 4 * 512 * 512);
    cr_expect_eq(gw_count(&g), 10); /* ceil(20 / 2) */
    gw_close(&g);
    gw_open(&g, &wl_hotspot, "[workload]\npyramid_height = 3\n");
    cr_expect_eq(gw_count(&g), 7); /* ceil(20 / 3) */
    gw_close(&g);
}

/* Rows r0..r1-1, columns c0..c1-1 of an n-column float matrix at base. */
static unsigned rows_of(struct addr_range *v, addr_t base, uint64_t n, uint64_t r0, uint64_t r1,
                        uint64_t c0, uint64_t c1)
{
    unsigned k = 0;
    for (uint64_t r = r0; r < r1; r++)
        v[k++] = (struct addr_range){base + (r * n + c0) * 4, base + (r * n + c1) * 4};
    return k;
}

Test(rodinia1, hotspot_kernels)
{
    struct wlh g;
    gw_open(&g, &wl_hotspot, "[workload]\ngrid = 64\niterations = 5\n");
    struct kernel k[3];
    for (int i = 0; i < 3; i++) {
        gw_kernel(&g, 0, &k[i]);
        expect_geom(&k[i], "calculate_temp", 6, 6, 16, 16, 3 * 1024);
        cr_expect_eq(k[i].nargs, 3);
        expect_arg(&k[i], 0, "MatrixPower", 4 * 64 * 64, KERNEL_R, i == 1);
        expect_arg(&k[i], 1, i % 2 ? "MatrixTemp1" : "MatrixTemp0", 4 * 64 * 64, KERNEL_R, false);
        expect_arg(&k[i], 2, i % 2 ? "MatrixTemp0" : "MatrixTemp1", 4 * 64 * 64, KERNEL_RW,
                   false);
    }
    struct kernel end;
    cr_expect_not(g.ops->next_kernel(g.self, &end));
    /* the last kernel runs one step on 14 x 14 small blocks: work-group (5, 0)
     * starts at column 14 x 5 - 2 = 68, outside the grid */
    addr_t pw = k[2].args[0].buf->base;
    expect_ranges(&k[2], 5, 0, (struct addr_range[]){{pw, pw}}, 1);
    struct kernel_warp w;
    wlh_warp_at(&w, &k[2], 5, 0);
    cr_expect_eq(ops_to_exit(&k[2], &w), 5); /* prologue, barrier, clamps, step test, barrier */
    gw_close(&g);
}

Test(rodinia1, hotspot_ops)
{
    struct wlh g;
    gw_open(&g, &wl_hotspot, "[workload]\ngrid = 64\niterations = 5\n");
    struct kernel k;
    gw_kernel(&g, 0, &k);
    addr_t pw = k.args[0].buf->base, t0 = k.args[1].buf->base, t1 = k.args[2].buf->base;
    /* work-group (0, 0), warp 0 (ty 0..3): tile origin (-2, -2); cells with
     * ty, tx >= 2 are in the grid; step 0 computes tx 2..14, step 1 tx 2..13 */
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    const uint64_t ld = 0xfffcfffc00000000ull, s0 = 0x7ffc7ffc00000000ull,
                   s1 = 0x3ffc3ffc00000000ull;
    /* ALU counts: the kernel's PTX per basic block (hotspot.c, hotspot_next) */
    expect_alu(step(&k, &w), 47, 0, 0, "prologue");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ld, 1, "temp_src[index]");
    expect_lane(&w, 34, t0, "cell (0, 0)");
    expect_lane(&w, 50, t0 + 64 * 4, "cell (1, 0)");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ld, 2, "power[index]");
    expect_lane(&w, 35, pw + 4, "cell (0, 1)");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, ld, 1, "temp_on_cuda[ty][tx]");
    expect_lane(&w, 34, (2 * 16 + 2) * 4, "temp_on_cuda[2][2]");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, ld, 2, "power_on_cuda[ty][tx]");
    expect_lane(&w, 34, 1024 + (2 * 16 + 2) * 4, "power_on_cuda[2][2]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_alu(step(&k, &w), 62, 0, 0, "valid range, N/S/W/E");
    expect_alu(step(&k, &w), 15, 0, 0, "step 0 test");
    const uint32_t c = (2 * 16 + 2) * 4; /* lane 34: (ty 2, tx 2) */
    const uint32_t want[6] = {c, 1024 + c, c + 64, c /* N clamped to validYmin */, c + 4,
                              c /* W clamped to validXmin */};
    for (int i = 0; i < 6; i++) {
        expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, s0, (uint8_t)(3 + i), "stencil read");
        expect_lane(&w, 34, want[i], "stencil cell");
    }
    expect_alu(step(&k, &w), 2, 3, 4, "stencil");
    expect_alu(step(&k, &w), 5, 5, 6, "stencil");
    expect_alu(step(&k, &w), 12, 7, 8, "stencil");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, s0, 0, "temp_t[ty][tx]");
    expect_lane(&w, 34, 2048 + c, "temp_t[2][2]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, s0, 9, "temp_t[ty][tx]");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, s0, 9, "temp_on_cuda[ty][tx]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_alu(step(&k, &w), 21, 0, 0, "step 1 test (and step 0's loop control)");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, s1, 3, "stencil read");
    skip(&k, &w, 9);
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, s1, 10, "temp_t[ty][tx]");
    expect_mem(&w, step(&k, &w), KOP_STORE, s1, 10, "temp_dst[index]");
    expect_lane(&w, 34, t1, "cell (0, 0)");
    expect_lane(&w, 61, t1 + (64 + 11) * 4, "cell (1, 11)");
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    /* work-group (5, 5), warp 3 (ty 12..15): tile rows 58 + ty are past the grid */
    wlh_warp_at(&w, &k, 35, 3);
    cr_expect_eq(ops_to_exit(&k, &w), 8);
    /* ranges of work-group (0, 0): the tile's 14 x 14 cells in the grid; the 12 x 12 it writes */
    struct addr_range v[16];
    expect_ranges(&k, 0, 0, v, rows_of(v, pw, 64, 0, 14, 0, 14));
    expect_ranges(&k, 0, 1, v, rows_of(v, t0, 64, 0, 14, 0, 14));
    expect_ranges(&k, 0, 2, v, rows_of(v, t1, 64, 0, 12, 0, 12));
    /* work-group (1, 2): tile origin (22, 10): reads rows 22..37, cols 10..25; writes 24..35, 12..23 */
    expect_ranges(&k, 13, 1, v, rows_of(v, t0, 64, 22, 38, 10, 26));
    expect_ranges(&k, 13, 2, v, rows_of(v, t1, 64, 24, 36, 12, 24));
    gw_close(&g);
}

Test(rodinia1, hotspot_errors)
{
    expect_error(&wl_hotspot, "[workload]\npyramid_height = 8\n",
                 "t.ini:2: [workload] pyramid_height = 8: out of range [1, 7]");
}

/* ---- hotspot3d ------------------------------------------------------------- */

Test(rodinia1, hotspot3d_table2_kernels_and_footprint)
{
    struct wlh g;
    gw_open(&g, &wl_hotspot3d, NULL);
    cr_expect_eq(wl_footprint(&g.env), 3ull * 4 * 512 * 512 * 8);
    cr_expect_eq(gw_count(&g), 20);
    gw_close(&g);
}

Test(rodinia1, hotspot3d_ops)
{
    struct wlh g;
    gw_open(&g, &wl_hotspot3d, "[workload]\ngrid = 64\nlayers = 4\niterations = 2\n");
    struct kernel k, k1;
    gw_kernel(&g, 0, &k);
    gw_kernel(&g, 0, &k1);
    expect_geom(&k, "hotspotOpt1", 1, 16, 64, 4, 0);
    const uint64_t sz = 4 * 64 * 64 * 4, xy = 64 * 64;
    expect_arg(&k, 0, "p_d", sz, KERNEL_R, false);
    expect_arg(&k, 1, "tIn_d", sz, KERNEL_R, false);
    expect_arg(&k, 2, "tOut_d", sz, KERNEL_RW, false);
    expect_arg(&k1, 0, "p_d", sz, KERNEL_R, true);
    expect_arg(&k1, 1, "tOut_d", sz, KERNEL_R, false);
    expect_arg(&k1, 2, "tIn_d", sz, KERNEL_RW, false);
    addr_t p = k.args[0].buf->base, ti = k.args[1].buf->base, to = k.args[2].buf->base;
    /* work-group (0, 2), warp 1: j = 9, i = lane; c = i + 64 j */
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 2, 1);
    /* ALU counts: the kernel's PTX per basic block (hotspot3d.c, hotspot3d_next) */
    expect_alu(step(&k, &w), 54, 0, 0, "prologue");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 1, "temp2 = tIn[c]");
    expect_lane(&w, 5, ti + 581 * 4, "c");
    for (uint64_t z = 0; z < 4; z++) {
        uint8_t centre = (uint8_t)(1 + z % 3), up = z < 3 ? (uint8_t)(1 + (z + 1) % 3) : centre;
        addr_t c5 = (z * xy + 581) * 4, c0 = (z * xy + 576) * 4, c63 = (z * xy + 639) * 4;
        if (z < 3) {
            expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, up, "temp3 = tIn[c + xy]");
            expect_lane(&w, 5, ti + c5 + xy * 4, "c + xy");
        }
        expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 4, "tIn[W]");
        expect_lane(&w, 5, ti + c5 - 4, "W = c - 1");
        expect_lane(&w, 0, ti + c0, "W = c at i == 0");
        expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 5, "tIn[E]");
        expect_lane(&w, 5, ti + c5 + 4, "E = c + 1");
        expect_lane(&w, 63, ti + c63, "E = c at i == nx - 1");
        expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 6, "tIn[S]");
        expect_lane(&w, 5, ti + c5 + 64 * 4, "S = c + nx");
        expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 7, "tIn[N]");
        expect_lane(&w, 5, ti + c5 - 64 * 4, "N = c - nx");
        expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 8, "p[c]");
        expect_lane(&w, 5, p + c5, "p[c]");
        expect_alu(step(&k, &w), 3, 4, 5, "cw W + cc temp2 + ce E");
        expect_alu(step(&k, &w), 3, 6, 7, "cs S + cn N + cb temp1");
        expect_alu(step(&k, &w), 2, 8, up, "sdc p + ct temp3");
        expect_alu(step(&k, &w), 1, centre, 0, "+ ct amb");
        expect_mem(&w, step(&k, &w), KOP_STORE, ~0ull, 0, "tOut[c]");
        expect_lane(&w, 5, to + c5, "tOut[c]");
        if (z < 3)
            expect_alu(step(&k, &w), 21, 0, 0, "c, W, E, N, S += xy, addresses, loop");
    }
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    /* j = 0 and j = ny - 1: N and S clamp to c */
    wlh_warp_at(&w, &k, 0, 0);
    skip(&k, &w, 7); /* prologue, tIn[c], temp3, W, E, S, N */
    expect_lane(&w, 5, ti + 5 * 4, "N = c at j == 0");
    wlh_warp_at(&w, &k, 15, 3);
    skip(&k, &w, 6); /* prologue, tIn[c], temp3, W, E, S */
    expect_lane(&w, 5, ti + (63 * 64 + 5) * 4, "S = c at j == ny - 1");
    wlh_warp_at(&w, &k, 15, 3);
    cr_expect_eq(ops_to_exit(&k, &w), 2 + 3 * 12 + 10);
    /* ranges of work-group (0, 2): whole rows, so they merge per layer */
    struct addr_range v[4];
    for (uint64_t z = 0; z < 4; z++)
        v[z] = (struct addr_range){p + (z * xy + 8 * 64) * 4, p + (z * xy + 12 * 64) * 4};
    expect_ranges(&k, 2, 0, v, 4);
    for (uint64_t z = 0; z < 4; z++)
        v[z] = (struct addr_range){ti + (z * xy + 7 * 64) * 4, ti + (z * xy + 13 * 64) * 4};
    expect_ranges(&k, 2, 1, v, 4);
    for (uint64_t z = 0; z < 4; z++)
        v[z] = (struct addr_range){ti + z * xy * 4, ti + (z * xy + 5 * 64) * 4};
    expect_ranges(&k, 0, 1, v, 4);
    gw_close(&g);
}

Test(rodinia1, hotspot3d_ranges_rows_and_span)
{
    struct wlh g;
    gw_open(&g, &wl_hotspot3d, "[workload]\ngrid = 128\nlayers = 2\n");
    struct kernel k;
    gw_kernel(&g, 0, &k);
    addr_t ti = k.args[1].buf->base, to = k.args[2].buf->base;
    const uint64_t xy = 128 * 128;
    /* work-group (1, 2): i0 = 64, j0 = 8: rows 7 and 12 columns 64..127, rows 8..11 63..127 */
    struct addr_range v[12];
    unsigned n = 0;
    for (uint64_t z = 0; z < 2; z++)
        for (uint64_t j = 7; j < 13; j++) {
            uint64_t lo = j == 7 || j == 12 ? 64 : 63;
            v[n++] = (struct addr_range){ti + (z * xy + j * 128 + lo) * 4,
                                           ti + (z * xy + j * 128 + 128) * 4};
        }
    expect_ranges(&k, 5, 1, v, 12);
    n = 0;
    for (uint64_t z = 0; z < 2; z++)
        for (uint64_t j = 8; j < 12; j++)
            v[n++] = (struct addr_range){to + (z * xy + j * 128 + 64) * 4,
                                           to + (z * xy + j * 128 + 128) * 4};
    expect_ranges(&k, 5, 2, v, 8);
    gw_close(&g);
    /* 20 layers x 6 rows do not fit in 64 ranges: their span (the overflow rule
     * of every range list; the hand-written model first tried one range per
     * layer) */
    gw_open(&g, &wl_hotspot3d, "[workload]\ngrid = 128\nlayers = 20\n");
    gw_kernel(&g, 0, &k);
    ti = k.args[1].buf->base;
    expect_ranges(&k, 4, 1,
                  (struct addr_range[]){{ti + 7 * 128 * 4, ti + (19 * xy + 12 * 128 + 64) * 4}}, 1);
    gw_close(&g);
}

Test(rodinia1, hotspot3d_errors)
{
    expect_error(&wl_hotspot3d, "[workload]\ngrid = 100\n",
                 "t.ini:2: [workload] grid = 100: must be a multiple of 64 (the work-group width)");
    expect_error(&wl_hotspot3d, "[workload]\nlayers = 1\n",
                 "t.ini:2: [workload] layers = 1: out of range [2, 65536]");
}

/* ---- lud ------------------------------------------------------------------- */

Test(rodinia1, lud_table2_kernels_and_footprint)
{
    struct wlh g;
    gw_open(&g, &wl_lud, NULL);
    cr_expect_eq(wl_footprint(&g.env), 4 * 512 * 512);
    cr_expect_eq(gw_count(&g), 3 * (512 / 16 - 1) + 1);
    gw_close(&g);
}

/* lud_diagonal's first load: m[offset][offset + tx] (size 64). */
static void expect_diagonal_at(const struct kernel *k, uint64_t off)
{
    struct kernel_warp w;
    wlh_warp_at(&w, k, 0, 0);
    skip(k, &w, 1);
    expect_mem(&w, step(k, &w), KOP_LOAD, 0xffff, 1, "m[offset][offset + tx]");
    expect_lane(&w, 3, k->args[0].buf->base + (off * 64 + off + 3) * 4, "diagonal block");
}

Test(rodinia1, lud_kernel_sequence)
{
    struct wlh g;
    gw_open(&g, &wl_lud, "[workload]\nsize = 64\n");
    struct kernel k;
    for (unsigned s = 0; s < 3; s++) {
        uint32_t n = (64 - 16 * s) / 16 - 1;
        gw_kernel(&g, 0, &k);
        expect_geom(&k, "lud_diagonal", 1, 1, 16, 1, 1024);
        expect_diagonal_at(&k, 16 * s);
        gw_kernel(&g, 0, &k);
        expect_geom(&k, "lud_perimeter", n, 1, 32, 1, 3 * 1024);
        gw_kernel(&g, 0, &k);
        expect_geom(&k, "lud_internal", n, n, 16, 16, 2 * 1024);
        cr_expect_eq(k.nargs, 1);
        expect_arg(&k, 0, "d_m", 4 * 64 * 64, KERNEL_RW, false);
    }
    gw_kernel(&g, 0, &k);
    expect_geom(&k, "lud_diagonal", 1, 1, 16, 1, 1024);
    expect_diagonal_at(&k, 48);
    cr_expect_not(g.ops->next_kernel(g.self, &k));
    gw_close(&g);
}

Test(rodinia1, lud_diagonal_ops)
{
    struct wlh g;
    gw_open(&g, &wl_lud, "[workload]\nsize = 64\n");
    struct kernel k;
    gw_kernel(&g, 3, &k); /* offset 16 */
    addr_t m = k.args[0].buf->base;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    cr_expect_eq(w.nlanes, 16);
    /* ALU counts: the kernel's PTX per basic block (lud.c, diag_phase) */
    expect_alu(step(&k, &w), 104, 0, 0, "prologue");
    for (unsigned i = 0; i < 16; i++) { /* shadow[i][tx] = m[(offset + i) dim + offset + tx] */
        expect_mem(&w, step(&k, &w), KOP_LOAD, 0xffff, (uint8_t)(i + 1), "m");
        expect_lane(&w, 3, m + ((16 + i) * 64 + 16 + 3) * 4, "row offset + i");
    }
    for (unsigned i = 0; i < 16; i++) {
        expect_mem(&w, step(&k, &w), KOP_LDS_STORE, 0xffff, (uint8_t)(i + 1), "shadow[i][tx]");
        expect_lane(&w, 3, (i * 16 + 3) * 4, "shadow[i][3]");
    }
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    /* i = 0: shadow[tx][0] /= shadow[0][0] for tx > 0 */
    expect_alu(step(&k, &w), 12, 0, 0, "loop test");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xfffe, 31, "shadow[tx][0]");
    expect_lane(&w, 5, 5 * 16 * 4, "shadow[5][0]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xfffe, 32, "shadow[0][0]");
    expect_lane(&w, 5, 0, "shadow[0][0]");
    expect_alu(step(&k, &w), 1, 31, 32, "division");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, 0xfffe, 31, "shadow[tx][0]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    /* shadow[1][tx] -= shadow[1][0] * shadow[0][tx] for tx > 0 */
    expect_alu(step(&k, &w), 19, 0, 0, "loop test");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xfffe, 31, "shadow[1][tx]");
    expect_lane(&w, 5, (16 + 5) * 4, "shadow[1][5]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xfffe, 1, "shadow[1][0]");
    expect_lane(&w, 5, 16 * 4, "shadow[1][0]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xfffe, 2, "shadow[0][tx]");
    expect_lane(&w, 5, 5 * 4, "shadow[0][5]");
    expect_alu(step(&k, &w), 2, 1, 2, "multiply-add");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, 0xfffe, 31, "shadow[1][tx]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    skip(&k, &w, 8 + 1 + 9 + 1); /* i = 1 */
    /* i = 2, column: for j < 2 shadow[tx][2] -= shadow[tx][j] * shadow[j][2]; /= shadow[2][2] */
    expect_alu(step(&k, &w), 32, 0, 0, "loop test");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xfff8, 31, "shadow[tx][2]");
    expect_lane(&w, 5, (80 + 2) * 4, "shadow[5][2]");
    const uint32_t x[4] = {80 * 4, 2 * 4, (80 + 1) * 4, (16 + 2) * 4};
    for (unsigned s = 0; s < 4; s++) {
        expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xfff8, (uint8_t)(s + 1), "term");
        expect_lane(&w, 5, x[s], "shadow[5][j] or shadow[j][2]");
    }
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xfff8, 32, "shadow[2][2]");
    expect_lane(&w, 5, (32 + 2) * 4, "shadow[2][2]");
    expect_alu(step(&k, &w), 2, 1, 2, "multiply-add");
    expect_alu(step(&k, &w), 2, 3, 4, "multiply-add");
    expect_alu(step(&k, &w), 1, 31, 32, "division");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, 0xfff8, 31, "shadow[tx][2]");
    /* the rest: 889 ops in all; the last 30 copy rows 1..15 out */
    cr_expect_eq(ops_to_exit(&k, &w), 889 - 66 - 11);
    wlh_warp_at(&w, &k, 0, 0);
    skip(&k, &w, 889 - 30);
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, 0xffff, 1, "shadow[1][tx]");
    expect_lane(&w, 3, (16 + 3) * 4, "shadow[1][3]");
    skip(&k, &w, 14);
    expect_mem(&w, step(&k, &w), KOP_STORE, 0xffff, 1, "m[(offset + 1) dim + offset + tx]");
    expect_lane(&w, 3, m + (17 * 64 + 16 + 3) * 4, "row offset + 1");
    struct addr_range v[16];
    expect_ranges(&k, 0, 0, v, rows_of(v, m, 64, 16, 32, 16, 32));
    gw_close(&g);
}

Test(rodinia1, lud_perimeter_ops)
{
    struct wlh g;
    gw_open(&g, &wl_lud, "[workload]\nsize = 64\n");
    struct kernel k;
    gw_kernel(&g, 4, &k); /* offset 16, 2 work-groups */
    addr_t m = k.args[0].buf->base;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0); /* blockIdx.x 1: block column / row 16 + 32 = 48 */
    cr_expect_eq(w.nlanes, 32);
    const uint64_t lo = 0xffff, hi = 0xffff0000;
    /* ALU counts: the kernel's PTX per basic block (lud.c, peri_phase) */
    expect_alu(step(&k, &w), 231, 0, 0, "prologue");
    expect_mem(&w, step(&k, &w), KOP_LOAD, lo, 1, "dia[0][idx]");
    expect_lane(&w, 3, m + (16 * 64 + 16 + 3) * 4, "m[offset dim + offset + idx]");
    skip(&k, &w, 7);
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, lo, 1, "dia[0][idx]");
    expect_lane(&w, 3, 3 * 4, "dia[0][3]");
    skip(&k, &w, 7);
    expect_mem(&w, step(&k, &w), KOP_LOAD, lo, 1, "peri_row[0][idx]");
    expect_lane(&w, 3, m + (16 * 64 + 48 + 3) * 4, "m[offset dim + offset + 32 + idx]");
    skip(&k, &w, 15);
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, lo, 1, "peri_row[0][idx]");
    expect_lane(&w, 3, 1024 + 3 * 4, "peri_row[0][3]");
    skip(&k, &w, 15);
    expect_mem(&w, step(&k, &w), KOP_LOAD, hi, 1, "dia[8][idx]");
    expect_lane(&w, 19, m + (24 * 64 + 16 + 3) * 4, "m[(offset + 8) dim + offset + idx]");
    skip(&k, &w, 7);
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, hi, 1, "dia[8][idx]");
    expect_lane(&w, 19, (8 * 16 + 3) * 4, "dia[8][3]");
    skip(&k, &w, 7);
    expect_mem(&w, step(&k, &w), KOP_LOAD, hi, 1, "peri_col[0][idx]");
    expect_lane(&w, 19, m + (48 * 64 + 16 + 3) * 4, "m[(offset + 32) dim + offset + idx]");
    skip(&k, &w, 15);
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, hi, 1, "peri_col[0][idx]");
    expect_lane(&w, 19, 2048 + 3 * 4, "peri_col[0][3]");
    skip(&k, &w, 15);
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    /* peri_row, i = 1: peri_row[1][idx] -= dia[1][0] * peri_row[0][idx] */
    expect_alu(step(&k, &w), 22, 0, 0, "loop test");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, lo, 31, "peri_row[1][idx]");
    expect_lane(&w, 3, 1024 + (16 + 3) * 4, "peri_row[1][3]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, lo, 1, "dia[1][0]");
    expect_lane(&w, 3, 16 * 4, "dia[1][0]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, lo, 2, "peri_row[0][idx]");
    expect_lane(&w, 3, 1024 + 3 * 4, "peri_row[0][3]");
    expect_alu(step(&k, &w), 2, 1, 2, "multiply-add");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, lo, 31, "peri_row[1][idx]");
    /* i = 2..15: 3 i + 3 ops each */
    skip(&k, &w, 405 - 6);
    /* peri_col, i = 0: peri_col[idx][0] /= dia[0][0] */
    expect_alu(step(&k, &w), 11, 0, 0, "loop test");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, hi, 31, "peri_col[idx][0]");
    expect_lane(&w, 19, 2048 + 3 * 16 * 4, "peri_col[3][0]");
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, hi, 32, "dia[0][0]");
    expect_alu(step(&k, &w), 1, 31, 32, "division");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, hi, 31, "peri_col[idx][0]");
    skip(&k, &w, 440 - 5);
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, lo, 1, "peri_row[1][idx]");
    skip(&k, &w, 14);
    expect_mem(&w, step(&k, &w), KOP_STORE, lo, 1, "m[(offset + 1) dim + offset + 32 + idx]");
    expect_lane(&w, 3, m + (17 * 64 + 48 + 3) * 4, "row offset + 1");
    skip(&k, &w, 14);
    expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, hi, 1, "peri_col[0][idx]");
    skip(&k, &w, 15);
    expect_mem(&w, step(&k, &w), KOP_STORE, hi, 1, "m[(offset + 32) dim + offset + idx]");
    expect_lane(&w, 19, m + (48 * 64 + 16 + 3) * 4, "row offset + 32");
    skip(&k, &w, 15);
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    wlh_warp_at(&w, &k, 0, 0);
    cr_expect_eq(ops_to_exit(&k, &w), 1 + 96 + 1 + 405 + 440 + 1 + 62);
    /* ranges: rows 16..31 of the diagonal block and of block column 48, then
     * rows 48..63 of block column 16 */
    struct addr_range v[48];
    unsigned n = 0;
    for (uint64_t r = 16; r < 32; r++) {
        n += rows_of(v + n, m, 64, r, r + 1, 16, 32);
        n += rows_of(v + n, m, 64, r, r + 1, 48, 64);
    }
    n += rows_of(v + n, m, 64, 48, 64, 16, 32);
    expect_ranges(&k, 1, 0, v, n);
    gw_close(&g);
}

Test(rodinia1, lud_internal_ops)
{
    struct wlh g;
    gw_open(&g, &wl_lud, "[workload]\nsize = 64\n");
    struct kernel k;
    gw_kernel(&g, 2, &k); /* offset 0, 3 x 3 work-groups */
    addr_t m = k.args[0].buf->base;
    /* work-group (1, 2): global_row_id 48, global_col_id 32; warp 2: ty 8..11 */
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 7, 2);
    /* ALU counts: the kernel's PTX per basic block (lud.c, internal_next) */
    expect_alu(step(&k, &w), 36, 0, 0, "prologue");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 1, "m[(offset + ty) dim + global_col_id + tx]");
    expect_lane(&w, 3, m + (8 * 64 + 32 + 3) * 4, "tx 3, ty 8");
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 2, "m[(global_row_id + ty) dim + offset + tx]");
    expect_lane(&w, 3, m + (56 * 64 + 3) * 4, "tx 3, ty 8");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, ~0ull, 1, "peri_row[ty][tx]");
    expect_lane(&w, 3, (8 * 16 + 3) * 4, "peri_row[8][3]");
    expect_mem(&w, step(&k, &w), KOP_LDS_STORE, ~0ull, 2, "peri_col[ty][tx]");
    expect_lane(&w, 3, 1024 + (8 * 16 + 3) * 4, "peri_col[8][3]");
    cr_expect_eq(step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&w, step(&k, &w), KOP_LOAD, ~0ull, 33, "m[(global_row_id + ty) dim + global_col_id + tx]");
    expect_lane(&w, 3, m + (56 * 64 + 35) * 4, "tx 3, ty 8");
    for (unsigned i = 0; i < 16; i++) {
        expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, ~0ull, (uint8_t)(2 * i + 1), "peri_col[ty][i]");
        expect_lane(&w, 3, 1024 + (8 * 16 + i) * 4, "peri_col[8][i]");
        expect_mem(&w, step(&k, &w), KOP_LDS_LOAD, ~0ull, (uint8_t)(2 * i + 2), "peri_row[i][tx]");
        expect_lane(&w, 3, (i * 16 + 3) * 4, "peri_row[i][3]");
    }
    for (unsigned i = 0; i < 16; i++)
        expect_alu(step(&k, &w), 1, (uint8_t)(2 * i + 1), (uint8_t)(2 * i + 2), "sum +=");
    expect_alu(step(&k, &w), 1, 33, 0, "m -= sum");
    expect_mem(&w, step(&k, &w), KOP_STORE, ~0ull, 0, "m[(global_row_id + ty) dim + global_col_id + tx]");
    expect_lane(&w, 3, m + (56 * 64 + 35) * 4, "tx 3, ty 8");
    cr_expect_eq(ops_to_exit(&k, &w), 0);
    /* ranges: the block above (rows 0..15, columns 32..47), then rows 48..63
     * of the block left of it and of its own block */
    struct addr_range v[48];
    unsigned n = rows_of(v, m, 64, 0, 16, 32, 48);
    for (uint64_t r = 48; r < 64; r++) {
        n += rows_of(v + n, m, 64, r, r + 1, 0, 16);
        n += rows_of(v + n, m, 64, r, r + 1, 32, 48);
    }
    expect_ranges(&k, 7, 0, v, n);
    gw_close(&g);
}

Test(rodinia1, lud_errors)
{
    expect_error(&wl_lud, "[workload]\nsize = 100\n",
                 "t.ini:2: [workload] size = 100: must be a multiple of 16 (BLOCK_SIZE)");
    expect_error(&wl_lud, "[workload]\nsize = 8\n",
                 "t.ini:2: [workload] size = 8: out of range [16, 65536]");
}

/* ---- all five ---------------------------------------------------------------- */

/* The lane arithmetic does not assume 64-lane warps. */
Test(rodinia1, small_sizes_run_with_32_lane_warps)
{
    const struct wl_ops *all[] = {&wl_backprop, &wl_gaussian, &wl_hotspot, &wl_hotspot3d,
                                  &wl_lud};
    const uint64_t kernels[] = {2, 58, 3, 2, 10};
    for (int i = 0; i < 5; i++) {
        struct run_result r = run_wl(all[i], "viper", "[cu]\nwarp_size = 32\n");
        cr_expect_eq(r.kernels, kernels[i], "%s", all[i]->name);
    }
}

/* A range list longer than the caller's maximum becomes the one range from
 * its first byte to its last. */
Test(rodinia1, too_many_ranges_give_the_span)
{
    struct wlh g;
    gw_open(&g, &wl_hotspot3d, "[workload]\ngrid = 128\nlayers = 100\n");
    struct kernel k;
    gw_kernel(&g, 0, &k);
    struct addr_range v[64];
    addr_t p = k.args[0].buf->base, in = k.args[1].buf->base;
    uint64_t layer = 128 * 128 * 4;
    /* work-group 4: columns 0..63 of rows 8..11 */
    cr_assert_eq(k.ranges(&k, 4, 1, v, 64), 1, "tIn: 100 layers of 6 rows");
    cr_expect_eq(v[0].lo, in + 7 * 128 * 4, "halo row 7 of layer 0");
    cr_expect_eq(v[0].hi, in + 99 * layer + (12 * 128 + 64) * 4,
                 "to column 63 of the halo row 12, layer 99");
    cr_assert_eq(k.ranges(&k, 4, 0, v, 64), 1, "p: 100 layers of 4 rows");
    cr_expect_eq(v[0].lo, p + 8 * 128 * 4);
    cr_expect_eq(v[0].hi, p + 99 * layer + (11 * 128 + 64) * 4);
    cr_expect_eq(k.ranges(&k, 4, 7, v, 64), 0, "no such argument");
    gw_close(&g);
}
