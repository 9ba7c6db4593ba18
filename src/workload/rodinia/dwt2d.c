/*
 * dwt2d.c -- Rodinia dwt2d (main.cu, components.cu, dwt.cu, dwt_cuda/
 * fdwt53.cu, transform_buffer.h, io.h): forward 2D discrete wavelet
 * transform, CDF 5/3 (the Rodinia run script's "-f -5 -l 3"; int samples),
 * of an RGB image, `levels` levels per component, as kernel descriptions
 * (src/workload/kd.h).
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
 * back from the component buffer. The host computes, per level, what the
 * descriptions read from arrays: the mirrored rows and columns, the LDS
 * column offsets (even and odd columns in their halves) and the writer's
 * output offsets (band, band row and column of each thread's parity).
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
#include <string.h>

#include "workload/kdw.h"

#define DW_THREADS 256 /* components.cu THREADS */
#define DW_WSY 8       /* WIN_SIZE_Y */
#define DW_BANKS 32    /* SHM_BANKS */
#define DW_MAX_LEVELS 16

static const struct cfg_key dwt2d_keys[] = {
    {"width", CFG_INT, "4096", 1, 65536, "image width (rgb.bmp 4096x4096)", NULL},
    {"height", CFG_INT, "4096", 1, 65536, "image height", NULL},
    {"levels", CFG_INT, "3", 1, DW_MAX_LEVELS, "DWT levels (-l 3)", NULL},
    {"components", CFG_INT, "3", 1, 3, "colour components: 3 (RGB) or 1 (grey)", NULL},
    CFG_END,
};

/* ---- c_CopySrcToComponents ------------------------------------------------ */

/* if ((x * 4) < THREADS * components) sData[x] = s[((gX * components) >> 2) + x];
 * __syncthreads(); then each thread's components from sData[x * components + c]
 * and, if gX + x < pixels, one store per component. ALU (PTX counts, see the
 * header): entry 8 + nc (parameters, ids, the x < 192 test), plus in warps
 * that load the source address and the LDS address (8, 7 for one component);
 * after the LDS loads the bounds test (3), plus in warps that store the LDS
 * address, the `- 128` per component and the store addresses (3 + 2 nc). */
#define DW_COPY_HEAD(alu, q)                                                                       \
    "alu " alu " [tx < " q "]\n"                                                                   \
    "if tx < " q "\n"                                                                              \
    "  load d_src[bx*" q " + tx] 4 -> r1\n"                                                        \
    "  lds_store lds[tx] 4 < r1\n"                                                                 \
    "end\n"                                                                                        \
    "barrier\n"                                                                                    \
    "for m0 = 0 .. nc\n"                                                                           \
    "  lds_load lds[tx*nc + m0] 1 -> r2..r4\n"                                                     \
    "end\n"
static const char *const copy_params[] = {"n", "nc", NULL};
static const char *const copy3_bufs[] = {"d_src", "c_r", "c_g", "c_b", NULL};
static const struct kd_desc copy3_kd = {
    .name = "c_CopySrcToComponents", .params = copy_params, .bufs = copy3_bufs,
    .body = DW_COPY_HEAD("11 + 8", "192") "alu 3 + 9 [gid < n] < r2 r4\n"
                                          "if gid < n\n"
                                          "  store c_r[gid] 4 < r2\n"
                                          "  store c_g[gid] 4 < r3\n"
                                          "  store c_b[gid] 4 < r4\n"
                                          "end\n"};
static const char *const copy1_bufs[] = {"d_src", "c_r", NULL};
static const struct kd_desc copy1_kd = {
    .name = "c_CopySrcToComponent", .params = copy_params, .bufs = copy1_bufs,
    .body = DW_COPY_HEAD("9 + 7", "64") "alu 3 + 5 [gid < n] < r2 r2\n"
                                        "if gid < n\n"
                                        "  store c_r[gid] 4 < r2\n"
                                        "end\n"};

/* ---- fdwt53Kernel ------------------------------------------------------------- */

/* One column's window (main: the thread's column, LDS offsets @loff,
 * registers r10..r22; boundary: threads 0..2's column, @loff[bdx + tx],
 * r30..r42):
 * three LDS stores of the kept pixels (buffer rows 0..2), 8 loads of the
 * next rows, 8 LDS stores (rows 3..10), three LDS loads of the new kept
 * pixels (rows 8..10), then forEachVerticalOdd (predict, rows 1, 3, .., 9)
 * and forEachVerticalEven (update, rows 2, 4, 6, 8), each step LDS loads of
 * the two neighbours and the centre, c -= (p + n) / 2 (5) or
 * c += (p + n + 2) / 4 (7), LDS store. The first predict also has the 8 load
 * addresses (10), the last update the tests after the column (2 for the
 * main column, 4 for the boundary one: its pointer and kept pixels). */
