/*
 * dl_conv.c -- a convolution layer's forward pass as GEMM, Caffe's scheme
 * (im2col then a GEMM per image and group), the convolution workloads of
 * HMG (spec hmg.md 8: ML_AlexNet_conv2, ML_GoogLeNet_conv2,
 * ML_overfeat_layer1, ML_resnet). Per image n:
 *   im2col    col[(c KH + r) KW + s][p] = in[n][c][y_p S - P + r][x_p S - P + s]
 *             (0 at the padding), one thread per output pixel p and channel c
 *   sgemm_nn  per group g: out[n][g] (M_g x HoWo) = W[g] (M_g x K_g) col[g]
 *             (K_g x HoWo), K_g = C / G KH KW
 * on mlk.h's tiled GEMM (NN: col stored K x N). Shapes from the networks'
 * definitions (docs/workloads/dl-conv.md). A substitute: the paper's traces
 * are not public. Abstracted: no data values, no bias GEMM.
 */
#include "dl.h"

static const struct cfg_key conv_keys[] = {
    {"layer", CFG_ENUM, "alexnet-conv2", 0, 0, "layer shape",
     "alexnet-conv2|googlenet-conv2|overfeat-layer1|resnet"},
    {"batch", CFG_INT, "0", 0, 4096, "images; 0 = the layer's", NULL},
    {"channels", CFG_INT, "0", 0, 4096, "input channels C; 0 = the layer's", NULL},
    {"height", CFG_INT, "0", 0, 4096, "input height H; 0 = the layer's", NULL},
    {"width", CFG_INT, "0", 0, 4096, "input width W; 0 = the layer's", NULL},
    {"filters", CFG_INT, "0", 0, 4096, "output channels M; 0 = the layer's", NULL},
    {"kernel", CFG_INT, "0", 0, 64, "filter size KH = KW; 0 = the layer's", NULL},
    {"stride", CFG_INT, "0", 0, 64, "stride S; 0 = the layer's", NULL},
    {"pad", CFG_INT, "-1", -1, 64, "zero padding P; -1 = the layer's", NULL},
    {"groups", CFG_INT, "0", 0, 64, "filter groups G; 0 = the layer's", NULL},
    CFG_END,
};

enum { C_BATCH, C_C, C_H, C_W, C_M, C_K, C_S, C_P, C_G, C_N };
static const char *const conv_key[C_N] = {"batch",   "channels", "height", "width", "filters",
                                          "kernel", "stride",   "pad",    "groups"};
/* The key order's values per layer. */
static const uint32_t conv_shapes[][C_N] = {
    {128, 96, 27, 27, 256, 5, 1, 2, 2}, /* AlexNet conv2 (Krizhevsky et al. 2012) */
    {32, 64, 56, 56, 192, 3, 1, 1, 1},  /* GoogLeNet conv2/3x3 (Szegedy et al. 2015) */
    {128, 3, 231, 231, 96, 11, 4, 0, 1}, /* OverFeat fast, layer 1 (Sermanet et al. 2014) */
    {256, 64, 56, 56, 64, 3, 1, 1, 1},  /* ResNet-50 res2a_branch2b (He et al. 2016) */
};

enum { K_IM2COL = MLK_NLAYOUTS };

/* PTX counts (docs/workloads/dl-conv.md): the entry and the pixel's bounds
 * test (22); the window loops' tests and set-up (2 + 2 + 28); per window
 * row r (6); per element, the padding test (8) and, after the store, the
 * pointer steps and loop test (6); after a row's elements (3). */
#define IC_Y "(by*bdy + ty)*st - pad + m0"
#define IC_X "(bx*bdx + tx)*st - pad + m1"
static const char *const ic_params[] = {"hi", "wi", "kh", "kw", "pad", "st", "ho", "wo", "io",
                                        NULL};
static const struct kd_desc im2col_kd = {
    .name = "im2col", .params = ic_params, .bufs = (const char *const[]){"in", "col", NULL},
    .range_join = 128, /* a warp's two block rows read two input rows that can share a line */
    .body = "alu 22\n"
            "if bx*bdx + tx < wo and by*bdy + ty < ho\n"
            "  alu 32\n"
            "  for m0 = 0 .. kh\n"
            "    alu 6\n"
            "    for m1 = 0 .. kw\n"
            "      alu 8\n"
            "      if -1 < " IC_Y " < hi and -1 < " IC_X " < wi\n"
            "        load in[io + (bz*hi + " IC_Y ")*wi + " IC_X "] 4 -> r1\n"
            "      end\n"
            "      store col[((bz*kh + m0)*kw + m1)*ho*wo + (by*bdy + ty)*wo + bx*bdx + tx] 4 "
            "< r1\n"
            "      alu 6\n"
            "    end\n"
            "    alu 3\n"
            "  end\n"
            "end\n"};

struct conv {
    struct kdw w;
    uint32_t v[C_N];
    uint32_t ho, wo;
    const struct kernel_buf *in, *wt, *col, *out;
};

