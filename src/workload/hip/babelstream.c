/*
 * babelstream.c -- BabelStream (UoB-HPC), HIP implementation HIPStream.cpp:
 * init_kernel once, then `num_times` iterations of copy, mul, add, triad and
 * dot over three arrays of `n` doubles (Table II: n = 524288, the default
 * 100 iterations).
 *
 * Modelled: TBSIZE = 1024 threads per work-group; the element-wise kernels
 * have n / TBSIZE work-groups, one element per thread (c[i] = a[i];
 * b[i] = s * c[i]; c[i] = a[i] + b[i]; a[i] = b[i] + s * c[i]); dot has
 * DOT_NUM_BLOCKS = 256 work-groups that accumulate a[i] * b[i] over a
 * grid-stride loop, reduce the work-group's partial sums in LDS (tb_sum,
 * a __syncthreads() per halving step) and store one partial sum per
 * work-group into `sums`. Every work-group declares its exact slices.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of these kernels
 * (every instruction but global and LDS loads and stores, barriers, ret and
 * cvta.to.global; double and float give the same counts); blocks with no
 * op of their own are counted in the nearest op run as often. See
 * docs/workloads/babelstream.md.
 * Abstracted: no data values; the host's final sum over `sums` (a copy to
 * the host) is not modelled.
 */
#include <stdlib.h>

#include "workload/wl.h"

static const struct cfg_key bs_keys[] = {
    {"n", CFG_INT, "524288", 1, 2147483647.0, "array size in elements (-s)", NULL},
    {"iterations", CFG_INT, "100", 2, 1000000, "times each kernel runs (-n, num_times)", NULL},
    {"tbsize", CFG_INT, "1024", 64, 1024, "threads per work-group (TBSIZE)", NULL},
    {"dot_blocks", CFG_INT, "256", 1, 65536, "work-groups of the dot kernel (DOT_NUM_BLOCKS)",
     NULL},
    {"type", CFG_ENUM, "double", 0, 0, "element type (--float selects float)", "double|float"},
    CFG_END,
};

enum { BS_A, BS_B, BS_C };
enum { K_INIT, K_COPY, K_MUL, K_ADD, K_TRIAD, K_DOT };
static const char *const bs_names[] = {"init_kernel", "copy_kernel",  "mul_kernel",
                                       "add_kernel",  "triad_kernel", "dot_kernel"};

/* One step of an element-wise kernel: kind, array, ALU count, registers;
 * each kernel's row ends with KOP_EXIT. */
struct bs_op {
    uint8_t kind, arr, n, dst, src0, src1;
};

/* ALU counts from the kernels' PTX (see the file header): the first op has
 * the parameter loads (one per argument), the three special registers, the
 * mad for i, its widened byte offset and the address of the first array
 * (copy, mul: 2 + 6; add, triad: 3 + 6 plus the second array's address,
 * computed between the two loads); after the loads the address of the
 * stored array (1) and the FP op (1; triad's scalar * c + b is one fma).
 * init: 6 parameters, 6 for i and a's address, then one address before each
 * further store (2), counted in its one op. */
static const struct bs_op bs_ops[5][8] = {
    [K_INIT] = {{KOP_ALU, 0, 14, 0, 0, 0},
                {KOP_STORE, BS_A, 0, 0, 0, 0},
                {KOP_STORE, BS_B, 0, 0, 0, 0},
                {KOP_STORE, BS_C, 0, 0, 0, 0},
                {KOP_EXIT, 0, 0, 0, 0, 0}},
    [K_COPY] = {{KOP_ALU, 0, 8, 0, 0, 0},
                {KOP_LOAD, BS_A, 0, 1, 0, 0},
                {KOP_ALU, 0, 1, 0, 0, 0},
                {KOP_STORE, BS_C, 0, 0, 1, 0},
                {KOP_EXIT, 0, 0, 0, 0, 0}},
    [K_MUL] = {{KOP_ALU, 0, 8, 0, 0, 0},
               {KOP_LOAD, BS_C, 0, 1, 0, 0},
               {KOP_ALU, 0, 1, 0, 0, 0},
               {KOP_ALU, 0, 1, 0, 1, 0},
               {KOP_STORE, BS_B, 0, 0, 1, 0},
               {KOP_EXIT, 0, 0, 0, 0, 0}},
    [K_ADD] = {{KOP_ALU, 0, 10, 0, 0, 0},
               {KOP_LOAD, BS_A, 0, 1, 0, 0},
               {KOP_LOAD, BS_B, 0, 2, 0, 0},
               {KOP_ALU, 0, 1, 0, 0, 0},
               {KOP_ALU, 0, 1, 0, 1, 2},
               {KOP_STORE, BS_C, 0, 0, 1, 2},
               {KOP_EXIT, 0, 0, 0, 0, 0}},
    [K_TRIAD] = {{KOP_ALU, 0, 10, 0, 0, 0},
                 {KOP_LOAD, BS_B, 0, 1, 0, 0},
                 {KOP_LOAD, BS_C, 0, 2, 0, 0},
                 {KOP_ALU, 0, 1, 0, 0, 0},
                 {KOP_ALU, 0, 1, 0, 1, 2},
                 {KOP_STORE, BS_A, 0, 0, 1, 2},
                 {KOP_EXIT, 0, 0, 0, 0, 0}},
};

