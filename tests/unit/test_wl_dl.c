/*
 * The benchmark library's DL layers (dl-fc, dl-rnn, dl-lstm, dl-conv; kernel
 * descriptions on mlk.h's tiled GEMM, driven by kdw.h): at each small size
 * the kernel sequence (names, grids, blocks, argument modes), the first
 * operations of chosen warps with their addresses, and the parameter
 * errors. Expectations derived by hand from the kernels
 * (docs/workloads/dl-*.md). Warps have 64 lanes here: a 16 x 16 GEMM
 * work-group's warp w holds rows ty = 4w .. 4w + 3.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "wl_harness.h"

extern const struct wl_ops wl_dl_fc, wl_dl_rnn, wl_dl_lstm, wl_dl_conv;

#define ALL64 (~0ull)

/* A global or LDS access of 4 bytes whose lane l (of the mask) is at
 * base + (l / cols) * rs + (l % cols) * cs bytes. */
static void expect_grid(const struct kernel *k, struct kernel_warp *w, enum kernel_op_kind kind,
                        addr_t base, unsigned cols, int64_t rs, int64_t cs, uint64_t mask)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect_eq(op.kind, kind, "%s: op %u, want %u", k->name, op.kind, kind);
    uint64_t got_mask = op.mask ? op.mask : low_bits(w->nlanes);
    cr_expect_eq(got_mask, mask, "%s: mask %#llx, want %#llx", k->name,
                 (unsigned long long)got_mask, (unsigned long long)mask);
    for (unsigned l = 0; l < 64; l++) {
        addr_t want = base + (addr_t)((l / cols) * rs + (l % cols) * cs);
        if (mask >> l & 1)
            cr_expect_eq(w->lane_addr[l], want, "%s: lane %u at %#llx, want %#llx", k->name, l,
                         (unsigned long long)w->lane_addr[l], (unsigned long long)want);
    }
}

/* A 1D access: lane l at base + 4 l. */
static void expect_run(const struct kernel *k, struct kernel_warp *w, enum kernel_op_kind kind,
                       addr_t base, uint64_t mask)
{
    expect_grid(k, w, kind, base, 64, 0, 4, mask);
}

static addr_t arg(const struct kernel *k, unsigned a)
{
    return k->args[a].buf->base;
}

/* The LDS stores of a K step by warp w (rows ty from 4 w): A (at 0) and B
 * (at 528 floats), each transposed (N: tx*33 + ty) or as loaded (T:
 * ty*33 + tx), then at + 16. */
static void expect_lds_stores(const struct kernel *k, struct kernel_warp *w, bool at, bool bt)
{
    addr_t ty0 = 4 * w->warp;
    for (unsigned op = 0; op < 2; op++) {
        bool t = op ? bt : at;
        for (unsigned i = 0; i < 2; i++) {
            addr_t base = ((op ? 528u : 0u) + i * 16) * 4;
            if (t)
                expect_grid(k, w, KOP_LDS_STORE, base + ty0 * 33 * 4, 16, 33 * 4, 4, ALL64);
            else
                expect_grid(k, w, KOP_LDS_STORE, base + ty0 * 4, 16, 4, 33 * 4, ALL64);
        }
    }
}

/* ==== dl-fc ==== */

/* y (8 x 64) = x (8 x 32) w^T (64 x 32): two 32 x 32 tiles of 16 x 16
 * threads. Warp 0 of work-group 1 (rows ty 0..3): set-up 57; K step 0: 25,
 * A rows 0..3 (row 16 + ty is past m = 8: no load), B rows 32 + ty and
 * 48 + ty, 16 floats each; the four LDS stores; a barrier; kk 0's LDS
 * loads As[0][ty], As[0][ty + 16], Bs[0][tx], Bs[0][tx + 16] and 4 FMAs. */
Test(wl_dl, fc_gemm_loads_its_tiles_k_contiguous)
{
    struct wlh h;
    wlh_open_small(&h, &wl_dl_fc, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "sgemm_nt", 2, 1, 16, 16, "RRW");
    cr_expect_eq(k.lds_b, 2 * 16 * 33 * 4);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0);
    wlh_expect_alu(&k, &w, 57);
    wlh_expect_alu(&k, &w, 25);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 0), 16, 32 * 4, 4, ALL64);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 1) + 32 * 32 * 4, 16, 32 * 4, 4, ALL64);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 1) + 48 * 32 * 4, 16, 32 * 4, 4, ALL64);
    expect_lds_stores(&k, &w, false, false);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    expect_grid(&k, &w, KOP_LDS_LOAD, 0, 16, 4, 0, ALL64);
    expect_grid(&k, &w, KOP_LDS_LOAD, 16 * 4, 16, 4, 0, ALL64);
    expect_grid(&k, &w, KOP_LDS_LOAD, 528 * 4, 16, 0, 4, ALL64);
    expect_grid(&k, &w, KOP_LDS_LOAD, 544 * 4, 16, 0, 4, ALL64);
    wlh_expect_alu(&k, &w, 4);
    /* work-group 1 reads rows 32 .. 63 of w: one range */
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 1, 1, r, 4), 1);
    cr_expect(r[0].lo == arg(&k, 1) + 32 * 32 * 4 && r[0].hi == arg(&k, 1) + 64 * 32 * 4);
    wlh_no_more(&h);
    wlh_close(&h);
}

