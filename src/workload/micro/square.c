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
#include <stdlib.h>

#include "workload/wl.h"

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
 * multiply (1). */
enum { SQ_PROLOGUE = 13, SQ_ADDR_A = 2, SQ_LOOP = 4, SQ_MUL = 1 };

struct square {
    const struct kernel_buf *a, *c;
    uint64_t n;
    uint32_t blocks, threads;
    unsigned iterations, kernels;
};

static void *square_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    (void)e; /* the key table's ranges are the only constraints */
    struct square *q = xcalloc(1, sizeof *q);
    q->n = cfg_uint(sec, "n");
    q->blocks = (uint32_t)cfg_uint(sec, "blocks");
    q->threads = (uint32_t)cfg_uint(sec, "threads");
    q->iterations = (unsigned)cfg_uint(sec, "iterations");
    q->a = wl_alloc(env, "A_d", q->n * 4);
    q->c = wl_alloc(env, "C_d", q->n * 4);
    return q;
}

static void square_destroy(void *self)
{
    free(self);
}

static uint64_t square_stride(const struct square *q)
{
    return (uint64_t)q->blocks * q->threads;
}

static void square_mem(struct kernel_op *op, uint8_t kind, const struct kernel_buf *b,
                       uint64_t elem, uint64_t mask)
{
    op->kind = kind;
    op->size = 4;
    op->stride = 4;
    op->base = b->base + elem * 4;
    op->mask = mask;
    op->src[0] = kind == KOP_STORE ? 1 : 0;
    op->dst = kind == KOP_LOAD ? 1 : 0;
}

static void square_alu(struct kernel_op *op, uint32_t n, uint8_t src)
{
    op->kind = KOP_ALU;
    op->n = n;
    op->src[0] = src;
}

/* r[0]: grid-stride iteration; pc: 0 prologue, then per iteration 1 address
 * of A_d, 2 load, 3 address of C_d and loop step, 4 multiply, 5 store. */
static void square_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct square *q = k->ctx;
    if (w->pc == 0) {
        square_alu(op, SQ_PROLOGUE, 0);
        w->pc = 1;
        return;
    }
    uint64_t elem = kernel_gid(w, 0) + w->r[0] * square_stride(q);
    if (elem >= q->n) {
        op->kind = KOP_EXIT;
        return;
    }
    uint64_t act = min_u64(w->nlanes, q->n - elem);
    uint64_t mask = act >= 64 ? ~0ull : (1ull << act) - 1;
    switch (w->pc) {
    case 1: square_alu(op, SQ_ADDR_A, 0); break;
    case 2: square_mem(op, KOP_LOAD, q->a, elem, mask); break;
    case 3: square_alu(op, SQ_LOOP, 0); break;
    case 4: square_alu(op, SQ_MUL, 1); break;
    default:
        square_mem(op, KOP_STORE, q->c, elem, mask);
        w->r[0]++;
        w->pc = 1;
        return;
    }
    w->pc++;
}

/* The slices [lo, hi) of every grid-stride iteration of work-group wg, merged
 * where they touch (only when there is one work-group); 0 when more than max. */
static unsigned square_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                              struct kernel_range *out, unsigned max)
{
    const struct square *q = k->ctx;
    if (arg >= k->nargs)
        return 0;
    addr_t base = k->args[arg].buf->base;
    unsigned n = 0;
    for (uint64_t lo = (uint64_t)wg * q->threads; lo < q->n; lo += square_stride(q)) {
        uint64_t hi = min_u64(lo + q->threads, q->n);
        if (n && out[n - 1].hi == base + lo * 4) {
            out[n - 1].hi = base + hi * 4;
            continue;
        }
        if (n == max)
            return 0;
        out[n++] = (struct kernel_range){base + lo * 4, base + hi * 4};
    }
    return n;
}

static bool square_next_kernel(void *self, struct kernel *k)
{
    struct square *q = self;
    if (q->kernels == q->iterations)
        return false;
    wl_kernel_init(k, "square", q->blocks, 1, q->threads, 1, square_next);
    wl_kernel_arg(k, q->a, KERNEL_R);
    wl_kernel_arg(k, q->c, KERNEL_RW);
    for (unsigned i = 0; i < k->nargs; i++)
        k->args[i].same_pattern = q->kernels > 0;
    k->ranges = square_ranges;
    k->ctx = q;
    q->kernels++;
    return true;
}

static const char *const square_small[] = {"n=8192", "blocks=16", "iterations=2", NULL};

const struct wl_ops wl_square = {
    .name = "square",
    .desc = "HIP-Examples square: C_d[i] = A_d[i] * A_d[i], grid-stride loop",
    .keys = square_keys,
    .small = square_small,
    .create = square_create,
    .next_kernel = square_next_kernel,
    .destroy = square_destroy,
};
