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
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * backprop_cuda_kernel.cu (every instruction but global and LDS loads and
 * stores, barriers, ret and cvta.to.global); blocks with no op of their own
 * are counted in the nearest op run as often. See docs/workloads/backprop.md.
 * Abstracted: data values; host copies between the kernels.
 */
#include <stdlib.h>

#include "workload/rodinia/dense.h"

#define BP_BLOCK 16 /* HEIGHT = WIDTH = 16 */
#define BP_HID 16   /* hidden units: bpnn_create(layer_size, 16, 1) */
#define BP_COLS (BP_HID + 1)
#define BP_LOG2 4   /* __log2f(HEIGHT) reduction steps */
#define BP_WM 64    /* LDS: input_node[16] at 0, weight_matrix[16][16] after it */

static const struct cfg_key backprop_keys[] = {
    {"layer_size", CFG_INT, "65536", 16, 67108864, "input layer units (a multiple of 16)", NULL},
    CFG_END,
};

struct backprop {
    const struct kernel_buf *input, *output_hidden, *weights, *partial, *delta, *prev;
    uint32_t in, nblocks;
    unsigned kernels;
};

static void *backprop_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t in = cfg_uint(sec, "layer_size");
    if (in % BP_BLOCK) {
        cfg_err(e, sec, "layer_size", "must be a multiple of %d (the work-group height)",
                BP_BLOCK);
        return NULL;
    }
    struct backprop *b = xcalloc(1, sizeof *b);
    b->in = (uint32_t)in;
    b->nblocks = (uint32_t)(in / BP_BLOCK);
    b->input = wl_alloc(env, "input_cuda", (in + 1) * 4);
    b->output_hidden = wl_alloc(env, "output_hidden_cuda", BP_COLS * 4);
    b->weights = wl_alloc(env, "input_hidden_cuda", (in + 1) * BP_COLS * 4);
    b->partial = wl_alloc(env, "hidden_partial_sum", (uint64_t)b->nblocks * BP_BLOCK * 4);
    b->delta = wl_alloc(env, "hidden_delta_cuda", BP_COLS * 4);
    b->prev = wl_alloc(env, "input_prev_weights_cuda", (in + 1) * BP_COLS * 4);
    return b;
}

static void backprop_destroy(void *self)
{
    free(self);
}

/* Element index of weight (ty, tx) of work-group row by. */
static uint64_t bp_index(uint32_t by, uint32_t ty, uint32_t tx)
{
    return (uint64_t)BP_COLS * BP_BLOCK * by + BP_COLS * ty + tx + 1 + BP_COLS;
}

/* Lane predicates. */
enum { BM_ALL, BM_TX0, BM_STEP, BM_ROW0 };
/* Address patterns: global (buffer given) and LDS. */
enum { BA_IN_Y, BA_INDEX, BA_PARTIAL, BA_X, BL_NODE, BL_WM, BL_WM_DOWN, BL_WM_T };

/* Lanes whose thread satisfies the predicate: all, tx == 0, ty % p == 0
 * (reduction step with power_two p), ty == 0 in work-group 0. */
static uint64_t bp_mask(const struct kernel_warp *w, unsigned pred, uint32_t p)
{
    uint64_t m = 0;
    if (pred == BM_ROW0 && w->wg_id.y != 0)
        return 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t tx = dn_tx(w, l), ty = dn_ty(w, l);
        bool on = pred == BM_ALL || (pred == BM_TX0 && tx == 0) ||
                  (pred == BM_STEP && ty % p == 0) || (pred == BM_ROW0 && ty == 0);
        m |= (uint64_t)on << l;
    }
    return m;
}

/* Byte address (global: in buf; LDS: offset) of pattern `what` for thread
 * (tx, ty) of work-group row by; p is the reduction step's power_two. */