#define DW_COLUMN(off, load, rk, rw, rkn, rl, last)                                                \
    "for m1 = 0 .. 3\n"                                                                            \
    "  lds_store lds[" off " + m1*vs] 4 < " rk "\n"                                                \
    "end\n" load                                                                                   \
    "for m1 = 0 .. 8\n"                                                                            \
    "  lds_store lds[" off " + (3 + m1)*vs] 4 < " rw "\n"                                          \
    "end\n"                                                                                        \
    "for m1 = 0 .. 3\n"                                                                            \
    "  lds_load lds[" off " + (8 + m1)*vs] 4 -> " rk "\n"                                          \
    "end\n"                                                                                        \
    "for m1 = 0 .. 5\n"                                                                            \
    "  lds_load lds[" off " + 2*m1*vs] 4 -> " rl "\n"                                              \
    "  lds_load lds[" off " + (2*m1 + 2)*vs] 4 -> " rl "\n"                                        \
    "  lds_load lds[" off " + (2*m1 + 1)*vs] 4 -> " rl "\n"                                        \
    "  alu 5 + 10 [m1 < 1] < " rl "\n"                                                             \
    "  lds_store lds[" off " + (2*m1 + 1)*vs] 4\n"                                                 \
    "end\n"                                                                                        \
    "for m1 = 0 .. 4\n"                                                                            \
    "  lds_load lds[" off " + (2*m1 + 1)*vs] 4 -> " rl "\n"                                        \
    "  lds_load lds[" off " + (2*m1 + 3)*vs] 4 -> " rl "\n"                                        \
    "  lds_load lds[" off " + (2*m1 + 2)*vs] 4 -> " rl "\n"                                        \
    "  alu 7 + " last " [2 < m1] < " rl "\n"                                                       \
    "  lds_store lds[" off " + (2*m1 + 2)*vs] 4\n"                                                 \
    "end\n"

/* A load of the thread's column (mirrored, @col) in the image row @row[j]:
 * the row a one-iteration loop's variable. */
#define DW_LOAD(j, r)                                                                              \
    "for m3 = @row[" j "] .. @row[" j "] + 1\n"                                                    \
    "  load in[@col[gid] + m3] 4 -> " r "\n"                                                       \
    "end\n"

/* horizontalStep over the window's 8 x stride - 1 elements: full iterations
 * of WIN_SX threads and a partial last one, each LDS loads of prev, next and
 * centre, the ALU (predict 5, update 7; the first predict also the LDS
 * address, 2; the last full iteration the test of the partial one, 1, and
 * in the update also the writer's LDS and store addresses, 19, and the
 * window loop's latch, 7), LDS store of the centre; a barrier after. */
#define DW_HORIZONTAL(prev, next, mid, alu)                                                        \
    "for m1 = 0 .. hn\n"                                                                           \
    "  if m1*bdx + tx < count\n"                                                                   \
    "    lds_load lds[" prev " + m1*bdx + tx] 4 -> r50\n"                                          \
    "    lds_load lds[" next " + m1*bdx + tx] 4 -> r50\n"                                          \
    "    lds_load lds[" mid " + m1*bdx + tx] 4 -> r50\n"                                           \
    "    alu " alu " < r50\n"                                                                      \
    "    lds_store lds[" mid " + m1*bdx + tx] 4\n"                                                 \
    "  end\n"                                                                                      \
    "end\n"                                                                                        \
    "barrier\n"

/* Arrays (per level, dw_arrays): row[by*L + j], image row x sx of load j of
 * block row by (3 preloads, then 8 per window; mirrored); col[gid], the
 * thread's mirrored column; bnd[((by*gdx + bx)*L + j)*3 + t], row and column
 * of boundary thread t's load j; loff[tx] and loff[bdx + t], LDS column offsets of
 * the main and boundary columns; oc[tx], the writer's output column
 * (parityIdx), woff[tx] its LDS offset; wo[y*bdx + tx], its element in the
 * output less bx x WIN_SX / 2 (band of its parities, band row, column);
 * hlast[i], 1 in the last full horizontal iteration. */
static const char *const fdwt_params[] = {"sx",   "sy",    "steps", "L",  "vs",  "odd",
                                          "line", "count", "hn",    "wy", "hw",  "hw1",
                                          "pitch", NULL};
