/*
 * Rodinia low-reuse workload models (btree, dwt2d, nw, pathfinder,
 * srad-v2): each runs at its small size on the tiny machine under every
 * registered scheme with no stale read and no annotation violation; the
 * dynamic kernel counts and footprints follow the documented formulas (also
 * at the Table II sizes, without running them); selected ops of selected
 * warps carry exactly the real code's addresses; bad parameters are refused
 * with cfg_err messages.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coherence/coh.h"
#include "machine.h"
#include "wl_harness.h"
#include "test_util.h"
#include "workload/wl.h"

extern const struct wl_ops wl_btree, wl_dwt2d, wl_nw, wl_pathfinder, wl_srad_v2;

/* ---- harness ------------------------------------------------------------ */

static void *mw_try(struct wlh *m, const struct wl_ops *ops, const char *ini)
{
    char full[2048];
    snprintf(full, sizeof full, "[workload]\n%s", ini ? ini : "");
    return wlh_try(m, ops, full, 4, 240);
}

static void mw_open(struct wlh *m, const struct wl_ops *ops, const char *ini)
{
    cr_assert_not_null(mw_try(m, ops, ini), "%s", m->e.msg);
}

static void mw_close(struct wlh *m) { wlh_close(m); }

static void expect_error(const struct wl_ops *ops, const char *ini, const char *want)
{
    struct wlh m;
    cr_expect_null(mw_try(&m, ops, ini), "accepted: %s", ini);
    cr_expect_str_eq(m.e.msg, want);
    mw_close(&m);
}

/* The small overrides as INI lines. */
static void small_ini(const struct wl_ops *ops, char *buf, size_t n)
{
    size_t len = 0;
    for (const char *const *o = ops->small; *o; o++)
        len += (size_t)snprintf(buf + len, n - len, "%s\n", *o);
}

/* Run the small size on the tiny machine under `scheme`. */
static void run_small(const struct wl_ops *ops, const char *scheme, unsigned kernels,
                      uint64_t footprint)
{
    char ini[1024], sm[512];
    small_ini(ops, sm, sizeof sm);
    snprintf(ini, sizeof ini, "[coherence]\nscheme = %s\n[check]\nannotations = true\n"
             "[workload]\n%s", scheme, sm);
    struct err e;
    struct machine *m = machine_new_wl(ini, ops, &e);
    cr_assert(m, "%s: %s", ops->name, e.msg);
    cr_expect_eq(wl_footprint(&m->env), footprint, "%s footprint %llu", ops->name,
                 (unsigned long long)wl_footprint(&m->env));
    cr_assert_eq(machine_run(m), SIM_DONE, "%s under %s", ops->name, scheme);
    cr_expect_eq(m->g.cp.st.kernels, kernels, "%s under %s: %llu kernels", ops->name, scheme,
                 (unsigned long long)m->g.cp.st.kernels);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0, "%s under %s", ops->name, scheme);
    cr_expect_eq(machine_stat(m, "checker.annotation_violations"), 0, "%s under %s: %llu",
                 ops->name, scheme,
                 (unsigned long long)machine_stat(m, "checker.annotation_violations"));
    cr_expect_gt(machine_stat(m, "warp_insts"), 0);
    machine_free(m);
}

static void run_small_all(const struct wl_ops *ops, unsigned kernels, uint64_t footprint)
{
    for (const struct coh_ops *const *c = coh_registry; *c; c++)
        run_small(ops, (*c)->name, kernels, footprint);
}

/* Step to the next op of `kind` (at most 100000 ops), returning it. */
static struct kernel_op next_of(const struct kernel *k, struct kernel_warp *w, uint8_t kind)
{
    for (int i = 0; i < 100000; i++) {
        struct kernel_op op = wlh_step(k, w);
        if (op.kind == kind)
            return op;
        cr_assert_neq(op.kind, KOP_EXIT, "exit before op kind %u", kind);
    }
    cr_assert_fail("no op of kind %u", kind);
    return (struct kernel_op){0};
}

static uint64_t lanes(unsigned lo, unsigned hi) /* mask of lanes [lo, hi] */
{
    uint64_t upto = hi >= 63 ? ~0ull : (1ull << (hi + 1)) - 1;
    return upto & ~((1ull << lo) - 1);
}

static void expect_mem(struct kernel_op op, uint8_t kind, addr_t base, int64_t stride,
                       uint8_t size, uint64_t mask, const char *what)
{
    cr_expect_eq(op.kind, kind, "%s: kind %u, want %u", what, op.kind, kind);
    cr_expect_not(op.lanes, "%s: lanes", what);
    cr_expect_eq(op.base, base, "%s: base %#llx, want %#llx", what, (unsigned long long)op.base,
                 (unsigned long long)base);
    cr_expect_eq(op.stride, stride, "%s: stride %lld", what, (long long)op.stride);
    cr_expect_eq(op.size, size, "%s: size %u", what, op.size);
    cr_expect_eq(op.mask, mask, "%s: mask %#llx, want %#llx", what, (unsigned long long)op.mask,
                 (unsigned long long)mask);
}

/* The same for an op whose lanes may be given one by one: lane l of mask
 * (0: the warp's lanes) at base + l * stride. */
