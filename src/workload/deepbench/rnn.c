/*
 * rnn.c -- DeepBench's RNN inference benchmark (rnn_bench, AMD/MIOpen
 * flavour) for GRU and LSTM cells: one layer, unidirectional, input size =
 * hidden size, fp32, forward pass only. Four workloads: rnn-gru-small,
 * rnn-gru-large, rnn-lstm-small, rnn-lstm-large (Table II: BS 4, TS 2,
 * hidden 256 and BS 16, TS 4, hidden 512).
 *
 * Modelled, per time step t (G = 3 gates for GRU, 4 for LSTM; H hidden):
 *   rnn_gemm_wx  gates_t  = x_t W^T          GEMM  M = BS, N = G H, K = input
 *   rnn_gemm_rh  LSTM: gates_t += h_{t-1} R^T (beta = 1)
 *                GRU:  hg      = h_{t-1} R^T (kept apart: r gates R_c h only)
 *   LSTM: lstm_act   (sigmoid i, f, o; tanh g, in place)
 *         lstm_state (c_t = f c_{t-1} + i g; h_t = o tanh(c_t))
 *   GRU:  gru_gates  (z, r = sigmoid(Wx + Rh), in place in xg_t)
 *         gru_hidden (c = tanh(W_c x + r R_c h); h_t = (1 - z) c + z h_{t-1})
 * h_{-1} = hx, c_{-1} = cx; h_t is row t of y. Every kernel is a kernel
 * description (workload/kd.h): the GEMMs mlk.h's tiled GEMM, the element-wise
 * kernels mlk.h's one thread per (batch, unit), written from their operands;
 * this file only decides each launch's shapes, buffers and offsets.
 * Abstracted: MIOpen batches the input GEMM over all time steps (and runs
 * none in the skip input mode DeepBench sets), updates the LSTM state in one
 * kernel and the GRU state in several; no bias; hy/cy copies omitted
 * (docs/workloads/rnn-*.md lists every approximation).
 */
#include <stdlib.h>

#include "mlk.h"

#define RNN_KEYS(bs, ts, hid)                                                                   \
    {                                                                                          \
        {"batch", CFG_INT, bs, 1, 65536, "batch size (BS)", NULL},                             \
        {"steps", CFG_INT, ts, 1, 100000, "time steps (TS)", NULL},                            \
        {"hidden", CFG_INT, hid, 1, 65536, "hidden size (units per gate)", NULL},              \
        {"input", CFG_INT, "0", 0, 65536, "input vector length; 0 = hidden (DeepBench)", NULL}, \
        CFG_END,                                                                               \
    }

static const struct cfg_key rnn_small_keys[] = RNN_KEYS("4", "2", "256");
static const struct cfg_key rnn_large_keys[] = RNN_KEYS("16", "4", "512");

/* A sanity bound on the simulated footprint (the weights dominate it). */
#define RNN_MAX_WEIGHTS_B (64ull << 30)

/* Kernels per time step. */
#define RNN_KPS 4

struct rnn {
    struct wl_env *env;
    struct mlk *lib;
    bool lstm;
    uint32_t bs, ts, h, in, g; /* g: gates (3 GRU, 4 LSTM) */
    const struct kernel_buf *x, *hx, *cx, *w, *r, *gates, *hg, *y, *cs;
    struct mlk_gemm *wx, *rh;  /* [ts] */
    struct mlk_ew *ew1, *ew2;  /* [ts] */
    uint64_t next;
};

static void rnn_destroy(void *self)
{
    struct rnn *n = self;
    if (!n)
        return;
    mlk_free(n->lib);
    free(n->wx);
    free(n->rh);
    free(n->ew1);
    free(n->ew2);
    free(n);
}

static uint64_t fl(uint64_t n)
{
    return n * 4;
}

