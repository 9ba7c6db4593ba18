/*
 * Machine-learning workload models (rnn-gru-small/large, rnn-lstm-small/large,
 * cnn): each runs at its small size on the tiny machine under every scheme
 * with no stale read and no annotation violation; kernel counts and
 * footprints follow the documented formulas (small and Table II sizes);
 * chosen ops of chosen warps are exactly the real code's (the kernels' public
 * operations driven directly, without a GPU); ranges; parameter errors.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "wl_harness.h"
#include "test_util.h"
#include "workload/deepbench/mlk.h"

extern const struct wl_ops wl_rnn_gru_small, wl_rnn_gru_large, wl_rnn_lstm_small,
    wl_rnn_lstm_large, wl_cnn;

/* ---- whole runs on the tiny machine ---------------------------------------- */

struct run_result {
    uint64_t kernels, footprint, warp_insts, cycles;
};

static struct run_result run_wl(const struct wl_ops *w, const char *scheme, const char *extra)
{
    char ini[2048];
    int n = snprintf(ini, sizeof ini,
                     "[coherence]\nscheme = %s\n[check]\nannotations = true\n[workload]\n", scheme);
    for (const char *const *o = w->small; *o; o++) {
        const char *eq = strchr(*o, '=');
        n += snprintf(ini + n, sizeof ini - (size_t)n, "%.*s = %s\n", (int)(eq - *o), *o, eq + 1);
    }
    snprintf(ini + n, sizeof ini - (size_t)n, "%s", extra ? extra : "");
    struct err e;
    struct machine *m = machine_new_wl(ini, w, &e);
    cr_assert(m, "%s: %s", w->name, e.msg);
    cr_assert_eq(machine_run(m), SIM_DONE, "%s under %s", w->name, scheme);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0, "%s under %s: stale reads", w->name,
                 scheme);
    cr_expect_eq(machine_stat(m, "checker.annotation_violations"), 0,
                 "%s under %s: annotation violations", w->name, scheme);
    struct run_result r = {m->g.cp.st.kernels, wl_footprint(&m->env),
                           machine_stat(m, "warp_insts"),
                           (m->g.cp.last_end - m->g.cp.first_launch) / m->g.ms.gpu_clk.period};
    if (getenv("ML_VERBOSE"))
        fprintf(stderr, "%s %s: kernels %llu insts %llu cycles %llu\n", w->name, scheme,
                (unsigned long long)r.kernels, (unsigned long long)r.warp_insts,
                (unsigned long long)r.cycles);
    machine_free(m);
    return r;
}

static const char *const schemes[] = {"viper", "ideal", "cpelide", NULL};

static void run_all(const struct wl_ops *w, const char *extra, uint64_t kernels,
                    uint64_t footprint)
{
    struct run_result first = {0};
    for (const char *const *s = schemes; *s; s++) {
        struct run_result r = run_wl(w, *s, extra);
        cr_expect_eq(r.kernels, kernels, "%s under %s: %llu kernels", w->name, *s,
                     (unsigned long long)r.kernels);
        cr_expect_eq(r.footprint, footprint, "%s: footprint %llu", w->name,
                     (unsigned long long)r.footprint);
        if (s == schemes)
            first = r;
        else /* the same instruction stream whatever the scheme */
            cr_expect_eq(r.warp_insts, first.warp_insts, "%s under %s", w->name, *s);
    }
}

/* Documented formulas (docs/workloads/rnn-*.md, cnn.md), in bytes. */
static uint64_t lstm_footprint(uint64_t bs, uint64_t ts, uint64_t h, uint64_t in)
{
    return 4 * (ts * bs * in + 2 * bs * h + 4 * h * in + 4 * h * h + ts * bs * 4 * h +
                2 * ts * bs * h);
}

static uint64_t gru_footprint(uint64_t bs, uint64_t ts, uint64_t h, uint64_t in)
{
    return 4 * (ts * bs * in + bs * h + 3 * h * in + 3 * h * h + ts * bs * 3 * h + bs * 3 * h +
                ts * bs * h);
}

static uint64_t cnn_footprint(uint64_t n, uint64_t c, uint64_t h, uint64_t w, uint64_t k,
                              uint64_t r, uint64_t pad, uint64_t st, uint64_t pk, uint64_t ps,
                              uint64_t fo)
{
    uint64_t oh = (h + 2 * pad - r) / st + 1, ow = (w + 2 * pad - r) / st + 1;
    uint64_t ph = (oh - pk) / ps + 1, pw = (ow - pk) / ps + 1, fin = k * ph * pw;
    return 4 * (n * c * h * w + k * c * r * r + n * k * oh * ow + n * fin + fo * fin + n * fo);
}

Test(wl_ml, rnn_lstm_small_runs)
{
    run_all(&wl_rnn_lstm_small, NULL, 4 * 2, lstm_footprint(4, 2, 64, 64));
}

Test(wl_ml, rnn_lstm_large_runs)
{
    run_all(&wl_rnn_lstm_large, NULL, 4 * 3, lstm_footprint(16, 3, 64, 64));
}

Test(wl_ml, rnn_gru_small_runs)
{
    run_all(&wl_rnn_gru_small, NULL, 4 * 2, gru_footprint(4, 2, 64, 64));
}

Test(wl_ml, rnn_gru_large_runs)
{
    run_all(&wl_rnn_gru_large, NULL, 4 * 3, gru_footprint(16, 3, 64, 64));
}

Test(wl_ml, rnn_odd_shapes_run)
{
    /* rows of the element-wise kernels straddle warps; partial tiles; input != hidden */
    const char *x = "hidden = 40\ninput = 24\nbatch = 5\nsteps = 2\n";
    run_all(&wl_rnn_gru_small, x, 8, gru_footprint(5, 2, 40, 24));
    run_all(&wl_rnn_lstm_small, x, 8, lstm_footprint(5, 2, 40, 24));
}