static void expect_at(struct kernel_op op, const struct kernel_warp *w, uint8_t kind, addr_t base,
                      int64_t stride, uint8_t size, uint64_t mask, const char *what)
{
    cr_expect_eq(op.kind, kind, "%s: kind %u, want %u", what, op.kind, kind);
    cr_expect_eq(op.size, size, "%s: size %u", what, op.size);
    cr_expect_eq(op.mask, mask, "%s: mask %#llx, want %#llx", what, (unsigned long long)op.mask,
                 (unsigned long long)mask);
    for (uint64_t m = mask ? mask : lanes(0, w->nlanes - 1); m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        addr_t a = op.lanes ? w->lane_addr[l] : op.base + (addr_t)((int64_t)l * op.stride);
        cr_expect_eq(a, base + (addr_t)((int64_t)l * stride), "%s: lane %u at %#llx", what, l,
                     (unsigned long long)a);
    }
}

/* ---- pathfinder ------------------------------------------------------------ */

Test(pathfinder, small_runs_clean_under_every_scheme)
{
    /* cols 4096, rows 21, ph 4: ceil(20 / 4) = 5 kernels; (rows + 1) x cols x 4 B */
    run_small_all(&wl_pathfinder, 5, 22ull * 4096 * 4);
}

/* The wall rows a warp of work-group 1 loads: one per iteration. */
static unsigned wall_loads(const struct kernel *k)
{
    const struct kernel_buf *wall = k->args[0].buf;
    struct kernel_warp w;
    wlh_warp_at(&w, k, 1, 0);
    unsigned n = 0;
    for (struct kernel_op op = wlh_step(k, &w); op.kind != KOP_EXIT; op = wlh_step(k, &w))
        n += op.kind == KOP_LOAD && op.base >= wall->base && op.base < wall->base + wall->size;
    return n;
}

Test(pathfinder, table2_kernels_and_footprint)
{
    struct wlh m;
    mw_open(&m, &wl_pathfinder, NULL);
    cr_expect_eq(wl_footprint(&m.env), 101ull * 200000 * 4);
    struct kernel k;
    for (int i = 0; i < 5; i++) {
        cr_assert(m.ops->next_kernel(m.self, &k));
        cr_expect_str_eq(k.name, "dynproc_kernel");
        cr_expect_eq(k.grid.x, 926); /* ceil(200000 / (256 - 40)) */
        cr_expect_eq(k.block.x, 256);
        cr_expect_eq(k.lds_b, 2048);
        cr_expect_eq(wall_loads(&k), i < 4 ? 20 : 19, "iterations of kernel %d", i);
        cr_expect_eq(k.args[1].buf->name[9], i % 2 ? '1' : '0', "source row of kernel %d", i);
        cr_expect_eq(k.args[2].buf->name[9], i % 2 ? '0' : '1');
        cr_expect_eq(k.args[0].mode, KERNEL_R);
        cr_expect_eq(k.args[1].mode, KERNEL_R);
        cr_expect_eq(k.args[2].mode, KERNEL_RW);
    }
    cr_expect_not(m.ops->next_kernel(m.self, &k));
    mw_close(&m);
}

Test(pathfinder, first_warp_ops_follow_the_index_arithmetic)
{
    struct wlh m;
    mw_open(&m, &wl_pathfinder, "cols = 4096\nrows = 21\npyramid_height = 4\n");
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_assert(m.ops->next_kernel(m.self, &k)); /* second kernel: startStep 4, src = result1 */
    const struct kernel_buf *wall = k.args[0].buf, *src = k.args[1].buf, *dst = k.args[2].buf;
    cr_expect_str_eq(src->name, "gpuResult1");
    struct kernel_warp w;
    /* WG 0, warp 0: blkX = 248 * 0 - 4 = -4; lanes 4..63 have xidx >= 0 */
    wlh_warp_at(&w, &k, 0, 0);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    expect_mem(wlh_step(&k, &w), KOP_LOAD, src->base - 16, 4, 4, lanes(4, 63), "src");
    expect_mem(wlh_step(&k, &w), KOP_LDS_STORE, 0, 4, 4, lanes(4, 63), "prev");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    /* iteration 0: tx in [1, 254] and valid: lanes 4..63 */
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    struct kernel_op op = wlh_step(&k, &w); /* prev[W], W clamped to validXmin = 4 */
    cr_expect(op.kind == KOP_LDS_LOAD && op.lanes && op.mask == lanes(4, 63));
    cr_expect_eq(w.lane_addr[4], 4 * 4);
    cr_expect_eq(w.lane_addr[5], 4 * 4);
    cr_expect_eq(w.lane_addr[63], 62 * 4);
    expect_mem(wlh_step(&k, &w), KOP_LDS_LOAD, 0, 4, 4, lanes(4, 63), "prev[tx]");
    op = wlh_step(&k, &w);
    cr_expect_eq(w.lane_addr[63], 64 * 4);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    /* gpuWall[cols * (startStep + 0) + xidx] */
    expect_mem(wlh_step(&k, &w), KOP_LOAD, wall->base + (4096ull * 4 - 4) * 4, 4, 4, lanes(4, 63),
               "wall");
    /* iteration 3 (the last): tx in [4, 251] */
    for (int i = 0; i < 6; i++) /* two barriers per earlier iteration */
        op = next_of(&k, &w, KOP_BARRIER);
    op = next_of(&k, &w, KOP_LOAD);
    expect_mem(op, KOP_LOAD, wall->base + (4096ull * 7 - 4) * 4, 4, 4, lanes(4, 63), "wall 3");
    op = next_of(&k, &w, KOP_STORE); /* gpuResults[xidx] for tx in [4, 251] */
    expect_mem(op, KOP_STORE, dst->base - 16, 4, 4, lanes(4, 63), "result");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    /* WG 1, warp 3: blkX = 244, tx 192..255: the last iteration computes tx <= 251 */
    wlh_warp_at(&w, &k, 1, 3);
    op = next_of(&k, &w, KOP_STORE);
    expect_mem(op, KOP_STORE, dst->base + (244ull + 192) * 4, 4, 4, lanes(0, 59), "wg1 result");
    mw_close(&m);
}