/* The presets: AlexNet fc7 at batch 128 is 128 x 4096 x 4096, a grid of
 * 128 x 4 tiles; ResNet-50's fc 256 x 1000 x 2048, 32 x 8 tiles, and m
 * overrides the batch. */
Test(wl_dl, fc_presets_give_the_layer_shapes)
{
    struct wlh h;
    struct kernel k;
    cr_assert(wlh_try(&h, &wl_dl_fc, "[workload]\n", 4, 8), "%s", h.e.msg);
    wlh_next_kernel(&h, &k, "sgemm_nt", 128, 4, 16, 16, "RRW");
    cr_expect_eq(k.args[1].buf->size, 4096ull * 4096 * 4);
    wlh_no_more(&h);
    wlh_close(&h);
    cr_assert(wlh_try(&h, &wl_dl_fc, "[workload]\nlayer = resnet50-fc\nm = 64\n", 4, 8), "%s",
              h.e.msg);
    wlh_next_kernel(&h, &k, "sgemm_nt", 32, 2, 16, 16, "RRW");
    cr_expect_eq(k.args[1].buf->size, 1000ull * 2048 * 4);
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_dl_fc, "[workload]\nlayer = lenet\n",
                     "t.ini:2: [workload] layer = lenet: not one of: alexnet-fc2, vggnet-fc2, resnet50-fc");
}

/* ==== dl-rnn ==== */

/* H 32, B 2, T 2 (B H = 64). Forward: the input GEMM over both steps
 * (M = 4), then per step the recurrent GEMM (beta: C loaded first) and the
 * ReLU. Step 1's ReLU, warp 0: pre[64 + l] -> h[128 + l] (h's row 0 is
 * h_{-1}); step 1's GEMM reads h_0 (h[64 ..]) as A. */
Test(wl_dl, rnn_forward_runs_the_steps_in_order)
{
    struct wlh h;
    wlh_open_small(&h, &wl_dl_rnn, NULL);
    struct kernel k;
    struct kernel_warp w;
    wlh_next_kernel(&h, &k, "sgemm_nt", 1, 1, 16, 16, "RRW");
    for (unsigned t = 0; t < 2; t++) {
        wlh_next_kernel(&h, &k, "sgemm_nt", 1, 1, 16, 16, "RRW");
        wlh_warp_at(&w, &k, 0, 0);
        wlh_expect_alu(&k, &w, 57);
        wlh_expect_alu(&k, &w, 25);
        /* A rows ty = 0, 1 of h_{t-1}: lanes 0 .. 31 */
        expect_grid(&k, &w, KOP_LOAD, arg(&k, 0) + t * 64 * 4, 16, 32 * 4, 4, 0xffffffffull);
        wlh_next_kernel(&h, &k, "rnn_relu", 1, 1, 256, 1, "RW");
        wlh_warp_at(&w, &k, 0, 0);
        wlh_expect_alu(&k, &w, 9);
        wlh_expect_alu(&k, &w, 2);
        expect_run(&k, &w, KOP_LOAD, arg(&k, 0) + t * 64 * 4, ALL64);
        wlh_expect_alu(&k, &w, 3);
        expect_run(&k, &w, KOP_STORE, arg(&k, 1) + (t + 1) * 64 * 4, ALL64);
        cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    }
    wlh_no_more(&h);
    wlh_close(&h);
}

/* Data gradient: the last step's ReLU gradient (no recurrent term: dh not
 * read), then step 0's recurrent GEMM dh = dpre_1 R (NN: R's K rows ty,
 * columns tx and tx + 16) and its ReLU gradient (dh read), then dX. */
