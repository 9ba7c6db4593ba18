/*
 * nw.c -- Rodinia nw (needle.cu, needle_kernel.cu): Needleman-Wunsch global
 * sequence alignment on an (n+1) x (n+1) int score matrix, swept by
 * anti-diagonals of 16x16 blocks.
 *
 * Modelled: runTest()'s two loops: needle_cuda_shared_1 for i = 1 .. n/16
 * (grid i) over the top-left triangle of blocks, then needle_cuda_shared_2
 * for i = n/16 - 1 .. 1 (grid i) over the bottom-right one; 16 threads per
 * work-group; the real index arithmetic (index, index_n, index_w, index_nw
 * from b_index_x/y); the LDS arrays temp[17][17] and ref[16][16]; the loads
 * of the reference tile (16 rows), of the west column, the north row and the
 * north-west corner; the 31 anti-diagonal steps inside the tile with lanes
 * tx <= m active, each with its 4 LDS loads, LDS store and __syncthreads();
 * and the 16 row stores of the tile. The reference matrix is R, the score
 * matrix R/W. The constant 16-iteration copy loops are unrolled as nvcc does
 * (all loads, then all stores). ALU counts per basic block from nvcc 13
 * -arch=sm_90 PTX of Rodinia 3.1's needle_kernel.cu (every instruction but
 * global and LDS loads and stores, barriers, ret and cvta.to.global): the
 * compiler unrolls both step loops and folds every LDS address into an
 * offset, so a step is its test and 5 instructions; all the once-per-thread
 * work is counted in the first op. See docs/workloads/nw.md.
 * Abstracted: no data values; input generation (srand(7), blosum62) is host
 * work and not modelled.
 */
#include <stdlib.h>

#include "workload/rodinia/rod2.h"

#define NW_B 16 /* BLOCK_SIZE */
#define NW_TEMP 0                             /* temp[17][17] */
#define NW_REF ((NW_B + 1) * (NW_B + 1) * 4) /* ref[16][16] */

static const struct cfg_key nw_keys[] = {
    {"n", CFG_INT, "8192", 16, 1048576, "sequence length (argv[1]), a multiple of 16", NULL},
    {"penalty", CFG_INT, "10", 0, 1000000, "gap penalty (argv[2]; no effect on addresses)",
     NULL},
    CFG_END,
};

struct nw {
    const struct kernel_buf *ref, *mat;
    int64_t cols;       /* n + 1 */
    uint32_t bw;        /* block_width = n / 16 */
    uint32_t kernels;   /* launched so far */
};

static void *nw_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t n = cfg_uint(sec, "n");
    if (n % NW_B) {
        cfg_err(e, sec, "n", "must be a multiple of 16");
        return NULL;
    }
    struct nw *q = xcalloc(1, sizeof *q);
    q->cols = (int64_t)n + 1;
    q->bw = (uint32_t)(n / NW_B);
    uint64_t size = (uint64_t)(q->cols * q->cols) * 4;
    q->ref = wl_alloc(env, "referrence_cuda", size);
    q->mat = wl_alloc(env, "matrix_cuda", size);
    return q;
}

static void nw_destroy(void *self)
{
    free(self);
}

/* Top-left element (row, column) of work-group wg's block; k->p[0] = kernel
 * (1 or 2), p[1] = i. */
static void nw_block(const struct nw *q, const struct kernel *k, uint32_t wg, int64_t *row,
                     int64_t *col)
{
    int64_t i = (int64_t)k->p[1], bx, by;
    if (k->p[0] == 1) {
        bx = wg;
        by = i - 1 - wg;
    } else {
        bx = wg + (int64_t)q->bw - i;
        by = (int64_t)q->bw - wg - 1;
    }
    *row = NW_B * by;
    *col = NW_B * bx;
}

/* LDS byte offset of temp[y][x] (or ref[y][x]) at tx = t0, and the per-lane stride
 * of the anti-diagonal walk (y - 1, x + 1 per thread). */
static addr_t nw_temp(int64_t y, int64_t x, int64_t t0)
{
    return (addr_t)(NW_TEMP + ((y - t0) * (NW_B + 1) + x + t0) * 4);
}

static addr_t nw_refo(int64_t y, int64_t x, int64_t t0)
{
    return (addr_t)(NW_REF + ((y - t0) * NW_B + x + t0) * 4);
}

enum {
    NW_IDX, NW_LD_NW, NW_ST_NW, NW_LD_REF, NW_ST_REF = NW_LD_REF + NW_B, NW_BAR0 = NW_ST_REF + NW_B,
    NW_LD_W, NW_ST_W, NW_BAR1, NW_LD_N, NW_ST_N, NW_BAR2, NW_DIAG, NW_LD_OUT, NW_ST_OUT = NW_LD_OUT + NW_B,
    NW_EXIT = NW_ST_OUT + NW_B,
};

