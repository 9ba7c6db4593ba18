/*
 * srad_v2.c -- Rodinia srad_v2 (srad.cu, srad_kernel.cu): speckle-reducing
 * anisotropic diffusion on a rows x cols float image, niter iterations of
 * srad_cuda_1 and srad_cuda_2 over 16x16 blocks with LDS tiles.
 *
 * Modelled: grid (cols/16, rows/16) of 16x16 threads per kernel; the real
 * index arithmetic (index, index_n/s/w/e and the replacement loads of the
 * image borders), the LDS tiles (srad_cuda_1: temp, temp_result, north,
 * south, east, west; srad_cuda_2: south_c, east_c, c_cuda_temp,
 * c_cuda_result, temp), every __syncthreads(), the divergent if-chains that
 * pick the neighbours (each region of a warp runs its own LDS loads with its
 * lanes), the stores of C, E, W, S, N (srad_cuda_1) and of J (srad_cuda_2).
 * The ROI statistics (q0sqr) are reduced on the host between iterations
 * (srad_v2 has no kernel for it): nothing is issued for them.
 * Abstracted: no data values (the saturation of c is one LDS store with every
 * lane); the real code also reads a few elements just outside J / C at the
 * image edges (index_n of the first block row, index_s of the last, index_w
 * of element 0, index_e of the last element) before overwriting the values:
 * those lanes are masked off here, so every access stays inside its array.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * srad_kernel.cu (every instruction but global and LDS loads and stores,
 * barriers, ret and cvta.to.global); blocks with no op of their own are
 * counted in the nearest op run as often. See docs/workloads/srad-v2.md.
 */
#include <stdlib.h>

#include "workload/rodinia/rod2.h"

#define SR_B 16 /* BLOCK_SIZE */

static const struct cfg_key srad_keys[] = {
    {"rows", CFG_INT, "2048", 16, 65536, "image rows (argv[1]), a multiple of 16", NULL},
    {"cols", CFG_INT, "2048", 16, 65536, "image columns (argv[2]), a multiple of 16", NULL},
    {"r1", CFG_INT, "0", 0, 65535, "first row of the ROI (argv[3])", NULL},
    {"r2", CFG_INT, "127", 0, 65535, "last row of the ROI (argv[4])", NULL},
    {"c1", CFG_INT, "0", 0, 65535, "first column of the ROI (argv[5])", NULL},
    {"c2", CFG_INT, "127", 0, 65535, "last column of the ROI (argv[6])", NULL},
    {"lambda", CFG_FLOAT, "0.5", 0, 1e9, "update step (argv[7]; no effect on addresses)", NULL},
    {"niter", CFG_INT, "2", 1, 1000000, "iterations (argv[8])", NULL},
    CFG_END,
};

struct srad {
    const struct kernel_buf *j, *c, *e, *w, *s, *n;
    int64_t rows, cols;
    unsigned niter, kernels;
};

static int srad_check(const struct cfg_sec *sec, struct err *e)
{
    uint64_t rows = cfg_uint(sec, "rows"), cols = cfg_uint(sec, "cols");
    if (rows % SR_B)
        return cfg_err(e, sec, "rows", "rows and cols must be multiples of 16");
    if (cols % SR_B)
        return cfg_err(e, sec, "cols", "rows and cols must be multiples of 16");
    if (cfg_uint(sec, "r2") >= rows || cfg_uint(sec, "r1") > cfg_uint(sec, "r2"))
        return cfg_err(e, sec, "r2", "the ROI rows must satisfy r1 <= r2 < rows");
    if (cfg_uint(sec, "c2") >= cols || cfg_uint(sec, "c1") > cfg_uint(sec, "c2"))
        return cfg_err(e, sec, "c2", "the ROI columns must satisfy c1 <= c2 < cols");
    return 0;
}

