/*
 * lud.c -- Rodinia lud (lud.cu, lud_kernel.cu), "-i 512.dat": in-place LU
 * decomposition of a size x size matrix d_m without pivoting, in 16 x 16
 * blocks (BLOCK_SIZE 16). For offset = 0, 16, .. while offset < size - 16:
 *   lud_diagonal   1 work-group of 16 threads: the diagonal block into LDS
 *                  (shadow), 15 elimination steps of two barrier-separated
 *                  halves, rows 1..15 back to memory;
 *   lud_perimeter  (size - offset) / 16 - 1 work-groups of 32 threads:
 *                  threads 0-15 take the block row right of the diagonal
 *                  (peri_row), threads 16-31 the block column below it
 *                  (peri_col), both with the diagonal block (dia); a forward
 *                  substitution in LDS; results back to memory;
 *   lud_internal   ((size - offset) / 16 - 1)^2 work-groups of 16 x 16: one
 *                  row and one column block into LDS, a 16-term dot product
 *                  per thread, m -= sum;
 * then a last lud_diagonal at offset = size - 16: 3 (size / 16 - 1) + 1
 * kernels. The two halves of lud_perimeter are an if/else on threadIdx.x,
 * so a warp holding both runs them one after the other with half its lanes.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * lud_kernel.cu (every instruction but global and LDS loads and stores,
 * barriers, ret and cvta.to.global); blocks with no op of their own are
 * counted in the nearest op run as often. See docs/workloads/lud.md.
 * Abstracted: data values (no pivoting, so they do not change addresses);
 * LDS reads are single words (no ds_read_b64/b128 widening).
 */
#include <stdlib.h>

#include "workload/rodinia/dense.h"

#define LUD_BS 16
#define LUD_T 1024u    /* bytes of one 16 x 16 float tile in LDS */
#define LUD_LANE 0xffu /* cell coordinate: the thread's idx */
#define LUD_J 0xfeu    /* cell coordinate: the inner loop's j */

static const struct cfg_key lud_keys[] = {
    {"size", CFG_INT, "512", 16, 65536, "matrix dimension, a multiple of 16 (Table II: 512.dat)",
     NULL},
    CFG_END,
};

struct lud {
    const struct kernel_buf *m;
    uint32_t size;
    unsigned nkernels, kernels;
};

static void *lud_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t size = cfg_uint(sec, "size");
    if (size % LUD_BS) {
        cfg_err(e, sec, "size", "must be a multiple of %d (BLOCK_SIZE)", LUD_BS);
        return NULL;
    }
    struct lud *u = xcalloc(1, sizeof *u);
    u->size = (uint32_t)size;
    u->nkernels = 3 * (u->size / LUD_BS - 1) + 1;
    u->m = wl_alloc(env, "d_m", size * size * 4);
    return u;
}

static void lud_destroy(void *self)
{
    free(self);
}

/* ---- building blocks ------------------------------------------------------- */

/* A float in an LDS tile; row and col may be LUD_LANE or LUD_J. */
struct lud_cell {
    uint32_t tile;
    uint8_t row, col;
};

/* The thread's idx: threadIdx.x (diagonal), threadIdx.x mod 16 (perimeter). */
static uint32_t lud_idx(const struct kernel_warp *w, unsigned l)
{
    return kernel_tid(w, l) % LUD_BS;
}

static uint32_t lud_coord(const struct kernel_warp *w, unsigned l, uint8_t c, unsigned j)
{
    return c == LUD_LANE ? lud_idx(w, l) : c == LUD_J ? j : c;
}

static void lud_lds(struct kernel_warp *w, struct kernel_op *op, uint8_t kind, struct lud_cell c,
                    unsigned j, uint64_t mask, uint8_t reg)
{
    for (unsigned l = 0; l < w->nlanes; l++)
        w->lane_addr[l] = c.tile + (lud_coord(w, l, c.row, j) * LUD_BS +
                                    lud_coord(w, l, c.col, j)) * 4;
    dn_lanes(op, kind, mask, reg);
}

/* Rows row0 .. row0 + n - 1 of the matrix, columns col0 + idx, to or from
 * LDS rows trow0 .. of tile: n global loads (registers 1..n) then n LDS
 * stores, or n LDS loads then n global stores. */