/* dot_kernel ALU counts from the PTX (see the file header). Prologue, once
 * per warp: parameters, ids, i, tb_sum[local_i]'s LDS address, the zero and
 * the loop test (14), the loop's preheader (stride, the zero sum: 3), the
 * reduction loop's entry (offset = blockDim.x / 2 and its test: 3) and the
 * local_i == 0 test (2). Per grid-stride iteration: i's byte offset and the
 * two addresses, then after the loads i += stride, compare, branch (3 + 3,
 * counted together), and the fma (1). Per reduction step: the local_i <
 * offset test after the barrier and offset /= 2, compare, branch (2 + 3);
 * in the adding lanes the address of tb_sum[local_i + offset] (2) and the
 * add (1). The running sum stays in a register (the compiler promotes
 * tb_sum[local_i] out of the loop, which has no barrier), so tb_sum is
 * stored once. Thread 0's address of sum[blockIdx.x] (2 instructions in one
 * warp per work-group) is left out. */
enum { DOT_PROLOGUE = 22, DOT_LOOP = 6, DOT_STEP = 5, DOT_ADD = 3 };

struct bs {
    const struct kernel_buf *arr[3], *sums;
    uint64_t n, elem;
    uint32_t tb, dot_blocks;
    unsigned iterations, kernels;
};

static void *bs_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t n = cfg_uint(sec, "n"), tb = cfg_uint(sec, "tbsize");
    if (n % tb) {
        cfg_err(e, sec, "n", "must be a multiple of tbsize (%llu), as HIPStream requires",
                (unsigned long long)tb);
        return NULL;
    }
    if (tb % env->warp_size || !is_pow2(tb)) {
        cfg_err(e, sec, "tbsize", "must be a power of two and a multiple of the warp size (%u)",
                env->warp_size);
        return NULL;
    }
    struct bs *b = xcalloc(1, sizeof *b);
    b->n = n;
    b->tb = (uint32_t)tb;
    b->dot_blocks = (uint32_t)cfg_uint(sec, "dot_blocks");
    b->iterations = (unsigned)cfg_uint(sec, "iterations");
    b->elem = cfg_enum(sec, "type") == 0 ? 8 : 4;
    static const char *const names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++)
        b->arr[i] = wl_alloc(env, names[i], n * b->elem);
    b->sums = wl_alloc(env, "sums", b->dot_blocks * b->elem);
    return b;
}

static void bs_destroy(void *self)
{
    free(self);
}

static void bs_mem(struct kernel_op *op, uint8_t kind, addr_t base, uint64_t elem, uint64_t mask)
{
    op->kind = kind;
    op->size = (uint8_t)elem;
    op->stride = (int64_t)elem;
    op->base = base;
    op->mask = mask;
}

/* Element-wise kernels: the table's steps, then exit. */
static void bs_next_elem(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct bs *b = k->ctx;
    const struct bs_op *s = &bs_ops[k->p[0]][w->pc];
    if (s->kind == KOP_EXIT) { /* every row ends with KOP_EXIT */
        op->kind = KOP_EXIT;
        return;
    }
    if (s->kind == KOP_ALU) {
        op->kind = KOP_ALU;
        op->n = s->n;
    } else {
        bs_mem(op, s->kind, b->arr[s->arr]->base + kernel_gid(w, 0) * b->elem, b->elem, 0);
    }
    op->dst = s->dst;
    op->src[0] = s->src0;
    op->src[1] = s->src1;
    w->pc++;
}