static void *srad_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    if (srad_check(sec, e))
        return NULL;
    struct srad *q = xcalloc(1, sizeof *q);
    q->rows = (int64_t)cfg_uint(sec, "rows");
    q->cols = (int64_t)cfg_uint(sec, "cols");
    q->niter = (unsigned)cfg_uint(sec, "niter");
    uint64_t size = (uint64_t)(q->rows * q->cols) * 4;
    q->j = wl_alloc(env, "J_cuda", size);
    q->c = wl_alloc(env, "C_cuda", size);
    q->e = wl_alloc(env, "E_C", size);
    q->w = wl_alloc(env, "W_C", size);
    q->s = wl_alloc(env, "S_C", size);
    q->n = wl_alloc(env, "N_C", size);
    return q;
}

static void srad_destroy(void *self)
{
    free(self);
}

/* ---- per-lane global indices ---------------------------------------------- */

enum sr_at { AT_IDX, AT_N, AT_S, AT_W, AT_E, AT_N0, AT_SLAST, AT_W0, AT_ELAST };

static int64_t sr_index(const struct srad *q, const struct kernel_warp *w, unsigned l,
                        enum sr_at at)
{
    int64_t tid = kernel_tid(w, l), tx = tid % SR_B, ty = tid / SR_B;
    int64_t bx = w->wg_id.x, by = w->wg_id.y, c = q->cols;
    int64_t gx = w->k->grid.x, gy = w->k->grid.y, blk = c * SR_B * by + SR_B * bx;
    switch (at) {
    case AT_IDX:
        return blk + c * ty + tx;
    case AT_N:
        return blk + tx - c;
    case AT_S:
        return blk + c * SR_B + tx;
    case AT_W:
        return blk + c * ty - 1;
    case AT_E:
        return blk + c * ty + SR_B;
    case AT_N0:
        return SR_B * bx + tx;
    case AT_SLAST:
        return c * SR_B * (gy - 1) + SR_B * bx + c * (SR_B - 1) + tx;
    case AT_W0:
        return c * SR_B * by + c * ty;
    default:
        return c * SR_B * by + SR_B * (gx - 1) + c * ty + SR_B - 1;
    }
}

/* A global access of every lane at `at` whose index is inside the image;
 * false (and no op) if there is none. */
static bool sr_global(const struct srad *q, struct kernel_warp *w, struct kernel_op *op,
                      uint8_t kind, const struct kernel_buf *b, enum sr_at at, uint8_t reg)
{
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        int64_t i = sr_index(q, w, l, at);
        if (i < 0 || i >= q->rows * q->cols)
            continue;
        w->lane_addr[l] = b->base + (addr_t)i * 4;
        mask |= 1ull << l;
    }
    if (!mask)
        return false;
    rod2_mem_lanes(op, kind, 4, mask);
    if (kind == KOP_LOAD)
        op->dst = reg;
    else
        op->src[0] = reg;
    return true;
}

/* An LDS access of every lane at array + (tid + delta) * 4. */
static void sr_lds(struct kernel_op *op, const struct kernel_warp *w, uint8_t kind, uint32_t array,
                   int delta, uint64_t mask, uint8_t reg)
{
    rod2_mem(op, kind, (addr_t)array + ((addr_t)kernel_tid(w, 0) + (addr_t)(int64_t)delta) * 4, 4,
             4, mask);
    if (kind == KOP_LDS_LOAD)
        op->dst = reg;
    else
        op->src[0] = reg;
}

/* ---- divergent neighbour selection ------------------------------------------ */

/* A neighbour source: LDS array offset and element delta from tid. */
struct sr_src {
    uint32_t array;
    int delta;
};

/* srad_cuda_1 LDS layout (declaration order) */
#define S1_TEMP 0
#define S1_RESULT 1024
#define S1_NORTH 2048
#define S1_SOUTH 3072
#define S1_EAST 4096
#define S1_WEST 5120
/* srad_cuda_2 */
#define S2_SOUTH 0
#define S2_EAST 1024
#define S2_CTEMP 2048
#define S2_CRESULT 3072
#define S2_TEMP 4096

/* The if-chain regions of srad_cuda_1 in code order (nw, ne, se, sw, n, e, s,
 * w, interior) and their n, s, w, e sources. */