static addr_t bp_addr(const struct kernel_buf *buf, unsigned what, uint32_t by, uint32_t tx,
                      uint32_t ty, uint32_t p)
{
    switch (what) {
    case BA_IN_Y: return buf->base + ((uint64_t)BP_BLOCK * by + ty + 1) * 4;
    case BA_INDEX: return buf->base + bp_index(by, ty, tx) * 4;
    case BA_PARTIAL: return buf->base + ((uint64_t)by * BP_HID + ty) * 4;
    case BA_X: return buf->base + (tx + 1u) * 4;
    case BL_NODE: return ty * 4u;
    case BL_WM: return BP_WM + (ty * BP_BLOCK + tx) * 4u;
    case BL_WM_DOWN: return BP_WM + ((ty + p / 2) * BP_BLOCK + tx) * 4u;
    default: return BP_WM + (tx * BP_BLOCK + ty) * 4u; /* BL_WM_T */
    }
}

/* A memory op of the lanes satisfying pred, at pattern `what`. */
static void bp_mem(struct kernel_warp *w, struct kernel_op *op, uint8_t kind,
                   const struct kernel_buf *buf, unsigned what, unsigned pred, uint8_t reg)
{
    uint32_t p = 2u << w->r[0];
    for (unsigned l = 0; l < w->nlanes; l++)
        w->lane_addr[l] = bp_addr(buf, what, w->wg_id.y, dn_tx(w, l), dn_ty(w, l), p);
    dn_lanes(op, kind, bp_mask(w, pred, p), reg);
}

/*
 * bpnn_layerforward_CUDA. ALU counts from the kernel's PTX (see the file
 * header): op 0 carries all of the once-per-thread integer work, 36
 * instructions (17 before the first load: parameters, ids, the tx == 0
 * branch, index_in; 13 after the first barrier: index and the LDS
 * addresses; 6 in the tail: the tx == 0 test, hidden_partial_sum's
 * address). The compiler unrolls the reduction and folds __log2f and
 * __powf into constants: per step 5 (constant, convert, rem, compare,
 * branch), and in the adding lanes 4 for the address of
 * weight_matrix[ty + power_two / 2] plus the add.
 * r[0]: reduction step (power_two = 2 << r[0]).
 */
static void bp_forward_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct backprop *b = k->ctx;
    switch (w->pc++) {
    case 0:
        dn_alu(op, 36, 0, 0);
        break;
    case 1: /* if (tx == 0) input_node[ty] = input_cuda[index_in] */
        bp_mem(w, op, KOP_LOAD, b->input, BA_IN_Y, BM_TX0, 1);
        break;
    case 2:
        bp_mem(w, op, KOP_LDS_STORE, NULL, BL_NODE, BM_TX0, 1);
        break;
    case 3:
    case 6:
    case 11:
    case 20:
        dn_barrier(op);
        break;
    case 4: /* weight_matrix[ty][tx] = input_hidden_cuda[index] */
        bp_mem(w, op, KOP_LOAD, b->weights, BA_INDEX, BM_ALL, 2);
        break;
    case 5:
        bp_mem(w, op, KOP_LDS_STORE, NULL, BL_WM, BM_ALL, 2);
        break;
    case 7: /* weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty] */
        bp_mem(w, op, KOP_LDS_LOAD, NULL, BL_WM, BM_ALL, 3);
        break;
    case 8:
        bp_mem(w, op, KOP_LDS_LOAD, NULL, BL_NODE, BM_ALL, 4);
        break;
    case 9:
        dn_alu(op, 1, 3, 4);
        break;
    case 10:
        bp_mem(w, op, KOP_LDS_STORE, NULL, BL_WM, BM_ALL, 0);
        break;
    case 12: /* for i = 1..log2(16): if (ty % power_two == 0) */
        if (!bp_mask(w, BM_STEP, 2u << w->r[0]))
            w->pc = 17; /* no thread of this warp adds in this step */
        dn_alu(op, 5, 0, 0);
        break;
    case 13: /* wm[ty][tx] = wm[ty][tx] + wm[ty + power_two / 2][tx] */
        bp_mem(w, op, KOP_LDS_LOAD, NULL, BL_WM, BM_STEP, 5);
        break;
    case 14:
        bp_mem(w, op, KOP_LDS_LOAD, NULL, BL_WM_DOWN, BM_STEP, 6);
        break;
    case 15:
        dn_alu(op, 5, 5, 6);
        break;
    case 16:
        bp_mem(w, op, KOP_LDS_STORE, NULL, BL_WM, BM_STEP, 0);
        break;
    case 17:
        if (++w->r[0] < BP_LOG2)
            w->pc = 12;
        dn_barrier(op);
        break;
    case 18: /* input_hidden_cuda[index] = weight_matrix[ty][tx] */
        bp_mem(w, op, KOP_LDS_LOAD, NULL, BL_WM, BM_ALL, 7);
        break;
    case 19:
        bp_mem(w, op, KOP_STORE, b->weights, BA_INDEX, BM_ALL, 7);
        break;
    case 21: /* if (tx == 0) hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty] */
        bp_mem(w, op, KOP_LDS_LOAD, NULL, BL_WM_T, BM_TX0, 8);
        break;
    case 22:
        bp_mem(w, op, KOP_STORE, b->partial, BA_PARTIAL, BM_TX0, 8);
        break;
    default:
        w->pc = 23;
        op->kind = KOP_EXIT;
    }
}