static void rnn_alloc(struct rnn *n, struct wl_env *env)
{
    uint64_t bs = n->bs, ts = n->ts, h = n->h, gh = (uint64_t)n->g * n->h;
    n->x = wl_alloc(env, "x", fl(ts * bs * n->in));
    n->hx = wl_alloc(env, "hx", fl(bs * h));
    if (n->lstm)
        n->cx = wl_alloc(env, "cx", fl(bs * h));
    n->w = wl_alloc(env, "w", fl(gh * n->in));
    n->r = wl_alloc(env, "r", fl(gh * h));
    n->gates = wl_alloc(env, n->lstm ? "gates" : "xg", fl(ts * bs * gh));
    if (!n->lstm)
        n->hg = wl_alloc(env, "hg", fl(bs * gh));
    n->y = wl_alloc(env, "y", fl(ts * bs * h));
    if (n->lstm)
        n->cs = wl_alloc(env, "c", fl(ts * bs * h));
}

/* The two GEMMs of step t. */
static void rnn_gemms(struct rnn *n, uint32_t t)
{
    uint64_t bs = n->bs, h = n->h, gh = (uint64_t)n->g * n->h;
    n->wx[t] = (struct mlk_gemm){.a = n->x, .a_off = fl(t * bs * n->in), .lda = n->in,
                                 .b = n->w, .ldb = n->in,
                                 .c = n->gates, .c_off = fl(t * bs * gh), .ldc = (uint32_t)gh,
                                 .m = n->bs, .n = (uint32_t)gh, .k = n->in, .splits = 1};
    n->rh[t] = (struct mlk_gemm){.a = t ? n->y : n->hx, .a_off = t ? fl((t - 1) * bs * h) : 0,
                                 .lda = n->h, .b = n->r, .ldb = n->h,
                                 .c = n->lstm ? n->gates : n->hg,
                                 .c_off = n->lstm ? fl(t * bs * gh) : 0, .ldc = (uint32_t)gh,
                                 .m = n->bs, .n = (uint32_t)gh, .k = n->h, .splits = 1,
                                 .beta = n->lstm};
    mlk_gemm_init(&n->wx[t]);
    mlk_gemm_init(&n->rh[t]);
}

/*
 * Instructions per thread: PTX counts per basic block (docs/workloads/
 * rnn-lstm-small.md). LSTM: MIOpen's LSTMFwdHidUpdate, its statements split
 * the way the model splits the update: lstm_act (index 28; the three sigmoids,
 * the tanh, the other addresses and loop control 84) and lstm_state (index
 * and addresses 49 at t = 0, reading cx, and 44 after, reading c_{t-1}; the
 * cell update, its tanh and h = o tanh(c) 44 and 53). GRU: the model's two
 * kernels written in LSTMFwdHidUpdate's style with MIOpen's sigmoid and tanh
 * (MIOpen has no such fused GRU kernels). A warp with no element runs the
 * kernel's entry block (its bounds test) and exits.
 */
enum {
    LSTM_ACT_PRE = 28, LSTM_ACT = 84, LSTM_ACT_NONE = 14,
    LSTM_ST_PRE0 = 49, LSTM_ST0 = 44, LSTM_ST_PRE = 44, LSTM_ST = 53, LSTM_ST_NONE = 25,
    GRU_Z_PRE = 27, GRU_Z = 39, GRU_Z_NONE = 12,
    GRU_H_PRE = 35, GRU_H = 34, GRU_H_NONE = 16,
};