/* One op of anti-diagonal step s (0..30) for lanes tx <= m; r[1] is the op
 * within the step: ALU, 4 LDS loads, ALU, LDS store, barrier. ALU counts
 * from the PTX (see the file header): the test tx <= m is a compare and a
 * branch (2) in the first loop; the second loop reuses the first loop's
 * predicates (1), but for _1's last step (2). The step: an add, two
 * subtractions, two max (5). */
static bool nw_diag(struct kernel_warp *w, struct kernel_op *op)
{
    int64_t s = (int64_t)w->r[0], t0 = kernel_tid(w, 0);
    if (s >= 2 * NW_B - 1)
        return false;
    int64_t m = s < NW_B ? s : 2 * NW_B - 2 - s;
    int64_t y = s < NW_B ? m + 1 : NW_B, x = s < NW_B ? 1 : NW_B - m; /* at tx = 0 */
    uint64_t mask = rod2_tid_mask(w, 0, m);
    unsigned o = (unsigned)w->r[1]++;
    if (!mask && o < 7)
        o = w->r[1] = 7;
    const int64_t dt = -(NW_B + 1) + 1, dr = -NW_B + 1; /* per-lane strides, elements */
    switch (o) {
    case 0: /* if (tx <= m); t_index_x/y and the LDS addresses are folded */
        rod2_alu(op, s < NW_B || (s == 2 * NW_B - 2 && w->k->p[0] == 1) ? 2 : 1, 0, 0);
        break;
    case 1:
        rod2_mem(op, KOP_LDS_LOAD, nw_temp(y - 1, x - 1, t0), dt * 4, 4, mask);
        op->dst = 20;
        break;
    case 2:
        rod2_mem(op, KOP_LDS_LOAD, nw_refo(y - 1, x - 1, t0), dr * 4, 4, mask);
        op->dst = 21;
        break;
    case 3:
        rod2_mem(op, KOP_LDS_LOAD, nw_temp(y, x - 1, t0), dt * 4, 4, mask);
        op->dst = 22;
        break;
    case 4:
        rod2_mem(op, KOP_LDS_LOAD, nw_temp(y - 1, x, t0), dt * 4, 4, mask);
        op->dst = 23;
        break;
    case 5: /* an add, two subtractions, maximum() (two max) */
        rod2_alu(op, 5, 21, 23);
        break;
    case 6:
        rod2_mem(op, KOP_LDS_STORE, nw_temp(y, x, t0), dt * 4, 4, mask);
        break;
    default:
        op->kind = KOP_BARRIER;
        w->r[0]++;
        w->r[1] = 0;
        break;
    }
    return true;
}

