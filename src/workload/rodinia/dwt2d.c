/*
 * dwt2d.c -- Rodinia dwt2d (main.cu, components.cu, dwt.cu, dwt_cuda/
 * fdwt53.cu, transform_buffer.h, io.h): forward 2D discrete wavelet
 * transform, CDF 5/3 (the Rodinia run script's "-f -5 -l 3"; int samples),
 * of an RGB image, `levels` levels per component.
 *
 * Modelled: c_CopySrcToComponents (256 threads, the 3 x 256-byte source
 * slice staged in LDS as floats, byte reads per thread, one store per
 * component); then, per component and level, fdwt53Kernel<WIN_SX, 8> with
 * WIN_SX = 192 / 128 / 64 for widths >= 960 / >= 480 / below, steps =
 * ceil(sy / (15 x 8)), grid (ceil(sx / WIN_SX), ceil(sy / (8 x steps))) of
 * WIN_SX threads: every thread loads its column (3 rows of preload, with the
 * mirror at the top edge, then 8 rows per window, with the reversal at the
 * bottom edge in the boundary blocks), threads 0..2 also the boundary
 * columns (WIN_SX, -2, -1, mirrored at the image edges); the LDS
 * TransformBuffer<int, WIN_SX, 11, 2> (even / odd column halves, padding for
 * 32 banks), the vertical predict / update lifting per column, the
 * horizontal predict / update steps over the window (horizontalStep's
 * fixed iterations plus the partial last one), the __syncthreads(), and the
 * writer's stores of low and high coefficients into the four bands (packed
 * per band, band width = half the level's width, as memCopy of the LL band
 * requires). Level l + 1 transforms the ceil(sx/2) x ceil(sy/2) LL band read
 * back from the component buffer.
 * Abstracted: the device-to-device copies (the backup in nStage2dDWT and the
 * memCopy of the LL band between levels) are copy-engine transfers, not
 * kernels, and are not modelled; no data values; the BMP is not read.
 * ALU counts: PTX of Rodinia 3.1's c_CopySrcToComponents<int> (and
 * c_CopySrcToComponent<int>) and fdwt53Kernel<192, 8> (nvcc 13, -ptx
 * -arch=sm_90), per basic block, every instruction but global and LDS loads
 * and stores, barriers, ret and cvta.to.global; blocks with no op of their
 * own are counted in the nearest op that runs as often (once per warp: the
 * first op; once per window: the first predict of a column, the last update
 * of a column, the last full horizontal iteration). fdwt53: the path of the
 * interior blocks (transform<false, false>, block rows below the top), the
 * one most blocks run; the loops are unrolled in the PTX, so per window and
 * per horizontal iteration (4 full and one of 15 threads at every WIN_SX).
 * The checked boundary paths are not counted separately. Memory operations,
 * LDS accesses and barriers are the model's, not the PTX's (the compiler
 * forwards the column's values in registers and drops the LDS stores that
 * the lifting overwrites).
 */
#include <stdlib.h>

#include "workload/rodinia/rod2.h"

#define DW_THREADS 256 /* components.cu THREADS */
#define DW_WSY 8       /* WIN_SIZE_Y */
#define DW_BANKS 32    /* SHM_BANKS */

static const struct cfg_key dwt2d_keys[] = {
    {"width", CFG_INT, "4096", 1, 65536, "image width (rgb.bmp 4096x4096)", NULL},
    {"height", CFG_INT, "4096", 1, 65536, "image height", NULL},
    {"levels", CFG_INT, "3", 1, 16, "DWT levels (-l 3)", NULL},
    {"components", CFG_INT, "3", 1, 3, "colour components: 3 (RGB) or 1 (grey)", NULL},
    CFG_END,
};

struct dwt2d {
    const struct kernel_buf *src, *comp[3], *out[3], *backup;
    int64_t w, h, pixels;
    unsigned levels, ncomp, kernels;
};

