/*
 * backprop.c -- Rodinia backprop (facetrain.c, backprop.c, backprop_cuda.cu,
 * backprop_cuda_kernel.cu): one training pass of a layer_size x 16 x 1
 * network, whose two GPU kernels are
 *   bpnn_layerforward_CUDA   grid (1, layer_size / 16), block (16, 16):
 *       input_node[ty] = input_cuda[16 by + ty + 1] (tx == 0);  barrier;
 *       weight_matrix[ty][tx] = input_hidden_cuda[index];         barrier;
 *       weight_matrix[ty][tx] *= input_node[ty];                  barrier;
 *       log2(16) = 4 reduction steps over ty, each ending in a barrier;
 *       input_hidden_cuda[index] = weight_matrix[ty][tx];         barrier;
 *       hidden_partial_sum[by * 16 + ty] = weight_matrix[0][ty] (tx == 0)
 *   bpnn_adjust_weights_cuda same geometry: w[index] and oldw[index] from
 *       delta[tx + 1], ly[16 by + ty + 1] and oldw[index]; barrier; work-group
 *       0's first row of threads also updates w[tx + 1], oldw[tx + 1]
 * with index = 17 * 16 * by + 17 * ty + tx + 1 + 17 (hidden + 1 = 17 columns).
 * The host work between them (the output layer, errors) runs on the CPU.
 * Both kernels are kernel descriptions (src/workload/kd.h); each work-group's
 * ranges are derived from them.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * backprop_cuda_kernel.cu (every instruction but global and LDS loads and
 * stores, barriers, ret and cvta.to.global); blocks with no op of their own
 * are counted in the nearest op run as often. See docs/workloads/backprop.md.
 * Abstracted: data values; host copies between the kernels.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

#define BP_BLOCK 16 /* HEIGHT = WIDTH = 16 */
#define BP_HID 16   /* hidden units: bpnn_create(layer_size, 16, 1) */
#define BP_COLS (BP_HID + 1)
#define BP_LOG2 4   /* __log2f(HEIGHT) reduction steps */
#define BP_WM 64    /* LDS: input_node[16] at 0, weight_matrix[16][16] after it */

static const struct cfg_key backprop_keys[] = {
    {"layer_size", CFG_INT, "65536", 16, 67108864, "input layer units (a multiple of 16)", NULL},
    CFG_END,
};

/*
 * bpnn_layerforward_CUDA. ALU counts from the kernel's PTX (see the file
 * header): the first op carries all of the once-per-thread integer work, 36
 * instructions (17 before the first load: parameters, ids, the tx == 0
 * branch, index_in; 13 after the first barrier: index and the LDS
 * addresses; 6 in the tail: the tx == 0 test, hidden_partial_sum's
 * address). The compiler unrolls the reduction and folds __log2f and
 * __powf into constants: per step 5 (constant, convert, rem, compare,
 * branch), and in the adding lanes 4 for the address of
 * weight_matrix[ty + power_two / 2] plus the add. Step m0 adds where
 * @step[16 m0 + ty] is 1 (ty % power_two == 0, power_two = 2 << m0) and
 * reads the row @half[m0] = power_two / 2 below. LDS in floats:
 * input_node at 0, weight_matrix at 16.
 *
 * bpnn_adjust_weights_cuda. ETA and MOMENTUM are double literals, so each
 * update converts to double and back: for w[index] the conversions of
 * delta and ly and ETA * delta (3) with the addresses of ly, oldw and w
 * (5), then the conversions of oldw and w, MOMENTUM * oldw, the fused
 * multiply-add, the add and the conversion back (6); for oldw 3 and 4. The
 * stores go through float pointers that may alias the inputs, so the
 * compiler reloads delta, ly and oldw after the store to w. Parameters,
 * ids and index arithmetic: 18; the ty == 0 && by == 0 test: 3; the bias
 * row 8 + 3 and 5.
 */