struct lud_copy {
    unsigned n;
    uint32_t row0, col0, tile, trow0;
    uint64_t mask;
    bool out;
};

static bool lud_copy_op(struct kernel_warp *w, struct kernel_op *op, struct lud_copy c,
                        unsigned s)
{
    const struct lud *u = w->k->ctx;
    if (s >= 2 * c.n || !c.mask)
        return false;
    unsigned i = s % c.n;
    bool first = s < c.n;
    uint8_t reg = (uint8_t)(i + 1);
    if (first == c.out) {
        struct lud_cell cell = {c.tile, (uint8_t)(c.trow0 + i), LUD_LANE};
        lud_lds(w, op, first ? KOP_LDS_LOAD : KOP_LDS_STORE, cell, 0, c.mask, reg);
        return true;
    }
    for (unsigned l = 0; l < w->nlanes; l++)
        w->lane_addr[l] =
            u->m->base + ((uint64_t)(c.row0 + i) * u->size + c.col0 + lud_idx(w, l)) * 4;
    dn_lanes(op, first ? KOP_LOAD : KOP_STORE, c.mask, reg);
    return true;
}

/* acc -= sum over j < n of x(j) * y(j), then acc /= d if div, in LDS,
 * after `test` instructions of loop control and addresses: load acc
 * (register 31); load x(j), y(j) (registers 2j+1, 2j+2); load d (32); per
 * term a multiply and a subtract (2); the division (div.rn.f32, 1 PTX
 * instruction); store acc. The loads come before the arithmetic. The
 * compiler unrolls the inner loop (trip count i) 4 times with a remainder:
 * `test` is all of the step's PTX but the terms and the division, counted
 * per i (lud_diag_col etc.). */
struct lud_dot {
    struct lud_cell acc, x, y, d;
    unsigned n;
    bool div;
    uint64_t mask;
    uint32_t test;
};

static bool lud_dot_op(struct kernel_warp *w, struct kernel_op *op, struct lud_dot d, unsigned s)
{
    unsigned n = d.n, loads = 2 + 2 * n + d.div; /* s = 0 is the loop test */
    if (!d.mask || s > loads + n + d.div)
        return false;
    if (s == 0)
        dn_alu(op, d.test, 0, 0);
    else if (s == 1)
        lud_lds(w, op, KOP_LDS_LOAD, d.acc, 0, d.mask, 31);
    else if (s <= 2 * n + 1)
        lud_lds(w, op, KOP_LDS_LOAD, s % 2 ? d.y : d.x, (s - 2) / 2, d.mask, (uint8_t)(s - 1));
    else if (s < loads)
        lud_lds(w, op, KOP_LDS_LOAD, d.d, 0, d.mask, 32);
    else if (s < loads + n)
        dn_alu(op, 2, (uint8_t)(2 * (s - loads) + 1), (uint8_t)(2 * (s - loads) + 2));
    else if (s < loads + n + d.div)
        dn_alu(op, 1, 31, 32);
    else
        lud_lds(w, op, KOP_LDS_STORE, d.acc, 0, d.mask, 31);
    return true;
}

/* Lanes by thread index: tid > i (LUD_GT), tid < 16 (LUD_LO), 16 <= tid (LUD_HI). */
enum { LUD_ALL, LUD_GT, LUD_LO, LUD_HI };

static uint64_t lud_mask(const struct kernel_warp *w, unsigned what, unsigned i)
{
    uint64_t m = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t tid = kernel_tid(w, l);
        bool on = what == LUD_ALL || (what == LUD_GT && tid > i) ||
                  (what == LUD_LO && tid < LUD_BS) || (what == LUD_HI && tid >= LUD_BS);
        m |= (uint64_t)on << l;
    }
    return m;
}

/* ---- the phase driver -------------------------------------------------------- */

/* Op s of phase p with loop counter i; false when the phase has no more. */
typedef bool (*lud_phase_fn)(struct kernel_warp *w, struct kernel_op *op, unsigned p, unsigned i,
                             unsigned s);

/* A loop over phases first..last with i from lo while i < hi. */
struct lud_loop {
    uint8_t first, last, lo, hi;
};