static const struct sr_src sr1_src[9][4] = {
    {{S1_NORTH, 0}, {S1_TEMP, SR_B}, {S1_WEST, 0}, {S1_TEMP, 1}},
    {{S1_NORTH, 0}, {S1_TEMP, SR_B}, {S1_TEMP, -1}, {S1_EAST, 0}},
    {{S1_TEMP, -SR_B}, {S1_SOUTH, 0}, {S1_TEMP, -1}, {S1_EAST, 0}},
    {{S1_TEMP, -SR_B}, {S1_SOUTH, 0}, {S1_WEST, 0}, {S1_TEMP, 1}},
    {{S1_NORTH, 0}, {S1_TEMP, SR_B}, {S1_TEMP, -1}, {S1_TEMP, 1}},
    {{S1_TEMP, -SR_B}, {S1_TEMP, SR_B}, {S1_TEMP, -1}, {S1_EAST, 0}},
    {{S1_TEMP, -SR_B}, {S1_SOUTH, 0}, {S1_TEMP, -1}, {S1_TEMP, 1}},
    {{S1_TEMP, -SR_B}, {S1_TEMP, SR_B}, {S1_WEST, 0}, {S1_TEMP, 1}},
    {{S1_TEMP, -SR_B}, {S1_TEMP, SR_B}, {S1_TEMP, -1}, {S1_TEMP, 1}},
};

/* srad_cuda_2 regions (se, e, s, interior) and their cs, ce sources. */
static const struct sr_src sr2_src[4][2] = {
    {{S2_SOUTH, 0}, {S2_EAST, 0}},
    {{S2_CTEMP, SR_B}, {S2_EAST, 0}},
    {{S2_SOUTH, 0}, {S2_CTEMP, 1}},
    {{S2_CTEMP, SR_B}, {S2_CTEMP, 1}},
};

static unsigned sr1_region(unsigned tx, unsigned ty)
{
    const unsigned L = SR_B - 1;
    if (ty == 0 && tx == 0)
        return 0;
    if (ty == 0 && tx == L)
        return 1;
    if (ty == L && tx == L)
        return 2;
    if (ty == L && tx == 0)
        return 3;
    if (ty == 0)
        return 4;
    if (tx == L)
        return 5;
    if (ty == L)
        return 6;
    return tx == 0 ? 7 : 8;
}

static unsigned sr2_region(unsigned tx, unsigned ty)
{
    const unsigned L = SR_B - 1;
    if (ty == L && tx == L)
        return 0;
    if (tx == L)
        return 1;
    return ty == L ? 2 : 3;
}

/* Lanes of the warp in region `r` of kernel 1 or 2. */
static uint64_t sr_region_mask(const struct kernel_warp *w, unsigned kernel, unsigned r)
{
    uint64_t m = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        unsigned tid = kernel_tid(w, l);
        unsigned reg = kernel == 1 ? sr1_region(tid % SR_B, tid / SR_B)
                                   : sr2_region(tid % SR_B, tid / SR_B);
        if (reg == r)
            m |= 1ull << l;
    }
    return m;
}

/* ALU counts of the regions (code order), before and after their LDS loads.
 * The compiler turns the if-chains into one chain of tests that the
 * interior lanes, present in every warp of 32 or more lanes, walk to its
 * end: the whole chain is the interior region's first op (srad_cuda_1 24,
 * srad_cuda_2 10); every other region carries its own block (srad_cuda_1:
 * 5, 6 for n and s, 1 for w plus the test that picks it; srad_cuda_2: e 3;
 * se has no block of its own and shares s's 5, the two appear in the same
 * warps), split over its two ops. */
static const uint8_t sr1_alu[9][2] = {{1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 5},
                                      {1, 4}, {1, 5}, {1, 1}, {24, 3}};
static const uint8_t sr2_alu[4][2] = {{1, 1}, {1, 2}, {1, 2}, {10, 2}};

/* The region part of the generators: per region present in the warp, its
 * tests, `nsrc` LDS loads (registers 8..) and the rest of its block.
 * r[0] region, r[1] step. Returns false when every region is done. */