static void *dwt2d_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct dwt2d *d = xcalloc(1, sizeof *d);
    d->w = (int64_t)cfg_uint(sec, "width");
    d->h = (int64_t)cfg_uint(sec, "height");
    d->levels = (unsigned)cfg_uint(sec, "levels");
    d->ncomp = (unsigned)cfg_uint(sec, "components");
    int64_t lw = d->w, lh = d->h;
    for (unsigned l = 1; l < d->levels; l++) {
        lw = (lw + 1) / 2;
        lh = (lh + 1) / 2;
    }
    if (d->ncomp == 2 || lw < 3 || lh < 3) {
        if (d->ncomp == 2)
            cfg_err(e, sec, "components", "must be 1 or 3");
        else
            cfg_err(e, sec, "levels", "the last level would be %lldx%lld, below 3x3",
                    (long long)lw, (long long)lh);
        free(d);
        return NULL;
    }
    d->pixels = d->w * d->h;
    uint64_t csize = (uint64_t)d->pixels * 4; /* int components (5/3) */
    /* processDWT's allocation order */
    d->out[0] = wl_alloc(env, "c_r_out", csize);
    d->backup = wl_alloc(env, "backup", csize);
    if (d->ncomp == 3) {
        d->out[1] = wl_alloc(env, "c_g_out", csize);
        d->out[2] = wl_alloc(env, "c_b_out", csize);
    }
    static const char *const cn[] = {"c_r", "c_g", "c_b"};
    for (unsigned c = 0; c < d->ncomp; c++)
        d->comp[c] = wl_alloc(env, d->ncomp == 3 ? cn[c] : "c_r", csize);
    /* alignedSize = DIVANDRND(pixels, THREADS) * THREADS * components */
    d->src = wl_alloc(env, "d_src",
                      div_ceil((uint64_t)d->pixels, DW_THREADS) * DW_THREADS * d->ncomp);
    return d;
}

static void dwt2d_destroy(void *self)
{
    free(self);
}

/* ---- c_CopySrcToComponents ------------------------------------------------ */

/* r = none. ops: index ALU, float load of the source slice, LDS store,
 * barrier, byte LDS loads, conversions, component stores. ALU (PTX counts,
 * see the header): entry 8 + nc (parameters, ids, the x < 192 test), plus
 * in warps that load the source address and the LDS address (7, 8 for
 * 3 components); after the loads the bounds test (3), plus in warps that
 * store the LDS address, the three `- 128` and the store addresses (3 +
 * 2 nc). */
static void dw_copy_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct dwt2d *d = k->ctx;
    int64_t gx = (int64_t)w->wg * DW_THREADS, t0 = kernel_tid(w, 0);
    unsigned nc = d->ncomp;
    /* if ((x * 4) < THREADS * components) d[x] = s[((gX * components) >> 2) + x] */
    uint64_t ldmask = rod2_tid_mask(w, 0, DW_THREADS * nc / 4 - 1);
    uint64_t stmask = rod2_tid_mask(w, 0, d->pixels - gx - 1);
    for (;;) {
        unsigned pc = w->pc++;
        if (pc == 0) {
            rod2_alu(op, 8 + nc + (ldmask ? (nc == 3 ? 8 : 7) : 0), 0, 0);
        } else if (pc == 1 || pc == 2) {
            if (!ldmask)
                continue;
            if (pc == 1) {
                rod2_mem(op, KOP_LOAD, d->src->base + (addr_t)((gx * nc >> 2) + t0) * 4, 4, 4,
                         ldmask);
                op->dst = 1;
            } else {
                rod2_mem(op, KOP_LDS_STORE, (addr_t)t0 * 4, 4, 4, ldmask);
                op->src[0] = 1;
            }
        } else if (pc == 3) {
            op->kind = KOP_BARRIER;
        } else if (pc < 4 + nc) { /* sData[offset + c], offset = x * components */
            unsigned c = pc - 4;
            rod2_mem(op, KOP_LDS_LOAD, (addr_t)(t0 * nc + c), nc, 1, low_bits(w->nlanes));
            op->dst = (uint8_t)(2 + c);
        } else if (pc == 4 + nc) {
            rod2_alu(op, 3 + (stmask ? 3 + 2 * nc : 0), 2, (uint8_t)(1 + nc));
        } else if (pc < 5 + 2 * nc) { /* if (globalOutputPosition < pixels) d_c[...] = c */
            if (!stmask)
                continue;
            unsigned c = pc - 5 - nc;
            rod2_mem(op, KOP_STORE, d->comp[c]->base + (addr_t)(gx + t0) * 4, 4, 4, stmask);
            op->src[0] = (uint8_t)(2 + c);
        } else {
            w->pc = 5 + 2 * nc;
            op->kind = KOP_EXIT;
        }
        return;
    }
}

