/*
 * gaussian.c -- Rodinia gaussian (gaussian.cu): forward elimination of a
 * Size x Size system a x = b without pivoting, two kernels per eliminated
 * row t = 0 .. Size-2:
 *   Fan1  grid ceil(Size / 512), block 512:  thread i < Size-1-t:
 *         m[Size (i+t+1) + t] = a[Size (i+t+1) + t] / a[Size t + t]
 *   Fan2  grid ceil(Size/4) x ceil(Size/4), block 4 x 4: thread (x, y) with
 *         x < Size-1-t, y < Size-t:
 *         a[Size (x+1+t) + y+t] -= m[Size (x+1+t) + t] * a[Size t + y+t];
 *         if (y == 0) b[x+1+t] -= m[Size (x+1+t) + y+t] * b[t]
 * (x = blockIdx.x * 4 + threadIdx.x, y likewise in y). The grids do not
 * shrink with t: later kernels have many work-groups whose threads all
 * return at the bounds test. Back substitution runs on the host.
 * Both kernels are kernel descriptions (src/workload/kd.h); each work-group's
 * ranges are derived from them.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * gaussian.cu (every instruction but global loads and stores, barriers, ret
 * and cvta.to.global); blocks with no op of their own are counted in the
 * nearest op run as often. See docs/workloads/gaussian.md.
 * Abstracted: data values (no pivoting, so they do not change addresses).
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

static const struct cfg_key gaussian_keys[] = {
    {"size", CFG_INT, "256", 2, 32768, "matrix dimension (Table II: 256, matrix256)", NULL},
    {"block", CFG_INT, "512", 1, 1024, "Fan1 threads per work-group (MAXBLOCKSIZE)", NULL},
    {"block_xy", CFG_INT, "4", 1, 32, "Fan2 work-group side (BLOCK_SIZE_XY)", NULL},
    CFG_END,
};

/*
 * Fan1. ALU counts from the kernel's PTX (see the file header): the bounds
 * test, run by every warp, 12 (parameters, ids, the compare and its
 * branch); in warps with a thread below the bound, the addresses of the two
 * loads follow, 13. Then the division (div.rn.f32: one PTX instruction, a
 * subroutine of about 10 in SASS) and m's address, 2.
 *
 * Fan2. The x bounds test 13 (parameters, ids), in warps that pass it the
 * y test 7; in warps with an active lane the addresses of m and a[t] 10,
 * then the multiply and a's own address 5, the subtract 1; the yidx == 0
 * test 2; in the lanes with y == 0 the addresses of m and b (4, counted
 * with the multiply) and the multiply with b[x]'s address 3, the subtract
 * 1. m is reloaded for b's update because the store to a may alias it (no
 * __restrict__).
 */
#define G_X "bx*bdx + tx"
#define G_Y "by*bdy + ty"
static const char *const g_params[] = {"size", "t", NULL};
static const char *const fan1_bufs[] = {"m_cuda", "a_cuda", NULL};
static const char *const fan2_bufs[] = {"m_cuda", "a_cuda", "b_cuda", NULL};
static const struct kd_desc g_kd[2] = {
    {.name = "Fan1", .params = g_params, .bufs = fan1_bufs, .range_join = 64,
     .body = "alu 12 + 13 [gid < size - 1 - t]\n"
             "if gid < size - 1 - t\n"
             "  load a_cuda[size*(gid + t + 1) + t] 4 -> r1\n"
             "  load a_cuda[size*t + t] 4 -> r2\n"
             "  alu 2 < r1 r2                                 # the division\n"
             "  store m_cuda[size*(gid + t + 1) + t] 4\n"
             "end\n"},
    {.name = "Fan2", .params = g_params, .bufs = fan2_bufs, .range_join = 64,
     .body = "alu 13 + 7 [" G_X " < size - 1 - t]\n"
             "if " G_X " < size - 1 - t\n"
             "  if " G_Y " < size - t\n"
             "    alu 10\n"
             "    load m_cuda[size*(" G_X " + 1 + t) + t] 4 -> r1\n"
             "    load a_cuda[size*t + " G_Y " + t] 4 -> r2\n"
             "    load a_cuda[size*(" G_X " + 1 + t) + " G_Y " + t] 4 -> r3\n"
             "    alu 5 < r1 r2\n"
             "    alu 1 < r3\n"
             "    store a_cuda[size*(" G_X " + 1 + t) + " G_Y " + t] 4\n"
             "    alu 2                                       # yidx == 0\n"
             "    if " G_Y " < 1\n"
             "      load m_cuda[size*(" G_X " + 1 + t) + t] 4 -> r1\n"
             "      load b_cuda[t] 4 -> r2\n"
             "      load b_cuda[" G_X " + 1 + t] 4 -> r3\n"
             "      alu 7 < r1 r2\n"
             "      alu 1 < r3\n"
             "      store b_cuda[" G_X " + 1 + t] 4\n"
             "    end\n"
             "  end\n"
             "end\n"},
};

struct gaussian {
    struct wl_env *env;
    struct kd_prog *prog[2];
    const struct kernel_buf *m, *a, *b;
    uint32_t size, block, bxy, grid1, grid2;
    unsigned kernels;
};

static void gaussian_destroy(void *self)
{
    struct gaussian *g = self;
    kd_progs_free(g->prog, 2);
    free(g);
}

static void *gaussian_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct gaussian *g = xcalloc(1, sizeof *g);
    g->env = env;
    if (kd_compile_all(g_kd, 2, g->prog, e)) {
        gaussian_destroy(g);
        return NULL;
    }
    g->size = (uint32_t)cfg_uint(sec, "size");
    g->block = (uint32_t)cfg_uint(sec, "block");
    g->bxy = (uint32_t)cfg_uint(sec, "block_xy");
    g->grid1 = (uint32_t)div_ceil(g->size, g->block);
    g->grid2 = (uint32_t)div_ceil(g->size, g->bxy);
    uint64_t n2 = (uint64_t)g->size * g->size * 4;
    g->m = wl_alloc(env, "m_cuda", n2);
    g->a = wl_alloc(env, "a_cuda", n2);
    g->b = wl_alloc(env, "b_cuda", (uint64_t)g->size * 4);
    return g;
}

/* Kernel 2t is Fan1 of row t, 2t+1 its Fan2. */
static bool gaussian_next_kernel(void *self, struct kernel *k)
{
    struct gaussian *g = self;
    uint32_t t = g->kernels / 2;
    if (t >= g->size - 1)
        return false;
    unsigned fan2 = g->kernels++ % 2;
    const struct kernel_buf *bufs[3] = {g->m, g->a, g->b};
    int64_t params[] = {g->size, t};
    struct kernel_dim grid = {g->grid1, 1, 1}, block = {g->block, 1, 1};
    if (fan2) {
        grid = (struct kernel_dim){g->grid2, g->grid2, 1};
        block = (struct kernel_dim){g->bxy, g->bxy, 1};
    }
    struct err e;
    if (kd_launch(g->prog[fan2], k, grid, block, params, bufs, NULL, &e))
        return wl_fail(g->env, &e);
    return true;
}

static const char *const gaussian_small[] = {"size=30", NULL};

const struct wl_ops wl_gaussian = {
    .name = "gaussian",
    .suite = "Rodinia",
    .desc = "Rodinia gaussian: forward elimination, Fan1 and Fan2 kernels per row",
    .keys = gaussian_keys,
    .small = gaussian_small,
    .create = gaussian_create,
    .next_kernel = gaussian_next_kernel,
    .destroy = gaussian_destroy,
};