/* pc: phase, r[0]: loop counter, r[1]: op within the phase. */
static void lud_run(struct kernel_warp *w, struct kernel_op *op, lud_phase_fn fn,
                    const struct lud_loop *loops, unsigned nloops)
{
    while (!fn(w, op, w->pc, (unsigned)w->r[0], (unsigned)w->r[1]++)) {
        unsigned p = w->pc++;
        w->r[1] = 0;
        for (unsigned i = 0; i < nloops; i++) {
            if (p == loops[i].last && ++w->r[0] < loops[i].hi)
                w->pc = loops[i].first;
            else if (w->pc == loops[i].first)
                w->r[0] = loops[i].lo;
        }
    }
}

/* One op: ALU n (n > 0), a barrier (n = 0). */
static bool lud_single(struct kernel_op *op, uint32_t n, unsigned s)
{
    if (s)
        return false;
    if (n)
        dn_alu(op, n, 0, 0);
    else
        dn_barrier(op);
    return true;
}

/* ---- lud_diagonal ---------------------------------------------------------- */

#define SH(r, c) ((struct lud_cell){0, (uint8_t)(r), (uint8_t)(c)})

/* Phases: 0 prologue, 1 copy in, 2 barrier; per step i < 15: 3 column
 * update, 4 barrier, 5 row update, 6 barrier; 7 copy out (rows 1..15);
 * 8 exit. ALU counts from the PTX (see the file header): phase 0 carries
 * the once-per-thread work, 104 (57 before the barrier: parameters, ids,
 * the copy's addresses; 47 of the copy out's addresses). The loop tests:
 * the column update's (outer loop, tx > i, the unrolled loop's set-up and
 * control, the remainder's tests, all addresses) and the row update's
 * (the same, and the outer loop's test after the second barrier), per i. */
static const uint8_t lud_diag_col[LUD_BS - 1] = {12, 29, 32, 34, 37, 45, 48, 50,
                                                 46, 54, 57, 59, 55, 63, 66};
static const uint8_t lud_diag_row[LUD_BS - 1] = {19, 21, 21, 23, 32, 34, 34, 34,
                                                 43, 45, 45, 45, 54, 56, 56};
static bool diag_phase(struct kernel_warp *w, struct kernel_op *op, unsigned p, unsigned i,
                       unsigned s)
{
    uint32_t off = (uint32_t)w->k->p[0];
    uint64_t all = lud_mask(w, LUD_ALL, 0);
    switch (p) {
    case 0: return lud_single(op, 104, s);
    case 1: /* shadow[i][tx] = m[array_offset + tx], array_offset = (offset + i) dim + offset */
        return lud_copy_op(w, op, (struct lud_copy){LUD_BS, off, off, 0, 0, all, false}, s);
    case 3: /* if (tx > i) { for j < i: shadow[tx][i] -= shadow[tx][j] * shadow[j][i];
             *               shadow[tx][i] /= shadow[i][i]; } */
        return lud_dot_op(w, op, (struct lud_dot){SH(LUD_LANE, i), SH(LUD_LANE, LUD_J),
                                                  SH(LUD_J, i), SH(i, i), i, true,
                                                  lud_mask(w, LUD_GT, i), lud_diag_col[i]}, s);
    case 5: /* if (tx > i) for j <= i: shadow[i+1][tx] -= shadow[i+1][j] * shadow[j][tx] */
        return lud_dot_op(w, op, (struct lud_dot){SH(i + 1, LUD_LANE), SH(i + 1, LUD_J),
                                                  SH(LUD_J, LUD_LANE), SH(0, 0), i + 1, false,
                                                  lud_mask(w, LUD_GT, i), lud_diag_row[i]}, s);
    case 7: /* m[(offset + i) dim + offset + tx] = shadow[i][tx], 1 <= i < 16 */
        return lud_copy_op(w, op, (struct lud_copy){LUD_BS - 1, off + 1, off, 0, 1, all, true}, s);
    case 8:
        op->kind = KOP_EXIT;
        return true;
    default: return lud_single(op, 0, s); /* 2, 4, 6: __syncthreads() */
    }
}

static const struct lud_loop diag_loops[] = {{3, 6, 0, LUD_BS - 1}};