static uint64_t lane_mask(uint64_t n)
{
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* dot_kernel phases (pc): 0 prologue; 1-4 one grid-stride iteration
 * (addresses, load a, load b, fma; r[0] counts them); 5 store tb_sum[tid];
 * then per halving step (r[1] = offset) 6 loop control, 7 barrier, 8-11
 * load tb_sum[tid + offset], load tb_sum[tid], add, store; 12-13 thread 0
 * loads tb_sum[0] and stores sums[blockIdx.x]; 14 exit. */
static bool dot_loop(const struct bs *b, struct kernel_warp *w, struct kernel_op *op)
{
    uint64_t stride = (uint64_t)b->dot_blocks * b->tb;
    uint64_t i = kernel_gid(w, 0) + w->r[0] * stride;
    uint64_t mask = i < b->n ? lane_mask(min_u64(w->nlanes, b->n - i)) : 0;
    if (!mask) {
        w->pc = 5;
        return false;
    }
    switch (w->pc) {
    case 1:
        op->kind = KOP_ALU;
        op->n = DOT_LOOP;
        break;
    case 2:
        bs_mem(op, KOP_LOAD, b->arr[BS_A]->base + i * b->elem, b->elem, mask);
        op->dst = 1;
        break;
    case 3:
        bs_mem(op, KOP_LOAD, b->arr[BS_B]->base + i * b->elem, b->elem, mask);
        op->dst = 2;
        break;
    default:
        op->kind = KOP_ALU;
        op->n = 1;
        op->src[0] = 1;
        op->src[1] = 2;
        break;
    }
    w->pc = w->pc == 4 ? 1 : w->pc + 1;
    w->r[0] += w->pc == 1;
    return true;
}

static void dot_lds(const struct bs *b, struct kernel_op *op, uint8_t kind, uint64_t tid0,
                    uint64_t mask)
{
    bs_mem(op, kind, tid0 * b->elem, b->elem, mask);
}

static void dot_reduce(const struct bs *b, struct kernel_warp *w, struct kernel_op *op)
{
    uint64_t off = w->r[1], tid0 = kernel_tid(w, 0);
    uint64_t act = tid0 < off ? min_u64(w->nlanes, off - tid0) : 0;
    switch (w->pc) {
    case 6:
        op->kind = KOP_ALU;
        op->n = DOT_STEP;
        break;
    case 7:
        op->kind = KOP_BARRIER;
        break;
    case 8:
        dot_lds(b, op, KOP_LDS_LOAD, tid0 + off, lane_mask(act));
        op->dst = 3;
        break;
    case 9:
        dot_lds(b, op, KOP_LDS_LOAD, tid0, lane_mask(act));
        op->dst = 4;
        break;
    case 10:
        op->kind = KOP_ALU;
        op->n = DOT_ADD;
        op->src[0] = 3;
        op->src[1] = 4;
        break;
    default:
        dot_lds(b, op, KOP_LDS_STORE, tid0, lane_mask(act));
        op->src[0] = 3;
        op->src[1] = 4;
    }
    if (w->pc == 7 && !act)
        w->pc = 11; /* exec mask empty: the warp branches over the body */
    if (w->pc == 11) {
        w->r[1] /= 2;
        w->pc = w->r[1] ? 6 : 12;
        return;
    }
    w->pc++;
}

static void bs_next_dot(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct bs *b = k->ctx;
    if (w->pc == 0) {
        op->kind = KOP_ALU;
        op->n = DOT_PROLOGUE;
        w->pc = 1;
        return;
    }
    if (w->pc >= 1 && w->pc <= 4 && dot_loop(b, w, op))
        return;
    if (w->pc == 5) {
        dot_lds(b, op, KOP_LDS_STORE, kernel_tid(w, 0), 0);
        w->r[1] = b->tb / 2;
        w->pc = 6;
        return;
    }
    if (w->pc >= 6 && w->pc <= 11) {
        dot_reduce(b, w, op);
        return;
    }
    if (w->pc == 12 && w->warp == 0) {
        dot_lds(b, op, KOP_LDS_LOAD, 0, 1);
        op->dst = 5;
        w->pc = 13;
        return;
    }
    if (w->pc == 13) {
        bs_mem(op, KOP_STORE, b->sums->base + w->wg * b->elem, b->elem, 1);
        op->src[0] = 5;
        w->pc = 14;
        return;
    }
    op->kind = KOP_EXIT;
}

static unsigned bs_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct kernel_range *out, unsigned max)
{
    const struct bs *b = k->ctx;
    if (arg >= k->nargs || !max)
        return 0;
    addr_t base = k->args[arg].buf->base;
    if (k->args[arg].buf == b->sums) {
        out[0] = (struct kernel_range){base + wg * b->elem, base + (wg + 1) * b->elem};
        return 1;
    }
    uint64_t stride = (uint64_t)kernel_nwg(k) * b->tb, n = 0;
    for (uint64_t lo = (uint64_t)wg * b->tb; lo < b->n; lo += stride) {
        if (n == max)
            return 0;
        uint64_t hi = min_u64(lo + b->tb, b->n);
        out[n++] = (struct kernel_range){base + lo * b->elem, base + hi * b->elem};
    }
    return (unsigned)n;
}

