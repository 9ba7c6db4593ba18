/*
 * pathfinder.c -- Rodinia pathfinder (pathfinder.cu): row-by-row dynamic
 * programming over a rows x cols grid of int weights, `pyramid_height` rows
 * per kernel with a halo, ping-pong result rows.
 *
 * Modelled: calc_path() launches dynproc_kernel for t = 0, ph, 2ph, ... <
 * rows - 1 with iteration = min(ph, rows - 1 - t); grid = ceil(cols /
 * (256 - 2 ph)) work-groups of BLOCK_SIZE = 256 threads; the real index
 * arithmetic (blkX = small_block_cols * bx - border, xidx = blkX + tx,
 * validXmin/Max, W/E clamped), the LDS arrays prev[256] and result[256], the
 * __syncthreads() of every iteration, the IN_RANGE(tx, i+1, 254-i) masks of
 * the pyramid, the wall loads gpuWall[cols * (startStep + i) + xidx] and the
 * final store of the computed lanes. Each kernel reads gpuWall (R) and the
 * source row (R) and writes the destination row (R/W); rows swap every kernel.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * dynproc_kernel (every instruction but global and LDS loads and stores,
 * barriers, ret and cvta.to.global); blocks with no op of their own are
 * counted in the nearest op run as often. See docs/workloads/pathfinder.md.
 * Abstracted: no data values (the model issues the accesses of every lane the
 * real code would run).
 */
#include <stdlib.h>

#include "workload/rodinia/rod2.h"

#define PF_BLOCK 256
#define PF_HALO 1

static const struct cfg_key pathfinder_keys[] = {
    {"cols", CFG_INT, "200000", 1, 1073741824.0, "columns of the grid (argv[1])", NULL},
    {"rows", CFG_INT, "100", 2, 1073741824.0, "rows of the grid (argv[2])", NULL},
    {"pyramid_height", CFG_INT, "20", 1, 1000000, "rows per kernel (argv[3])", NULL},
    CFG_END,
};

struct pathfinder {
    const struct kernel_buf *wall, *res[2];
    int64_t cols, rows, ph;
    uint32_t blocks; /* blockCols */
    int64_t t;       /* next startStep */
    unsigned src;    /* index of the source row buffer of the next kernel */
};

static void *pathfinder_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    int64_t cols = (int64_t)cfg_uint(sec, "cols"), rows = (int64_t)cfg_uint(sec, "rows");
    int64_t ph = (int64_t)cfg_uint(sec, "pyramid_height");
    int64_t small = PF_BLOCK - ph * PF_HALO * 2;
    if (small <= 0) {
        cfg_err(e, sec, "pyramid_height", "256 - 2 x pyramid_height must be positive");
        return NULL;
    }
    if ((rows - 1) * cols > INT32_MAX) {
        cfg_err(e, sec, "rows", "(rows - 1) x cols must fit the int index of the real code");
        return NULL;
    }
    struct pathfinder *p = xcalloc(1, sizeof *p);
    p->cols = cols;
    p->rows = rows;
    p->ph = ph;
    p->blocks = (uint32_t)div_ceil((uint64_t)cols, (uint64_t)small);
    p->res[0] = wl_alloc(env, "gpuResult0", (uint64_t)cols * 4);
    p->res[1] = wl_alloc(env, "gpuResult1", (uint64_t)cols * 4);
    p->wall = wl_alloc(env, "gpuWall", (uint64_t)((rows - 1) * cols) * 4);
    return p;
}

static void pathfinder_destroy(void *self)
{
    free(self);
}

/* Per-kernel geometry: k->p[0] iteration, p[1] startStep, p[2] border. */
static int64_t pf_blkx(const struct kernel *k, uint32_t bx)
{
    int64_t small = PF_BLOCK - (int64_t)k->p[0] * PF_HALO * 2;
    return small * bx - (int64_t)k->p[2];
}

/* Lanes with xidx in [0, cols - 1] (the real code's isValid). */
static uint64_t pf_valid(const struct pathfinder *p, const struct kernel_warp *w, int64_t blkx)
{
    return rod2_tid_mask(w, -blkx, p->cols - 1 - blkx);
}

/* Lanes that compute in iteration i: IN_RANGE(tx, i+1, BLOCK_SIZE-i-2) && isValid. */
static uint64_t pf_computed(const struct pathfinder *p, const struct kernel_warp *w,
                            int64_t blkx, int64_t i)
{
    return pf_valid(p, w, blkx) & rod2_tid_mask(w, i + 1, PF_BLOCK - i - 2);
}

