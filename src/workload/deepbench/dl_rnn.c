/*
 * dl_rnn.c -- one vanilla RNN layer (ReLU, no bias) as a training framework
 * runs it on cuDNN-style kernels, the ML_RNN_layer4 workloads of HMG (spec
 * hmg.md 8: RNN_FW, RNN_DGRAD, RNN_WGRAD), one pass per run (`pass`):
 *   fw     pre = X W^T (all steps at once), then per step t:
 *          pre_t += h_{t-1} R^T; h_t = relu(pre_t)
 *   dgrad  per step t from the last: dh = dpre_{t+1} R (none at the last);
 *          dpre_t = (dy_t + dh) relu'(h_t); then dX = dpre W (all steps)
 *   wgrad  dW = dpre^T X, dR = dpre^T [h_{-1} .. h_{T-2}] (all steps at once)
 * GEMMs on mlk.h's tiled GEMM (NT forward, NN for the data gradient, TN for
 * the weight gradients), element-wise kernels one thread per element.
 * h holds h_{-1} (hx) and then h_0 .. h_{T-1}, B x H each. Default: hidden
 * 1760, batch 16, 50 steps, DeepSpeech 2's recurrent layer as DeepBench's
 * training set runs it (docs/workloads/dl-rnn.md). A substitute: the
 * paper's traces are not public. Abstracted: no data values.
 */
#include <string.h>

#include "dl.h"

static const struct cfg_key rnn_keys[] = {
    {"pass", CFG_ENUM, "fw", 0, 0, "forward, data gradient or weight gradient",
     "fw|dgrad|wgrad"},
    {"hidden", CFG_INT, "1760", 1, 16384, "hidden size H", NULL},
    {"batch", CFG_INT, "16", 1, 4096, "batch size B", NULL},
    {"steps", CFG_INT, "50", 1, 4096, "time steps T", NULL},
    {"input", CFG_INT, "0", 0, 16384, "input vector length; 0 = hidden", NULL},
    CFG_END,
};

enum { P_FW, P_DGRAD, P_WGRAD };
enum { K_RELU = MLK_NLAYOUTS, K_DRELU };

/* PTX counts (docs/workloads/dl-rnn.md): rnn_relu's entry and bounds test
 * (9), pre_t[i]'s address (2), the max and h_t[i]'s address (3); rnn_drelu's
 * entry (12), dy's address (3), the rec test (2), dh's address and the add
 * (2, 1), h's address (2), the test of h, the select and dpre's address (3). */
static const char *const relu_params[] = {"n", "po", "ho", NULL};
static const char *const drelu_params[] = {"n", "yo", "ho", "po", "rec", NULL};
static const struct kd_desc relu_kd = {
    .name = "rnn_relu", .params = relu_params,
    .bufs = (const char *const[]){"pre", "h", NULL},
    .body = "alu 9\n"
            "if gid < n\n"
            "  alu 2\n"
            "  load pre[po + gid] 4 -> r1\n"
            "  alu 3 < r1\n"
            "  store h[ho + gid] 4 < r1\n"
            "end\n"};
static const struct kd_desc drelu_kd = {
    .name = "rnn_drelu", .params = drelu_params,
    .bufs = (const char *const[]){"dy", "dh", "h", "dpre", NULL},
    .body = "alu 12\n"
            "if gid < n\n"
            "  alu 3\n"
            "  load dy[yo + gid] 4 -> r1\n"
            "  alu 2\n"
            "  if 0 < rec\n"
            "    alu 2\n"
            "    load dh[gid] 4 -> r2\n"
            "    alu 1 < r1 r2\n"
            "  end\n"
            "  alu 2\n"
            "  load h[ho + gid] 4 -> r3\n"
            "  alu 3 < r1 r3\n"
            "  store dpre[po + gid] 4 < r1 r3\n"
            "end\n"};

struct rnn {
    struct kdw w;
    unsigned pass;
    uint32_t h, b, t, in;
    const struct kernel_buf *x, *wt, *r, *pre, *hs, *dy, *dh, *dx, *dw, *dr;
};

static const struct kernel_buf *rnn_buf(struct rnn *n, const char *name, uint64_t elems)
{
    return wl_alloc(n->w.env, name, 4 * elems);
}