static unsigned dw_copy_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                               struct addr_range *out, unsigned max)
{
    const struct dwt2d *d = k->ctx;
    int64_t gx = (int64_t)wg * DW_THREADS;
    addr_t base = k->args[arg].buf->base;
    struct range_list r;
    range_list_init(&r, out, max, 0);
    if (k->args[arg].buf == d->src)
        range_list_add(&r, base + (addr_t)(gx * d->ncomp), base + (addr_t)(gx + DW_THREADS) * d->ncomp);
    else
        rod2_elems(&r, base, 4, gx, gx + DW_THREADS - 1, d->pixels);
    return range_list_done(&r, base);
}

/* ---- fdwt53Kernel ------------------------------------------------------------- */

/* Geometry of one level, in k->p: 0 sx, 1 sy, 2 WIN_SX, 3 steps, 4 component. */
struct dw_geo {
    int64_t sx, sy, win, steps, vs, odd; /* vs: VERTICAL_STRIDE, odd: ODD_OFFSET (ints) */
};

static struct dw_geo dw_geo(const struct kernel *k)
{
    struct dw_geo g = {(int64_t)k->p[0], (int64_t)k->p[1], (int64_t)k->p[2], (int64_t)k->p[3],
                       0, 0};
    g.vs = 2 + g.win / 2;
    int64_t bsize = g.vs * (DW_WSY + 3);
    g.odd = bsize + DW_BANKS - (bsize + DW_BANKS / 2) % DW_BANKS;
    return g;
}

static uint32_t dw_lds_b(int64_t win)
{
    int64_t vs = 2 + win / 2, bsize = vs * (DW_WSY + 3);
    return (uint32_t)(2 * bsize + DW_BANKS - (bsize + DW_BANKS / 2) % DW_BANKS) * 4;
}

static int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max_i64(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t dw_mirror(int64_t x, int64_t n)
{
    while (x < 0 || x >= n)
        x = x < 0 ? -x : 2 * (n - 1) - x;
    return x;
}

/* The image row of the j-th load of a column of work-group row by (j < 3:
 * the preload; then 8 per window). The loader walks down from firstY - 2 (or
 * re-reads rows 0..2 and restarts at row 1 in the top block row) and, in the
 * bottom boundary blocks (CHECKED loader), reverses at the image's last row. */
static int64_t dw_row(const struct dw_geo *g, int64_t by, int64_t j)
{
    int64_t first = by * DW_WSY * g->steps, y;
    if (j < 3)
        y = by > 0 ? first - 2 + j : j;
    else
        y = first + 1 + (j - 3);
    return dw_mirror(y, g->sy);
}

/* Column of thread tid (main, or boundary for b = true), mirrored. */
static int64_t dw_col(const struct dw_geo *g, int64_t bx, int64_t tid, bool b)
{
    int64_t c = b ? (tid == 0 ? g->win : tid - 3) : tid;
    return dw_mirror(bx * g->win + c, g->sx);
}

/* LDS int offset of column c (relative, -2 .. win) of the transform buffer. */
static int64_t dw_coloff(const struct dw_geo *g, int64_t c)
{
    c += 2;
    return c / 2 + (c & 1) * g->odd;
}

static int64_t dw_boundary_col(const struct dw_geo *g, int64_t tid)
{
    return tid == 0 ? g->win : tid - 3;
}

/* Output column of thread tid (parityIdx<WIN_SX>()). */
static int64_t dw_outcol(const struct dw_geo *g, int64_t tid)
{
    return tid < g->win / 2 ? 2 * tid : 2 * tid - (g->win - 1);
}

/* Column phase sub-steps (per window): 3 LDS stores of the kept pixels, 8
 * loads, 8 LDS stores, 3 LDS loads of the new kept pixels, then 5 predict
 * steps (rows 1, 3, .., 9) and 4 update steps (rows 2, 4, 6, 8) of 5 ops
 * each (LDS loads of prev, next, centre, ALU, store). */
#define DW_COL_OPS (3 + 8 + 8 + 3 + 9 * 5)
/* Horizontal phase: per iteration LDS loads prev, next, centre, ALU, store. */
#define DW_H_OPS 5

enum {
    DW_INIT, DW_PRE_MAIN, DW_PRE_BOUND = DW_PRE_MAIN + 3, DW_WIN = DW_PRE_BOUND + 3, DW_MAIN,
    DW_BOUND, DW_BAR1, DW_HODD, DW_BAR2, DW_HEVEN, DW_BAR3, DW_WRITE, DW_BAR4, DW_EXIT,
};

/* Lanes of the warp taking part in the boundary columns (threads 0..2). */
static uint64_t dw_bmask(const struct kernel_warp *w) { return rod2_tid_mask(w, 0, 2); }

/* A global load of row j for each lane's column. */
static void dw_load(const struct kernel *k, const struct dw_geo *g, struct kernel_warp *w,
                    struct kernel_op *op, int64_t j, bool b, uint64_t mask, uint8_t dst)
{
    const struct kernel_buf *in = k->args[0].buf;
    int64_t row = dw_row(g, w->wg_id.y, j);
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        int64_t col = dw_col(g, w->wg_id.x, kernel_tid(w, l), b);
        w->lane_addr[l] = in->base + (addr_t)(row * g->sx + col) * 4;
    }
    rod2_mem_lanes(op, KOP_LOAD, 4, mask);
    op->dst = dst;
}