static bool sr_regions(struct kernel_warp *w, struct kernel_op *op, unsigned kernel)
{
    unsigned nreg = kernel == 1 ? 9 : 4, nsrc = kernel == 1 ? 4 : 2;
    for (; w->r[0] < nreg; w->r[0]++, w->r[1] = 0) {
        uint64_t m = sr_region_mask(w, kernel, (unsigned)w->r[0]);
        if (!m)
            continue;
        unsigned s = (unsigned)w->r[1]++;
        const uint8_t *alu = kernel == 1 ? sr1_alu[w->r[0]] : sr2_alu[w->r[0]];
        if (s == 0) {
            rod2_alu(op, alu[0], 0, 0); /* the region's tests */
        } else if (s <= nsrc) {
            const struct sr_src *src = kernel == 1 ? &sr1_src[w->r[0]][s - 1]
                                                   : &sr2_src[w->r[0]][s - 1];
            sr_lds(op, w, KOP_LDS_LOAD, src->array, src->delta, m, (uint8_t)(7 + s));
        } else {
            /* srad_cuda_1: n, s = neighbour - jc, the e and w addresses;
             * srad_cuda_2: the cs and ce addresses */
            rod2_alu(op, alu[1], (uint8_t)(7 + nsrc), 6);
            w->r[0]++;
            w->r[1] = 0;
        }
        return true;
    }
    return false;
}

/* ---- srad_cuda_1 ------------------------------------------------------------- */

enum {
    K1_IDX, K1_LD_N, K1_ST_N, K1_LD_S, K1_ST_S, K1_LD_EDGE_NS, K1_ST_EDGE_NS, K1_BAR0,
    K1_LD_W, K1_ST_W, K1_LD_E, K1_ST_E, K1_LD_EDGE_WE, K1_ST_EDGE_WE, K1_BAR1, K1_LD_J,
    K1_ST_TEMP, K1_BAR2, K1_JC, K1_REGIONS, K1_MATH, K1_ST_RES, K1_BAR3, K1_LD_RES, K1_ST_C,
    K1_ST_E_C, K1_ST_W_C, K1_ST_S_C, K1_ST_N_C, K1_EXIT,
};