static void diag_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    (void)k;
    lud_run(w, op, diag_phase, diag_loops, 1);
}

/* ---- lud_perimeter --------------------------------------------------------- */

#define DIA(r, c) ((struct lud_cell){0, (uint8_t)(r), (uint8_t)(c)})
#define PROW(r, c) ((struct lud_cell){LUD_T, (uint8_t)(r), (uint8_t)(c)})
#define PCOL(r, c) ((struct lud_cell){2 * LUD_T, (uint8_t)(r), (uint8_t)(c)})

/* Phases: 0 prologue, 1-2 threads 0-15 copy the upper
 * half of dia and peri_row in, 3-4 threads 16-31 the lower half of dia and
 * peri_col, 5 barrier; 6 (i = 1..15) peri_row's forward substitution; 7
 * (i = 0..15) peri_col's with the division; 8 barrier; 9-10 copy out; 11
 * exit. blockIdx.x + 1 is the block column (row) of this work-group. ALU
 * counts from the PTX (see the file header): phase 0 carries all of both
 * branches' once-per-thread work, 231 (parameters, ids and the copies'
 * addresses 123, the branches around the barriers and the loops' set-up
 * 18, the copies out 90); the loop tests as in lud_diagonal, per i. */
static const uint8_t lud_peri_row[LUD_BS] = {0,  22, 24, 24, 25, 33, 35, 35,
                                             31, 39, 41, 41, 37, 45, 47, 47};
static const uint8_t lud_peri_col[LUD_BS] = {11, 27, 29, 30, 31, 38, 40, 41,
                                             40, 47, 49, 50, 49, 56, 58, 59};
static bool peri_phase(struct kernel_warp *w, struct kernel_op *op, unsigned p, unsigned i,
                       unsigned s)
{
    uint32_t off = (uint32_t)w->k->p[0], blk = off + (w->wg_id.x + 1) * LUD_BS;
    uint64_t lo = lud_mask(w, LUD_LO, 0), hi = lud_mask(w, LUD_HI, 0);
    switch (p) {
    case 0: return lud_single(op, 231, s);
    case 1: /* dia[i][idx] = m[(offset + i) dim + offset + idx], i < 8 */
        return lud_copy_op(w, op, (struct lud_copy){LUD_BS / 2, off, off, 0, 0, lo, false}, s);
    case 2: /* peri_row[i][idx] = m[(offset + i) dim + offset + (bx + 1) 16 + idx] */
        return lud_copy_op(w, op, (struct lud_copy){LUD_BS, off, blk, LUD_T, 0, lo, false}, s);
    case 3: /* dia[i][idx] = m[(offset + i) dim + offset + idx], 8 <= i < 16 */
        return lud_copy_op(w, op, (struct lud_copy){LUD_BS / 2, off + LUD_BS / 2, off, 0,
                                                    LUD_BS / 2, hi, false}, s);
    case 4: /* peri_col[i][idx] = m[(offset + (bx + 1) 16 + i) dim + offset + idx] */
        return lud_copy_op(w, op, (struct lud_copy){LUD_BS, blk, off, 2 * LUD_T, 0, hi, false},
                           s);
    case 6: /* for j < i: peri_row[i][idx] -= dia[i][j] * peri_row[j][idx] */
        return lud_dot_op(w, op, (struct lud_dot){PROW(i, LUD_LANE), DIA(i, LUD_J),
                                                  PROW(LUD_J, LUD_LANE), DIA(0, 0), i, false,
                                                  lo, lud_peri_row[i]}, s);
    case 7: /* for j < i: peri_col[idx][i] -= peri_col[idx][j] * dia[j][i]; /= dia[i][i] */
        return lud_dot_op(w, op, (struct lud_dot){PCOL(LUD_LANE, i), PCOL(LUD_LANE, LUD_J),
                                                  DIA(LUD_J, i), DIA(i, i), i, true, hi,
                                                  lud_peri_col[i]}, s);
    case 9: /* m[(offset + i) dim + offset + (bx + 1) 16 + idx] = peri_row[i][idx], i >= 1 */
        return lud_copy_op(w, op, (struct lud_copy){LUD_BS - 1, off + 1, blk, LUD_T, 1, lo, true},
                           s);
    case 10: /* m[(offset + (bx + 1) 16 + i) dim + offset + idx] = peri_col[i][idx] */
        return lud_copy_op(w, op, (struct lud_copy){LUD_BS, blk, off, 2 * LUD_T, 0, hi, true}, s);
    case 11:
        op->kind = KOP_EXIT;
        return true;
    default: return lud_single(op, 0, s); /* 5, 8: __syncthreads() */
    }
}