/* The shape's keys, each 0 (pad -1) for the layer's. */
static void conv_shape(struct conv *c, const struct cfg_sec *sec)
{
    const uint32_t *s = conv_shapes[cfg_enum(sec, "layer")];
    for (unsigned i = 0; i < C_N; i++) {
        int64_t v = cfg_int(sec, conv_key[i]);
        c->v[i] = v > 0 || (i == C_P && v == 0) ? (uint32_t)v : s[i];
    }
}

static int conv_check(struct conv *c, const struct cfg_sec *sec, struct err *e)
{
    const uint32_t *v = c->v;
    if (v[C_C] % v[C_G] || v[C_M] % v[C_G])
        return cfg_err(e, sec, "groups", "%u groups do not divide channels (%u) and filters (%u)",
                       v[C_G], v[C_C], v[C_M]);
    if (v[C_K] > v[C_H] + 2 * v[C_P] || v[C_K] > v[C_W] + 2 * v[C_P])
        return cfg_err(e, sec, "kernel", "larger than the padded input (%u x %u)",
                       v[C_H] + 2 * v[C_P], v[C_W] + 2 * v[C_P]);
    c->ho = (v[C_H] + 2 * v[C_P] - v[C_K]) / v[C_S] + 1;
    c->wo = (v[C_W] + 2 * v[C_P] - v[C_K]) / v[C_S] + 1;
    uint64_t kk = (uint64_t)v[C_K] * v[C_K], hw = (uint64_t)c->ho * c->wo;
    uint64_t b = 4 * ((uint64_t)v[C_BATCH] * v[C_C] * v[C_H] * v[C_W] + v[C_M] * v[C_C] / v[C_G] *
                      kk + v[C_C] * kk * hw + (uint64_t)v[C_BATCH] * v[C_M] * hw);
    return dl_check_size(sec, "batch", b, e);
}

static int conv_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct conv *c = (struct conv *)w;
    conv_shape(c, sec);
    if (conv_check(c, sec, e))
        return -1;
    const uint32_t *v = c->v;
    uint64_t kk = (uint64_t)v[C_K] * v[C_K], hw = (uint64_t)c->ho * c->wo;
    c->in = wl_alloc(w->env, "in", 4ull * v[C_BATCH] * v[C_C] * v[C_H] * v[C_W]);
    c->wt = wl_alloc(w->env, "w", 4ull * v[C_M] * (v[C_C] / v[C_G]) * kk);
    c->col = wl_alloc(w->env, "col", 4ull * v[C_C] * kk * hw);
    c->out = wl_alloc(w->env, "out", 4ull * v[C_BATCH] * v[C_M] * hw);
    return 0;
}

static void conv_im2col(const struct conv *c, uint64_t n, struct kdw_launch *l)
{
    const uint32_t *v = c->v;
    *l = (struct kdw_launch){
        .prog = K_IM2COL,
        .grid = {(uint32_t)div_ceil(c->wo, 32), (uint32_t)div_ceil(c->ho, 8), v[C_C]},
        .block = {32, 8, 1},
        .params = {v[C_H], v[C_W], v[C_K], v[C_K], v[C_P], v[C_S], c->ho, c->wo,
                   (int64_t)(n * v[C_C] * v[C_H] * v[C_W])},
        .bufs = {c->in, c->col}};
}

/* Launch i: per image, im2col and then a GEMM per group. */
static bool conv_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct conv *c = (const struct conv *)w;
    const uint32_t *v = c->v;
    uint64_t per = 1 + v[C_G], n = i / per, g = i % per - 1;
    if (n == v[C_BATCH])
        return false;
    if (i % per == 0) {
        conv_im2col(c, n, l);
        return true;
    }
    uint32_t mg = v[C_M] / v[C_G], kg = v[C_C] / v[C_G] * v[C_K] * v[C_K];
    uint32_t hw = c->ho * c->wo;
    dl_gemm(l, MLK_L_NN, (struct dl_mat){c->wt, g * mg * kg, kg},
            (struct dl_mat){c->col, g * kg * hw, hw},
            (struct dl_mat){c->out, (n * v[C_M] + g * mg) * hw, hw}, mg, hw, kg, false);
    return true;
}

static uint64_t conv_count(const struct kdw *w)
{
    const struct conv *c = (const struct conv *)w;
    return (uint64_t)c->v[C_BATCH] * (1 + c->v[C_G]);
}

static const struct kd_desc *const conv_descs[] = {MLK_GEMM_DESCS, &im2col_kd, NULL};
static const struct kdw_model conv_model = {.size = sizeof(struct conv), .descs = conv_descs,
                                            .setup = conv_setup, .plan = conv_plan,
                                            .count = conv_count};

static void *conv_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&conv_model, env, sec, e);
}

static const char *const conv_small[] = {"batch=2",   "channels=2", "height=4", "width=4",
                                         "filters=4", "kernel=3",   "stride=1", "pad=1",
                                         "groups=2",  NULL};

const struct wl_ops wl_dl_conv = {
    .name = "dl-conv",
    .suite = "DL layers",
    .desc = "convolution layer forward as im2col + GEMM per image (AlexNet, GoogLeNet, OverFeat, ResNet; substitute)",
    .keys = conv_keys,
    .small = conv_small,
    .create = conv_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