Test(wl_ml, cnn_runs)
{
    /* small: 2 x 3 x 32 x 32, 16 filters: conv, pool, fc_zero, fc_gemm */
    run_all(&wl_cnn, NULL, 4, cnn_footprint(2, 3, 32, 32, 16, 5, 2, 1, 3, 2, 10));
    /* unsplit FC: no clearing kernel; stride 2, 3 x 3 filters, odd sizes */
    run_all(&wl_cnn, "fc_split_k = 1\nconv_stride = 2\nconv_kernel = 3\nconv_pad = 1\n"
                     "height = 37\nwidth = 21\nchannels = 2\n",
            3, cnn_footprint(2, 2, 37, 21, 16, 3, 1, 2, 3, 2, 10));
}

/* ---- generators driven directly --------------------------------------------- */

static void *mw_try(struct wlh *m, const struct wl_ops *ops, const char *ini)
{
    return wlh_try(m, ops, ini, 4, 240);
}

static void mw_open(struct wlh *m, const struct wl_ops *ops, const char *ini)
{
    cr_assert_not_null(mw_try(m, ops, ini), "%s", m->e.msg);
}

static void mw_close(struct wlh *m) { wlh_close(m); }

static void mw_expect_error(const struct wl_ops *ops, const char *ini, const char *want)
{
    struct wlh m;
    cr_expect_null(mw_try(&m, ops, ini), "accepted: %s", ini);
    cr_expect_str_eq(m.e.msg, want);
    mw_close(&m);
}

/* Kernel number i (from 0) of the workload. */
static void mw_kernel_at(struct wlh *m, unsigned i, struct kernel *k)
{
    for (unsigned j = 0; j <= i; j++)
        cr_assert(m->ops->next_kernel(m->self, k), "no kernel %u", j);
}

static const struct kernel_buf *buf(const struct wlh *m, const char *name)
{
    for (size_t i = 0; i < m->env.nbufs; i++)
        if (!strcmp(m->env.bufs[i]->name, name))
            return m->env.bufs[i];
    cr_assert_fail("no buffer %s", name);
    return NULL;
}

#define MAXOPS 8192

struct trace {
    unsigned n;
    struct kernel_op op[MAXOPS];
    addr_t addr[MAXOPS][64];
};

/* Every op of warp `warp` of work-group wg until its exit (included). */
static void trace_warp(const struct kernel *k, uint32_t wg, uint32_t warp, struct trace *t)
{
    struct kernel_warp w = {.k = k, .wg = wg, .warp = warp, .warp_size = 64};
    w.wg_id = (struct kernel_dim){wg % k->grid.x, wg / k->grid.x % k->grid.y,
                                  wg / (k->grid.x * k->grid.y)};
    w.nlanes = (uint32_t)min_u64(64, kernel_wg_threads(k) - warp * 64);
    t->n = 0;
    for (;;) {
        cr_assert_lt(t->n, MAXOPS);
        struct kernel_op *op = &t->op[t->n];
        memset(op, 0, sizeof *op);
        k->next(k, &w, op);
        for (unsigned l = 0; l < 64; l++)
            t->addr[t->n][l] = op->lanes ? w.lane_addr[l] : op->base + (addr_t)((int64_t)l * op->stride);
        t->n++;
        if (op->kind == KOP_EXIT)
            return;
    }
}

static uint64_t op_mask(const struct kernel_op *op)
{
    return op->mask ? op->mask : ~0ull;
}

#define NA (~0ull) /* an inactive lane */

/* Op i is `kind` and lane l (active iff expr != NA) addresses expr. */
#define EXPECT_LANES(t, i, kind_, expr)                                                       \
    do {                                                                                      \
        cr_expect_eq((t)->op[i].kind, kind_, "op %u kind %u", (unsigned)(i),                  \
                     (unsigned)(t)->op[i].kind);                                              \
        uint64_t m_ = op_mask(&(t)->op[i]), want_m = 0;                                       \
        for (unsigned l = 0; l < 64; l++) {                                                   \
            addr_t a_ = (expr);                                                               \
            if (a_ == NA)                                                                     \
                continue;                                                                     \
            want_m |= 1ull << l;                                                              \
            if (m_ >> l & 1)                                                                  \
                cr_expect_eq((t)->addr[i][l], a_, "op %u lane %u: %#llx != %#llx",            \
                             (unsigned)(i), l, (unsigned long long)(t)->addr[i][l],           \
                             (unsigned long long)a_);                                         \
        }                                                                                     \
        cr_expect_eq(m_, want_m, "op %u mask %#llx != %#llx", (unsigned)(i),                  \
                     (unsigned long long)m_, (unsigned long long)want_m);                     \
    } while (0)

static struct trace tr;

/* The sum of the ALU ops of the traced warp. */
static uint64_t alu_sum(const struct trace *t)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < t->n; i++)
        n += t->op[i].kind == KOP_ALU ? t->op[i].n : 0;
    return n;
}