static const struct lud_loop peri_loops[] = {{6, 6, 1, LUD_BS}, {7, 7, 0, LUD_BS}};

static void peri_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    (void)k;
    lud_run(w, op, peri_phase, peri_loops, 2);
}

/* ---- lud_internal ---------------------------------------------------------- */

/* m[(row0 + ty) dim + col0 + tx] for every thread (tx, ty) of the 16 x 16 block. */
static void internal_mem(struct kernel_warp *w, struct kernel_op *op, uint8_t kind, uint32_t row0,
                         uint32_t col0, uint8_t reg)
{
    const struct lud *u = w->k->ctx;
    for (unsigned l = 0; l < w->nlanes; l++)
        w->lane_addr[l] =
            u->m->base + ((uint64_t)(row0 + dn_ty(w, l)) * u->size + col0 + dn_tx(w, l)) * 4;
    dn_lanes(op, kind, low_bits(w->nlanes), reg);
}

/* LDS cell [row][col] of peri_row (tile 0) or peri_col (tile 1): row = ty
 * or j, col = tx or j. */
enum { IL_TY_J, IL_J_TX, IL_TY_TX };

static void internal_lds(struct kernel_warp *w, struct kernel_op *op, uint8_t kind, uint32_t tile,
                         unsigned shape, unsigned j, uint8_t reg)
{
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t r = shape == IL_J_TX ? j : dn_ty(w, l), c = shape == IL_TY_J ? j : dn_tx(w, l);
        w->lane_addr[l] = tile * LUD_T + (r * LUD_BS + c) * 4;
    }
    dn_lanes(op, kind, low_bits(w->nlanes), reg);
}

/*
 * lud_internal. ALU counts from the PTX (see the file header): op 0
 * carries the once-per-thread work, 36 (32 before the barrier: parameters,
 * ids, global_row_id, global_col_id, the addresses of both copies; 4 after
 * it: peri_row's column address and the block's own element's), one fma
 * per term, one subtract. The loop is unrolled, so its 32 LDS reads come
 * before the 16 multiply-adds; the compiler also issues the load of the
 * block's own element right after the barrier (it does not depend on LDS).
 * pc: 0 prologue, 1-4 tiles in, 5 barrier, 6 load m, 7-38 LDS reads
 * (peri_col[ty][i] into 2i+1, peri_row[i][tx] into 2i+2), 39-54 the sum,
 * 55 subtract, 56 store, 57 exit.
 */
static void internal_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    uint32_t off = (uint32_t)k->p[0];
    uint32_t grow = off + (w->wg_id.y + 1) * LUD_BS, gcol = off + (w->wg_id.x + 1) * LUD_BS;
    unsigned pc = w->pc++;
    if (pc >= 7 && pc <= 38) {
        unsigned j = (pc - 7) / 2;
        bool col = (pc - 7) % 2 == 0;
        internal_lds(w, op, KOP_LDS_LOAD, col, col ? IL_TY_J : IL_J_TX, j, (uint8_t)(pc - 6));
        return;
    }
    if (pc >= 39 && pc <= 54) {
        dn_alu(op, 1, (uint8_t)(2 * (pc - 39) + 1), (uint8_t)(2 * (pc - 39) + 2));
        return;
    }
    switch (pc) {
    case 0: dn_alu(op, 36, 0, 0); break;
    case 1: internal_mem(w, op, KOP_LOAD, off, gcol, 1); break;  /* peri_row's source */
    case 2: internal_mem(w, op, KOP_LOAD, grow, off, 2); break;  /* peri_col's source */
    case 3: internal_lds(w, op, KOP_LDS_STORE, 0, IL_TY_TX, 0, 1); break; /* peri_row[ty][tx] */
    case 4: internal_lds(w, op, KOP_LDS_STORE, 1, IL_TY_TX, 0, 2); break; /* peri_col[ty][tx] */
    case 5: dn_barrier(op); break;
    case 6: internal_mem(w, op, KOP_LOAD, grow, gcol, 33); break;
    case 55: dn_alu(op, 1, 33, 0); break;
    case 56: internal_mem(w, op, KOP_STORE, grow, gcol, 0); break;
    default:
        w->pc = 57;
        op->kind = KOP_EXIT;
    }
}