#define BP_INDEX "272*by + 17*ty + tx + 18"
static const char *const fwd_bufs[] = {"input_cuda", "input_hidden_cuda", "hidden_partial_sum",
                                       NULL};
static const char *const adj_bufs[] = {"hidden_delta_cuda", "input_cuda", "input_hidden_cuda",
                                       "input_prev_weights_cuda", NULL};
static const char *const fwd_arrays[] = {"step", "half", NULL};
static const struct kd_desc bp_kd[2] = {
    {.name = "bpnn_layerforward_CUDA", .bufs = fwd_bufs, .arrays = fwd_arrays,
     .range_join = 64,
     .body = "alu 36\n"
             "if tx < 1\n"
             "  load input_cuda[16*by + ty + 1] 4 -> r1\n"
             "  lds_store lds[ty] 4 < r1                  # input_node[ty]\n"
             "end\n"
             "barrier\n"
             "load input_hidden_cuda[" BP_INDEX "] 4 -> r2\n"
             "lds_store lds[16 + 16*ty + tx] 4 < r2       # weight_matrix[ty][tx]\n"
             "barrier\n"
             "lds_load lds[16 + 16*ty + tx] 4 -> r3\n"
             "lds_load lds[ty] 4 -> r4\n"
             "alu 1 < r3 r4\n"
             "lds_store lds[16 + 16*ty + tx] 4\n"
             "barrier\n"
             "for m0 = 0 .. 4\n"
             "  alu 5\n"
             "  if 0 < @step[16*m0 + ty]                 # ty % power_two == 0\n"
             "    lds_load lds[16 + 16*ty + tx] 4 -> r5\n"
             "    lds_load lds[16 + 16*(ty + @half[m0]) + tx] 4 -> r6\n"
             "    alu 5 < r5 r6\n"
             "    lds_store lds[16 + 16*ty + tx] 4\n"
             "  end\n"
             "  barrier\n"
             "end\n"
             "lds_load lds[16 + 16*ty + tx] 4 -> r7\n"
             "store input_hidden_cuda[" BP_INDEX "] 4 < r7\n"
             "barrier\n"
             "if tx < 1\n"
             "  lds_load lds[16 + 16*tx + ty] 4 -> r8    # weight_matrix[tx][ty]\n"
             "  store hidden_partial_sum[16*by + ty] 4 < r8\n"
             "end\n"},
    {.name = "bpnn_adjust_weights_cuda", .bufs = adj_bufs, .range_join = 64,
     .body = "alu 18\n"
             "load hidden_delta_cuda[tx + 1] 4 -> r1\n"
             "load input_cuda[16*by + ty + 1] 4 -> r2\n"
             "load input_prev_weights_cuda[" BP_INDEX "] 4 -> r3\n"
             "load input_hidden_cuda[" BP_INDEX "] 4 -> r4\n"
             "alu 8 < r1 r2\n"
             "alu 6 < r3 r4\n"
             "store input_hidden_cuda[" BP_INDEX "] 4\n"
             "load hidden_delta_cuda[tx + 1] 4 -> r1     # reloaded: the store may alias\n"
             "load input_cuda[16*by + ty + 1] 4 -> r2\n"
             "load input_prev_weights_cuda[" BP_INDEX "] 4 -> r3\n"
             "alu 3 < r1 r2\n"
             "alu 4 < r3\n"
             "store input_prev_weights_cuda[" BP_INDEX "] 4\n"
             "barrier\n"
             "alu 3                                      # ty == 0 && by == 0\n"
             "if by < 1\n"
             "  if ty < 1\n"
             "    load hidden_delta_cuda[tx + 1] 4 -> r1\n"
             "    load input_prev_weights_cuda[tx + 1] 4 -> r3\n"
             "    load input_hidden_cuda[tx + 1] 4 -> r4\n"
             "    alu 8 < r1 r3\n"
             "    alu 3 < r4\n"
             "    store input_hidden_cuda[tx + 1] 4\n"
             "    load hidden_delta_cuda[tx + 1] 4 -> r1\n"
             "    load input_prev_weights_cuda[tx + 1] 4 -> r3\n"
             "    alu 5 < r1 r3\n"
             "    store input_prev_weights_cuda[tx + 1] 4\n"
             "  end\n"
             "end\n"},
};

