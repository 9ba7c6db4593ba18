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
#include <string.h>

#include "workload/kdw.h"

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
enum { K_INIT, K_COPY, K_MUL, K_ADD, K_TRIAD, K_DOT, K_N };

/* ALU counts from the kernels' PTX (see the file header): the first op has
 * the parameter loads (one per argument), the three special registers, the
 * mad for i, its widened byte offset and the address of the first array
 * (copy, mul: 2 + 6; add, triad: 3 + 6 plus the second array's address,
 * computed between the two loads); after the loads the address of the
 * stored array (1) and the FP op (1; triad's scalar * c + b is one fma).
 * init: 6 parameters, 6 for i and a's address, then one address before each
 * further store (2), counted in its one op.
 *
 * dot_kernel. Prologue, once per warp: parameters, ids, i, tb_sum[local_i]'s
 * LDS address, the zero and the loop test (14), the loop's preheader (stride,
 * the zero sum: 3), the reduction loop's entry (offset = blockDim.x / 2 and
 * its test: 3) and the local_i == 0 test (2): 22. Per grid-stride
 * iteration: i's byte offset and the two addresses, then after the loads
 * i += stride, compare, branch (3 + 3, counted together: 6), and the fma
 * (1). Per reduction step: the local_i < offset test after the barrier and
 * offset /= 2, compare, branch (2 + 3: 5); in the adding lanes the address
 * of tb_sum[local_i + offset] (2) and the add (1). The running sum stays in
 * a register (the compiler promotes tb_sum[local_i] out of the loop, which
 * has no barrier), so tb_sum is stored once. Thread 0's address of
 * sum[blockIdx.x] (2 instructions in one warp per work-group) is left out.
 * Each grid-stride pass of m0 is one iteration (iters passes cover every
 * element); each pass of m1 one halving step, its offset read from `half`
 * (blockDim.x / 2, / 4, ... 1). */
static const char *const bs_params[] = {"E", "n", "iters", "steps", NULL};
static const char *const bs_half[] = {"half", NULL};
#define BS_KD(kname, b, text) {.name = kname, .params = bs_params, .bufs = b, .body = text}
static const char *const init_bufs[] = {"a", "b", "c", NULL}, *const copy_bufs[] = {"a", "c", NULL},
                  *const mul_bufs[] = {"b", "c", NULL}, *const dot_bufs[] = {"a", "b", "sums", NULL};
static const struct kd_desc bs_kd[K_N] = {
    [K_INIT] = BS_KD("init_kernel", init_bufs,
                     "alu 14\n"
                     "store a[gid] E\n"
                     "store b[gid] E\n"
                     "store c[gid] E\n"),
    [K_COPY] = BS_KD("copy_kernel", copy_bufs,
                     "alu 8\n"
                     "load a[gid] E -> r1\n"
                     "alu 1\n"
                     "store c[gid] E < r1\n"),
    [K_MUL] = BS_KD("mul_kernel", mul_bufs,
                    "alu 8\n"
                    "load c[gid] E -> r1\n"
                    "alu 1\n"
                    "alu 1 < r1\n"
                    "store b[gid] E < r1\n"),
    [K_ADD] = BS_KD("add_kernel", init_bufs,
                    "alu 10\n"
                    "load a[gid] E -> r1\n"
                    "load b[gid] E -> r2\n"
                    "alu 1\n"
                    "alu 1 < r1 r2\n"
                    "store c[gid] E < r1 r2\n"),
    [K_TRIAD] = BS_KD("triad_kernel", init_bufs,
                      "alu 10\n"
                      "load b[gid] E -> r1\n"
                      "load c[gid] E -> r2\n"
                      "alu 1\n"
                      "alu 1 < r1 r2\n"
                      "store a[gid] E < r1 r2\n"),
    [K_DOT] = {.name = "dot_kernel", .params = bs_params, .bufs = dot_bufs, .arrays = bs_half,
               .body = "alu 22\n"
                       "for m0 = 0 .. iters\n"
                       "  if gid + m0*gdx*bdx < n\n"
                       "    alu 6\n"
                       "    load a[gid + m0*gdx*bdx] E -> r1\n"
                       "    load b[gid + m0*gdx*bdx] E -> r2\n"
                       "    alu 1 < r1 r2\n"
                       "  end\n"
                       "end\n"
                       "lds_store lds[tx] E              # tb_sum[local_i] = sum\n"
                       "for m1 = 0 .. steps\n"
                       "  alu 5\n"
                       "  barrier\n"
                       "  if tx < @half[m1]\n"
                       "    lds_load lds[tx + @half[m1]] E -> r3\n"
                       "    lds_load lds[tx] E -> r4\n"
                       "    alu 3 < r3 r4\n"
                       "    lds_store lds[tx] E < r3 r4\n"
                       "  end\n"
                       "end\n"
                       "if tx < 1                         # thread 0\n"
                       "  lds_load lds[0] E -> r5\n"
                       "  store sums[bx] E < r5\n"
                       "end\n"},
};