/* prev[W] (dw = -1) or prev[E] (dw = +1) with W/E clamped to the valid lanes. */
static void pf_neighbour(const struct pathfinder *p, struct kernel_warp *w, int64_t blkx, int dw,
                         uint64_t mask)
{
    int64_t vmin = blkx < 0 ? -blkx : 0, vmax = PF_BLOCK - 1;
    if (blkx + PF_BLOCK - 1 > p->cols - 1)
        vmax = PF_BLOCK - 1 - (blkx + PF_BLOCK - 1 - p->cols + 1);
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        int64_t n = (int64_t)kernel_tid(w, l) + dw;
        n = n < vmin ? vmin : n > vmax ? vmax : n;
        w->lane_addr[l] = (addr_t)n * 4;
    }
}

enum {
    PF_INIT, PF_LD_SRC, PF_ST_PREV, PF_BAR0, PF_IT, PF_LD_W, PF_LD_C, PF_LD_E, PF_MIN, PF_LD_WALL,
    PF_ADD, PF_ST_RES, PF_BAR1, PF_LD_RES, PF_ST_PREV2, PF_BAR2, PF_OUT_LD, PF_OUT_ST, PF_EXIT,
};

#define PF_PREV 0
#define PF_RESULT (PF_BLOCK * 4)

/* r[0]: iteration i. Registers: 1 src value, 2-4 W/C/E, 5 wall, 6 result copy, 7 output. */
static void pf_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct pathfinder *p = k->ctx;
    int64_t blkx = pf_blkx(k, w->wg), it = (int64_t)k->p[0], i = (int64_t)w->r[0];
    addr_t t0 = kernel_tid(w, 0);
    for (;;) {
        uint64_t valid = pf_valid(p, w, blkx), comp = pf_computed(p, w, blkx, i);
        switch (w->pc++) {
        case PF_INIT: /* parameters, small_block_cols, blkX, xidx, the load test and
                       * address (24); after the first barrier: result[tx]'s address,
                       * validXmin/Max, W, E, isValid, the wall index's base (30); the
                       * tail: the computed test and gpuResults' address (5) */
            rod2_alu(op, 59, 0, 0);
            return;
        case PF_LD_SRC: /* prev[tx] = gpuSrc[xidx] if IN_RANGE(xidx, 0, cols-1) */
            if (!valid)
                continue;
            rod2_mem(op, KOP_LOAD, k->args[1].buf->base + (addr_t)(blkx + (int64_t)t0) * 4, 4, 4,
                     valid);
            op->dst = 1;
            return;
        case PF_ST_PREV:
            if (!valid)
                continue;
            rod2_mem(op, KOP_LDS_STORE, PF_PREV + t0 * 4, 4, 4, valid);
            op->src[0] = 1;
            return;
        case PF_BAR0:
        case PF_BAR1:
        case PF_BAR2:
            op->kind = KOP_BARRIER;
            if (w->pc == PF_BAR1 + 1 && i == it - 1) {
                w->pc = PF_OUT_LD; /* if (i == iteration - 1) break; */
            } else if (w->pc == PF_BAR2 + 1) {
                w->r[0]++;
                w->pc = PF_IT;
            }
            return;
        case PF_IT: /* the IN_RANGE / isValid tests (9), the i == iteration - 1 test
                     * after the barrier (2); from the second iteration on, also the
                     * previous one's computed test and loop control (7) */
            rod2_alu(op, i > 0 ? 18 : 11, 0, 0);
            if (!comp)
                w->pc = PF_BAR1;
            return;
        case PF_LD_W:
        case PF_LD_E:
            pf_neighbour(p, w, blkx, w->pc - 1 == PF_LD_W ? -1 : 1, comp);
            rod2_mem_lanes(op, KOP_LDS_LOAD, 4, comp);
            op->dst = w->pc - 1 == PF_LD_W ? 2 : 4;
            return;
        case PF_LD_C:
            rod2_mem(op, KOP_LDS_LOAD, PF_PREV + t0 * 4, 4, 4, comp);
            op->dst = 3;
            return;
        case PF_MIN: /* two MINs and the wall address */
            rod2_alu(op, 4, 2, 4);
            return;
        case PF_LD_WALL:
            rod2_mem(op, KOP_LOAD,
                     k->args[0].buf->base +
                         (addr_t)(p->cols * ((int64_t)k->p[1] + i) + blkx + (int64_t)t0) * 4,
                     4, 4, comp);
            op->dst = 5;
            return;
        case PF_ADD: /* the add; computed = true after the store */
            rod2_alu(op, 2, 3, 5);
            return;
        case PF_ST_RES:
            rod2_mem(op, KOP_LDS_STORE, PF_RESULT + t0 * 4, 4, 4, comp);
            op->src[0] = 5;
            return;
        case PF_LD_RES: /* if (computed) prev[tx] = result[tx] */
            if (!comp) {
                w->pc = PF_BAR2;
                continue;
            }
            rod2_mem(op, KOP_LDS_LOAD, PF_RESULT + t0 * 4, 4, 4, comp);
            op->dst = 6;
            return;
        case PF_ST_PREV2:
            rod2_mem(op, KOP_LDS_STORE, PF_PREV + t0 * 4, 4, 4, comp);
            op->src[0] = 6;
            return;
        case PF_OUT_LD: /* if (computed) gpuResults[xidx] = result[tx] */
            if (!comp) {
                w->pc = PF_EXIT;
                continue;
            }
            rod2_mem(op, KOP_LDS_LOAD, PF_RESULT + t0 * 4, 4, 4, comp);
            op->dst = 7;
            return;
        case PF_OUT_ST:
            rod2_mem(op, KOP_STORE, k->args[2].buf->base + (addr_t)(blkx + (int64_t)t0) * 4, 4, 4,
                     comp);
            op->src[0] = 7;
            return;
        default:
            op->kind = KOP_EXIT;
            w->pc = PF_EXIT;
            return;
        }
    }
}