struct backprop {
    struct wl_env *env;
    struct kd_prog *prog[2];
    const struct kernel_buf *input, *output_hidden, *weights, *partial, *delta, *prev;
    uint32_t nblocks;
    uint32_t step[BP_LOG2 * BP_BLOCK], half[BP_LOG2]; /* the reduction's lanes and offsets */
    unsigned kernels;
};

static void backprop_destroy(void *self)
{
    struct backprop *b = self;
    kd_progs_free(b->prog, 2);
    free(b);
}

static void bp_buffers(struct backprop *b, struct wl_env *env, uint64_t in)
{
    b->input = wl_alloc(env, "input_cuda", (in + 1) * 4);
    b->output_hidden = wl_alloc(env, "output_hidden_cuda", BP_COLS * 4);
    b->weights = wl_alloc(env, "input_hidden_cuda", (in + 1) * BP_COLS * 4);
    b->partial = wl_alloc(env, "hidden_partial_sum", (uint64_t)b->nblocks * BP_BLOCK * 4);
    b->delta = wl_alloc(env, "hidden_delta_cuda", BP_COLS * 4);
    b->prev = wl_alloc(env, "input_prev_weights_cuda", (in + 1) * BP_COLS * 4);
}

static void *backprop_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t in = cfg_uint(sec, "layer_size");
    if (in % BP_BLOCK) {
        cfg_err(e, sec, "layer_size", "must be a multiple of %d (the work-group height)",
                BP_BLOCK);
        return NULL;
    }
    struct backprop *b = xcalloc(1, sizeof *b);
    b->env = env;
    if (kd_compile_all(bp_kd, 2, b->prog, e)) {
        backprop_destroy(b);
        return NULL;
    }
    b->nblocks = (uint32_t)(in / BP_BLOCK);
    for (uint32_t s = 0; s < BP_LOG2; s++) {
        b->half[s] = 1u << s;
        for (uint32_t ty = 0; ty < BP_BLOCK; ty++)
            b->step[s * BP_BLOCK + ty] = ty % (2u << s) == 0;
    }
    bp_buffers(b, env, in);
    return b;
}

static bool backprop_next_kernel(void *self, struct kernel *k)
{
    struct backprop *b = self;
    if (b->kernels == 2)
        return false;
    unsigned j = b->kernels++;
    const struct kernel_buf *bufs[2][4] = {{b->input, b->weights, b->partial},
                                           {b->delta, b->input, b->weights, b->prev}};
    const struct kd_array arrays[] = {{b->step, BP_LOG2 * BP_BLOCK}, {b->half, BP_LOG2}};
    const int64_t none[1] = {0}; /* the kernels have no parameters */
    struct err e;
    if (kd_launch(b->prog[j], k, (struct kernel_dim){1, b->nblocks, 1},
                  (struct kernel_dim){BP_BLOCK, BP_BLOCK, 1}, none, bufs[j], arrays, &e))
        return wl_fail(b->env, &e);
    if (j == 0)
        k->lds_b = BP_WM + BP_BLOCK * BP_BLOCK * 4;
    return true;
}

static const char *const backprop_small[] = {"layer_size=1024", NULL};

const struct wl_ops wl_backprop = {
    .name = "backprop",
    .suite = "Rodinia",
    .desc = "Rodinia backprop: one training pass, layer-forward and weight-adjust kernels",
    .keys = backprop_keys,
    .small = backprop_small,
    .create = backprop_create,
    .next_kernel = backprop_next_kernel,
    .destroy = backprop_destroy,
};