/* An LDS access of buffer row `row` of each lane's column (+ delta ints). */
static void dw_lds_col(const struct dw_geo *g, struct kernel_warp *w, struct kernel_op *op,
                       uint8_t kind, int64_t row, bool b, uint64_t mask)
{
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        int64_t tid = kernel_tid(w, l);
        int64_t off = dw_coloff(g, b ? dw_boundary_col(g, tid) : tid);
        w->lane_addr[l] = (addr_t)(off + row * g->vs) * 4;
    }
    rod2_mem_lanes(op, kind, 4, mask);
}

/* Sub-step s of the column phase for window win (main or boundary column). */
static void dw_column(const struct kernel *k, const struct dw_geo *g, struct kernel_warp *w,
                      struct kernel_op *op, unsigned s, int64_t win, bool b, uint64_t mask)
{
    uint8_t r0 = b ? 30 : 10; /* load registers */
    if (s < 3) { /* buffer[offset + s * STRIDE] = pixel_s */
        dw_lds_col(g, w, op, KOP_LDS_STORE, s, b, mask);
        op->src[0] = (uint8_t)(r0 + 8 + s);
    } else if (s < 11) {
        dw_load(k, g, w, op, 3 + 8 * win + (s - 3), b, mask, (uint8_t)(r0 + s - 3));
    } else if (s < 19) {
        dw_lds_col(g, w, op, KOP_LDS_STORE, 3 + (s - 11), b, mask);
        op->src[0] = (uint8_t)(r0 + s - 11);
    } else if (s < 22) { /* pixel_i = buffer[offset + (WIN_SIZE_Y + i) * STRIDE] */
        dw_lds_col(g, w, op, KOP_LDS_LOAD, DW_WSY + (s - 19), b, mask);
        op->dst = (uint8_t)(r0 + 8 + s - 19);
    } else {
        /* forEachVerticalOdd (rows 1, 3, .., 9), then forEachVerticalEven
         * (rows 2, 4, 6, 8) */
        unsigned v = (s - 22) / 5, o = (s - 22) % 5;
        int64_t row = v < 5 ? 1 + 2 * v : 2 + 2 * (v - 5);
        uint8_t rr = (uint8_t)(r0 + 12);
        if (o == 0)
            dw_lds_col(g, w, op, KOP_LDS_LOAD, row - 1, b, mask);
        else if (o == 1)
            dw_lds_col(g, w, op, KOP_LDS_LOAD, row + 1, b, mask);
        else if (o == 2)
            dw_lds_col(g, w, op, KOP_LDS_LOAD, row, b, mask);
        else if (o == 3) /* c -= (p + n) / 2 (5) or c += (p + n + 2) / 4 (7) */
            rod2_alu(op, (v < 5 ? 5 : 7) + (v == 0 ? 10 : 0) + (v == 8 ? (b ? 4 : 2) : 0), rr,
                     0);
        else
            dw_lds_col(g, w, op, KOP_LDS_STORE, row, b, mask);
        if (o < 3)
            op->dst = rr;
    }
}