Test(wl_dl, rnn_dgrad_walks_the_steps_backwards)
{
    struct wlh h;
    wlh_open_small(&h, &wl_dl_rnn, "pass = dgrad\n");
    struct kernel k;
    struct kernel_warp w;
    wlh_next_kernel(&h, &k, "rnn_drelu", 1, 1, 256, 1, "RRRW");
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 12);
    wlh_expect_alu(&k, &w, 3);
    expect_run(&k, &w, KOP_LOAD, arg(&k, 0) + 64 * 4, ALL64);
    wlh_expect_alu(&k, &w, 2);
    wlh_expect_alu(&k, &w, 2);
    expect_run(&k, &w, KOP_LOAD, arg(&k, 2) + 128 * 4, ALL64);
    wlh_expect_alu(&k, &w, 3);
    expect_run(&k, &w, KOP_STORE, arg(&k, 3) + 64 * 4, ALL64);
    wlh_next_kernel(&h, &k, "sgemm_nn", 1, 1, 16, 16, "RRW");
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 55);
    wlh_expect_alu(&k, &w, 29);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 0) + 64 * 4, 16, 32 * 4, 4, 0xffffffffull);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 1), 16, 32 * 4, 4, ALL64);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 1) + 16 * 4, 16, 32 * 4, 4, ALL64);
    expect_lds_stores(&k, &w, false, true);
    wlh_next_kernel(&h, &k, "rnn_drelu", 1, 1, 256, 1, "RRRW");
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 12);
    wlh_expect_alu(&k, &w, 3);
    expect_run(&k, &w, KOP_LOAD, arg(&k, 0), ALL64);
    wlh_expect_alu(&k, &w, 2);
    wlh_expect_alu(&k, &w, 2);
    expect_run(&k, &w, KOP_LOAD, arg(&k, 1), ALL64);
    wlh_expect_alu(&k, &w, 1);
    wlh_next_kernel(&h, &k, "sgemm_nn", 1, 1, 16, 16, "RRW");
    wlh_no_more(&h);
    wlh_close(&h);
}

/* Weight gradients: dW = dpre^T X and dR = dpre^T h over the 4 rows of both
 * steps (TN: K rows ty < 4, so warp 0 alone loads). Warp 0 of dR: A and B
 * rows 0 .. 3, columns tx and tx + 16, as loaded into LDS. */
Test(wl_dl, rnn_wgrad_reads_both_operands_k_major)
{
    struct wlh h;
    wlh_open_small(&h, &wl_dl_rnn, "pass = wgrad\n");
    struct kernel k;
    struct kernel_warp w;
    wlh_next_kernel(&h, &k, "sgemm_tn", 1, 1, 16, 16, "RRW");
    wlh_next_kernel(&h, &k, "sgemm_tn", 1, 1, 16, 16, "RRW");
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 52);
    wlh_expect_alu(&k, &w, 28);
    for (unsigned a = 0; a < 2; a++)
        for (unsigned i = 0; i < 2; i++)
            expect_grid(&k, &w, KOP_LOAD, arg(&k, a) + i * 16 * 4, 16, 32 * 4, 4, ALL64);
    expect_lds_stores(&k, &w, true, true);
    wlh_warp_at(&w, &k, 0, 1);
    wlh_expect_alu(&k, &w, 52);
    wlh_expect_alu(&k, &w, 28);
    expect_lds_stores(&k, &w, true, true);
    /* the work-group reads h's rows 0 .. 3 (h_{-1}, h_0) */
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 0, 1, r, 4), 1);
    cr_expect(r[0].lo == arg(&k, 1) && r[0].hi == arg(&k, 1) + 4 * 32 * 4);
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_dl_rnn, "[workload]\npass = bwd\n",
                     "t.ini:2: [workload] pass = bwd: not one of: fw, dgrad, wgrad");
    wlh_expect_error(&wl_dl_rnn, "[workload]\nhidden = 16384\nbatch = 4096\nsteps = 4096\n",
                     "t.ini:4: [workload] steps = 4096: the layer takes 3074 GiB (at most 64)");
}

/* The default (paper) sizes' footprints, from the pages' formulas: dl-fc
 * 4 (M K + N K + M N); dl-rnn at H 1760, B 16, T 50, input H (S = T B H
 * elements of a step array, W = H H): fw and wgrad 4 (2 W + 3 S + B H), dgrad
 * 4 (2 W + 4 S + 2 B H); dl-lstm 4 (T B I + 4 H I + 4 H H + 4 T B H +
 * 2 (T + 1) B H) at (4096, 64, 25), (256, 64, 150) and (512, 64, 25);
 * dl-conv 4 (B C H W + M C / G KH KW + C KH KW Ho Wo + B M Ho Wo). */