static void sr1_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct srad *q = k->ctx;
    uint64_t all = low_bits(w->nlanes);
    bool top = w->wg_id.y == 0, bottom = w->wg_id.y == k->grid.y - 1;
    bool left = w->wg_id.x == 0, right = w->wg_id.x == k->grid.x - 1;
    for (;;) {
        switch (w->pc++) {
        case K1_IDX:
            /* PTX blocks up to the LDS load of jc, none of which has an op of
             * its own: parameters, ids, the indices, the edge tests and LDS
             * addresses (68 in an interior work-group); the replacement
             * addresses of the first block row take 2 fewer, of the last
             * row 2 more, of the first column 2 more, of the last 4 more */
            rod2_alu(op, 68u - 2u * top + 2u * bottom + 2u * left + 4u * right, 0, 0);
            return;
        case K1_LD_N:
            if (!sr_global(q, w, op, KOP_LOAD, q->j, AT_N, 1))
                continue;
            return;
        case K1_ST_N:
            sr_lds(op, w, KOP_LDS_STORE, S1_NORTH, 0, all, 1);
            return;
        case K1_LD_S:
            if (!sr_global(q, w, op, KOP_LOAD, q->j, AT_S, 2))
                continue;
            return;
        case K1_ST_S:
            sr_lds(op, w, KOP_LDS_STORE, S1_SOUTH, 0, all, 2);
            return;
        case K1_LD_EDGE_NS: /* if (by == 0) ... else if (by == gridDim.y - 1) ... */
            if (!top && !bottom) {
                w->pc = K1_BAR0;
                continue;
            }
            sr_global(q, w, op, KOP_LOAD, q->j, top ? AT_N0 : AT_SLAST, 3);
            return;
        case K1_ST_EDGE_NS:
            sr_lds(op, w, KOP_LDS_STORE, top ? S1_NORTH : S1_SOUTH, 0, all, 3);
            return;
        case K1_BAR0:
        case K1_BAR1:
        case K1_BAR2:
        case K1_BAR3:
            op->kind = KOP_BARRIER;
            return;
        case K1_LD_W:
            if (!sr_global(q, w, op, KOP_LOAD, q->j, AT_W, 1))
                continue;
            return;
        case K1_ST_W:
            sr_lds(op, w, KOP_LDS_STORE, S1_WEST, 0, all, 1);
            return;
        case K1_LD_E:
            if (!sr_global(q, w, op, KOP_LOAD, q->j, AT_E, 2))
                continue;
            return;
        case K1_ST_E:
            sr_lds(op, w, KOP_LDS_STORE, S1_EAST, 0, all, 2);
            return;
        case K1_LD_EDGE_WE:
            if (!left && !right) {
                w->pc = K1_BAR1;
                continue;
            }
            sr_global(q, w, op, KOP_LOAD, q->j, left ? AT_W0 : AT_ELAST, 3);
            return;
        case K1_ST_EDGE_WE:
            sr_lds(op, w, KOP_LDS_STORE, left ? S1_WEST : S1_EAST, 0, all, 3);
            return;
        case K1_LD_J:
            sr_global(q, w, op, KOP_LOAD, q->j, AT_IDX, 4);
            return;
        case K1_ST_TEMP:
            sr_lds(op, w, KOP_LDS_STORE, S1_TEMP, 0, all, 4);
            return;
        case K1_JC:
            sr_lds(op, w, KOP_LDS_LOAD, S1_TEMP, 0, all, 6);
            return;
        case K1_REGIONS:
            if (sr_regions(w, op, 1)) {
                w->pc = K1_REGIONS;
                return;
            }
            continue;
        case K1_MATH:
            /* the e and w subtractions, g2, l, num, den (double precision:
             * the literals are doubles), qsqr, den, c (four div.rn.f32 and one
             * rcp.rn.f64, one PTX instruction each), the saturation tests
             * with 0 <= c <= 1 (37 + 3); and the tail's output addresses (6),
             * which have no op of their own */
            rod2_alu(op, 46, 6, 11);
            return;
        case K1_ST_RES:
            sr_lds(op, w, KOP_LDS_STORE, S1_RESULT, 0, all, 0);
            return;
        case K1_LD_RES:
            sr_lds(op, w, KOP_LDS_LOAD, S1_RESULT, 0, all, 5);
            return;
        case K1_ST_C:
            sr_global(q, w, op, KOP_STORE, q->c, AT_IDX, 5);
            return;
        case K1_ST_E_C:
        case K1_ST_W_C:
        case K1_ST_S_C:
        case K1_ST_N_C: {
            const struct kernel_buf *b[] = {q->e, q->w, q->s, q->n};
            sr_global(q, w, op, KOP_STORE, b[w->pc - 1 - K1_ST_E_C], AT_IDX, 0);
            return;
        }
        default:
            w->pc = K1_EXIT;
            op->kind = KOP_EXIT;
            return;
        }
    }
}

/* ---- srad_cuda_2 ------------------------------------------------------------- */

enum {
    K2_IDX, K2_LD_J, K2_ST_TEMP, K2_BAR0, K2_LD_S, K2_ST_S, K2_LD_SLAST, K2_ST_SLAST, K2_BAR1,
    K2_LD_E, K2_ST_E, K2_LD_ELAST, K2_ST_ELAST, K2_BAR2, K2_LD_C, K2_ST_CTEMP, K2_BAR3, K2_CC,
    K2_REGIONS, K2_LD_NC, K2_LD_SC, K2_LD_WC, K2_LD_EC, K2_SUM1, K2_SUM2, K2_LD_TEMP, K2_UPD,
    K2_ST_CRES, K2_BAR4, K2_LD_CRES, K2_ST_J, K2_EXIT,
};