Test(wl_ml, lstm_gemm_wx_ops)
{
    struct wlh m;
    struct kernel k;
    mw_open(&m, &wl_rnn_lstm_small, NULL); /* Table II: BS 4, TS 2, H 256 */
    mw_kernel_at(&m, 4, &k);               /* step 1, rnn_gemm_wx */
    cr_expect_str_eq(k.name, "rnn_gemm_wx");
    cr_expect_eq(k.grid.x, 1024 / 32);
    cr_expect_eq(k.grid.y, 1);
    cr_expect_eq(k.grid.z, 1);
    cr_expect_eq(kernel_wg_threads(&k), 256);
    cr_expect_eq(k.lds_b, 2 * 16 * 33 * 4);
    addr_t x = buf(&m, "x")->base, w = buf(&m, "w")->base, g = buf(&m, "gates")->base;
    cr_expect(k.args[1].same_pattern);
    cr_expect_not(k.args[0].same_pattern || k.args[2].same_pattern);
    trace_warp(&k, 1, 0, &tr); /* N tile 32..63, warp 0: tx = l % 16, ty = l / 16 */
    /* PTX counts of the GEMM (docs/workloads/rnn-lstm-small.md): 57 before the
     * first K step, 25 per step, 4 FMAs per kk, epilogue 35 (stores) or 43 */
    cr_expect_eq(tr.op[0].kind, KOP_ALU);
    cr_expect_eq(tr.op[0].n, 57);
    cr_expect_eq(tr.op[1].kind, KOP_ALU);
    cr_expect_eq(tr.op[1].n, 25);
    /* A[ty][tx] of x_1; the i = 1 rows (16..19) are past M = 4: skipped */
    EXPECT_LANES(&tr, 2, KOP_LOAD, x + ((1 * 4 + l / 16) * 256 + l % 16) * 4);
    cr_expect_eq(tr.op[2].dst, 3);
    EXPECT_LANES(&tr, 3, KOP_LOAD, w + ((32 + l / 16) * 256 + l % 16) * 4);
    EXPECT_LANES(&tr, 4, KOP_LOAD, w + ((48 + l / 16) * 256 + l % 16) * 4);
    cr_expect_eq(tr.op[4].dst, 4);
    EXPECT_LANES(&tr, 5, KOP_LDS_STORE, (l % 16) * 33 * 4 + (l / 16) * 4 + 0 * 1 + 0);
    EXPECT_LANES(&tr, 6, KOP_LDS_STORE, ((l % 16) * 33 + l / 16 + 16) * 4);
    EXPECT_LANES(&tr, 7, KOP_LDS_STORE, 2112 + ((l % 16) * 33 + l / 16) * 4);
    cr_expect_eq(tr.op[8].src[0], 4);
    cr_expect_eq(tr.op[9].kind, KOP_BARRIER);
    /* kk = 0: As[0][ty], As[0][ty + 16], Bs[0][tx], Bs[0][tx + 16]; 4 FMAs */
    cr_expect_eq(tr.op[10].kind, KOP_LDS_LOAD);
    for (unsigned l = 0; l < 64; l++) {
        cr_expect_eq(tr.addr[10][l], (l / 16) * 4);
        cr_expect_eq(tr.addr[11][l], (l / 16 + 16) * 4);
        cr_expect_eq(tr.addr[12][l], 2112 + (l % 16) * 4);
        cr_expect_eq(tr.addr[13][l], 2112 + (l % 16 + 16) * 4);
        cr_expect_eq(tr.addr[10 + 5 * 15 + 1][l], (15 * 33 + l / 16 + 16) * 4);
    }
    cr_expect_eq(tr.op[14].kind, KOP_ALU);
    cr_expect_eq(tr.op[14].n, 4);
    cr_expect_eq(tr.op[14].src[0], 1);
    cr_expect_eq(tr.op[14].src[1], 2);
    cr_expect_eq(tr.op[10 + 80].kind, KOP_BARRIER);
    /* second K step: K columns 16..31 */
    EXPECT_LANES(&tr, 2 + 90, KOP_LOAD, x + ((1 * 4 + l / 16) * 256 + 16 + l % 16) * 4);
    /* 1 + 16 steps of 90 ops, then scaling, 2 stores (i = 0), exit */
    cr_expect_eq(tr.n, 1 + 16 * 90 + 1 + 2 + 1);
    unsigned e = 1 + 16 * 90;
    cr_expect_eq(tr.op[e].kind, KOP_ALU);
    cr_expect_eq(tr.op[e].n, 35);
    cr_expect_eq(tr.op[e].src[0], 0); /* beta = 0: C is not read */
    cr_expect_eq(alu_sum(&tr), 57 + 16 * (25 + 16 * 4) + 35);
    EXPECT_LANES(&tr, e + 1, KOP_STORE, g + ((1 * 4 + l / 16) * 1024 + 32 + l % 16) * 4);
    EXPECT_LANES(&tr, e + 2, KOP_STORE, g + ((1 * 4 + l / 16) * 1024 + 48 + l % 16) * 4);
    /* warp 1 (ty 4..7) has no row of A or C: B loads only */
    trace_warp(&k, 1, 1, &tr);
    cr_expect_eq(tr.n, 1 + 16 * 89 + 1 + 1);
    EXPECT_LANES(&tr, 2, KOP_LOAD, w + ((36 + l / 16) * 256 + l % 16) * 4);
    mw_close(&m);
}

Test(wl_ml, lstm_gemm_rh_ops)
{
    struct wlh m;
    struct kernel k;
    mw_open(&m, &wl_rnn_lstm_large, NULL); /* BS 16, TS 4, H 512 */
    mw_kernel_at(&m, 1, &k);               /* step 0: h_{-1} = hx */
    cr_expect_str_eq(k.name, "rnn_gemm_rh");
    cr_expect_eq(k.args[0].buf, buf(&m, "hx"));
    cr_expect_not(k.args[1].same_pattern);
    mw_close(&m);
    mw_open(&m, &wl_rnn_lstm_large, NULL);
    mw_kernel_at(&m, 9, &k); /* step 2, rnn_gemm_rh: gates_2 += y_1 R^T */
    cr_expect_str_eq(k.name, "rnn_gemm_rh");
    cr_expect_eq(k.grid.x, 2048 / 32);
    addr_t y = buf(&m, "y")->base, r = buf(&m, "r")->base, g = buf(&m, "gates")->base;
    cr_expect_eq(k.args[0].buf->base, y);
    cr_expect_eq(k.args[1].buf->base, r);
    cr_expect(k.args[1].same_pattern);
    cr_expect_eq(k.args[2].mode, KERNEL_RW);
    trace_warp(&k, 5, 2, &tr); /* N tile 160..191, ty 8..11 */
    EXPECT_LANES(&tr, 2, KOP_LOAD, y + ((1 * 16 + 8 + l / 16) * 512 + l % 16) * 4);
    EXPECT_LANES(&tr, 3, KOP_LOAD, r + ((160 + 8 + l / 16) * 512 + l % 16) * 4);
    EXPECT_LANES(&tr, 4, KOP_LOAD, r + ((176 + 8 + l / 16) * 512 + l % 16) * 4);
    unsigned e = 1 + 32 * 90; /* 32 K steps; A i = 1 (rows 24..27) past M = 16 */
    cr_expect_eq(tr.n, e + 2 + 1 + 2 + 1);
    EXPECT_LANES(&tr, e, KOP_LOAD, g + ((2 * 16 + 8 + l / 16) * 2048 + 160 + l % 16) * 4);
    cr_expect_eq(tr.op[e].dst, 5);
    EXPECT_LANES(&tr, e + 1, KOP_LOAD, g + ((2 * 16 + 8 + l / 16) * 2048 + 176 + l % 16) * 4);
    cr_expect_eq(tr.op[e + 2].kind, KOP_ALU);
    cr_expect_eq(tr.op[e + 2].n, 43);
    cr_expect_eq(tr.op[e + 2].src[0], 5);
    EXPECT_LANES(&tr, e + 3, KOP_STORE, g + ((2 * 16 + 8 + l / 16) * 2048 + 160 + l % 16) * 4);
    mw_close(&m);
}

