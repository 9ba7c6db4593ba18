/*
 * dl_lstm.c -- one LSTM layer's forward pass as cuDNN-style kernels, the
 * LSTM workloads of LADM (spec ladm.md 10, Table 3.4: LSTM-1, LSTM-2, "DL
 * GEMMs ... layer sizes from ... LSTM") and HMG (spec hmg.md 8:
 * ML_lstm_layer2):
 *   sgemm_nt   gates = X W^T over all steps (M = T B, N = 4H, K = I)
 *   per step t:
 *   sgemm_nt   gates_t += h_{t-1} R^T (beta; M = B, N = 4H, K = H)
 *   lstm_cell  i, f, o = sigmoid, g = tanh of gates_t;
 *              c_t = f c_{t-1} + i g; h_t = o tanh(c_t)
 * on mlk.h's tiled GEMM (dl.h's recurrent forward pass); the cell one
 * thread per (batch row by, unit bx * 256 + tx). h and c hold h_{-1}, c_{-1}
 * and then each step's rows. Shapes: DeepBench's LSTM training problems
 * (the one nearest each paper's input size; docs/workloads/dl-lstm.md).
 * A substitute: the papers' code and traces are not public. Abstracted: no
 * data values, no bias, no reserve space for the backward pass.
 */
#include <string.h>

#include "dl.h"

static const struct cfg_key lstm_keys[] = {
    {"layer", CFG_ENUM, "lstm-layer2", 0, 0, "layer shape (hidden, batch, steps)",
     "lstm-1|lstm-2|lstm-layer2"},
    {"hidden", CFG_INT, "0", 0, 16384, "hidden size H; 0 = the layer's", NULL},
    {"batch", CFG_INT, "0", 0, 4096, "batch size B; 0 = the layer's", NULL},
    {"steps", CFG_INT, "0", 0, 4096, "time steps T; 0 = the layer's", NULL},
    {"input", CFG_INT, "0", 0, 16384, "input vector length; 0 = hidden", NULL},
    CFG_END,
};

/* hidden, batch, steps (DeepBench's rnn_problems.h training set). */
static const uint32_t lstm_shapes[][3] = {
    {256, 64, 150}, /* lstm-1 (LADM LSTM-1, 64 MB) */
    {512, 64, 25},  /* lstm-2 (LADM LSTM-2, 32 MB) */
    {4096, 64, 25}, /* lstm-layer2 (HMG ML_lstm_layer2, 710 MB) */
};

enum { K_CELL = MLK_NLAYOUTS };

/* PTX counts (docs/workloads/dl-lstm.md): the entry and the unit's bounds
 * test (11); the gates' row address (7); after each gate's load its
 * activation (sigmoid 23, 15, 15 with the next address; tanh 26 with
 * c_{t-1}'s address); f c + i g and c_t's address (3); tanh(c_t), o tanh and
 * h_t's address (19). */
#define CELL_GATE(g, r, alu)                                                                    \
    "  load gates[go + by*4*hd + " g "*hd + bx*bdx + tx] 4 -> " r "\n"                         \
    "  alu " alu " < " r "\n"
static const char *const cell_params[] = {"hd", "go", "po", "so", NULL};
static const struct kd_desc cell_kd = {
    .name = "lstm_cell", .params = cell_params,
    .bufs = (const char *const[]){"gates", "c", "h", NULL},
    .body = "alu 11\n"
            "if bx*bdx + tx < hd\n"
            "  alu 7\n"
            CELL_GATE("0", "r1", "23") CELL_GATE("1", "r2", "15") CELL_GATE("2", "r3", "15")
            CELL_GATE("3", "r4", "26")
            "  load c[po + by*hd + bx*bdx + tx] 4 -> r5\n"
            "  alu 3 < r5\n"
            "  store c[so + by*hd + bx*bdx + tx] 4 < r5\n"
            "  alu 19\n"
            "  store h[so + by*hd + bx*bdx + tx] 4 < r5\n"
            "end\n"};

struct lstm {
    struct kdw w;
    struct dl_rec r;
    const struct kernel_buf *c;
};

static int lstm_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct lstm *m = (struct lstm *)w;
    const uint32_t *s = lstm_shapes[cfg_enum(sec, "layer")];
    struct dl_rec *r = &m->r;
    r->g = 4;
    r->hid = dl_dim(sec, "hidden", s[0]);
    r->b = dl_dim(sec, "batch", s[1]);
    r->t = dl_dim(sec, "steps", s[2]);
    r->in = dl_dim(sec, "input", r->hid);
    uint64_t h = r->hid, bh = (uint64_t)r->b * h, tb = (uint64_t)r->t * r->b;
    uint64_t all = tb * r->in + 4 * h * (r->in + h) + 6 * tb * h + 2 * bh;
    if (dl_check_size(sec, "steps", 4 * all, e))
        return -1;
    r->x = wl_alloc(w->env, "x", 4 * tb * r->in);
    r->w = wl_alloc(w->env, "w", 4 * 4 * h * r->in);
    r->r = wl_alloc(w->env, "r", 4 * 4 * h * h);
    r->gates = wl_alloc(w->env, "gates", 4 * tb * 4 * h);
    r->h = wl_alloc(w->env, "h", 4 * (tb * h + bh));
    m->c = wl_alloc(w->env, "c", 4 * (tb * h + bh));
    return 0;
}

static bool lstm_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct lstm *m = (const struct lstm *)w;
    const struct dl_rec *r = &m->r;
    uint64_t t, bh = (uint64_t)r->b * r->hid;
    if (i == 1 + 2ull * r->t)
        return false;
    if (dl_rec_fw(r, i, l, &t))
        return true;
    *l = (struct kdw_launch){.prog = K_CELL,
                             .grid = {(uint32_t)div_ceil(r->hid, DL_EW_BLOCK), r->b, 1},
                             .block = {DL_EW_BLOCK, 1, 1},
                             .params = {r->hid, (int64_t)(t * 4 * bh), (int64_t)(t * bh),
                                        (int64_t)((t + 1) * bh)},
                             .bufs = {r->gates, m->c, r->h}};
    return true;
}

static uint64_t lstm_count(const struct kdw *w)
{
    return 1 + 2ull * ((const struct lstm *)w)->r.t;
}

static const struct kd_desc *const lstm_descs[] = {MLK_GEMM_DESCS, &cell_kd, NULL};
static const struct kdw_model lstm_model = {.size = sizeof(struct lstm), .descs = lstm_descs,
                                            .setup = lstm_setup, .plan = lstm_plan,
                                            .count = lstm_count};

static void *lstm_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&lstm_model, env, sec, e);
}

static const char *const lstm_small[] = {"hidden=16", "batch=2", "steps=2", NULL};

const struct wl_ops wl_dl_lstm = {
    .name = "dl-lstm",
    .suite = "DL layers",
    .desc = "LSTM layer forward: gate GEMMs and the cell update per step (LADM LSTM-1/2, HMG lstm; substitute)",
    .keys = lstm_keys,
    .small = lstm_small,
    .create = lstm_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