/* ALU of horizontal iteration it (PTX counts, see the header): predict 5,
 * update 7; the first predict also the LDS address (2); the last full
 * iteration the test of the partial one (1), and the last full update the
 * writer's LDS and store addresses (19) and the window loop's latch (7). */
static uint32_t dw_fdwt_alu_h(int64_t it, int64_t steps, bool odd)
{
    uint32_t n = odd ? 5 : 7;
    if (odd && it == 0)
        n += 2;
    if (it == steps - 1)
        n += odd ? 1 : 1 + 19 + 7;
    return n;
}

/* Sub-step s of a horizontal phase (odd: predict, even: update): 1 with an
 * op, 0 when this warp has no lane in the step, -1 when the phase is over. */
static int dw_horizontal(const struct dw_geo *g, struct kernel_warp *w, struct kernel_op *op,
                          unsigned s, bool odd)
{
    int64_t count = DW_WSY * g->vs - 1, steps = count / g->win, fin = count % g->win;
    int64_t it = s / DW_H_OPS, o = s % DW_H_OPS, t0 = kernel_tid(w, 0);
    if (it > steps || (it == steps && !fin))
        return -1;
    uint64_t mask = it < steps ? low_bits(w->nlanes) : rod2_tid_mask(w, 0, fin - 1);
    if (!mask)
        return 0;
    int64_t line = 2 * g->vs; /* firstLine = 2 */
    int64_t prev = odd ? line : line + g->odd, mid = odd ? line + g->odd : line + 1;
    int64_t next = odd ? line + 1 : line + g->odd + 1, at = it * g->win + t0;
    if (o == 3) { /* predict 5, update 7; see dw_fdwt_alu_h */
        rod2_alu(op, dw_fdwt_alu_h(it, steps, odd), 50, 0);
        return 1;
    }
    int64_t off = o == 0 ? prev : o == 1 ? next : mid;
    rod2_mem(op, o == 4 ? KOP_LDS_STORE : KOP_LDS_LOAD, (addr_t)(off + at) * 4, 4, 4, mask);
    if (o < 3)
        op->dst = 50;
    return 1;
}

/* Writer: r = 2 .. 9 of window win; sub-step s: LDS load, store (low for
 * even buffer rows, high for odd). */
static void dw_write(const struct kernel *k, const struct dw_geo *g, struct kernel_warp *w,
                     struct kernel_op *op, unsigned s, int64_t win, uint64_t *mask)
{
    int64_t r = 2 + s / 2, y = w->wg_id.y * DW_WSY * g->steps + DW_WSY * win + r - 2;
    const struct kernel_buf *out = k->args[1].buf;
    int64_t lw = (g->sx + 1) / 2, hw = g->sx / 2, lh = (g->sy + 1) / 2;
    *mask = 0;
    if (y >= g->sy)
        return;
    for (unsigned l = 0; l < w->nlanes; l++) {
        int64_t tid = kernel_tid(w, l), oc = dw_outcol(g, tid), x = w->wg_id.x * g->win + oc;
        if (x >= g->sx)
            continue;
        *mask |= 1ull << l;
        if (s % 2 == 0) {
            w->lane_addr[l] = (addr_t)(dw_coloff(g, oc) + r * g->vs) * 4;
            continue;
        }
        bool xhi = x & 1, yhi = y & 1;
        int64_t band = (xhi ? lw * lh : 0) + (yhi ? lw * lh + hw * lh : 0);
        int64_t bwidth = xhi ? hw : lw;
        w->lane_addr[l] = out->base + (addr_t)(band + (y / 2) * bwidth + x / 2) * 4;
    }
    if (!*mask)
        return;
    rod2_mem_lanes(op, s % 2 ? KOP_STORE : KOP_LDS_LOAD, 4, *mask);
    if (s % 2 == 0)
        op->dst = 51;
    else
        op->src[0] = 51;
}