Test(wl_ml, lstm_elementwise_ops)
{
    struct wlh m;
    struct kernel k;
    mw_open(&m, &wl_rnn_lstm_small, NULL);
    mw_kernel_at(&m, 6, &k); /* step 1: lstm_act */
    cr_expect_str_eq(k.name, "lstm_act");
    cr_expect_eq(k.grid.x, 4);
    cr_expect_eq(k.nargs, 1);
    cr_expect_eq(k.args[0].mode, KERNEL_RW);
    addr_t g = buf(&m, "gates")->base;
    trace_warp(&k, 2, 3, &tr); /* elements 704..767: row 2, units 192..255 */
    cr_expect_eq(tr.n, 1 + 4 + 1 + 4 + 1);
    cr_expect_eq(tr.op[0].n, 28); /* LSTMFwdHidUpdate's PTX, split (rnn-lstm-small.md) */
    for (unsigned q = 0; q < 4; q++) {
        EXPECT_LANES(&tr, 1 + q, KOP_LOAD, g + ((4 + 2) * 1024 + q * 256 + 192 + l) * 4);
        EXPECT_LANES(&tr, 6 + q, KOP_STORE, g + ((4 + 2) * 1024 + q * 256 + 192 + l) * 4);
    }
    cr_expect_eq(tr.op[5].n, 84);
    cr_expect_eq(tr.op[5].src[0], 1);
    struct addr_range rg[64];
    cr_expect_eq(k.ranges(&k, 2, 0, rg, 64), 1); /* the 4 gates of row 2: the whole row */
    cr_expect_eq(rg[0].lo, g + (6 * 1024) * 4);
    cr_expect_eq(rg[0].hi, g + (7 * 1024) * 4);
    mw_kernel_at(&m, 0, &k); /* step 1: lstm_state */
    cr_expect_str_eq(k.name, "lstm_state");
    addr_t c = buf(&m, "c")->base, y = buf(&m, "y")->base;
    cr_expect_eq(k.nargs, 3); /* gates R, c R/W (c_0 read, c_1 written), y R/W */
    cr_expect_eq(k.args[0].mode, KERNEL_R);
    cr_expect_eq(k.args[1].buf->base, c);
    cr_expect_eq(k.args[1].mode, KERNEL_RW);
    cr_expect_eq(k.args[2].mode, KERNEL_RW);
    trace_warp(&k, 1, 1, &tr); /* row 1, units 64..127 */
    cr_expect_eq(tr.n, 1 + 5 + 1 + 2 + 1);
    cr_expect_eq(tr.op[0].n, 44); /* t > 0: c_{t-1} from c */
    cr_expect_eq(tr.op[6].n, 53);
    EXPECT_LANES(&tr, 4, KOP_LOAD, g + ((4 + 1) * 1024 + 3 * 256 + 64 + l) * 4);
    EXPECT_LANES(&tr, 5, KOP_LOAD, c + (0 * 1024 + 256 + 64 + l) * 4);
    EXPECT_LANES(&tr, 7, KOP_STORE, c + (1 * 1024 + 256 + 64 + l) * 4);
    EXPECT_LANES(&tr, 8, KOP_STORE, y + (1 * 1024 + 256 + 64 + l) * 4);
    cr_expect_eq(k.ranges(&k, 1, 1, rg, 64), 2);
    cr_expect_eq(rg[0].lo, c + 256 * 4);
    cr_expect_eq(rg[1].lo, c + (1024 + 256) * 4);
    mw_close(&m);
}

