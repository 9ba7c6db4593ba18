/*
 * dl_fc.c -- a fully connected layer's forward pass as one GEMM, the DL
 * FC workloads of LADM (spec ladm.md 10, Table 3.4: Alexnet-FC-2,
 * VGGnet-FC-2, Resnet-50-FC, "DL GEMMs built on the SDK/Parboil sgemm"):
 * Y[b][o] = sum_i X[b][i] W[o][i], M = batch, N = outputs, K = inputs, on
 * mlk.h's tiled GEMM (NT: W stored one output per row, as frameworks store
 * an FC layer's weights). Layer shapes from the networks' definitions
 * (AlexNet fc7 4096 -> 4096, batch 128; VGG-16 fc7 4096 -> 4096, batch 256;
 * ResNet-50 fc 2048 -> 1000, batch 256; docs/workloads/dl-fc.md).
 * A substitute: the paper's kernels and inputs are not public; no data
 * values, no bias or activation pass.
 */
#include "dl.h"

static const struct cfg_key fc_keys[] = {
    {"layer", CFG_ENUM, "alexnet-fc2", 0, 0, "layer shape (batch x inputs -> outputs)",
     "alexnet-fc2|vggnet-fc2|resnet50-fc"},
    {"m", CFG_INT, "0", 0, 65536, "batch rows (GEMM M); 0 = the layer's batch", NULL},
    {"n", CFG_INT, "0", 0, 65536, "outputs (GEMM N); 0 = the layer's", NULL},
    {"k", CFG_INT, "0", 0, 65536, "inputs (GEMM K); 0 = the layer's", NULL},
    {"iterations", CFG_INT, "1", 1, 10000, "forward passes (launches)", NULL},
    CFG_END,
};

/* batch, outputs, inputs of each layer (the key's order). */
static const uint32_t fc_shapes[][3] = {
    {128, 4096, 4096}, /* AlexNet fc7 (Krizhevsky et al. 2012), batch 128 */
    {256, 4096, 4096}, /* VGG-16 fc7 (Simonyan and Zisserman 2015), batch 256 */
    {256, 1000, 2048}, /* ResNet-50 fc (He et al. 2016), batch 256 */
};

struct fc {
    struct kdw w;
    const struct kernel_buf *x, *wt, *y;
    uint32_t m, n, k;
    unsigned iterations;
};

static int fc_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct fc *f = (struct fc *)w;
    const uint32_t *s = fc_shapes[cfg_enum(sec, "layer")];
    uint64_t m = f->m = dl_dim(sec, "m", s[0]), n = f->n = dl_dim(sec, "n", s[1]);
    uint64_t k = f->k = dl_dim(sec, "k", s[2]);
    f->iterations = (unsigned)cfg_uint(sec, "iterations");
    f->x = wl_alloc(w->env, "x", 4 * m * k);
    f->wt = wl_alloc(w->env, "w", 4 * n * k);
    f->y = wl_alloc(w->env, "y", 4 * m * n);
    return 0;
}

static bool fc_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct fc *f = (const struct fc *)w;
    if (i == f->iterations)
        return false;
    dl_gemm(l, MLK_L_NT, (struct dl_mat){f->x, 0, f->k}, (struct dl_mat){f->wt, 0, f->k},
            (struct dl_mat){f->y, 0, f->n}, f->m, f->n, f->k, false);
    return true;
}

static uint64_t fc_count(const struct kdw *w)
{
    return ((const struct fc *)w)->iterations;
}

static const struct kd_desc *const fc_descs[] = {MLK_GEMM_DESCS, NULL};
static const struct kdw_model fc_model = {.size = sizeof(struct fc), .descs = fc_descs,
                                          .setup = fc_setup, .plan = fc_plan, .count = fc_count};

static void *fc_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&fc_model, env, sec, e);
}

static const char *const fc_small[] = {"m=8", "n=64", "k=32", NULL};

const struct wl_ops wl_dl_fc = {
    .name = "dl-fc",
    .suite = "DL layers",
    .desc = "fully connected layer forward as a tiled GEMM (AlexNet/VGG/ResNet-50 shapes; substitute)",
    .keys = fc_keys,
    .small = fc_small,
    .create = fc_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