static const char *const fdwt_bufs[] = {"in", "out", NULL};
static const char *const fdwt_arrays[] = {"row", "col",  "bnd", "loff",
                                          "oc",  "woff", "wo",  "hlast", NULL};
static const struct kd_desc fdwt_kd = {
    .name = "fdwt53Kernel", .params = fdwt_params, .bufs = fdwt_bufs, .arrays = fdwt_arrays,
    /* a work-group's rows of the input, and of each band, are one range */
    .range_reads = true, .range_join_param = "pitch",
    .body =
        /* run(): limits; transform(): offsets, loaders, writer (110); the
         * boundary columns' set-up (29, threads 0..2); the writer's band
         * set-up for even (8) and odd (11) output columns */
        "alu 110 + 29 [tx < 3] + 8 [tx < hw] + 11 [hw1 < tx]\n"
        /* initColumn: 3 preloaded rows */
        DW_LOAD("by*L", "r18") DW_LOAD("by*L + 1", "r19") DW_LOAD("by*L + 2", "r20")
        "if tx < 3\n"
        "  for m1 = 0 .. 3\n"
        "    load in[@bnd[((by*gdx + bx)*L + m1)*3 + tx]] 4 -> r38..r40\n"
        "  end\n"
        "end\n"
        "for m0 = 0 .. steps                           # the windows\n"
        DW_COLUMN("@loff[tx]",
                  DW_LOAD("by*L + 3 + 8*m0", "r10") DW_LOAD("by*L + 4 + 8*m0", "r11")
                  DW_LOAD("by*L + 5 + 8*m0", "r12") DW_LOAD("by*L + 6 + 8*m0", "r13")
                  DW_LOAD("by*L + 7 + 8*m0", "r14") DW_LOAD("by*L + 8 + 8*m0", "r15")
                  DW_LOAD("by*L + 9 + 8*m0", "r16") DW_LOAD("by*L + 10 + 8*m0", "r17"),
                  "r18..r20", "r10..r17", "r18..r20", "r22", "2")
        "  if tx < 3\n"
        DW_COLUMN("@loff[bdx + tx]",
                  "for m1 = 0 .. 8\n"
                  "  load in[@bnd[((by*gdx + bx)*L + 3 + 8*m0 + m1)*3 + tx]] 4 -> r30..r37\n"
                  "end\n",
                  "r38..r40", "r30..r37", "r38..r40", "r42", "4")
        "  end\n"
        "  barrier\n"
        DW_HORIZONTAL("line", "line + 1", "line + odd", "5 + 2 [m1 < 1] + 1 [0 < @hlast[m1]]")
        DW_HORIZONTAL("line + odd", "line + odd + 1", "line + 1", "7 + 27 [0 < @hlast[m1]]")
        /* the writer: buffer rows 2..9, rows below sy, columns inside the image */
        "  for m1 = 0 .. 8\n"
        "    if by*wy + 8*m0 + m1 < sy\n"
        "      if bx*bdx + @oc[tx] < sx\n"
        "        lds_load lds[@woff[tx] + (2 + m1)*vs] 4 -> r51\n"
        "        store out[@wo[(by*wy + 8*m0 + m1)*bdx + tx] + bx*hw] 4 < r51\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "  barrier\n"
        "end\n",
};

/* ---- the host: geometry and arrays of each level ---------------------------- */

enum { A_ROW, A_COL, A_BND, A_LOFF, A_OC, A_WOFF, A_WO, A_HLAST, A_N };

/* One level: the image sx x sy, WIN_SX, steps, the grid, VERTICAL_STRIDE
 * (vs) and ODD_OFFSET (odd) in ints, and the arrays its launch reads. */
struct dw_level {
    int64_t sx, sy, win, steps, vs, odd, gx, gy, len; /* len: loads per column (L) */
    uint32_t *a[A_N];
    uint64_t n[A_N];
};

struct dwt2d {
    struct kdw w;
    const struct kernel_buf *src, *comp[3], *out[3], *backup;
    int64_t pixels;
    unsigned levels, ncomp;
    struct dw_level lv[DW_MAX_LEVELS];
};

static int64_t dw_mirror(int64_t x, int64_t n)
{
    while (x < 0 || x >= n)
        x = x < 0 ? -x : 2 * (n - 1) - x;
    return x;
}

/* LDS int offset of column c (relative, -2 .. win) of the transform buffer. */
static uint32_t dw_coloff(const struct dw_level *g, int64_t c)
{
    c += 2;
    return (uint32_t)(c / 2 + (c & 1) * g->odd);
}