Test(wl_ml, gru_elementwise_ops)
{
    struct wlh m;
    struct kernel k;
    /* H = 48: a warp's 64 elements straddle two rows (lane addresses) */
    mw_open(&m, &wl_rnn_gru_small, "[workload]\nhidden = 48\n");
    mw_kernel_at(&m, 2, &k);
    cr_expect_str_eq(k.name, "gru_gates");
    addr_t xg = buf(&m, "xg")->base, hg = buf(&m, "hg")->base;
    cr_expect_eq(k.grid.x, 1);
    /* elements 64..127: (1, 16..47) in lanes 0..31, (2, 0..31) in lanes 32..63. The
     * gates are strided views (row stride 144): each stream once per row of the warp */
    trace_warp(&k, 0, 1, &tr);
#define E(l) (64 + (l))
#define ROWCOL(l, ld, col) ((E(l) / 48) * (ld) + (col) + E(l) % 48)
#define ROW1(l, a) ((l) < 32 ? (a) : NA)
#define ROW2(l, a) ((l) >= 32 ? (a) : NA)
    cr_expect_eq(tr.n, 1 + 2 * 4 + 1 + 2 * 2 + 1);
    cr_expect_eq(tr.op[0].n, 27);
    cr_expect_eq(tr.op[9].n, 39);
    cr_expect_eq(tr.op[9].src[0], 1);
    EXPECT_LANES(&tr, 1, KOP_LOAD, ROW1(l, xg + ROWCOL(l, 144, 0) * 4));
    EXPECT_LANES(&tr, 2, KOP_LOAD, ROW1(l, xg + ROWCOL(l, 144, 48) * 4));
    EXPECT_LANES(&tr, 3, KOP_LOAD, ROW1(l, hg + ROWCOL(l, 144, 0) * 4));
    EXPECT_LANES(&tr, 4, KOP_LOAD, ROW1(l, hg + ROWCOL(l, 144, 48) * 4));
    EXPECT_LANES(&tr, 5, KOP_LOAD, ROW2(l, xg + ROWCOL(l, 144, 0) * 4));
    EXPECT_LANES(&tr, 8, KOP_LOAD, ROW2(l, hg + ROWCOL(l, 144, 48) * 4));
    EXPECT_LANES(&tr, 10, KOP_STORE, ROW1(l, xg + ROWCOL(l, 144, 0) * 4));
    EXPECT_LANES(&tr, 11, KOP_STORE, ROW1(l, xg + ROWCOL(l, 144, 48) * 4));
    EXPECT_LANES(&tr, 13, KOP_STORE, ROW2(l, xg + ROWCOL(l, 144, 48) * 4));
    cr_expect_eq(tr.op[13].src[0], 1);
    trace_warp(&k, 0, 2, &tr); /* elements 128..191: row 2 in lanes 0..15, row 3 after */
    EXPECT_LANES(&tr, 1, KOP_LOAD, l < 16 ? xg + ((128 + l) / 48 * 144 + (128 + l) % 48) * 4 : NA);
    EXPECT_LANES(&tr, 5, KOP_LOAD, l >= 16 ? xg + ((128 + l) / 48 * 144 + (128 + l) % 48) * 4 : NA);
    trace_warp(&k, 0, 3, &tr); /* elements 192..: none; the bounds test, exit */
    cr_expect_eq(tr.n, 2);
    cr_expect_eq(tr.op[0].n, 12);
    struct addr_range rg[8]; /* rows 0..3, the z and r gates of each: 2 x 48 floats apart */
    cr_expect_eq(k.ranges(&k, 0, 0, rg, 8), 4);
    cr_expect_eq(rg[3].lo, xg + 3 * 144 * 4);
    cr_expect_eq(rg[3].hi, xg + (3 * 144 + 96) * 4);
    mw_kernel_at(&m, 0, &k);
    cr_expect_str_eq(k.name, "gru_hidden");
    addr_t hx = buf(&m, "hx")->base, y = buf(&m, "y")->base;
    trace_warp(&k, 0, 0, &tr); /* step 0: h_{-1} = hx; rows 0 (lanes 0..47) and 1 */
    cr_expect_eq(tr.n, 1 + 2 * 5 + 1 + 2 * 1 + 1);
    EXPECT_LANES(&tr, 3, KOP_LOAD, l < 48 ? xg + (l / 48 * 144 + 96 + l % 48) * 4 : NA);
    EXPECT_LANES(&tr, 4, KOP_LOAD, l < 48 ? hg + (l / 48 * 144 + 96 + l % 48) * 4 : NA);
    EXPECT_LANES(&tr, 5, KOP_LOAD, l < 48 ? hx + l * 4 : NA);
    EXPECT_LANES(&tr, 10, KOP_LOAD, l >= 48 ? hx + l * 4 : NA);
    EXPECT_LANES(&tr, 12, KOP_STORE, l < 48 ? y + l * 4 : NA);
    EXPECT_LANES(&tr, 13, KOP_STORE, l >= 48 ? y + l * 4 : NA);
    cr_expect_eq(tr.op[0].n, 35);
    cr_expect_eq(tr.op[11].n, 34);
#undef ROW1
#undef ROW2
#undef E
#undef ROWCOL
    mw_close(&m);
}

/* MIOpenConvUni's PTX counts (docs/workloads/cnn.md): set-up 69; per channel
 * the first halo element 19 + 4, a second one 16 + 1, the end of the halo loop
 * 6, the filter element 11 + 3 and the end of its loop 4, per filter row and
 * output channel 5 multiply-adds and an add, loop control 5; the epilogue 46,
 * and 2 per store when the warp stores. */
#define CONV_CH_FULL (19 + 4 + 16 + 1 + 6 + 11 + 3 + 4 + 5 * 8 * (5 + 1) + 5)