Test(pathfinder, bad_parameters)
{
    expect_error(&wl_pathfinder, "pyramid_height = 128\n",
                 "t.ini:2: [workload] pyramid_height = 128: 256 - 2 x pyramid_height must be "
                 "positive");
    expect_error(&wl_pathfinder, "rows = 1\n",
                 "t.ini:2: [workload] rows = 1: out of range [2, 1073741824]");
}

/* ---- srad-v2 ------------------------------------------------------------------ */

Test(srad_v2, small_runs_clean_under_every_scheme)
{
    /* 64 x 64, niter 2: 2 x niter kernels; six rows x cols float arrays */
    run_small_all(&wl_srad_v2, 4, 6ull * 64 * 64 * 4);
}

Test(srad_v2, table2_kernels_args_and_footprint)
{
    struct wlh m;
    mw_open(&m, &wl_srad_v2, NULL);
    cr_expect_eq(wl_footprint(&m.env), 6ull * 2048 * 2048 * 4);
    struct kernel k;
    for (int i = 0; i < 4; i++) {
        cr_assert(m.ops->next_kernel(m.self, &k));
        bool first = i % 2 == 0;
        cr_expect_str_eq(k.name, first ? "srad_cuda_1" : "srad_cuda_2");
        cr_expect(k.grid.x == 128 && k.grid.y == 128 && k.block.x == 16 && k.block.y == 16);
        cr_expect_eq(k.lds_b, first ? 6144 : 5120);
        cr_assert_eq(k.nargs, 6);
        for (int a = 0; a < 4; a++) { /* E_C, W_C, N_C, S_C */
            cr_expect_eq(k.args[a].mode, first ? KERNEL_RW : KERNEL_R);
            cr_expect_eq(k.args[a].same_pattern, i > 0);
        }
        cr_expect_str_eq(k.args[4].buf->name, "J_cuda");
        cr_expect_eq(k.args[4].mode, first ? KERNEL_R : KERNEL_RW);
        cr_expect_not(k.args[4].same_pattern);
        cr_expect_str_eq(k.args[5].buf->name, "C_cuda");
        cr_expect_eq(k.args[5].mode, first ? KERNEL_RW : KERNEL_R);
        cr_expect_not(k.args[5].same_pattern);
    }
    cr_expect_not(m.ops->next_kernel(m.self, &k));
    mw_close(&m);
}

/* Lane l of a 16x16 block: tx = l % 16, ty = warp * 4 + l / 16. */
static void expect_lane_index(const struct kernel_warp *w, uint64_t mask, addr_t base,
                              int64_t (*idx)(unsigned tx, unsigned ty), const char *what)
{
    for (unsigned l = 0; l < 64; l++)
        if (mask >> l & 1)
            cr_expect_eq(w->lane_addr[l], base + (addr_t)idx(l % 16, w->warp * 4 + l / 16) * 4,
                         "%s lane %u", what, l);
}

static int64_t s1_south(unsigned tx, unsigned ty) { (void)ty; return 16 + 64 * 16 + tx; }
static int64_t s1_west(unsigned tx, unsigned ty) { (void)tx; return 16 + 64 * ty - 1; }
static int64_t s1_n0(unsigned tx, unsigned ty) { (void)ty; return 16 + tx; }