/* Output column of thread tid (parityIdx<WIN_SX>()). */
static int64_t dw_outcol(const struct dw_level *g, int64_t tid)
{
    return tid < g->win / 2 ? 2 * tid : 2 * tid - (g->win - 1);
}

/* Column of boundary thread t (0..2): WIN_SX, -2, -1. */
static int64_t dw_bcol(const struct dw_level *g, int64_t t)
{
    return t == 0 ? g->win : t - 3;
}

/* The image row of the j-th load of a column of block row by (j < 3: the
 * preload; then 8 per window). The loader walks down from firstY - 2 (or
 * re-reads rows 0..2 and restarts at row 1 in the top block row) and, in the
 * bottom boundary blocks (CHECKED loader), reverses at the image's last row. */
static int64_t dw_row(const struct dw_level *g, int64_t by, int64_t j)
{
    int64_t first = by * DW_WSY * g->steps, y;
    if (j < 3)
        y = by > 0 ? first - 2 + j : j;
    else
        y = first + 1 + (j - 3);
    return dw_mirror(y, g->sy);
}

static uint32_t *dw_array(struct dw_level *g, unsigned a, uint64_t n)
{
    g->n[a] = n;
    return g->a[a] = xcalloc(n, sizeof(uint32_t));
}

/* The loads' rows and columns. */
static void dw_load_arrays(struct dw_level *g)
{
    uint32_t *row = dw_array(g, A_ROW, (uint64_t)(g->gy * g->len));
    uint32_t *col = dw_array(g, A_COL, (uint64_t)(g->gx * g->win));
    uint32_t *bnd = dw_array(g, A_BND, (uint64_t)(g->gy * g->gx * g->len * 3));
    for (int64_t by = 0; by < g->gy; by++)
        for (int64_t j = 0; j < g->len; j++)
            row[by * g->len + j] = (uint32_t)(dw_row(g, by, j) * g->sx);
    for (int64_t i = 0; i < g->gx * g->win; i++)
        col[i] = (uint32_t)dw_mirror(i, g->sx);
    for (int64_t by = 0; by < g->gy; by++)
        for (int64_t bx = 0; bx < g->gx; bx++)
            for (int64_t j = 0; j < g->len; j++)
                for (int64_t t = 0; t < 3; t++)
                    bnd[((by * g->gx + bx) * g->len + j) * 3 + t] =
                        (uint32_t)(dw_row(g, by, j) * g->sx +
                                   dw_mirror(bx * g->win + dw_bcol(g, t), g->sx));
}

/* The LDS offsets, the writer's columns and output offsets, and the last
 * full horizontal iteration. */
static void dw_write_arrays(struct dw_level *g)
{
    uint32_t *loff = dw_array(g, A_LOFF, (uint64_t)g->win + 3);
    uint32_t *oc = dw_array(g, A_OC, (uint64_t)g->win);
    uint32_t *woff = dw_array(g, A_WOFF, (uint64_t)g->win);
    uint32_t *wo = dw_array(g, A_WO, (uint64_t)(g->sy * g->win));
    int64_t lw = (g->sx + 1) / 2, hw = g->sx / 2, lh = (g->sy + 1) / 2;
    for (int64_t t = 0; t < g->win; t++) {
        int64_t c = dw_outcol(g, t);
        loff[t] = dw_coloff(g, t);
        oc[t] = (uint32_t)c;
        woff[t] = dw_coloff(g, c);
        for (int64_t y = 0; y < g->sy; y++) {
            bool xhi = c & 1, yhi = y & 1;
            int64_t band = (xhi ? lw * lh : 0) + (yhi ? lw * lh + hw * lh : 0);
            wo[y * g->win + t] = (uint32_t)(band + (y / 2) * (xhi ? hw : lw) + c / 2);
        }
    }
    for (int64_t t = 0; t < 3; t++)
        loff[g->win + t] = dw_coloff(g, dw_bcol(g, t));
    int64_t full = (DW_WSY * g->vs - 1) / g->win;
    uint32_t *hlast = dw_array(g, A_HLAST, (uint64_t)full + 1);
    hlast[full - 1] = 1;
}

/* Level l of an image w x h: the LL band of level l - 1. */
static void dw_level_init(struct dw_level *g, int64_t w, int64_t h)
{
    g->sx = w;
    g->sy = h;
    g->win = w >= 960 ? 192 : w >= 480 ? 128 : 64;
    g->steps = (int64_t)div_ceil((uint64_t)h, 15 * DW_WSY);
    g->gx = (int64_t)div_ceil((uint64_t)w, (uint64_t)g->win);
    g->gy = (int64_t)div_ceil((uint64_t)h, (uint64_t)(DW_WSY * g->steps));
    g->len = 3 + DW_WSY * g->steps;
    g->vs = 2 + g->win / 2;
    int64_t bsize = g->vs * (DW_WSY + 3);
    g->odd = bsize + DW_BANKS - (bsize + DW_BANKS / 2) % DW_BANKS;
    dw_load_arrays(g);
    dw_write_arrays(g);
}