/* ---- ranges and the kernel sequence ------------------------------------------ */

/* The 16 x 16 block at block row br, block column bc of the matrix. */
static void lud_block(const struct lud *u, struct range_list *r, uint32_t row, uint32_t col)
{
    range_list_rows(r, u->m->base, u->size, 4, row, row + LUD_BS, col, col + LUD_BS);
}

/* Every kernel reads and writes only d_m: the diagonal block; the diagonal
 * block, the block right of it and the block below it (perimeter); the
 * block above, the block left of and the work-group's own block (internal).
 * The rows of blocks side by side join into one range. */
static unsigned lud_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                           struct addr_range *out, unsigned max)
{
    const struct lud *u = k->ctx;
    uint32_t off = (uint32_t)k->p[0], n = (u->size - off) / LUD_BS - 1;
    if (arg >= k->nargs)
        return 0;
    struct range_list r;
    range_list_init(&r, out, max, DN_GAP_B);
    if (k->next == diag_next) {
        lud_block(u, &r, off, off);
    } else if (k->next == peri_next) {
        uint32_t blk = off + (wg + 1) * LUD_BS;
        for (uint32_t i = 0; i < LUD_BS; i++) {
            range_list_rows(&r, u->m->base, u->size, 4, off + i, off + i + 1, off, off + LUD_BS);
            range_list_rows(&r, u->m->base, u->size, 4, off + i, off + i + 1, blk, blk + LUD_BS);
        }
        lud_block(u, &r, blk, off);
    } else {
        uint32_t grow = off + (wg / n + 1) * LUD_BS, gcol = off + (wg % n + 1) * LUD_BS;
        lud_block(u, &r, off, gcol);
        for (uint32_t i = 0; i < LUD_BS; i++) {
            range_list_rows(&r, u->m->base, u->size, 4, grow + i, grow + i + 1, off, off + LUD_BS);
            range_list_rows(&r, u->m->base, u->size, 4, grow + i, grow + i + 1, gcol,
                            gcol + LUD_BS);
        }
    }
    return range_list_done(&r, u->m->base);
}

/* Kernel 3s + 0/1/2: diagonal, perimeter, internal of step s (offset 16 s);
 * the last kernel is the diagonal at offset size - 16. */
static bool lud_next_kernel(void *self, struct kernel *k)
{
    struct lud *u = self;
    if (u->kernels == u->nkernels)
        return false;
    unsigned j = u->kernels++, kind = j % 3;
    uint32_t off = j / 3 * LUD_BS, n = (u->size - off) / LUD_BS - 1;
    if (kind == 0) {
        wl_kernel_init(k, "lud_diagonal", 1, 1, LUD_BS, 1, diag_next);
        k->lds_b = LUD_T;
    } else if (kind == 1) {
        wl_kernel_init(k, "lud_perimeter", n, 1, 2 * LUD_BS, 1, peri_next);
        k->lds_b = 3 * LUD_T;
    } else {
        wl_kernel_init(k, "lud_internal", n, n, LUD_BS, LUD_BS, internal_next);
        k->lds_b = 2 * LUD_T;
    }
    wl_kernel_arg(k, u->m, KERNEL_RW);
    k->p[0] = off;
    k->ranges = lud_ranges;
    k->ctx = u;
    return true;
}

static const char *const lud_small[] = {"size=64", NULL};

const struct wl_ops wl_lud = {
    .name = "lud",
    .suite = "Rodinia",
    .desc = "Rodinia lud: blocked LU decomposition in place, diagonal/perimeter/internal kernels",
    .keys = lud_keys,
    .small = lud_small,
    .create = lud_create,
    .next_kernel = lud_next_kernel,
    .destroy = lud_destroy,
};
