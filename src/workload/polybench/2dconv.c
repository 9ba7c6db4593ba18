/*
 * 2dconv.c -- PolyBench/GPU 2DConvolution: B = a 3 x 3 stencil of A with
 * fixed coefficients over an ni x nj float image, one thread per pixel in
 * 32 x 8 work-groups; threads on the border (i or j 0 or last) do nothing.
 * Each thread loads its nine neighbours (three rows, so neighbouring
 * work-groups share their border rows) and stores one pixel. Default
 * NI = NJ = 4096, PolyBench/GPU's (spec remote-core.md 14). ALU counts from
 * nvcc 13 -arch=sm_90 PTX (docs/workloads/2dconv.md).
 * Abstracted: no data values; the host's initialisation and result check.
 */
#include "workload/polybench/pb.h"

static const struct cfg_key conv_keys[] = {
    {"ni", CFG_INT, "4096", 3, 65536, "rows of the image (NI)", NULL},
    {"nj", CFG_INT, "4096", 3, 65536, "columns of the image (NJ)", NULL},
    CFG_END,
};

/* Convolution2D_kernel's PTX: the entry (parameters, i, j, the four tests
 * and the addresses of the first row: 29), then between the nine loads 0,
 * 2, 4, 2, 1, 2, 1, 1 (the products and sums, which ptxas leaves for the
 * loads to arrive: the compute waits only before the store) and 3 before
 * the store. */
#define CONV_LD(R, DI, DJ)                                                                    \
    "    load A[(" PB_I " + " #DI ")*nj + " PB_J " + " #DJ "] 4 -> r" #R "\n"
static const struct kd_desc conv_kd = {
    .name = "Convolution2D_kernel",
    .params = (const char *const[]){"ni", "nj", NULL},
    .bufs = (const char *const[]){"A", "B", NULL},
    .range_join = PB_JOIN,
    .body = "alu 29\n"
            "if 0 < " PB_I " < ni - 1\n"
            " if 0 < " PB_J " < nj - 1\n" CONV_LD(1, -1, -1) CONV_LD(2, -1, 0) "    alu 2\n"
                CONV_LD(3, -1, 1) "    alu 4\n" CONV_LD(4, 0, -1) "    alu 2\n" CONV_LD(5, 0, 0)
            "    alu 1\n" CONV_LD(6, 0, 1) "    alu 2\n" CONV_LD(7, 1, -1) "    alu 1\n"
                CONV_LD(8, 1, 0) "    alu 1\n" CONV_LD(9, 1, 1)
            "    alu 3 < r1 r2 r3 r4 r5 r6 r7 r8 r9\n"
            "    store B[" PB_I "*nj + " PB_J "] 4 < r9\n"
            " end\n"
            "end\n",
};

struct conv {
    struct kdw w;
    uint64_t ni, nj;
    const struct kernel_buf *bufs[2];
};

static int conv_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct conv *c = (struct conv *)w;
    c->ni = cfg_uint(sec, "ni");
    c->nj = cfg_uint(sec, "nj");
    c->bufs[0] = wl_alloc(w->env, "A", c->ni * c->nj * 4);
    c->bufs[1] = wl_alloc(w->env, "B", c->ni * c->nj * 4);
    return 0;
}

static bool conv_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct conv *c = (const struct conv *)w;
    if (i == 1)
        return false;
    pb_launch_2d(l, 0, c->ni, c->nj);
    l->params[0] = (int64_t)c->ni;
    l->params[1] = (int64_t)c->nj;
    l->bufs[0] = c->bufs[0];
    l->bufs[1] = c->bufs[1];
    return true;
}

static const struct kd_desc *const conv_descs[] = {&conv_kd, NULL};
static const struct kdw_model conv_model = {
    .size = sizeof(struct conv), .descs = conv_descs, .setup = conv_setup, .plan = conv_plan};

static void *conv_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&conv_model, env, sec, e);
}

static const char *const conv_small[] = {"ni=64", "nj=64", NULL};

const struct wl_ops wl_2dconv = {
    .name = "2dconv",
    .suite = "Polybench",
    .desc = "PolyBench/GPU 2DConvolution: a 3x3 stencil over a float image, one thread per pixel",
    .keys = conv_keys,
    .small = conv_small,
    .create = conv_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