Test(wl_ml, conv_ops)
{
    struct wlh m;
    struct kernel k;
    mw_open(&m, &wl_cnn, NULL);
    mw_kernel_at(&m, 0, &k);
    cr_expect_str_eq(k.name, "conv_fwd");
    cr_expect_eq(k.grid.x, 8);
    cr_expect_eq(k.grid.y, 8);
    cr_expect_eq(k.grid.z, 4 * 32 / 8);
    cr_expect_eq(k.lds_b, 20 * 20 * 4 + 8 * 25 * 4);
    addr_t in = buf(&m, "input")->base, cw = buf(&m, "conv_w")->base;
    addr_t co = buf(&m, "conv_out")->base;
    /* WG (1, 2, 6): image 1, filters 16..23, output rows 32..47, columns 16..31 */
    uint32_t wg = 1 + 2 * 8 + 6 * 64;
    trace_warp(&k, wg, 0, &tr);
    cr_expect_eq(tr.op[0].n, 69);
    cr_expect_eq(tr.op[1].kind, KOP_BARRIER); /* at the top of the channel loop */
    cr_expect_eq(tr.op[2].n, 19);
    /* halo tile element e = lane: rows 30 + e / 20, columns 14 + e % 20 of channel 0 */
    EXPECT_LANES(&tr, 3, KOP_LOAD, in + (((1 * 3 + 0) * 128 + 30 + l / 20) * 128 + 14 + l % 20) * 4);
    cr_expect_eq(tr.op[4].n, 4);
    cr_expect_eq(tr.op[4].src[0], 3);
    EXPECT_LANES(&tr, 5, KOP_LDS_STORE, l * 4);
    cr_expect_eq(tr.op[6].n, 16);
    EXPECT_LANES(&tr, 7, KOP_LOAD,
                 in + (((1 * 3 + 0) * 128 + 30 + (l + 256) / 20) * 128 + 14 + (l + 256) % 20) * 4);
    cr_expect_eq(tr.op[8].n, 1);
    EXPECT_LANES(&tr, 9, KOP_LDS_STORE, (256 + l) * 4);
    cr_expect_eq(tr.op[10].n, 6);
    cr_expect_eq(tr.op[11].n, 11);
    EXPECT_LANES(&tr, 12, KOP_LOAD, cw + ((16 + l / 25) * 3 * 25 + l % 25) * 4);
    cr_expect_eq(tr.op[13].n, 3);
    EXPECT_LANES(&tr, 14, KOP_LDS_STORE, 1600 + l * 4); /* filter-major, as loaded */
    cr_expect_eq(tr.op[15].n, 4);
    cr_expect_eq(tr.op[16].kind, KOP_BARRIER);
    /* filter row 0: the 5 inputs under the pixel, then per output channel its 5
     * weights (the same address in every lane) and 6 ALU */
    EXPECT_LANES(&tr, 17, KOP_LDS_LOAD, ((l / 16) * 20 + l % 16) * 4);
    EXPECT_LANES(&tr, 21, KOP_LDS_LOAD, ((l / 16) * 20 + l % 16 + 4) * 4);
    EXPECT_LANES(&tr, 22, KOP_LDS_LOAD, 1600);
    EXPECT_LANES(&tr, 26, KOP_LDS_LOAD, 1600 + 4 * 4);
    cr_expect_eq(tr.op[27].kind, KOP_ALU);
    cr_expect_eq(tr.op[27].n, 6);
    cr_expect_eq(tr.op[27].src[0], 1);
    cr_expect_eq(tr.op[27].src[1], 2);
    EXPECT_LANES(&tr, 28, KOP_LDS_LOAD, 1600 + 25 * 4); /* output channel 1 */
    /* row 4: input 3; output channel 7, weight 4 (the last of the 200) */
    unsigned row = 5 + 8 * 6;
    EXPECT_LANES(&tr, 17 + 4 * row + 3, KOP_LDS_LOAD, ((l / 16 + 4) * 20 + l % 16 + 3) * 4);
    EXPECT_LANES(&tr, 17 + 4 * row + 5 + 7 * 6 + 4, KOP_LDS_LOAD, 1600 + 199 * 4);
    unsigned body = 16 + 5 * row + 1;
    cr_expect_eq(tr.op[body].n, 5);
    /* channel 2 */
    EXPECT_LANES(&tr, 1 + 2 * body + 2, KOP_LOAD,
                 in + (((1 * 3 + 2) * 128 + 30 + l / 20) * 128 + 14 + l % 20) * 4);
    EXPECT_LANES(&tr, 1 + 2 * body + 11, KOP_LOAD, cw + ((16 + l / 25) * 75 + 50 + l % 25) * 4);
    unsigned e = 1 + 3 * body;
    cr_expect_eq(tr.n, e + 1 + 8 + 1);
    cr_expect_eq(tr.op[e].n, 46 + 16);
    for (unsigned q = 0; q < 8; q++)
        EXPECT_LANES(&tr, e + 1 + q, KOP_STORE,
                     co + (((1 * 32 + 16 + q) * 128 + 32 + l / 16) * 128 + 16 + l % 16) * 4);
    cr_expect_eq(alu_sum(&tr), 69 + 3 * CONV_CH_FULL + 46 + 16);
    /* WG 0, warp 0: the tile starts at (-2, -2): padding lanes read input[0] */
    trace_warp(&k, 0, 0, &tr);
    EXPECT_LANES(&tr, 3, KOP_LOAD,
                 l / 20 >= 2 && l % 20 >= 2 ? in + ((l / 20 - 2) * 128 + l % 20 - 2) * 4 : in);
    EXPECT_LANES(&tr, 5, KOP_LDS_STORE, l * 4);
    /* warp 3: halo elements 448.. do not exist; filter elements 192..199 only */
    trace_warp(&k, 0, 3, &tr);
    EXPECT_LANES(&tr, 3, KOP_LOAD,
                 (192 + l) % 20 >= 2 ? in + (((192 + l) / 20 - 2) * 128 + (192 + l) % 20 - 2) * 4
                                     : in);
    EXPECT_LANES(&tr, 5, KOP_LDS_STORE, (192 + l) * 4);
    cr_expect_eq(tr.op[6].n, 6);
    cr_expect_eq(tr.op[7].n, 11);
    EXPECT_LANES(&tr, 8, KOP_LOAD, l < 8 ? cw + ((7 * 3) * 25 + 17 + l) * 4 : NA);
    EXPECT_LANES(&tr, 10, KOP_LDS_STORE, l < 8 ? 1600 + (192 + l) * 4 : NA);
    cr_expect_eq(tr.op[12].kind, KOP_BARRIER);
    cr_expect_eq(alu_sum(&tr), 69 + 3 * (CONV_CH_FULL - 16 - 1) + 46 + 16);
    /* ranges (derived): the halo tile, rows 30..49 by columns 14..33, of the 3
     * channels, its rows joined (less than a row apart); 8 filters; the output
     * tile, rows 32..47 by columns 16..31, of 8 planes */
    struct addr_range rg[64];
    cr_expect_eq(k.ranges(&k, wg, 0, rg, 64), 3);
    cr_expect_eq(rg[2].lo, in + (((1 * 3 + 2) * 128 + 30) * 128 + 14) * 4);
    cr_expect_eq(rg[2].hi, in + (((1 * 3 + 2) * 128 + 49) * 128 + 34) * 4);
    cr_expect_eq(k.ranges(&k, wg, 1, rg, 64), 1);
    cr_expect_eq(rg[0].lo, cw + 16 * 75 * 4);
    cr_expect_eq(rg[0].hi, cw + 24 * 75 * 4);
    cr_expect_eq(k.ranges(&k, wg, 2, rg, 64), 8);
    cr_expect_eq(rg[7].lo, co + (((1 * 32 + 23) * 128 + 32) * 128 + 16) * 4);
    cr_expect_eq(rg[7].hi, co + (((1 * 32 + 23) * 128 + 47) * 128 + 32) * 4);
    cr_expect_eq(k.ranges(&k, wg, 0, rg, 2), 1, "more than max: the span of all three");
    cr_expect_eq(rg[0].lo, in + (((1 * 3 + 0) * 128 + 30) * 128 + 14) * 4);
    cr_expect_eq(rg[0].hi, in + (((1 * 3 + 2) * 128 + 49) * 128 + 34) * 4);
    /* WG (0, 0, 4): image 1 at the border: input[0] comes first (its padding
     * lanes), then rows 0..17, columns 0..17 of each channel */
    cr_expect_eq(k.ranges(&k, 4 * 64, 0, rg, 64), 4);
    cr_expect_eq(rg[0].lo, in);
    cr_expect_eq(rg[0].hi, in + 4);
    cr_expect_eq(rg[1].lo, in + (1 * 3 * 128) * 128 * 4);
    cr_expect_eq(rg[1].hi, in + ((1 * 3 * 128 + 17) * 128 + 18) * 4);
    cr_expect_eq(k.ranges(&k, 1, 0, rg, 64), 3, "WG (1, 0, 0): in[0] joins channel 0's rows");
    cr_expect_eq(rg[0].lo, in);
    cr_expect_eq(rg[0].hi, in + (17 * 128 + 34) * 4);
    mw_close(&m);
}