Test(srad_v2, srad1_first_block_row_loads)
{
    struct wlh m;
    mw_open(&m, &wl_srad_v2, "rows = 64\ncols = 64\nr2 = 15\nc2 = 15\n");
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    const struct kernel_buf *j = k.args[4].buf;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0); /* bx 1, by 0, rows ty 0..3 */
    /* mask 0: the warp's lanes (all 64), outside any condition */
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    /* index_n = 16 + tx - 64 < 0 for every lane: the load is masked away */
    expect_at(wlh_step(&k, &w), &w, KOP_LDS_STORE, 2048, 4, 4, 0, "north[ty][tx]");
    struct kernel_op op = wlh_step(&k, &w); /* index_s = 16 + 64 * 16 + tx */
    cr_expect(op.kind == KOP_LOAD && op.lanes && op.mask == ~0ull && op.size == 4);
    expect_lane_index(&w, op.mask, j->base, s1_south, "index_s");
    expect_at(wlh_step(&k, &w), &w, KOP_LDS_STORE, 3072, 4, 4, 0, "south[ty][tx]");
    op = wlh_step(&k, &w); /* by == 0: north[ty][tx] = J[16 bx + tx] */
    expect_lane_index(&w, op.mask, j->base, s1_n0, "north edge");
    cr_expect_eq(op.mask, ~0ull);
    expect_at(wlh_step(&k, &w), &w, KOP_LDS_STORE, 2048, 4, 4, ~0ull, "north edge store");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    op = wlh_step(&k, &w); /* index_w = 16 + 64 ty - 1 */
    expect_lane_index(&w, op.mask, j->base, s1_west, "index_w");
    cr_expect_eq(op.mask, ~0ull);
    /* the region loads of warp 0: nw is absent (bx 1 still has tx 0 ... every
     * block has its own nw corner at tid 0) */
    op = next_of(&k, &w, KOP_BARRIER);
    op = next_of(&k, &w, KOP_BARRIER);
    op = next_of(&k, &w, KOP_LDS_LOAD); /* jc = temp[ty][tx] */
    expect_at(op, &w, KOP_LDS_LOAD, 0, 4, 4, 0, "jc");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU); /* region nw: lane 0 */
    expect_at(wlh_step(&k, &w), &w, KOP_LDS_LOAD, 2048, 4, 4, 1, "nw: north");
    expect_at(wlh_step(&k, &w), &w, KOP_LDS_LOAD, 16 * 4, 4, 4, 1, "nw: temp[ty+1][tx]");
    expect_at(wlh_step(&k, &w), &w, KOP_LDS_LOAD, 5120, 4, 4, 1, "nw: west");
    expect_at(wlh_step(&k, &w), &w, KOP_LDS_LOAD, 4, 4, 4, 1, "nw: temp[ty][tx+1]");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    /* the interior region of warp 0 is the last: temp[ty-1][tx] */
    for (int r = 0; r < 4; r++) /* ne, n, e, w regions present */
        for (int s = 0; s < 6; s++)
            wlh_step(&k, &w);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    op = wlh_step(&k, &w);
    uint64_t interior = 0;
    for (unsigned l = 16; l < 64; l++)
        if (l % 16 != 0 && l % 16 != 15)
            interior |= 1ull << l;
    expect_at(op, &w, KOP_LDS_LOAD, (addr_t)-64, 4, 4, interior, "interior: temp[ty-1][tx]");
    op = next_of(&k, &w, KOP_STORE); /* C_cuda[index] */
    cr_expect(op.lanes && op.mask == 0);
    cr_expect_eq(w.lane_addr[17], k.args[5].buf->base + (16 + 64 * 1 + 1) * 4);
    mw_close(&m);
}

Test(srad_v2, bad_parameters)
{
    expect_error(&wl_srad_v2, "rows = 40\n",
                 "t.ini:2: [workload] rows = 40: rows and cols must be multiples of 16");
    expect_error(&wl_srad_v2, "rows = 64\ncols = 64\nr2 = 64\n",
                 "t.ini:4: [workload] r2 = 64: the ROI rows must satisfy r1 <= r2 < rows");
}

/* ---- nw ----------------------------------------------------------------------- */

Test(nw, small_runs_clean_under_every_scheme)
{
    /* n 64: 2 x 64 / 16 - 1 = 7 kernels; two 65 x 65 int matrices */
    run_small_all(&wl_nw, 7, 2ull * 65 * 65 * 4);
}

Test(nw, table2_kernel_sequence_and_footprint)
{
    struct wlh m;
    mw_open(&m, &wl_nw, NULL);
    cr_expect_eq(wl_footprint(&m.env), 2ull * 8193 * 8193 * 4);
    struct kernel k;
    unsigned n = 0;
    uint64_t wgs = 0;
    while (m.ops->next_kernel(m.self, &k)) {
        uint32_t want = n < 512 ? n + 1 : 1023 - n;
        cr_assert_eq(k.grid.x, want, "kernel %u grid %u", n, k.grid.x);
        cr_assert_str_eq(k.name, n < 512 ? "needle_cuda_shared_1" : "needle_cuda_shared_2");
        cr_assert(k.block.x == 16 && k.block.y == 1 && k.lds_b == 2180);
        cr_assert(k.nargs == 2 && k.args[0].mode == KERNEL_R && k.args[1].mode == KERNEL_RW);
        wgs += k.grid.x;
        n++;
    }
    cr_expect_eq(n, 2 * 8192 / 16 - 1);
    cr_expect_eq(wgs, 512ull * 512);
    mw_close(&m);
}

