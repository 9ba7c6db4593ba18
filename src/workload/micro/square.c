/*
 * square.c -- HIP-Examples `square` as shipped in gem5-resources:
 *     for (size_t i = offset; i < N; i += stride) C_d[i] = A_d[i] * A_d[i];
 * with offset = blockIdx.x * blockDim.x + threadIdx.x and
 * stride = blockDim.x * gridDim.x, float arrays, launched `iterations` times.
 * Table II input "524288 1 2 2048 256" read as N = 524288, one stream,
 * 2 launches, 2048 blocks of 256 threads (docs/workloads/square.md).
 *
 * Modelled: a prologue (offset and stride), then per grid-stride iteration
 * the address of A_d[i], the load (r1), the address of C_d[i] and the loop
 * step (independent of the load), the multiply (waits for r1) and the store
 * (waits for r1). Lanes past N are inactive; a warp exits when its first
 * lane is past N. A work-group's ranges are its strided slices, merged.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of the kernel
 * (vector_square<float>; every instruction but global loads and stores,
 * ret and cvta.to.global); blocks with no op of their own are counted in
 * the nearest op run as often. See docs/workloads/square.md.
 * Abstracted: no data values.
 */
#include <string.h>

#include "workload/kdw.h"

static const struct cfg_key square_keys[] = {
    {"n", CFG_INT, "524288", 1, 17179869184.0, "elements per array (float)", NULL},
    {"blocks", CFG_INT, "2048", 1, 2147483647.0, "work-groups (grid size)", NULL},
    {"threads", CFG_INT, "256", 1, 1024, "threads per work-group", NULL},
    {"iterations", CFG_INT, "2", 1, 1000000, "kernel launches", NULL},
    CFG_END,
};

/* ALU counts from the kernel's PTX (see the file header). Prologue: the
 * parameters, offset, its widening and the first loop test (10), and the
 * loop's preheader, stride and its widening (3), both once per warp. Per
 * grid-stride iteration: the byte offset and &A_d[i] (2); after the load
 * &C_d[i] (1) and, after the store, i += stride, the compare and the
 * branch (3), which need no loaded value and are counted with it; the
 * multiply (1). The description below carries these counts. */

/* The kernel, one grid-stride iteration per pass of m0 (iters passes
 * cover every element; a warp whose elements have all been done issues
 * nothing more). */
static const char *const square_params[] = {"n", "iters", NULL};
static const char *const square_bufs[] = {"A_d", "C_d", NULL};
static const struct kd_desc square_kd = {
    .name = "square",
    .params = square_params,
    .bufs = square_bufs,
    .body = "alu 13                                  # SQ_PROLOGUE\n"
            "for m0 = 0 .. iters\n"
            "  if gid + m0*gdx*bdx < n\n"
            "    alu 2                               # &A_d[i]\n"
            "    load A_d[gid + m0*gdx*bdx] 4 -> r1\n"
            "    alu 4                               # &C_d[i], i += stride, test\n"
            "    alu 1 < r1                          # the multiply\n"
            "    store C_d[gid + m0*gdx*bdx] 4 < r1\n"
            "  end\n"
            "end\n",
};

struct square {
    struct kdw w;
    const struct kernel_buf *bufs[2];
    uint64_t n;
    uint32_t blocks, threads;
    unsigned iterations;
};

static int square_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct square *q = (struct square *)w;
    q->n = cfg_uint(sec, "n");
    q->blocks = (uint32_t)cfg_uint(sec, "blocks");
    q->threads = (uint32_t)cfg_uint(sec, "threads");
    q->iterations = (unsigned)cfg_uint(sec, "iterations");
    for (unsigned i = 0; i < 2; i++)
        q->bufs[i] = wl_alloc(w->env, square_bufs[i], q->n * 4);
    return 0;
}

static bool square_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct square *q = (const struct square *)w;
    if (i == q->iterations)
        return false;
    l->grid = (struct kernel_dim){q->blocks, 1, 1};
    l->block = (struct kernel_dim){q->threads, 1, 1};
    l->params[0] = (int64_t)q->n;
    l->params[1] = (int64_t)div_ceil(q->n, (uint64_t)q->blocks * q->threads);
    memcpy(l->bufs, q->bufs, sizeof q->bufs);
    return true;
}

static const struct kd_desc *const square_descs[] = {&square_kd, NULL};
static const struct kdw_model square_model = {
    .size = sizeof(struct square), .descs = square_descs, .setup = square_setup,
    .plan = square_plan};

static void *square_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&square_model, env, sec, e);
}

static const char *const square_small[] = {"n=8192", "blocks=16", "iterations=2", NULL};

const struct wl_ops wl_square = {
    .name = "square",
    .suite = "HIP-Examples",
    .desc = "HIP-Examples square: C_d[i] = A_d[i] * A_d[i], grid-stride loop",
    .keys = square_keys,
    .small = square_small,
    .create = square_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