static void sr2_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct srad *q = k->ctx;
    uint64_t all = low_bits(w->nlanes);
    bool bottom = w->wg_id.y == k->grid.y - 1, right = w->wg_id.x == k->grid.x - 1;
    for (;;) {
        switch (w->pc++) {
        case K2_IDX:
            /* PTX blocks up to the LDS load of cc (no op of their own):
             * parameters, ids, indices, the edge tests and LDS addresses, 54
             * in an interior work-group; the last block row's replacement
             * address takes 2 more, the last column's 4 more */
            rod2_alu(op, 54u + 2u * bottom + 4u * right, 0, 0);
            return;
        case K2_LD_J:
            sr_global(q, w, op, KOP_LOAD, q->j, AT_IDX, 1);
            return;
        case K2_ST_TEMP:
            sr_lds(op, w, KOP_LDS_STORE, S2_TEMP, 0, all, 1);
            return;
        case K2_BAR0:
        case K2_BAR1:
        case K2_BAR2:
        case K2_BAR3:
        case K2_BAR4:
            op->kind = KOP_BARRIER;
            return;
        case K2_LD_S:
            if (!sr_global(q, w, op, KOP_LOAD, q->c, AT_S, 2))
                continue;
            return;
        case K2_ST_S:
            sr_lds(op, w, KOP_LDS_STORE, S2_SOUTH, 0, all, 2);
            return;
        case K2_LD_SLAST:
            if (!bottom) {
                w->pc = K2_BAR1;
                continue;
            }
            sr_global(q, w, op, KOP_LOAD, q->c, AT_SLAST, 3);
            return;
        case K2_ST_SLAST:
            sr_lds(op, w, KOP_LDS_STORE, S2_SOUTH, 0, all, 3);
            return;
        case K2_LD_E:
            if (!sr_global(q, w, op, KOP_LOAD, q->c, AT_E, 2))
                continue;
            return;
        case K2_ST_E:
            sr_lds(op, w, KOP_LDS_STORE, S2_EAST, 0, all, 2);
            return;
        case K2_LD_ELAST:
            if (!right) {
                w->pc = K2_BAR2;
                continue;
            }
            sr_global(q, w, op, KOP_LOAD, q->c, AT_ELAST, 3);
            return;
        case K2_ST_ELAST:
            sr_lds(op, w, KOP_LDS_STORE, S2_EAST, 0, all, 3);
            return;
        case K2_LD_C:
            sr_global(q, w, op, KOP_LOAD, q->c, AT_IDX, 4);
            return;
        case K2_ST_CTEMP:
            sr_lds(op, w, KOP_LDS_STORE, S2_CTEMP, 0, all, 4);
            return;
        case K2_CC:
            sr_lds(op, w, KOP_LDS_LOAD, S2_CTEMP, 0, all, 6);
            return;
        case K2_REGIONS:
            if (sr_regions(w, op, 2)) {
                w->pc = K2_REGIONS;
                return;
            }
            continue;
        case K2_LD_NC:
        case K2_LD_SC:
        case K2_LD_WC:
        case K2_LD_EC: {
            const struct kernel_buf *b[] = {q->n, q->s, q->w, q->e};
            unsigned i = w->pc - 1 - K2_LD_NC;
            sr_global(q, w, op, KOP_LOAD, b[i], AT_IDX, (uint8_t)(12 + i));
            return;
        }
        case K2_SUM1: /* d_sum = cn * N + cs * S + cw * W + ce * E: the four
                       * load addresses, a multiply and an FMA */
            rod2_alu(op, 6, 12, 13);
            return;
        case K2_SUM2:
            rod2_alu(op, 2, 14, 15);
            return;
        case K2_LD_TEMP:
            sr_lds(op, w, KOP_LDS_LOAD, S2_TEMP, 0, all, 16);
            return;
        case K2_UPD: /* temp + 0.25 * lambda * d_sum in double precision (6),
                      * c_cuda_result's LDS address (3) */
            rod2_alu(op, 9, 16, 0);
            return;
        case K2_ST_CRES:
            sr_lds(op, w, KOP_LDS_STORE, S2_CRESULT, 0, all, 0);
            return;
        case K2_LD_CRES:
            sr_lds(op, w, KOP_LDS_LOAD, S2_CRESULT, 0, all, 5);
            return;
        case K2_ST_J:
            sr_global(q, w, op, KOP_STORE, q->j, AT_IDX, 5);
            return;
        default:
            w->pc = K2_EXIT;
            op->kind = KOP_EXIT;
            return;
        }
    }
}