static void dwt2d_release(struct kdw *w)
{
    struct dwt2d *d = (struct dwt2d *)w;
    for (unsigned l = 0; l < DW_MAX_LEVELS; l++)
        for (unsigned a = 0; a < A_N; a++)
            free(d->lv[l].a[a]);
}

/* The buffers, in processDWT's allocation order. */
static void dw_alloc(struct dwt2d *d, int64_t w, int64_t h)
{
    struct wl_env *env = d->w.env;
    d->pixels = w * h;
    uint64_t csize = (uint64_t)d->pixels * 4; /* int components (5/3) */
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
}

static int dwt2d_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct dwt2d *d = (struct dwt2d *)w;
    int64_t width = (int64_t)cfg_uint(sec, "width"), height = (int64_t)cfg_uint(sec, "height");
    d->levels = (unsigned)cfg_uint(sec, "levels");
    d->ncomp = (unsigned)cfg_uint(sec, "components");
    int64_t lw = width, lh = height;
    for (unsigned l = 1; l < d->levels; l++) {
        lw = (lw + 1) / 2;
        lh = (lh + 1) / 2;
    }
    if (d->ncomp == 2)
        return cfg_err(e, sec, "components", "must be 1 or 3");
    if (lw < 3 || lh < 3)
        return cfg_err(e, sec, "levels", "the last level would be %lldx%lld, below 3x3",
                       (long long)lw, (long long)lh);
    dw_alloc(d, width, height);
    for (unsigned l = 0; l < d->levels; l++) {
        dw_level_init(&d->lv[l], width, height);
        width = (width + 1) / 2;
        height = (height + 1) / 2;
    }
    return 0;
}

/* Launch 0: the copy; then per component its levels. */
static bool dwt2d_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct dwt2d *d = (const struct dwt2d *)w;
    if (i == 1 + (uint64_t)d->ncomp * d->levels)
        return false;
    if (i == 0) {
        *l = (struct kdw_launch){
            .prog = d->ncomp == 3 ? 0 : 1,
            .grid = {(uint32_t)div_ceil((uint64_t)d->pixels, DW_THREADS), 1, 1},
            .block = {DW_THREADS, 1, 1}, .params = {d->pixels, d->ncomp},
            .bufs = {d->src, d->comp[0], d->comp[1], d->comp[2]},
            .lds_b = DW_THREADS * d->ncomp};
        return true;
    }
    unsigned c = (unsigned)(i - 1) / d->levels;
    const struct dw_level *g = &d->lv[(i - 1) % d->levels];
    int64_t count = DW_WSY * g->vs - 1;
    *l = (struct kdw_launch){
        .prog = 2, .grid = {(uint32_t)g->gx, (uint32_t)g->gy, 1}, .block = {(uint32_t)g->win, 1, 1},
        .params = {g->sx, g->sy, g->steps, g->len, g->vs, g->odd, 2 * g->vs, count,
                   count / g->win + (count % g->win != 0), DW_WSY * g->steps, g->win / 2,
                   g->win / 2 - 1, g->sx * 4},
        .bufs = {d->comp[c], d->out[c]},
        .lds_b = (uint32_t)(g->vs * (DW_WSY + 3) + g->odd) * 4}; /* TransformBuffer */
    for (unsigned a = 0; a < A_N; a++)
        l->arrays[a] = (struct kd_array){g->a[a], g->n[a]};
    return true;
}

static const struct kd_desc *const dwt2d_descs[] = {&copy3_kd, &copy1_kd, &fdwt_kd, NULL};
static const struct kdw_model dwt2d_model = {
    .size = sizeof(struct dwt2d), .descs = dwt2d_descs, .setup = dwt2d_setup,
    .plan = dwt2d_plan, .release = dwt2d_release};

static void *dwt2d_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&dwt2d_model, env, sec, e);
}

static const char *const dwt2d_small[] = {"width=64", "height=64", "levels=2", NULL};

const struct wl_ops wl_dwt2d = {
    .name = "dwt2d",
    .suite = "Rodinia",
    .desc = "Rodinia dwt2d: forward 5/3 2D wavelet transform, LDS-tiled column/row lifting, RGB",
    .keys = dwt2d_keys,
    .small = dwt2d_small,
    .create = dwt2d_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