/*
 * bpnn_adjust_weights_cuda. ALU counts from the kernel's PTX (see the file
 * header). ETA and MOMENTUM are double literals, so each update converts
 * to double and back: for w[index] the conversions of delta and ly and
 * ETA * delta (3) with the addresses of ly, oldw and w (5), then the
 * conversions of oldw and w, MOMENTUM * oldw, the fused multiply-add, the
 * add and the conversion back (6); for oldw 3 and 4. The stores go through
 * float pointers that may alias the inputs, so the compiler reloads delta,
 * ly and oldw after the store to w. Parameters, ids and index arithmetic:
 * 18; the ty == 0 && by == 0 test: 3; the bias row 8 + 3 and 5.
 */
static void bp_adjust_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct backprop *b = k->ctx;
    switch (w->pc++) {
    case 0:
        dn_alu(op, 18, 0, 0);
        break;
    case 1: /* w[index] += ETA * delta[index_x] * ly[index_y] + MOMENTUM * oldw[index] */
    case 8: /* oldw[index] = the same (reloaded) */
        bp_mem(w, op, KOP_LOAD, b->delta, BA_X, BM_ALL, 1);
        break;
    case 2:
    case 9:
        bp_mem(w, op, KOP_LOAD, b->input, BA_IN_Y, BM_ALL, 2);
        break;
    case 3:
    case 10:
        bp_mem(w, op, KOP_LOAD, b->prev, BA_INDEX, BM_ALL, 3);
        break;
    case 4:
        bp_mem(w, op, KOP_LOAD, b->weights, BA_INDEX, BM_ALL, 4);
        break;
    case 5:
        dn_alu(op, 8, 1, 2);
        break;
    case 6:
        dn_alu(op, 6, 3, 4);
        break;
    case 7:
        bp_mem(w, op, KOP_STORE, b->weights, BA_INDEX, BM_ALL, 0);
        break;
    case 11:
        dn_alu(op, 3, 1, 2);
        break;
    case 12:
        dn_alu(op, 4, 3, 0);
        break;
    case 13:
        bp_mem(w, op, KOP_STORE, b->prev, BA_INDEX, BM_ALL, 0);
        break;
    case 14:
        dn_barrier(op);
        break;
    case 15: /* if (ty == 0 && by == 0) */
        if (!bp_mask(w, BM_ROW0, 0))
            w->pc = 26;
        dn_alu(op, 3, 0, 0);
        break;
    case 16: /* w[index_x] += ETA * delta[index_x] + MOMENTUM * oldw[index_x] */
    case 22: /* oldw[index_x] = the same (reloaded) */
        bp_mem(w, op, KOP_LOAD, b->delta, BA_X, BM_ROW0, 1);
        break;
    case 17:
    case 23:
        bp_mem(w, op, KOP_LOAD, b->prev, BA_X, BM_ROW0, 3);
        break;
    case 18:
        bp_mem(w, op, KOP_LOAD, b->weights, BA_X, BM_ROW0, 4);
        break;
    case 19:
        dn_alu(op, 8, 1, 3);
        break;
    case 24:
        dn_alu(op, 5, 1, 3);
        break;
    case 20:
        dn_alu(op, 3, 4, 0);
        break;
    case 21:
        bp_mem(w, op, KOP_STORE, b->weights, BA_X, BM_ROW0, 0);
        break;
    case 25:
        bp_mem(w, op, KOP_STORE, b->prev, BA_X, BM_ROW0, 0);
        break;
    default:
        w->pc = 26;
        op->kind = KOP_EXIT;
    }
}