/* r[0] window, r[1] sub-step. */
static void dw_fdwt_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    struct dw_geo g = dw_geo(k);
    uint64_t all = low_bits(w->nlanes), bm = dw_bmask(w);
    for (;;) {
        unsigned pc = w->pc, s = (unsigned)w->r[1];
        int64_t win = (int64_t)w->r[0];
        if (pc == DW_INIT) {
            /* run(): limits; transform(): offsets, loaders, writer (110); the
             * boundary columns' set-up (29, threads 0..2); the writer's band
             * set-up for even (8) and odd (11) output columns */
            bool lo = kernel_tid(w, 0) < g.win / 2, hi = kernel_tid(w, w->nlanes - 1) >= g.win / 2;
            rod2_alu(op, 110 + (bm ? 29 : 0) + (lo ? 8 : 0) + (hi ? 11 : 0), 0, 0);
            w->pc++;
            return;
        }
        if (pc < DW_WIN) { /* initColumn: the 3 preloaded pixels */
            bool b = pc >= DW_PRE_BOUND;
            uint64_t m = b ? bm : all;
            unsigned j = pc - (b ? DW_PRE_BOUND : DW_PRE_MAIN);
            w->pc++;
            if (!m)
                continue;
            dw_load(k, &g, w, op, j, b, m, (uint8_t)((b ? 30 : 10) + 8 + j));
            return;
        }
        switch (pc) {
        case DW_WIN:
            w->pc = win < g.steps ? DW_MAIN : DW_EXIT;
            w->r[1] = 0;
            continue;
        case DW_MAIN:
        case DW_BOUND: {
            uint64_t m = pc == DW_MAIN ? all : bm;
            if (s == DW_COL_OPS || !m) {
                w->pc++;
                w->r[1] = 0;
                continue;
            }
            w->r[1]++;
            dw_column(k, &g, w, op, s, win, pc == DW_BOUND, m);
            return;
        }
        case DW_HODD:
        case DW_HEVEN:
            w->r[1]++;
            int h = dw_horizontal(&g, w, op, s, pc == DW_HODD);
            if (h < 0) {
                w->pc++;
                w->r[1] = 0;
            }
            if (h <= 0)
                continue;
            return;
        case DW_WRITE: {
            if (s == 2 * DW_WSY) {
                w->pc++;
                w->r[1] = 0;
                continue;
            }
            w->r[1]++;
            uint64_t m;
            dw_write(k, &g, w, op, s, win, &m);
            if (!m)
                continue;
            return;
        }
        case DW_BAR1:
        case DW_BAR2:
        case DW_BAR3:
        case DW_BAR4:
            op->kind = KOP_BARRIER;
            w->pc = pc == DW_BAR4 ? DW_WIN : pc + 1;
            w->r[1] = 0;
            if (pc == DW_BAR4)
                w->r[0]++;
            return;
        default:
            w->pc = DW_EXIT;
            op->kind = KOP_EXIT;
            return;
        }
    }
}

/* in: one span from the first to the last element the block's columns load
 * (rows with the top mirror and the bottom reversal, columns -2 .. WIN_SX
 * mirrored); out: in each of the four bands, the span of the block's rows
 * and columns. */