/* wall: row startStep + i, columns [blkX + i + 1, blkX + 254 - i] for each i;
 * source row: [blkX, blkX + 255]; destination: the lanes computed last. */
static unsigned pf_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct addr_range *out, unsigned max)
{
    const struct pathfinder *p = k->ctx;
    int64_t blkx = pf_blkx(k, wg), it = (int64_t)k->p[0];
    addr_t base = k->args[arg].buf->base;
    struct range_list r;
    range_list_init(&r, out, max, 0);
    if (arg == 0) {
        for (int64_t i = 0; i < it; i++) {
            int64_t lo = blkx + i + 1, hi = blkx + PF_BLOCK - i - 2;
            lo = lo < 0 ? 0 : lo;
            hi = hi > p->cols - 1 ? p->cols - 1 : hi;
            int64_t row = p->cols * ((int64_t)k->p[1] + i);
            if (lo <= hi)
                range_list_add(&r, base + (addr_t)(row + lo) * 4, base + (addr_t)(row + hi + 1) * 4);
        }
    } else if (arg == 1) {
        rod2_elems(&r, base, 4, blkx, blkx + PF_BLOCK - 1, p->cols);
    } else {
        rod2_elems(&r, base, 4, blkx + it, blkx + PF_BLOCK - 1 - it, p->cols);
    }
    return range_list_done(&r, base);
}

static bool pathfinder_next_kernel(void *self, struct kernel *k)
{
    struct pathfinder *p = self;
    if (p->t >= p->rows - 1)
        return false;
    unsigned src = p->src;
    wl_kernel_init(k, "dynproc_kernel", p->blocks, 1, PF_BLOCK, 1, pf_next);
    k->lds_b = 2 * PF_BLOCK * 4;
    k->p[0] = (uint64_t)(p->rows - 1 - p->t < p->ph ? p->rows - 1 - p->t : p->ph);
    k->p[1] = (uint64_t)p->t;
    k->p[2] = (uint64_t)(p->ph * PF_HALO); /* borderCols */
    wl_kernel_arg(k, p->wall, KERNEL_R);
    wl_kernel_arg(k, p->res[src], KERNEL_R);
    wl_kernel_arg(k, p->res[!src], KERNEL_RW);
    k->ranges = pf_ranges;
    k->ctx = p;
    p->t += p->ph;
    p->src = !src;
    return true;
}

static const char *const pathfinder_small[] = {"cols=4096", "rows=21", "pyramid_height=4", NULL};

const struct wl_ops wl_pathfinder = {
    .name = "pathfinder",
    .suite = "Rodinia",
    .desc = "Rodinia pathfinder: row-by-row dynamic programming, pyramid of rows per kernel, LDS",
    .keys = pathfinder_keys,
    .small = pathfinder_small,
    .create = pathfinder_create,
    .next_kernel = pathfinder_next_kernel,
    .destroy = pathfinder_destroy,
};