Test(nw, block_ops_follow_the_index_arithmetic)
{
    struct wlh m;
    mw_open(&m, &wl_nw, "n = 64\n");
    struct kernel k;
    for (int i = 0; i < 3; i++) /* needle_cuda_shared_1 with i = 3 */
        cr_assert(m.ops->next_kernel(m.self, &k));
    addr_t mat = k.args[1].buf->base, ref = k.args[0].buf->base;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0); /* b_index_x = 1, b_index_y = 3 - 1 - 1 = 1: blk = 65 * 16 + 16 */
    const addr_t blk = 1056;
    /* mask 0: the warp's lanes (all 16), outside any condition */
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    expect_mem(wlh_step(&k, &w), KOP_LOAD, mat + blk * 4, 4, 4, 1, "index_nw");
    expect_mem(wlh_step(&k, &w), KOP_LDS_STORE, 0, 4, 4, 1, "temp[0][0]");
    for (int ty = 0; ty < 16; ty++)
        expect_mem(wlh_step(&k, &w), KOP_LOAD, ref + (blk + 66 + 65 * ty) * 4, 4, 4, 0, "ref");
    for (int ty = 0; ty < 16; ty++)
        expect_mem(wlh_step(&k, &w), KOP_LDS_STORE, 1156 + 64 * ty, 4, 4, 0, "ref[ty][tx]");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    expect_mem(wlh_step(&k, &w), KOP_LOAD, mat + (blk + 65) * 4, 65 * 4, 4, 0, "west");
    expect_mem(wlh_step(&k, &w), KOP_LDS_STORE, 68, 68, 4, 0, "temp[tx+1][0]");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    expect_mem(wlh_step(&k, &w), KOP_LOAD, mat + (blk + 1) * 4, 4, 4, 0, "north");
    expect_mem(wlh_step(&k, &w), KOP_LDS_STORE, 4, 4, 4, 0, "temp[0][tx+1]");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    /* m = 0: lane 0 computes temp[1][1] */
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    expect_mem(wlh_step(&k, &w), KOP_LDS_LOAD, 0, -64, 4, 1, "temp[0][0]");
    expect_mem(wlh_step(&k, &w), KOP_LDS_LOAD, 1156, -60, 4, 1, "ref[0][0]");
    expect_mem(wlh_step(&k, &w), KOP_LDS_LOAD, 68, -64, 4, 1, "temp[1][0]");
    expect_mem(wlh_step(&k, &w), KOP_LDS_LOAD, 4, -64, 4, 1, "temp[0][1]");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    expect_mem(wlh_step(&k, &w), KOP_LDS_STORE, 72, -64, 4, 1, "temp[1][1]");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    for (int s = 1; s < 15; s++)
        next_of(&k, &w, KOP_BARRIER);
    /* m = 15: temp[16 - tx][1 + tx] for all 16 lanes */
    expect_mem(next_of(&k, &w, KOP_LDS_STORE), KOP_LDS_STORE, (16 * 17 + 1) * 4, -64, 4, 0xffff,
               "m = 15");
    /* second half, m = 14: temp[16 - tx][2 + tx] for tx <= 14 */
    next_of(&k, &w, KOP_BARRIER);
    expect_mem(next_of(&k, &w, KOP_LDS_STORE), KOP_LDS_STORE, (16 * 17 + 2) * 4, -64, 4, 0x7fff,
               "m = 14");
    for (int s = 16; s < 31; s++)
        next_of(&k, &w, KOP_BARRIER);
    for (int ty = 0; ty < 16; ty++)
        expect_mem(wlh_step(&k, &w), KOP_LDS_LOAD, ((ty + 1) * 17 + 1) * 4, 4, 4, 0, "out");
    for (int ty = 0; ty < 16; ty++)
        expect_mem(wlh_step(&k, &w), KOP_STORE, mat + (blk + 66 + 65 * ty) * 4, 4, 4, 0, "out");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    /* the matrix: rows 16 .. 32, columns 16 .. 32; the reference: rows 17 .. 32, columns
     * 17 .. 32 */
    struct addr_range r[64];
    cr_assert_eq(k.ranges(&k, 1, 1, r, 64), 17);
    for (unsigned y = 0; y < 17; y++)
        cr_expect(r[y].lo == mat + (blk + 65 * y) * 4 && r[y].hi == r[y].lo + 17 * 4, "row %u", y);
    cr_assert_eq(k.ranges(&k, 1, 0, r, 64), 16);
    for (unsigned y = 0; y < 16; y++)
        cr_expect(r[y].lo == ref + (blk + 66 + 65 * y) * 4 && r[y].hi == r[y].lo + 16 * 4);
    /* needle_cuda_shared_2 with i = 3 (the first): b_index_x = bx + 1, b_index_y = 3 - bx */
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect_str_eq(k.name, "needle_cuda_shared_2");
    cr_expect_eq(k.grid.x, 3);
    wlh_warp_at(&w, &k, 2, 0); /* block (3, 1) */
    expect_mem(next_of(&k, &w, KOP_LOAD), KOP_LOAD, mat + (65 * 16 + 48) * 4, 4, 4, 1, "nw");
    mw_close(&m);
}

Test(nw, bad_parameters)
{
    expect_error(&wl_nw, "n = 100\n", "t.ini:2: [workload] n = 100: must be a multiple of 16");
}

/* ---- btree ---------------------------------------------------------------------- */

static const struct kernel_buf *buf_named(const struct wl_env *env, const char *name)
{
    for (size_t i = 0; i < env->nbufs; i++)
        if (!strcmp(env->bufs[i]->name, name))
            return env->bufs[i];
    cr_assert_fail("no buffer %s", name);
    return NULL;
}