static void rnn_lstm_ew(struct rnn *n, uint32_t t)
{
    uint64_t bs = n->bs, h = n->h, gh = 4 * h, g0 = fl(t * bs * gh);
    struct mlk_ew *a = &n->ew1[t], *s = &n->ew2[t];
    *a = (struct mlk_ew){.rows = n->bs, .cols = n->h, .block = 256, .alu_pre = LSTM_ACT_PRE,
                         .alu = LSTM_ACT, .alu_none = LSTM_ACT_NONE};
    for (int st = 0; st < 2; st++)
        for (uint64_t g = 0; g < 4; g++)
            mlk_ew_add(a, n->gates, g0 + fl(g * h), (uint32_t)gh, st);
    /* loads i, f, o, g, c_{t-1}; c = f c + i g; h = o tanh(c) */
    *s = (struct mlk_ew){.rows = n->bs, .cols = n->h, .block = 256,
                         .alu_pre = t ? LSTM_ST_PRE : LSTM_ST_PRE0, .alu = t ? LSTM_ST : LSTM_ST0,
                         .alu_none = LSTM_ST_NONE};
    for (uint64_t g = 0; g < 4; g++)
        mlk_ew_add(s, n->gates, g0 + fl(g * h), (uint32_t)gh, false);
    mlk_ew_add(s, t ? n->cs : n->cx, t ? fl((t - 1) * bs * h) : 0, n->h, false);
    mlk_ew_add(s, n->cs, fl(t * bs * h), n->h, true);
    mlk_ew_add(s, n->y, fl(t * bs * h), n->h, true);
}

static void rnn_gru_ew(struct rnn *n, uint32_t t)
{
    uint64_t bs = n->bs, h = n->h, gh = 3 * h, g0 = fl(t * bs * gh);
    struct mlk_ew *z = &n->ew1[t], *c = &n->ew2[t];
    /* loads xz, xr, hz, hr; z, r = sigmoid(x + h) */
    *z = (struct mlk_ew){.rows = n->bs, .cols = n->h, .block = 256, .alu_pre = GRU_Z_PRE,
                         .alu = GRU_Z, .alu_none = GRU_Z_NONE};
    for (uint64_t g = 0; g < 2; g++)
        mlk_ew_add(z, n->gates, g0 + fl(g * h), (uint32_t)gh, false);
    for (uint64_t g = 0; g < 2; g++)
        mlk_ew_add(z, n->hg, fl(g * h), (uint32_t)gh, false);
    for (uint64_t g = 0; g < 2; g++)
        mlk_ew_add(z, n->gates, g0 + fl(g * h), (uint32_t)gh, true);
    /* loads z, r, xc, hc, h_{t-1}; c = tanh(xc + r hc); h = (1 - z) c + z h_{t-1} */
    *c = (struct mlk_ew){.rows = n->bs, .cols = n->h, .block = 256, .alu_pre = GRU_H_PRE,
                         .alu = GRU_H, .alu_none = GRU_H_NONE};
    for (uint64_t g = 0; g < 3; g++)
        mlk_ew_add(c, n->gates, g0 + fl(g * h), (uint32_t)gh, false);
    mlk_ew_add(c, n->hg, fl(2 * h), (uint32_t)gh, false);
    mlk_ew_add(c, t ? n->y : n->hx, t ? fl((t - 1) * bs * h) : 0, n->h, false);
    mlk_ew_add(c, n->y, fl(t * bs * h), n->h, true);
}

static void *rnn_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e, bool lstm)
{
    uint64_t in = cfg_uint(sec, "input");
    struct rnn *n = xcalloc(1, sizeof *n);
    n->env = env;
    n->lstm = lstm;
    n->g = lstm ? 4 : 3;
    n->bs = (uint32_t)cfg_uint(sec, "batch");
    n->ts = (uint32_t)cfg_uint(sec, "steps");
    n->h = (uint32_t)cfg_uint(sec, "hidden");
    n->in = in ? (uint32_t)in : n->h;
    uint64_t gh = (uint64_t)n->g * n->h, weights = fl(gh * (n->in + n->h));
    if (weights > RNN_MAX_WEIGHTS_B) {
        cfg_err(e, sec, "hidden", "the weights W and R take %llu GiB (at most %llu)",
                (unsigned long long)(weights >> 30), (unsigned long long)(RNN_MAX_WEIGHTS_B >> 30));
        rnn_destroy(n);
        return NULL;
    }
    if (!(n->lib = mlk_new(e))) {
        rnn_destroy(n);
        return NULL;
    }
    rnn_alloc(n, env);
    n->wx = xcalloc(n->ts, sizeof *n->wx);
    n->rh = xcalloc(n->ts, sizeof *n->rh);
    n->ew1 = xcalloc(n->ts, sizeof *n->ew1);
    n->ew2 = xcalloc(n->ts, sizeof *n->ew2);
    for (uint32_t t = 0; t < n->ts; t++) {
        rnn_gemms(n, t);
        if (lstm)
            rnn_lstm_ew(n, t);
        else
            rnn_gru_ew(n, t);
    }
    return n;
}