/* Floats [e0, e1) of buf. */
static void bp_elems(struct range_list *r, const struct kernel_buf *buf, uint64_t e0, uint64_t e1)
{
    range_list_add(r, buf->base + e0 * 4, buf->base + e1 * 4);
}

/* Forward: input_cuda (R), input_hidden_cuda (RW), hidden_partial_sum (RW).
 * Adjust: hidden_delta_cuda (R), input_cuda (R), input_hidden_cuda (RW),
 * input_prev_weights_cuda (RW). A work-group's weight rows are contiguous
 * but for the unused column 0 of each row, so they merge into one range;
 * work-group 0 of the adjust kernel also owns the bias row w[1..16]. */
static unsigned bp_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct addr_range *out, unsigned max)
{
    if (arg >= k->nargs)
        return 0;
    const struct kernel_buf *buf = k->args[arg].buf;
    const struct backprop *b = k->ctx;
    struct range_list r;
    range_list_init(&r, out, max, DN_GAP_B);
    if (buf == b->input) {
        bp_elems(&r, buf, (uint64_t)BP_BLOCK * wg + 1, BP_BLOCK * (wg + 1ull) + 1);
    } else if (buf == b->partial) {
        bp_elems(&r, buf, (uint64_t)BP_HID * wg, BP_HID * (wg + 1ull));
    } else if (buf == b->delta) {
        bp_elems(&r, buf, 1, BP_COLS);
    } else {
        if (wg == 0 && k->p[0] == 1)
            bp_elems(&r, buf, 1, BP_COLS);
        for (uint32_t ty = 0; ty < BP_BLOCK; ty++)
            bp_elems(&r, buf, bp_index(wg, ty, 0), bp_index(wg, ty, BP_BLOCK));
    }
    return range_list_done(&r, buf->base);
}

static bool backprop_next_kernel(void *self, struct kernel *k)
{
    struct backprop *b = self;
    if (b->kernels == 2)
        return false;
    bool fwd = b->kernels++ == 0;
    wl_kernel_init(k, fwd ? "bpnn_layerforward_CUDA" : "bpnn_adjust_weights_cuda", 1, b->nblocks,
                   BP_BLOCK, BP_BLOCK, fwd ? bp_forward_next : bp_adjust_next);
    if (fwd) {
        k->lds_b = BP_WM + BP_BLOCK * BP_BLOCK * 4;
        wl_kernel_arg(k, b->input, KERNEL_R);
        wl_kernel_arg(k, b->weights, KERNEL_RW);
        wl_kernel_arg(k, b->partial, KERNEL_RW);
    } else {
        wl_kernel_arg(k, b->delta, KERNEL_R);
        wl_kernel_arg(k, b->input, KERNEL_R);
        wl_kernel_arg(k, b->weights, KERNEL_RW);
        wl_kernel_arg(k, b->prev, KERNEL_RW);
    }
    k->p[0] = !fwd;
    k->ranges = bp_ranges;
    k->ctx = b;
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