Test(btree, small_runs_clean_under_every_scheme)
{
    struct wlh m; /* the same tree as the machine builds (same seed) */
    mw_open(&m, &wl_btree, "keys = 20000\norder = 64\nk_count = 48\nj_count = 24\n"
                           "j_range = 500\n");
    uint64_t nodes = buf_named(&m.env, "knodesD")->size;
    cr_expect_eq(nodes % (8 * 64 + 20), 0);
    mw_close(&m);
    /* 2 kernels; records 4 B per key, knodes 8 x order + 20 B each, 48 B per
     * findRangeK query, 24 B per findK query */
    run_small_all(&wl_btree, 2, 20000 * 4 + nodes + 24 * 48 + 48 * 24);
}

/* The next op with its active lanes spelled out (mask 0: the warp's lanes). */
static struct kernel_op bt_step(const struct kernel *k, struct kernel_warp *w)
{
    struct kernel_op op = wlh_step(k, w);
    if (!op.mask)
        op.mask = low_bits(w->nlanes);
    return op;
}

Test(btree, table2_tree_and_kernels)
{
    struct wlh m;
    mw_open(&m, &wl_btree, NULL);
    const struct kernel_buf *kn = buf_named(&m.env, "knodesD");
    cr_expect_eq(kn->size % 4084, 0);
    uint64_t nodes = kn->size / 4084;
    /* random insertion fills leaves to 254..507 keys: about 1e6 / 350 leaves */
    cr_expect(nodes > 1000000 / 507 && nodes < 1000000 / 254 + 100, "%llu knodes",
              (unsigned long long)nodes);
    cr_expect_eq(wl_footprint(&m.env), 4000000 + kn->size + 6000 * 48 + 10000 * 24);
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect_str_eq(k.name, "findRangeK");
    cr_expect(k.grid.x == 6000 && k.block.x == 508 && k.nargs == 9);
    cr_expect_eq(k.args[0].buf, kn);
    cr_expect_eq(k.args[0].mode, KERNEL_R);
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect_str_eq(k.name, "findK");
    cr_expect(k.grid.x == 10000 && k.block.x == 508 && k.nargs == 6);
    cr_expect_str_eq(k.args[1].buf->name, "recordsD");
    cr_expect_eq(k.args[1].mode, KERNEL_R);
    cr_expect_eq(k.args[5].mode, KERNEL_RW); /* ansD */
    cr_expect_not(m.ops->next_kernel(m.self, &k));
    /* every findK query descends from the root one level per loop iteration */
    struct kernel_warp w;
    for (uint32_t q = 0; q < 10000; q += 997) {
        addr_t prev = 0;
        int levels = 0;
        wlh_warp_at(&w, &k, q, 0);
        for (int n = 0; n < 1000; n++) {
            struct kernel_op op = bt_step(&k, &w);
            if (op.kind == KOP_EXIT)
                break;
            if (op.kind != KOP_LOAD || op.base < kn->base || op.base >= kn->base + kn->size ||
                op.mask != ~0ull || (op.base - kn->base) % 4084 != 2040)
                continue;
            /* knodes[cur].keys[thid] of warp 0: offset 2040 in the knode */
            addr_t node = (op.base - kn->base) / 4084;
            if (levels == 0)
                cr_expect_eq(node, 0, "query %u starts at the root", q);
            else
                cr_expect_gt(node, prev, "query %u: breadth-first order", q);
            prev = node;
            levels++;
        }
        cr_expect_eq(levels, 3, "query %u: 2 inner levels and the leaf", q);
    }
    mw_close(&m);
}