static void nw_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct nw *q = k->ctx;
    int64_t row, col, c = q->cols, t0 = kernel_tid(w, 0);
    nw_block(q, k, w->wg, &row, &col);
    addr_t mat = q->mat->base, ref = q->ref->base;
    int64_t blk = c * row + col; /* cols * BLOCK_SIZE * b_index_y + BLOCK_SIZE * b_index_x */
    uint64_t all = low_bits(w->nlanes), lane0 = t0 == 0 ? 1 : 0;
    unsigned pc = w->pc++;
    if (pc == NW_IDX) {
        /* every once-per-thread instruction of the PTX: _1 114 (parameters,
         * ids, the four indices, the tx == 0 test 16; the reference copy's
         * addresses 27; the west and north copies 13; the LDS base
         * addresses 5; after the loops the indices, recomputed, 34 and the
         * output copy's addresses 19), _2 98 (a 12-instruction tail) */
        rod2_alu(op, k->p[0] == 1 ? 114 : 98, 0, 0);
    } else if ((pc == NW_LD_NW || pc == NW_ST_NW) && !lane0) {
        w->pc = NW_LD_REF;
        nw_next(k, w, op);
    } else if (pc == NW_LD_NW) { /* if (tx == 0) temp[tx][0] = matrix_cuda[index_nw] */
        rod2_mem(op, KOP_LOAD, mat + (addr_t)blk * 4, 4, 4, 1);
        op->dst = 1;
    } else if (pc == NW_ST_NW) {
        rod2_mem(op, KOP_LDS_STORE, NW_TEMP, 4, 4, 1);
        op->src[0] = 1;
    } else if (pc < NW_ST_REF) { /* ref[ty][tx] = referrence[index + cols * ty] */
        int64_t ty = pc - NW_LD_REF;
        rod2_mem(op, KOP_LOAD, ref + (addr_t)(blk + t0 + c + 1 + c * ty) * 4, 4, 4, all);
        op->dst = (uint8_t)(2 + ty);
    } else if (pc < NW_BAR0) {
        int64_t ty = pc - NW_ST_REF;
        rod2_mem(op, KOP_LDS_STORE, NW_REF + (addr_t)(ty * NW_B + t0) * 4, 4, 4, all);
        op->src[0] = (uint8_t)(2 + ty);
    } else if (pc == NW_BAR0 || pc == NW_BAR1 || pc == NW_BAR2) {
        op->kind = KOP_BARRIER;
    } else if (pc == NW_LD_W) { /* temp[tx + 1][0] = matrix_cuda[index_w + cols * tx] */
        rod2_mem(op, KOP_LOAD, mat + (addr_t)(blk + c + c * t0) * 4, c * 4, 4, all);
        op->dst = 18;
    } else if (pc == NW_ST_W) {
        rod2_mem(op, KOP_LDS_STORE, NW_TEMP + (addr_t)((t0 + 1) * (NW_B + 1)) * 4,
                 (NW_B + 1) * 4, 4, all);
        op->src[0] = 18;
    } else if (pc == NW_LD_N) { /* temp[0][tx + 1] = matrix_cuda[index_n] */
        rod2_mem(op, KOP_LOAD, mat + (addr_t)(blk + t0 + 1) * 4, 4, 4, all);
        op->dst = 19;
    } else if (pc == NW_ST_N) {
        rod2_mem(op, KOP_LDS_STORE, NW_TEMP + (addr_t)(t0 + 1) * 4, 4, 4, all);
        op->src[0] = 19;
    } else if (pc == NW_DIAG) {
        w->pc = nw_diag(w, op) ? NW_DIAG : NW_LD_OUT;
        if (w->pc == NW_LD_OUT)
            nw_next(k, w, op);
    } else if (pc < NW_ST_OUT) { /* matrix_cuda[index + ty * cols] = temp[ty + 1][tx + 1] */
        int64_t ty = pc - NW_LD_OUT;
        rod2_mem(op, KOP_LDS_LOAD, NW_TEMP + (addr_t)((ty + 1) * (NW_B + 1) + t0 + 1) * 4, 4, 4,
                 all);
        op->dst = (uint8_t)(24 + ty);
    } else if (pc < NW_EXIT) {
        int64_t ty = pc - NW_ST_OUT;
        rod2_mem(op, KOP_STORE, mat + (addr_t)(blk + t0 + c + 1 + ty * c) * 4, 4, 4, all);
        op->src[0] = (uint8_t)(24 + ty);
    } else {
        w->pc = NW_EXIT;
        op->kind = KOP_EXIT;
    }
}

/* matrix: rows row .. row + 16, columns col .. col + 16 (corner, north row,
 * west column and the written tile); reference: the tile rows row + 1 ..
 * row + 16, columns col + 1 .. col + 16. */
static unsigned nw_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct addr_range *out, unsigned max)
{
    const struct nw *q = k->ctx;
    int64_t row, col;
    nw_block(q, k, wg, &row, &col);
    addr_t base = k->args[arg].buf->base;
    bool mat = k->args[arg].buf == q->mat;
    struct range_list r;
    range_list_init(&r, out, max, 0);
    for (int64_t y = mat ? row : row + 1; y <= row + NW_B; y++) {
        int64_t first = y * q->cols + col + (mat ? 0 : 1);
        rod2_elems(&r, base, 4, first, y * q->cols + col + NW_B, q->cols * q->cols);
    }
    return range_list_done(&r, base);
}

static bool nw_next_kernel(void *self, struct kernel *k)
{
    struct nw *q = self;
    if (q->kernels == 2 * q->bw - 1)
        return false;
    bool first = q->kernels < q->bw;
    uint32_t i = first ? q->kernels + 1 : 2 * q->bw - 1 - q->kernels;
    wl_kernel_init(k, first ? "needle_cuda_shared_1" : "needle_cuda_shared_2", i, 1, NW_B, 1,
                   nw_next);
    k->lds_b = NW_REF + NW_B * NW_B * 4;
    k->p[0] = first ? 1 : 2;
    k->p[1] = i;
    wl_kernel_arg(k, q->ref, KERNEL_R);
    wl_kernel_arg(k, q->mat, KERNEL_RW);
    k->ranges = nw_ranges;
    k->ctx = q;
    q->kernels++;
    return true;
}

static const char *const nw_small[] = {"n=64", NULL};

const struct wl_ops wl_nw = {
    .name = "nw",
    .suite = "Rodinia",
    .desc = "Rodinia nw: Needleman-Wunsch, anti-diagonal wavefront of 16x16 LDS tiles",
    .keys = nw_keys,
    .small = nw_small,
    .create = nw_create,
    .next_kernel = nw_next_kernel,
    .destroy = nw_destroy,
};