static int rnn_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct rnn *n = (struct rnn *)w;
    n->pass = cfg_enum(sec, "pass");
    n->h = (uint32_t)cfg_uint(sec, "hidden");
    n->b = (uint32_t)cfg_uint(sec, "batch");
    n->t = (uint32_t)cfg_uint(sec, "steps");
    n->in = cfg_uint(sec, "input") ? (uint32_t)cfg_uint(sec, "input") : n->h;
    uint64_t bh = (uint64_t)n->b * n->h, steps = (uint64_t)n->t * bh;
    uint64_t xs = (uint64_t)n->t * n->b * n->in, ws = (uint64_t)n->h * n->in;
    bool fw = n->pass == P_FW, dg = n->pass == P_DGRAD, wg = n->pass == P_WGRAD;
    uint64_t all = xs + ws + (uint64_t)n->h * n->h + 2 * steps + bh + (dg ? steps + bh : 0);
    if (dl_check_size(sec, "steps", 4 * all, e))
        return -1;
    n->x = fw || wg ? rnn_buf(n, "x", xs) : NULL;
    n->wt = fw || dg ? rnn_buf(n, "w", ws) : NULL;
    n->r = fw || dg ? rnn_buf(n, "r", (uint64_t)n->h * n->h) : NULL;
    n->pre = rnn_buf(n, fw ? "pre" : "dpre", steps);
    n->hs = rnn_buf(n, "h", steps + bh);
    n->dy = dg ? rnn_buf(n, "dy", steps) : NULL;
    n->dh = dg ? rnn_buf(n, "dh", bh) : NULL;
    n->dx = dg ? rnn_buf(n, "dx", xs) : NULL;
    n->dw = wg ? rnn_buf(n, "dw", ws) : NULL;
    n->dr = wg ? rnn_buf(n, "dr", (uint64_t)n->h * n->h) : NULL;
    return 0;
}

static struct dl_mat mat(const struct kernel_buf *b, uint64_t off, uint32_t ld)
{
    return (struct dl_mat){b, off, ld};
}

/* Forward launch i: the input GEMM, then per step the recurrent GEMM and
 * the activation. */
static void rnn_fw(const struct rnn *n, uint64_t i, struct kdw_launch *l)
{
    uint64_t bh = (uint64_t)n->b * n->h, t;
    struct dl_rec r = {n->x, n->wt, n->r, n->pre, n->hs, 1, n->h, n->b, n->t, n->in};
    if (dl_rec_fw(&r, i, l, &t))
        return;
    dl_ew(l, K_RELU, bh);
    int64_t p[] = {(int64_t)bh, (int64_t)(t * bh), (int64_t)((t + 1) * bh)};
    memcpy(l->params, p, sizeof p);
    l->bufs[0] = n->pre;
    l->bufs[1] = n->hs;
}

/* Data-gradient launch i: per step from the last, the recurrent GEMM (not
 * at the last step) and the activation's gradient; then dX. */
static void rnn_dgrad(const struct rnn *n, uint64_t i, struct kdw_launch *l)
{
    uint64_t bh = (uint64_t)n->b * n->h, t = n->t - 1 - (i + 1) / 2;
    if (i == 2ull * n->t - 1) {
        dl_gemm(l, MLK_L_NN, mat(n->pre, 0, n->h), mat(n->wt, 0, n->in), mat(n->dx, 0, n->in),
                n->t * n->b, n->in, n->h, false);
    } else if (i % 2) {
        dl_gemm(l, MLK_L_NN, mat(n->pre, (t + 1) * bh, n->h), mat(n->r, 0, n->h),
                mat(n->dh, 0, n->h), n->b, n->h, n->h, false);
    } else {
        dl_ew(l, K_DRELU, bh);
        int64_t p[] = {(int64_t)bh, (int64_t)(t * bh), (int64_t)((t + 1) * bh),
                       (int64_t)(t * bh), i > 0};
        memcpy(l->params, p, sizeof p);
        const struct kernel_buf *b[] = {n->dy, n->dh, n->hs, n->pre};
        memcpy(l->bufs, b, sizeof b);
    }
}

static bool rnn_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct rnn *n = (const struct rnn *)w;
    if (i == w->m->count(w))
        return false;
    if (n->pass == P_FW)
        rnn_fw(n, i, l);
    else if (n->pass == P_DGRAD)
        rnn_dgrad(n, i, l);
    else
        dl_gemm(l, MLK_L_TN, mat(n->pre, 0, n->h), i ? mat(n->hs, 0, n->h) : mat(n->x, 0, n->in),
                i ? mat(n->dr, 0, n->h) : mat(n->dw, 0, n->in), n->h, i ? n->h : n->in,
                n->t * n->b, false);
    return true;
}

static uint64_t rnn_count(const struct kdw *w)
{
    const struct rnn *n = (const struct rnn *)w;
    return n->pass == P_FW ? 1 + 2ull * n->t : n->pass == P_DGRAD ? 2ull * n->t : 2;
}

static const struct kd_desc *const rnn_descs[] = {MLK_GEMM_DESCS, &relu_kd, &drelu_kd, NULL};
static const struct kdw_model rnn_model = {.size = sizeof(struct rnn), .descs = rnn_descs,
                                           .setup = rnn_setup, .plan = rnn_plan,
                                           .count = rnn_count};

static void *rnn_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&rnn_model, env, sec, e);
}

static const char *const rnn_small[] = {"hidden=32", "batch=2", "steps=2", NULL};

const struct wl_ops wl_dl_rnn = {
    .name = "dl-rnn",
    .suite = "DL layers",
    .desc = "vanilla RNN layer forward, data or weight gradient on tiled GEMMs (HMG RNN_layer4; substitute)",
    .keys = rnn_keys,
    .small = rnn_small,
    .create = rnn_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