/* A tree that is one leaf: key i sits at knode keys[i + 1] and is record i. */
Test(btree, single_leaf_search_ops)
{
    struct wlh m;
    mw_open(&m, &wl_btree, "keys = 300\nk_count = 8\nj_count = 4\nj_range = 10\n");
    const struct kernel_buf *kn = buf_named(&m.env, "knodesD");
    const struct kernel_buf *rec = buf_named(&m.env, "recordsD");
    cr_expect_eq(kn->size, 4084);
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_assert(m.ops->next_kernel(m.self, &k));
    const struct kernel_buf *cur = k.args[2].buf, *keys = k.args[4].buf, *ans = k.args[5].buf;
    cr_expect_str_eq(cur->name, "currKnodeD");
    unsigned found = 0;
    for (uint32_t q = 0; q < 8; q++)
        for (uint32_t wi = 0; wi < 8; wi++) {
            struct kernel_warp w;
            wlh_warp_at(&w, &k, q, wi);
            /* the prologue's ALU op (btree.c: PTX counts per basic block, step 0) */
            cr_expect_eq(bt_step(&k, &w).kind, KOP_ALU);
            /* no loop: currKnode, key, keys[thid] of knode 0, compare */
            expect_mem(bt_step(&k, &w), KOP_LOAD, cur->base + q * 8, 0, 8, w.nlanes == 64 ? ~0ull :
                       lanes(0, w.nlanes - 1), "currKnodeD[bid]");
            expect_mem(bt_step(&k, &w), KOP_LOAD, keys->base + q * 4, 0, 4,
                       w.nlanes == 64 ? ~0ull : lanes(0, w.nlanes - 1), "keysD[bid]");
            cr_expect_eq(bt_step(&k, &w).kind, KOP_ALU);
            struct kernel_op op = bt_step(&k, &w);
            cr_expect_eq(op.base, kn->base + 2040 + wi * 64 * 4, "keys[thid]");
            cr_expect_eq(bt_step(&k, &w).kind, KOP_ALU);
            op = bt_step(&k, &w);
            if (op.kind == KOP_EXIT)
                continue;
            /* the matching thread t: indices[t], then recordsD[t - 1], then ansD[bid] */
            cr_assert_eq(popcount64(op.mask), 1);
            unsigned t = wi * 64 + (unsigned)__builtin_ctzll(op.mask);
            cr_expect(t >= 1 && t <= 300, "thread %u", t);
            cr_expect_eq(op.base + (addr_t)(t % 64) * 4, kn->base + 4 + t * 4, "indices[t] %#llx %#llx t %u", (unsigned long long)op.base, (unsigned long long)kn->base, t);
            op = bt_step(&k, &w);
            cr_expect_eq(op.base + (addr_t)(t % 64) * 4, rec->base + (t - 1) * 4, "record");
            op = bt_step(&k, &w);
            cr_expect(op.kind == KOP_STORE && op.base == ans->base + q * 4 && op.stride == 0);
            cr_expect_eq(bt_step(&k, &w).kind, KOP_EXIT);
            found++;
        }
    cr_expect_eq(found, 8, "every key is in the tree: one match per query");
    mw_close(&m);
}

Test(btree, bad_parameters)
{
    expect_error(&wl_btree, "k_count = 70000\n",
                 "t.ini:2: [workload] k_count = 70000: out of range [0, 65535]");
}

/* ---- dwt2d ---------------------------------------------------------------------- */

Test(dwt2d, small_runs_clean_under_every_scheme)
{
    /* 64 x 64, 2 levels, 3 components: 1 + 3 x 2 kernels; seven int component
     * buffers and the 3-byte-per-pixel source rounded up to 256 pixels */
    run_small_all(&wl_dwt2d, 7, 7ull * 64 * 64 * 4 + 64 * 64 * 3);
}

/* Global loads of a warp of fdwt53Kernel with no boundary column (warp 1
 * of work-group 0): its column's 3 preloaded rows and 8 per window. */
static unsigned dw_column_loads(const struct kernel *k)
{
    struct kernel_warp w;
    wlh_warp_at(&w, k, 0, 1);
    unsigned n = 0;
    for (struct kernel_op op; (op = wlh_step(k, &w)).kind != KOP_EXIT;)
        n += op.kind == KOP_LOAD;
    return n;
}

Test(dwt2d, table2_kernel_sequence_and_footprint)
{
    struct wlh m;
    mw_open(&m, &wl_dwt2d, NULL);
    cr_expect_eq(wl_footprint(&m.env), 7ull * 4096 * 4096 * 4 + 4096ull * 4096 * 3);
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect_str_eq(k.name, "c_CopySrcToComponents");
    cr_expect(k.grid.x == 65536 && k.block.x == 256 && k.lds_b == 768 && k.nargs == 4);
    cr_expect_str_eq(k.args[0].buf->name, "d_src");
    const uint32_t gx[3] = {22, 11, 6}, steps[3] = {35, 18, 9};
    const char *comp[3] = {"c_r", "c_g", "c_b"}, *out[3] = {"c_r_out", "c_g_out", "c_b_out"};
    for (int c = 0; c < 3; c++)
        for (int l = 0; l < 3; l++) {
            cr_assert(m.ops->next_kernel(m.self, &k));
            cr_expect_str_eq(k.name, "fdwt53Kernel");
            cr_expect_eq(k.grid.x, gx[l], "level %d grid.x %u", l, k.grid.x);
            cr_expect_eq(k.grid.y, 15, "level %d grid.y %u", l, k.grid.y);
            cr_expect_eq(k.block.x, 192);
            cr_expect_eq(dw_column_loads(&k), 3 + 8 * steps[l], "level %d: %u windows", l,
                         steps[l]);
            cr_expect_eq(k.lds_b, 8728); /* (2 x 98 x 11 + 26) ints */
            cr_expect_str_eq(k.args[0].buf->name, comp[c]);
            cr_expect_eq(k.args[0].mode, KERNEL_R);
            cr_expect_str_eq(k.args[1].buf->name, out[c]);
            cr_expect_eq(k.args[1].mode, KERNEL_RW);
        }
    cr_expect_not(m.ops->next_kernel(m.self, &k));
    mw_close(&m);
}