static unsigned dw_fdwt_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                               struct addr_range *out, unsigned max)
{
    struct dw_geo g = dw_geo(k);
    int64_t bx = wg % k->grid.x, by = wg / k->grid.x, first = by * DW_WSY * g.steps;
    addr_t base = k->args[arg].buf->base;
    struct range_list r;
    range_list_init(&r, out, max, 0);
    if (arg == 0) {
        int64_t ylo = by > 0 ? first - 2 : 0, yhi = first + DW_WSY * g.steps;
        int64_t rmin = ylo, rmax = yhi >= g.sy ? g.sy - 1 : yhi;
        if (yhi >= g.sy) /* the reversed sweep comes back up to 2 (sy - 1) - yhi */
            rmin = min_i64(rmin, max_i64(0, 2 * (g.sy - 1) - yhi));
        int64_t clo = bx * g.win - 2, chi = bx * g.win + g.win;
        int64_t cmin = max_i64(clo, 0), cmax = chi >= g.sx ? g.sx - 1 : chi;
        if (chi >= g.sx)
            cmin = min_i64(cmin, max_i64(0, 2 * (g.sx - 1) - chi));
        range_list_add(&r, base + (addr_t)(rmin * g.sx + cmin) * 4,
                    base + (addr_t)(rmax * g.sx + cmax + 1) * 4);
        return range_list_done(&r, base);
    }
    int64_t lw = (g.sx + 1) / 2, hw = g.sx / 2, lh = (g.sy + 1) / 2;
    int64_t x0 = bx * g.win, x1 = min_u64((uint64_t)(x0 + g.win), (uint64_t)g.sx) - 1;
    int64_t y0 = first, y1 = min_u64((uint64_t)(first + DW_WSY * g.steps), (uint64_t)g.sy) - 1;
    for (int yhi = 0; yhi < 2; yhi++)
        for (int xhi = 0; xhi < 2; xhi++) {
            int64_t ya = y0 + yhi, yb = y1 - ((y1 - yhi) & 1); /* rows of this parity */
            int64_t xa = x0 + xhi, xb = x1 - ((x1 - xhi) & 1);
            if (ya > yb || xa > xb)
                continue;
            int64_t band = (xhi ? lw * lh : 0) + (yhi ? lw * lh + hw * lh : 0);
            int64_t bw = xhi ? hw : lw;
            range_list_add(&r, base + (addr_t)(band + (ya / 2) * bw + xa / 2) * 4,
                        base + (addr_t)(band + (yb / 2) * bw + xb / 2 + 1) * 4);
        }
    return range_list_done(&r, base);
}

static bool dwt2d_next_kernel(void *self, struct kernel *k)
{
    struct dwt2d *d = self;
    if (d->kernels == 1 + d->ncomp * d->levels)
        return false;
    if (d->kernels == 0) {
        uint32_t grid = (uint32_t)div_ceil((uint64_t)d->pixels, DW_THREADS);
        wl_kernel_init(k, d->ncomp == 3 ? "c_CopySrcToComponents" : "c_CopySrcToComponent", grid,
                       1, DW_THREADS, 1, dw_copy_next);
        k->lds_b = DW_THREADS * d->ncomp;
        wl_kernel_arg(k, d->src, KERNEL_R);
        for (unsigned c = 0; c < d->ncomp; c++)
            wl_kernel_arg(k, d->comp[c], KERNEL_RW);
        k->ranges = dw_copy_ranges;
        k->ctx = d;
        d->kernels++;
        return true;
    }
    unsigned c = (d->kernels - 1) / d->levels, l = (d->kernels - 1) % d->levels;
    int64_t sx = d->w, sy = d->h;
    for (unsigned i = 0; i < l; i++) {
        sx = (sx + 1) / 2;
        sy = (sy + 1) / 2;
    }
    int64_t win = sx >= 960 ? 192 : sx >= 480 ? 128 : 64;
    int64_t steps = (int64_t)div_ceil((uint64_t)sy, 15 * DW_WSY);
    wl_kernel_init(k, "fdwt53Kernel", (uint32_t)div_ceil((uint64_t)sx, (uint64_t)win),
                   (uint32_t)div_ceil((uint64_t)sy, (uint64_t)(DW_WSY * steps)), (uint32_t)win,
                   1, dw_fdwt_next);
    k->lds_b = dw_lds_b(win);
    k->p[0] = (uint64_t)sx;
    k->p[1] = (uint64_t)sy;
    k->p[2] = (uint64_t)win;
    k->p[3] = (uint64_t)steps;
    k->p[4] = c;
    wl_kernel_arg(k, d->comp[c], KERNEL_R);
    wl_kernel_arg(k, d->out[c], KERNEL_RW);
    k->ranges = dw_fdwt_ranges;
    k->ctx = d;
    d->kernels++;
    return true;
}

static const char *const dwt2d_small[] = {"width=64", "height=64", "levels=2", NULL};

const struct wl_ops wl_dwt2d = {
    .name = "dwt2d",
    .suite = "Rodinia",
    .desc = "Rodinia dwt2d: forward 5/3 2D wavelet transform, LDS-tiled column/row lifting, RGB",
    .keys = dwt2d_keys,
    .small = dwt2d_small,
    .create = dwt2d_create,
    .next_kernel = dwt2d_next_kernel,
    .destroy = dwt2d_destroy,
};