static void *rnn_gru_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return rnn_create(env, sec, e, false);
}

static void *rnn_lstm_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return rnn_create(env, sec, e, true);
}

/* Kernel i of step t: the two GEMMs (W and R keep their work-groups and
 * slices every step), then the two element-wise kernels. */
static int rnn_launch(struct rnn *n, struct kernel *k, unsigned i, uint32_t t, struct err *e)
{
    static const char *const names[2][RNN_KPS] = {
        {"rnn_gemm_wx", "rnn_gemm_rh", "gru_gates", "gru_hidden"},
        {"rnn_gemm_wx", "rnn_gemm_rh", "lstm_act", "lstm_state"}};
    const char *name = names[n->lstm][i];
    if (i >= 2)
        return mlk_ew_launch(n->lib, k, name, i == 2 ? &n->ew1[t] : &n->ew2[t], e);
    if (mlk_gemm_launch(n->lib, k, name, i ? &n->rh[t] : &n->wx[t], e))
        return -1;
    k->args[1].same_pattern = t > 0;
    return 0;
}

static bool rnn_next_kernel(void *self, struct kernel *k)
{
    struct rnn *n = self;
    if (n->next == (uint64_t)n->ts * RNN_KPS)
        return false;
    struct err e;
    if (rnn_launch(n, k, (unsigned)(n->next % RNN_KPS), (uint32_t)(n->next / RNN_KPS), &e))
        return wl_fail(n->env, &e);
    n->next++;
    return true;
}

static const char *const rnn_small_small[] = {"hidden=64", NULL};
static const char *const rnn_large_small[] = {"batch=16", "steps=3", "hidden=64", NULL};

const struct wl_ops wl_rnn_gru_small = {
    .name = "rnn-gru-small",
    .suite = "DeepBench",
    .desc = "DeepBench RNN inference, GRU cell, BS 4, TS 2, hidden 256 (GEMMs + gate kernels)",
    .keys = rnn_small_keys,
    .small = rnn_small_small,
    .create = rnn_gru_create,
    .next_kernel = rnn_next_kernel,
    .destroy = rnn_destroy,
};

const struct wl_ops wl_rnn_gru_large = {
    .name = "rnn-gru-large",
    .suite = "DeepBench",
    .desc = "DeepBench RNN inference, GRU cell, BS 16, TS 4, hidden 512 (GEMMs + gate kernels)",
    .keys = rnn_large_keys,
    .small = rnn_large_small,
    .create = rnn_gru_create,
    .next_kernel = rnn_next_kernel,
    .destroy = rnn_destroy,
};

const struct wl_ops wl_rnn_lstm_small = {
    .name = "rnn-lstm-small",
    .suite = "DeepBench",
    .desc = "DeepBench RNN inference, LSTM cell, BS 4, TS 2, hidden 256 (GEMMs + gate kernels)",
    .keys = rnn_small_keys,
    .small = rnn_small_small,
    .create = rnn_lstm_create,
    .next_kernel = rnn_next_kernel,
    .destroy = rnn_destroy,
};

const struct wl_ops wl_rnn_lstm_large = {
    .name = "rnn-lstm-large",
    .suite = "DeepBench",
    .desc = "DeepBench RNN inference, LSTM cell, BS 16, TS 4, hidden 512 (GEMMs + gate kernels)",
    .keys = rnn_large_keys,
    .small = rnn_large_small,
    .create = rnn_lstm_create,
    .next_kernel = rnn_next_kernel,
    .destroy = rnn_destroy,
};