/* mloPoolingG's PTX counts at the Table II tile (docs/workloads/cnn.md). */
static const unsigned pool_row[33] = {16, 16, 18, 16, 18, 16, 18, 16, 18, 16, 18, 16, 18, 16, 18, 16,
                                      18, 16, 18, 16, 18, 16, 17, 19, 23, 46, 46, 46, 46, 55, 52, 52,
                                      65};
static const unsigned pool_in[33] = {9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, 9,
                                     9,  9,  9,  9,  9,  9,  9,  16, 16, 19, 19, 19, 28, 33, 36, 11};

Test(wl_ml, pool_and_fc_ops)
{
    struct wlh m;
    struct kernel k;
    mw_open(&m, &wl_cnn, NULL);
    mw_kernel_at(&m, 1, &k);
    cr_expect_str_eq(k.name, "pool_fwd");
    /* 63 x 63 outputs: 16 output rows per thread, groups of 32 x 4 threads */
    cr_expect_eq(k.grid.x, 2);
    cr_expect_eq(k.grid.y, 1);
    cr_expect_eq(k.grid.z, 4 * 32);
    cr_expect_eq(k.block.x, 32);
    cr_expect_eq(k.block.y, 4);
    addr_t co = buf(&m, "conv_out")->base, po = buf(&m, "pool_out")->base;
    /* WG (1, 0, plane 5), warp 1: thread rows 2, 3 (output rows 32.. and 48..),
     * columns 32..63 */
    trace_warp(&k, 1 + 5 * 2, 1, &tr);
    cr_expect_eq(tr.n, 1 + 33 * 4 + 1 + 16 * 2 + 1);
    cr_expect_eq(tr.op[0].n, 46);
#define OY0(l) (32 + 16 * ((l) / 32))
#define OX(l) (32 + (l) % 32)
    for (unsigned j = 0; j < 33; j++) {
        cr_expect_eq(tr.op[1 + 4 * j].n, pool_row[j] + pool_in[j], "row %u", j);
        for (unsigned i = 0; i < 3; i++)
            EXPECT_LANES(&tr, 2 + 4 * j + i, KOP_LOAD,
                         OY0(l) * 2 + j < 128 && OX(l) * 2 + i < 128
                             ? co + ((5 * 128 + OY0(l) * 2 + j) * 128 + OX(l) * 2 + i) * 4
                             : NA);
    }
    unsigned t = 1 + 33 * 4;
    cr_expect_eq(tr.op[t].n, 165);
    cr_expect_eq(tr.op[t].src[0], 1);
    for (unsigned q = 0; q < 16; q++) {
        cr_expect_eq(tr.op[t + 1 + 2 * q].n, (q ? 4 : 0) + 3);
        EXPECT_LANES(&tr, t + 2 + 2 * q, KOP_STORE,
                     OX(l) < 63 && OY0(l) + q < 63 ? po + ((5 * 63 + OY0(l) + q) * 63 + OX(l)) * 4
                                                  : NA);
    }
#undef OY0
#undef OX
    unsigned rows = 0, in = 0;
    for (unsigned j = 0; j < 33; j++)
        rows += pool_row[j], in += pool_in[j];
    cr_expect_eq(alu_sum(&tr), 46 + rows + in + 165 + 3 + 15 * (4 + 3));
    struct addr_range rg[4];
    /* input rows 0..127, columns 64..127 (rows joined) */
    cr_expect_eq(k.ranges(&k, 1 + 5 * 2, 0, rg, 4), 1);
    cr_expect_eq(rg[0].lo, co + (5 * 128 * 128 + 64) * 4);
    cr_expect_eq(rg[0].hi, co + 6 * 128 * 128 * 4);
    cr_expect_eq(k.ranges(&k, 1 + 5 * 2, 1, rg, 4), 1);
    cr_expect_eq(rg[0].hi, po + 6 * 63 * 63 * 4);
    mw_kernel_at(&m, 0, &k);
    cr_expect_str_eq(k.name, "fc_zero");
    cr_expect_eq(k.grid.x, 1);
    addr_t fo = buf(&m, "fc_out")->base, fw = buf(&m, "fc_w")->base;
    trace_warp(&k, 0, 0, &tr);
    cr_expect_eq(tr.n, 4); /* set-up, the zero, store, exit */
    cr_expect_eq(tr.op[0].n, 67);
    cr_expect_eq(tr.op[1].n, 2);
    EXPECT_LANES(&tr, 2, KOP_STORE, l < 40 ? fo + l * 4 : NA);
    trace_warp(&k, 0, 1, &tr); /* no element: the bounds test, exit */
    cr_expect_eq(tr.n, 2);
    cr_expect_eq(tr.op[0].n, 21);
    mw_kernel_at(&m, 0, &k);
    cr_expect_str_eq(k.name, "fc_gemm");
    /* K = 32 x 63 x 63 = 127008 = 7938 steps; 125 per split -> 64 splits */
    cr_expect_eq(k.grid.x, 1);
    cr_expect_eq(k.grid.y, 1);
    cr_expect_eq(k.grid.z, 64);
    trace_warp(&k, 63, 0, &tr); /* the last split: K 126000..127007, 63 steps */
    EXPECT_LANES(&tr, 2, KOP_LOAD, po + ((l / 16) * 127008 + 126000 + l % 16) * 4);
    EXPECT_LANES(&tr, 3, KOP_LOAD, fw + ((l / 16) * 127008 + 126000 + l % 16) * 4);
    unsigned e = 1 + 63 * 89; /* B j = 1 rows 16.. are past N = 10 */
    cr_expect_eq(tr.n, e + 1 + 1 + 1);
    cr_expect_eq(tr.op[e].n, 29 + 3); /* split-K epilogue and the one atomic's address */
    EXPECT_LANES(&tr, e + 1, KOP_ATOMIC, l % 16 < 10 ? fo + ((l / 16) * 10 + l % 16) * 4 : NA);
    struct addr_range fr[64];
    cr_expect_eq(k.ranges(&k, 63, 0, fr, 64), 4);
    cr_expect_eq(fr[3].lo, po + (3 * 127008 + 126000) * 4);
    cr_expect_eq(fr[3].hi, po + (4 * 127008) * 4);
    cr_expect_eq(k.ranges(&k, 63, 1, fr, 64), 10);
    cr_expect_eq(k.ranges(&k, 63, 2, fr, 64), 1); /* 4 x 10 contiguous */
    cr_expect_not(m.ops->next_kernel(m.self, &k));
    mw_close(&m);
}