/* ---- ranges ------------------------------------------------------------------ */

/* Rows [r0, r1] of the work-group's tile, columns [16bx + c0, 16bx + 15 + c1]. */
static void sr_rows(const struct srad *q, struct range_list *r, addr_t base, uint32_t bx,
                    int64_t r0, int64_t r1, int c0, int c1)
{
    for (int64_t row = r0; row <= r1; row++) {
        if (row < 0 || row >= q->rows)
            continue;
        int64_t first = row * q->cols + SR_B * (int64_t)bx + c0;
        rod2_elems(r, base, 4, first, first + SR_B - 1 - c0 + c1, q->rows * q->cols);
    }
}

/* srad_cuda_1: J (R): the tile with one element west and east of every row
 * (linear index, so the west of column 0 is the previous row's last element)
 * and the rows above and below; the five outputs: the tile.
 * srad_cuda_2: J (R/W), N/S/W/E_C (R): the tile; C (R): the tile with one
 * element east of every row and the row below. */
static unsigned sr_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct addr_range *out, unsigned max)
{
    const struct srad *q = k->ctx;
    uint32_t bx = wg % k->grid.x, by = wg / k->grid.x;
    int64_t top = (int64_t)by * SR_B, bot = top + SR_B - 1;
    addr_t base = k->args[arg].buf->base;
    const struct kernel_buf *b = k->args[arg].buf;
    struct range_list r;
    range_list_init(&r, out, max, 0);
    bool first = k->p[0] == 1;
    if (first && b == q->j) {
        sr_rows(q, &r, base, bx, top - 1, top - 1, 0, 0);
        sr_rows(q, &r, base, bx, top, bot, -1, 1);
        sr_rows(q, &r, base, bx, bot + 1, bot + 1, 0, 0);
    } else if (!first && b == q->c) {
        sr_rows(q, &r, base, bx, top, bot, 0, 1);
        sr_rows(q, &r, base, bx, bot + 1, bot + 1, 0, 0);
    } else {
        sr_rows(q, &r, base, bx, top, bot, 0, 0);
    }
    return range_list_done(&r, base);
}

static bool srad_next_kernel(void *self, struct kernel *k)
{
    struct srad *q = self;
    if (q->kernels == 2 * q->niter)
        return false;
    bool first = q->kernels % 2 == 0;
    uint32_t gx = (uint32_t)(q->cols / SR_B), gy = (uint32_t)(q->rows / SR_B);
    wl_kernel_init(k, first ? "srad_cuda_1" : "srad_cuda_2", gx, gy, SR_B, SR_B,
                   first ? sr1_next : sr2_next);
    k->lds_b = first ? 6 * SR_B * SR_B * 4 : 5 * SR_B * SR_B * 4;
    k->p[0] = first ? 1 : 2;
    const struct kernel_buf *d[] = {q->e, q->w, q->n, q->s};
    for (unsigned i = 0; i < 4; i++) {
        wl_kernel_arg(k, d[i], first ? KERNEL_RW : KERNEL_R);
        /* srad_cuda_2 reads each tile srad_cuda_1 wrote on the same chiplet,
         * and the next srad_cuda_1 writes the tiles srad_cuda_2 read */
        k->args[i].same_pattern = q->kernels > 0;
    }
    wl_kernel_arg(k, q->j, first ? KERNEL_R : KERNEL_RW);
    wl_kernel_arg(k, q->c, first ? KERNEL_RW : KERNEL_R);
    k->ranges = sr_ranges;
    k->ctx = q;
    q->kernels++;
    return true;
}

static const char *const srad_small[] = {"rows=64", "cols=64", "r2=15", "c2=15", NULL};

const struct wl_ops wl_srad_v2 = {
    .name = "srad-v2",
    .suite = "Rodinia",
    .desc = "Rodinia srad_v2: speckle-reducing diffusion stencil, two LDS-tiled kernels per "
            "iteration",
    .keys = srad_keys,
    .small = srad_small,
    .create = srad_create,
    .next_kernel = srad_next_kernel,
    .destroy = srad_destroy,
};