Test(wl_dl, default_footprints_follow_the_pages)
{
    static const struct {
        const struct wl_ops *w;
        const char *ini;
        uint64_t bytes;
    } c[] = {
        {&wl_dl_fc, "", 4ull * (128 * 4096 + 4096 * 4096 + 128 * 4096)},
        {&wl_dl_fc, "layer = vggnet-fc2\n", 4ull * (256 * 4096 + 4096 * 4096 + 256 * 4096)},
        {&wl_dl_fc, "layer = resnet50-fc\n", 4ull * (256 * 2048 + 1000 * 2048 + 256 * 1000)},
        {&wl_dl_rnn, "", 41789440},
        {&wl_dl_rnn, "pass = dgrad\n", 47534080},
        {&wl_dl_rnn, "pass = wgrad\n", 41789440},
        {&wl_dl_lstm, "", 722468864},
        {&wl_dl_lstm, "layer = lstm-1\n", 71041024},
        {&wl_dl_lstm, "layer = lstm-2\n", 31588352},
        {&wl_dl_conv, "", 139610496},
        {&wl_dl_conv, "layer = googlenet-conv2\n", 110428160},
        {&wl_dl_conv, "layer = overfeat-layer1\n", 240796032},
        {&wl_dl_conv, "layer = resnet\n", 418414592},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct wlh h;
        char ini[256];
        snprintf(ini, sizeof ini, "[workload]\n%s", c[i].ini);
        cr_assert(wlh_try(&h, c[i].w, ini, 4, 8), "%s", h.e.msg);
        cr_expect_eq(wl_footprint(&h.env), c[i].bytes, "%s %s: %llu", c[i].w->name, c[i].ini,
                     (unsigned long long)wl_footprint(&h.env));
        wlh_close(&h);
    }
}

/* ==== dl-lstm ==== */

/* H 16, B 2, T 2 (B H = 32; a step's gates 128 floats). The input GEMM
 * (N = 4H = 64: two tiles), then per step the recurrent GEMM and the cell.
 * Step 1's cell, work-group (0, 1) (batch row 1), warp 0: units 0 .. 15
 * (lanes past H idle) read the four gates of row 1 of step 1
 * (gates[128 + 64 + 16 g + j]), c_0 (c[32 + 16 + j]), and write c_1 and
 * h_1 (row 1 of step 1: [64 + 16 + j]); warp 1 has no unit. */
Test(wl_dl, lstm_cell_reads_its_rows_gates_and_writes_the_state)
{
    struct wlh h;
    wlh_open_small(&h, &wl_dl_lstm, NULL);
    struct kernel k;
    struct kernel_warp w;
    wlh_next_kernel(&h, &k, "sgemm_nt", 2, 1, 16, 16, "RRW");
    for (unsigned t = 0; t < 2; t++) {
        wlh_next_kernel(&h, &k, "sgemm_nt", 2, 1, 16, 16, "RRW");
        wlh_next_kernel(&h, &k, "lstm_cell", 1, 2, 256, 1, "RWW");
    }
    wlh_warp_at(&w, &k, 1, 0);
    wlh_expect_alu(&k, &w, 11);
    wlh_expect_alu(&k, &w, 7);
    static const uint32_t act[] = {23, 15, 15, 26};
    for (unsigned g = 0; g < 4; g++) {
        expect_run(&k, &w, KOP_LOAD, arg(&k, 0) + (128 + 64 + 16 * g) * 4, 0xffff);
        wlh_expect_alu(&k, &w, act[g]);
    }
    expect_run(&k, &w, KOP_LOAD, arg(&k, 1) + (32 + 16) * 4, 0xffff);
    wlh_expect_alu(&k, &w, 3);
    expect_run(&k, &w, KOP_STORE, arg(&k, 1) + (64 + 16) * 4, 0xffff);
    wlh_expect_alu(&k, &w, 19);
    expect_run(&k, &w, KOP_STORE, arg(&k, 2) + (64 + 16) * 4, 0xffff);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    wlh_warp_at(&w, &k, 1, 1);
    wlh_expect_alu(&k, &w, 11);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    /* batch row 1 reads c_0's row 1 and writes c_1's: two ranges */
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 1, 1, r, 4), 2);
    cr_expect(r[0].lo == arg(&k, 1) + 48 * 4 && r[0].hi == arg(&k, 1) + 64 * 4);
    cr_expect(r[1].lo == arg(&k, 1) + 80 * 4 && r[1].hi == arg(&k, 1) + 96 * 4);
    wlh_no_more(&h);
    wlh_close(&h);
}

/* ==== dl-conv ==== */