struct bs {
    struct kdw w;
    const struct kernel_buf *arr[3], *sums;
    uint64_t n, elem;
    uint32_t tb, dot_blocks;
    unsigned iterations, steps;
    uint32_t half[32]; /* [steps]: the reduction's offsets */
};

static int bs_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct bs *b = (struct bs *)w;
    uint64_t n = cfg_uint(sec, "n"), tb = cfg_uint(sec, "tbsize");
    if (n % tb)
        return cfg_err(e, sec, "n", "must be a multiple of tbsize (%llu), as HIPStream requires",
                       (unsigned long long)tb);
    if (tb % w->env->warp_size || !is_pow2(tb))
        return cfg_err(e, sec, "tbsize",
                       "must be a power of two and a multiple of the warp size (%u)",
                       w->env->warp_size);
    b->n = n;
    b->tb = (uint32_t)tb;
    b->dot_blocks = (uint32_t)cfg_uint(sec, "dot_blocks");
    b->iterations = (unsigned)cfg_uint(sec, "iterations");
    b->elem = cfg_enum(sec, "type") == 0 ? 8 : 4;
    for (uint32_t off = b->tb / 2; off; off /= 2)
        b->half[b->steps++] = off;
    static const char *const names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++)
        b->arr[i] = wl_alloc(w->env, names[i], n * b->elem);
    b->sums = wl_alloc(w->env, "sums", b->dot_blocks * b->elem);
    return 0;
}

/* Launch i: init, then copy, mul, add, triad and dot `iterations` times. */
static bool bs_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct bs *b = (const struct bs *)w;
    if (i == 1 + 5ull * b->iterations)
        return false;
    unsigned kind = i ? 1 + (unsigned)((i - 1) % 5) : K_INIT;
    bool dot = kind == K_DOT;
    uint32_t grid = dot ? b->dot_blocks : (uint32_t)(b->n / b->tb);
    const struct kernel_buf *const bufs[K_N][3] = {
        [K_INIT] = {b->arr[BS_A], b->arr[BS_B], b->arr[BS_C]},
        [K_COPY] = {b->arr[BS_A], b->arr[BS_C]},
        [K_MUL] = {b->arr[BS_B], b->arr[BS_C]},
        [K_ADD] = {b->arr[BS_A], b->arr[BS_B], b->arr[BS_C]},
        [K_TRIAD] = {b->arr[BS_A], b->arr[BS_B], b->arr[BS_C]},
        [K_DOT] = {b->arr[BS_A], b->arr[BS_B], b->sums},
    };
    *l = (struct kdw_launch){.prog = kind, .grid = {grid, 1, 1}, .block = {b->tb, 1, 1},
                             .params = {(int64_t)b->elem, (int64_t)b->n,
                                        (int64_t)div_ceil(b->n, (uint64_t)grid * b->tb),
                                        b->steps},
                             .arrays = {{b->half, b->steps}},
                             .lds_b = dot ? (uint32_t)(b->tb * b->elem) : 0};
    memcpy(l->bufs, bufs[kind], sizeof bufs[kind]);
    return true;
}

static const struct kd_desc *const bs_descs[] = {&bs_kd[K_INIT], &bs_kd[K_COPY], &bs_kd[K_MUL],
                                                 &bs_kd[K_ADD], &bs_kd[K_TRIAD], &bs_kd[K_DOT],
                                                 NULL};
static const struct kdw_model bs_model = {
    .size = sizeof(struct bs), .descs = bs_descs, .setup = bs_setup, .plan = bs_plan};

static void *bs_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&bs_model, env, sec, e);
}

static const char *const bs_small[] = {"n=16384", "iterations=2", "dot_blocks=8", NULL};

const struct wl_ops wl_babelstream = {
    .name = "babelstream",
    .suite = "BabelStream",
    .desc = "BabelStream (HIP): copy, mul, add, triad, dot over three arrays, iterated",
    .keys = bs_keys,
    .small = bs_small,
    .create = bs_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