Test(dwt2d, copy_kernel_ops)
{
    struct wlh m;
    mw_open(&m, &wl_dwt2d, "width = 64\nheight = 64\nlevels = 2\n");
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    const struct kernel_buf *src = k.args[0].buf;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 2); /* gX = 256, threads 128..191 */
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    expect_mem(wlh_step(&k, &w), KOP_LOAD, src->base + (192 + 128) * 4, 4, 4, ~0ull, "s[]");
    expect_mem(wlh_step(&k, &w), KOP_LDS_STORE, 128 * 4, 4, 4, ~0ull, "sData");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    for (int c = 0; c < 3; c++)
        expect_mem(wlh_step(&k, &w), KOP_LDS_LOAD, 128 * 3 + c, 3, 1, ~0ull, "sData[3x + c]");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    for (int c = 0; c < 3; c++)
        expect_mem(wlh_step(&k, &w), KOP_STORE, k.args[1 + c].buf->base + (256 + 128) * 4, 4, 4,
                   ~0ull, "d_c[]");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    wlh_warp_at(&w, &k, 1, 3); /* threads 192..255: x * 4 >= 768, no source load */
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    mw_close(&m);
}

Test(dwt2d, fdwt53_column_and_writer_ops)
{
    struct wlh m;
    mw_open(&m, &wl_dwt2d, NULL);
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_assert(m.ops->next_kernel(m.self, &k)); /* c_r, level 1: 4096 x 4096 */
    const struct kernel_buf *in = k.args[0].buf, *out = k.args[1].buf;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 22 + 1, 0); /* block (1, 1): columns 192.., firstY = 280 */
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_ALU);
    for (int j = 0; j < 3; j++) { /* rows 278, 279, 280 of columns 192 + tid */
        struct kernel_op op = wlh_step(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.lanes && op.mask == ~0ull);
        cr_expect_eq(w.lane_addr[0], in->base + ((278ull + j) * 4096 + 192) * 4);
        cr_expect_eq(w.lane_addr[63], in->base + ((278ull + j) * 4096 + 255) * 4);
    }
    struct kernel_op op = wlh_step(&k, &w); /* boundary columns 384, 190, 191 */
    cr_expect(op.kind == KOP_LOAD && op.mask == 7);
    cr_expect_eq(w.lane_addr[0], in->base + (278ull * 4096 + 384) * 4);
    cr_expect_eq(w.lane_addr[1], in->base + (278ull * 4096 + 190) * 4);
    cr_expect_eq(w.lane_addr[2], in->base + (278ull * 4096 + 191) * 4);
    wlh_step(&k, &w);
    wlh_step(&k, &w);
    /* window 0: the kept pixels into buffer rows 0..2 (column offset (tid + 2) / 2
     * + odd x 1104, vertical stride 98), then rows 281..288 */
    op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LDS_STORE && op.lanes && op.mask == ~0ull);
    cr_expect_eq(w.lane_addr[0], 1 * 4);
    cr_expect_eq(w.lane_addr[1], (1 + 1104) * 4);
    wlh_step(&k, &w);
    op = wlh_step(&k, &w);
    cr_expect_eq(w.lane_addr[2], (2 + 2 * 98) * 4);
    for (int j = 0; j < 8; j++) {
        op = wlh_step(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.mask == ~0ull);
        cr_expect_eq(w.lane_addr[5], in->base + ((281ull + j) * 4096 + 197) * 4);
    }
    /* the first store is the writer's: row 280 is even, so LL (even columns)
     * at band row 140, columns 96 + tid */
    op = next_of(&k, &w, KOP_STORE);
    cr_expect(op.lanes && op.mask == ~0ull);
    cr_expect_eq(w.lane_addr[0], out->base + (140ull * 2048 + 96) * 4);
    cr_expect_eq(w.lane_addr[63], out->base + (140ull * 2048 + 96 + 63) * 4);
    op = next_of(&k, &w, KOP_STORE); /* row 281: LH band */
    cr_expect_eq(w.lane_addr[0], out->base + (2ull * 2048 * 2048 + 140 * 2048 + 96) * 4);
    /* warp 1: threads 64..95 write low columns, 96..127 high (HL) columns 0..31 */
    wlh_warp_at(&w, &k, 22 + 1, 1);
    op = next_of(&k, &w, KOP_STORE);
    cr_expect_eq(w.lane_addr[0], out->base + (140ull * 2048 + 96 + 64) * 4);
    cr_expect_eq(w.lane_addr[32], out->base + (2048ull * 2048 + 140 * 2048 + 96) * 4);
    /* the last block column (21: columns 4032..4223) writes only x < 4096 */
    wlh_warp_at(&w, &k, 21, 0);
    op = next_of(&k, &w, KOP_STORE);
    cr_expect_eq(op.mask, lanes(0, 31)); /* even columns 4032 + 2 tid: only tid < 32 */
    wlh_warp_at(&w, &k, 21, 1);
    op = next_of(&k, &w, KOP_STORE); /* tid 64..95: x = 4160.. > 4096: none; 96..: odd 4033.. */
    cr_expect_eq(op.mask, lanes(32, 63));
    mw_close(&m);
}

Test(dwt2d, bad_parameters)
{
    expect_error(&wl_dwt2d, "components = 2\n",
                 "t.ini:2: [workload] components = 2: must be 1 or 3");
    expect_error(&wl_dwt2d, "width = 16\nlevels = 4\n",
                 "t.ini:3: [workload] levels = 4: the last level would be 2x512, below 3x3");
}