/* 2 images of 2 x 4 x 4, 4 filters of 3 x 3 in 2 groups, stride 1, pad 1:
 * Ho = Wo = 4, K_g = 9, M_g = 2. Per image im2col (grid (1, 1, C), 32 x 8
 * threads) and a GEMM per group. im2col of channel 1, warp 0 (block rows
 * ty 0, 1; lanes tx < 4 active): window (0, 0) reads input row ty - 1
 * (ty = 1 only: row 0 of channel 1, columns tx - 1 >= 0) and stores row 9
 * (c KH KW) of col at pixel (ty, tx); window (0, 1) reads columns tx. */
Test(wl_dl, conv_im2col_copies_the_window_with_zero_padding)
{
    struct wlh h;
    wlh_open_small(&h, &wl_dl_conv, NULL);
    struct kernel k;
    struct kernel_warp w;
    wlh_next_kernel(&h, &k, "im2col", 1, 1, 32, 8, "RW");
    cr_expect_eq(k.grid.z, 2);
    wlh_warp_at(&w, &k, 1, 0);
    wlh_expect_alu(&k, &w, 22);
    wlh_expect_alu(&k, &w, 32);
    wlh_expect_alu(&k, &w, 6);
    wlh_expect_alu(&k, &w, 8);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 0) + (16 - 4 - 1) * 4, 32, 16, 4, 0xe00000000ull);
    expect_grid(&k, &w, KOP_STORE, arg(&k, 1) + 144 * 4, 32, 16, 4, 0xf0000000full);
    wlh_expect_alu(&k, &w, 6);
    wlh_expect_alu(&k, &w, 8);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 0) + (16 - 4) * 4, 32, 16, 4, 0xf00000000ull);
    expect_grid(&k, &w, KOP_STORE, arg(&k, 1) + 160 * 4, 32, 16, 4, 0xf0000000full);
    for (unsigned g = 0; g < 2; g++)
        wlh_next_kernel(&h, &k, "sgemm_nn", 1, 1, 16, 16, "RRW");
    /* image 1 (input from element 32), channel 0: after window row 0 (the
     * set-up, 3 elements of 4 ops), row 1's first element reads input rows
     * ty, columns tx - 1 */
    wlh_next_kernel(&h, &k, "im2col", 1, 1, 32, 8, "RW");
    wlh_warp_at(&w, &k, 0, 0);
    for (unsigned n = 0; n < 15; n++)
        wlh_step(&k, &w);
    wlh_expect_alu(&k, &w, 3);
    wlh_expect_alu(&k, &w, 6);
    wlh_expect_alu(&k, &w, 8);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 0) + (32 - 1) * 4, 32, 16, 4, 0xe0000000eull);
    wlh_close(&h);
}

/* Image 1, group 1's GEMM: out[1][2 ..] (2 x 16, from element 96) = W[2 ..]
 * (2 x 9, from element 18) col[9 ..] (9 x 16, from element 144), NN. Warp 0:
 * A rows ty 0, 1, K columns tx < 9 (36 B apart); B K rows ty 0 .. 3, 16
 * columns (row-major, contiguous); the second halves (rows 16 +, columns
 * 16 +) lie outside and issue nothing. The work-group writes out's 32
 * elements from 96. Then the parameter errors. */
Test(wl_dl, conv_gemm_multiplies_the_groups_weights_by_the_columns)
{
    struct wlh h;
    wlh_open_small(&h, &wl_dl_conv, NULL);
    struct kernel k;
    struct kernel_warp w;
    for (unsigned i = 0; i < 6; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_expect_str_eq(k.name, "sgemm_nn");
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 55);
    wlh_expect_alu(&k, &w, 29);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 0) + 18 * 4, 16, 36, 4, 0x01ff01ffull);
    expect_grid(&k, &w, KOP_LOAD, arg(&k, 1) + 144 * 4, 16, 64, 4, ALL64);
    expect_lds_stores(&k, &w, false, true);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 0, 2, r, 4), 1);
    cr_expect(r[0].lo == arg(&k, 2) + 96 * 4 && r[0].hi == arg(&k, 2) + 128 * 4);
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_dl_conv, "[workload]\nchannels = 4\ngroups = 3\n",
                     "t.ini:3: [workload] groups = 3: 3 groups do not divide channels (4) and filters (256)");
    wlh_expect_error(&wl_dl_conv, "[workload]\nheight = 2\nwidth = 3\nkernel = 7\npad = 0\n",
                     "t.ini:4: [workload] kernel = 7: larger than the padded input (2 x 3)");
    wlh_expect_error(&wl_dl_conv,
                     "[workload]\nbatch = 4096\nchannels = 4096\nheight = 64\nwidth = 64\n",
                     "t.ini:2: [workload] batch = 4096: the layer takes 273 GiB (at most 64)");
}