/* Dot's work-groups cover the same slices as the element-wise kernels'. */
static bool dot_is_elementwise(const struct bs *b)
{
    return b->dot_blocks == b->n / b->tb;
}

static void bs_arg(struct kernel *k, const struct kernel_buf *buf, enum kernel_mode m, bool same)
{
    wl_kernel_arg(k, buf, m);
    k->args[k->nargs - 1].same_pattern = same;
}

/* Arguments in HIPStream's order; same_pattern when the previous kernel that
 * used the array had the same work-groups and slices. */
static void bs_args(const struct bs *b, struct kernel *k, unsigned kind, bool first_iter)
{
    bool after_dot = first_iter || dot_is_elementwise(b); /* previous user was init or dot */
    const struct kernel_buf *const *a = b->arr;
    switch (kind) {
    case K_INIT:
        for (int i = 0; i < 3; i++)
            bs_arg(k, a[i], KERNEL_RW, false);
        break;
    case K_COPY:
        bs_arg(k, a[BS_A], KERNEL_R, after_dot);
        bs_arg(k, a[BS_C], KERNEL_RW, true);
        break;
    case K_MUL:
        bs_arg(k, a[BS_B], KERNEL_RW, after_dot);
        bs_arg(k, a[BS_C], KERNEL_R, true);
        break;
    case K_ADD:
    case K_TRIAD:
        bs_arg(k, a[BS_A], kind == K_ADD ? KERNEL_R : KERNEL_RW, true);
        bs_arg(k, a[BS_B], KERNEL_R, true);
        bs_arg(k, a[BS_C], kind == K_ADD ? KERNEL_RW : KERNEL_R, true);
        break;
    default:
        bs_arg(k, a[BS_A], KERNEL_R, dot_is_elementwise(b));
        bs_arg(k, a[BS_B], KERNEL_R, dot_is_elementwise(b));
        bs_arg(k, b->sums, KERNEL_RW, !first_iter);
    }
}

static bool bs_next_kernel(void *self, struct kernel *k)
{
    struct bs *b = self;
    if (b->kernels == 1 + 5ull * b->iterations)
        return false;
    unsigned kind = b->kernels ? 1 + (b->kernels - 1) % 5 : K_INIT;
    bool dot = kind == K_DOT;
    wl_kernel_init(k, bs_names[kind], dot ? b->dot_blocks : (uint32_t)(b->n / b->tb), 1, b->tb, 1,
                   dot ? bs_next_dot : bs_next_elem);
    if (dot)
        k->lds_b = (uint32_t)(b->tb * b->elem);
    k->p[0] = kind;
    bs_args(b, k, kind, b->kernels <= 5);
    k->ranges = bs_ranges;
    k->ctx = b;
    b->kernels++;
    return true;
}

static const char *const bs_small[] = {"n=16384", "iterations=2", "dot_blocks=8", NULL};

const struct wl_ops wl_babelstream = {
    .name = "babelstream",
    .desc = "BabelStream (HIP): copy, mul, add, triad, dot over three arrays, iterated",
    .keys = bs_keys,
    .small = bs_small,
    .create = bs_create,
    .next_kernel = bs_next_kernel,
    .destroy = bs_destroy,
};