Test(wl_ml, table2_sizes)
{
    static const struct {
        const struct wl_ops *w;
        unsigned kernels;
        uint64_t footprint;
    } want[] = {
        {&wl_rnn_gru_small, 8, 0},
        {&wl_rnn_gru_large, 16, 0},
        {&wl_rnn_lstm_small, 8, 0},
        {&wl_rnn_lstm_large, 16, 0},
        {&wl_cnn, 4, 0},
    };
    uint64_t fp[] = {gru_footprint(4, 2, 256, 256), gru_footprint(16, 4, 512, 512),
                     lstm_footprint(4, 2, 256, 256), lstm_footprint(16, 4, 512, 512),
                     cnn_footprint(4, 3, 128, 128, 32, 5, 2, 1, 3, 2, 10)};
    cr_expect_eq(fp[2], 2162688);
    cr_expect_eq(fp[4], 16297248);
    for (unsigned i = 0; i < 5; i++) {
        struct wlh m;
        struct kernel k;
        mw_open(&m, want[i].w, NULL);
        unsigned n = 0;
        while (m.ops->next_kernel(m.self, &k))
            n++;
        cr_expect_eq(n, want[i].kernels, "%s: %u kernels", want[i].w->name, n);
        cr_expect_eq(wl_footprint(&m.env), fp[i], "%s", want[i].w->name);
        mw_close(&m);
    }
}

Test(wl_ml, names)
{
    cr_expect_str_eq(wl_rnn_gru_small.name, "rnn-gru-small");
    cr_expect_str_eq(wl_rnn_gru_large.name, "rnn-gru-large");
    cr_expect_str_eq(wl_rnn_lstm_small.name, "rnn-lstm-small");
    cr_expect_str_eq(wl_rnn_lstm_large.name, "rnn-lstm-large");
    cr_expect_str_eq(wl_cnn.name, "cnn");
}

Test(wl_ml, errors)
{
    mw_expect_error(&wl_cnn, "[workload]\nconv_out = 12\n",
                    "t.ini:2: [workload] conv_out = 12: must be a multiple of 8 (filters per "
                    "thread)");
    mw_expect_error(&wl_cnn, "[workload]\nconv_pad = 5\n",
                    "t.ini:2: [workload] conv_pad = 5: must be below conv_kernel = 5");
    mw_expect_error(&wl_cnn, "[workload]\nheight = 4\nconv_kernel = 9\nconv_pad = 2\n",
                    "t.ini:3: [workload] conv_kernel = 9: larger than the padded 4 x 128 input");
    mw_expect_error(&wl_cnn, "[workload]\nheight = 4\nwidth = 4\npool_kernel = 5\n",
                    "t.ini:4: [workload] pool_kernel = 5: larger than the 4 x 4 convolution "
                    "output");
    mw_expect_error(&wl_cnn, "[workload]\nfc_out = 65536\nheight = 4096\nwidth = 4096\n",
                    "t.ini:2: [workload] fc_out = 65536: a buffer would take 32736 GiB (at most "
                    "64)");
    mw_expect_error(&wl_rnn_lstm_large, "[workload]\nhidden = 65536\n",
                    "t.ini:2: [workload] hidden = 65536: the weights W and R take 128 GiB (at "
                    "most 64)");
    struct cfg c;
    struct err e;
    cr_expect_eq(tcfg_load(&c, "workload", wl_rnn_gru_small.keys, NULL,
                           "[workload]\nbatch = 0\n", &e), -1);
    cfg_free(&c);
}
