/*
 * mlk.c -- the tiled GEMM and the element-wise kernel of mlk.h.
 *
 * GEMM work-group (bx, by, bz) computes the 32 x 32 tile of C at rows
 * m0 = 32 by, columns n0 = 32 bx, over the K range of split bz. Thread
 * (tx, ty) = (tid % 16, tid / 16) owns C[m0 + ty + 16 i][n0 + tx + 16 j],
 * i, j in {0, 1} (the classic strided micro-tile, so LDS reads are
 * conflict-free broadcasts). Per K step of 16:
 *   global loads  A[m0 + ty + 16 i][k + tx], B[n0 + ty + 16 j][k + tx]
 *                 (16 consecutive floats per row: one 64 B line per row)
 *   LDS stores    As[tx][ty + 16 i], Bs[tx][ty + 16 j]  (k-major, rows of 33
 *                 floats: the padding of the usual transposed store)
 *   barrier
 *   16 x { LDS loads As[kk][ty + 16 i] (2), Bs[kk][tx + 16 j] (2); 4 FMAs }
 *   barrier
 * Out-of-range rows and K columns are masked on the global loads (the LDS
 * stores still write the zeros); every thread computes. The epilogue loads C
 * when beta is set, scales (alpha, beta) and stores, or adds atomically
 * under split-K. Instructions per thread: the PTX of this algorithm written
 * as a plain CUDA kernel (no readable source of the library's GEMM exists),
 * block by block (docs/workloads/rnn-lstm-small.md): 57 before the first K
 * step, 25 per K step (the load bounds tests, pointer increments and loop
 * control), the 4 FMAs per kk, and the epilogue: 35 (stores), 43 (beta: C
 * loaded first), 29 plus 3 per atomic the warp issues (split-K).
 */
#include "mlk.h"

#include <string.h>

#define G_LDS_AS 0
#define G_LDS_BS (MLK_TK * (MLK_TM + 1) * 4)

/* Positions in the body of one K step. */
enum {
    GB_LOOP = 0,
    GB_LDA = 1,  /* 1, 2 */
    GB_LDB = 3,  /* 3, 4 */
    GB_STA = 5,  /* 5, 6 */
    GB_STB = 7,  /* 7, 8 */
    GB_BAR1 = 9,
    GB_KK = 10,  /* 5 per kk */
    GB_BAR2 = GB_KK + 5 * MLK_TK,
    GB_LEN,
};

/* Epilogue positions. */
enum { GE_LDC = 0, GE_ALU = 4, GE_STC = 5, GE_EXIT = 9 };
enum { GP_PRO, GP_BODY, GP_EPI };

#define G_ALU_PRO 57
#define G_ALU_LOOP 25
#define G_ALU_KK 4
#define G_ALU_EPI_ST 35
#define G_ALU_EPI_BETA 43
#define G_ALU_EPI_ATOM 29
#define G_ALU_ATOM 3 /* address arithmetic inside each atomic's block */

void mlk_gemm_init(struct mlk_gemm *g)
{
    uint64_t ktiles = div_ceil(g->k, MLK_TK);
    uint64_t per = div_ceil(ktiles, g->splits ? g->splits : 1);
    g->kchunk = (uint32_t)(per * MLK_TK);
    g->gz = (uint32_t)div_ceil(ktiles, per);
}

uint32_t mlk_gemm_wgs(const struct mlk_gemm *g)
{
    return (uint32_t)(div_ceil(g->n, MLK_TN) * div_ceil(g->m, MLK_TM) * g->gz);
}

static uint32_t g_kb(const struct mlk_gemm *g, uint32_t bz)
{
    return bz * g->kchunk;
}

static uint32_t g_ke(const struct mlk_gemm *g, uint32_t bz)
{
    return (uint32_t)min_u64(g->k, (uint64_t)(bz + 1) * g->kchunk);
}

/* K steps of work-group split bz. */
static uint32_t g_steps(const struct mlk_gemm *g, uint32_t bz)
{
    return (uint32_t)div_ceil(g_ke(g, bz) - g_kb(g, bz), MLK_TK);
}

enum g_opnd { GO_A, GO_B, GO_C };

/* Lane addresses of operand `o` (A or B: micro-row idx at K step kt; C:
 * element idx = 2 i + j) in w->lane_addr; returns the active-lane mask. */
static uint64_t g_lanes(const struct mlk_gemm *g, struct kernel_warp *w, enum g_opnd o,
                        unsigned idx, uint32_t kt)
{
    uint32_t m0 = w->wg_id.y * MLK_TM, n0 = w->wg_id.x * MLK_TN;
    uint32_t kb = g_kb(g, w->wg_id.z), ke = g_ke(g, w->wg_id.z);
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t tid = kernel_tid(w, l), tx = tid % 16, ty = tid / 16;
        uint64_t row, col, ld, lim_r, lim_c;
        addr_t base;
        if (o == GO_C) {
            row = m0 + ty + 16 * (idx / 2);
            col = n0 + tx + 16 * (idx % 2);
            lim_r = g->m, lim_c = g->n, ld = g->ldc;
            base = g->c->base + g->c_off;
        } else {
            row = (o == GO_A ? m0 : n0) + ty + 16 * idx;
            col = kb + (uint64_t)kt * MLK_TK + tx;
            lim_r = o == GO_A ? g->m : g->n, lim_c = ke;
            ld = o == GO_A ? g->lda : g->ldb;
            base = o == GO_A ? g->a->base + g->a_off : g->b->base + g->b_off;
        }
        if (row >= lim_r || col >= lim_c)
            continue;
        mask |= 1ull << l;
        w->lane_addr[l] = base + (row * ld + col) * 4;
    }
    return mask;
}

/* LDS byte offsets: As/Bs stores (k-major rows of 33) and kk-step reads. */
static void g_lds(struct kernel_warp *w, bool b, bool store, unsigned idx, unsigned kk)
{
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t tid = kernel_tid(w, l), tx = tid % 16, ty = tid / 16;
        uint32_t word;
        if (store)
            word = tx * (MLK_TM + 1) + ty + 16 * idx;
        else
            word = kk * (MLK_TM + 1) + (b ? tx : ty) + 16 * idx;
        w->lane_addr[l] = (b ? G_LDS_BS : G_LDS_AS) + word * 4;
    }
}

static bool g_mem(const struct mlk_gemm *g, struct kernel_warp *w, struct kernel_op *op,
                  uint8_t kind, enum g_opnd o, unsigned idx, uint32_t kt)
{
    uint64_t mask = g_lanes(g, w, o, idx, kt);
    if (!mask)
        return false; /* the whole warp is outside the matrix: branch skipped */
    op->kind = kind;
    op->size = 4;
    op->lanes = true;
    op->mask = mask;
    return true;
}

/* One op of the K-step body at position pos; false if it is skipped. */
static bool g_body(const struct mlk_gemm *g, struct kernel_warp *w, struct kernel_op *op,
                   unsigned pos, uint32_t kt)
{
    if (pos == GB_LOOP) {
        op->kind = KOP_ALU;
        op->n = G_ALU_LOOP;
    } else if (pos < GB_LDB) {
        if (!g_mem(g, w, op, KOP_LOAD, GO_A, pos - GB_LDA, kt))
            return false;
        op->dst = 3;
    } else if (pos < GB_STA) {
        if (!g_mem(g, w, op, KOP_LOAD, GO_B, pos - GB_LDB, kt))
            return false;
        op->dst = 4;
    } else if (pos < GB_BAR1) {
        bool b = pos >= GB_STB;
        g_lds(w, b, true, pos - (b ? GB_STB : GB_STA), 0);
        op->kind = KOP_LDS_STORE;
        op->size = 4;
        op->lanes = true;
        op->src[0] = b ? 4 : 3;
    } else if (pos == GB_BAR1 || pos == GB_BAR2) {
        op->kind = KOP_BARRIER;
    } else {
        unsigned kk = (pos - GB_KK) / 5, r = (pos - GB_KK) % 5;
        if (r == 4) {
            op->kind = KOP_ALU;
            op->n = G_ALU_KK;
            op->src[0] = 1;
            op->src[1] = 2;
        } else {
            g_lds(w, r >= 2, false, r % 2, kk);
            op->kind = KOP_LDS_LOAD;
            op->size = 4;
            op->lanes = true;
            op->dst = r >= 2 ? 2 : 1;
        }
    }
    return true;
}

/* Epilogue instructions of the warp: the split-K kernel computes each
 * atomic's address inside the block that only runs when the atomic does. */
static uint32_t g_epi_alu(const struct mlk_gemm *g, struct kernel_warp *w)
{
    if (g->gz == 1)
        return g->beta ? G_ALU_EPI_BETA : G_ALU_EPI_ST;
    uint32_t n = G_ALU_EPI_ATOM;
    for (unsigned i = 0; i < 4; i++)
        n += g_lanes(g, w, GO_C, i, 0) ? G_ALU_ATOM : 0;
    return n;
}

static bool g_epi(const struct mlk_gemm *g, struct kernel_warp *w, struct kernel_op *op,
                  unsigned pos)
{
    if (pos < GE_ALU) {
        if (!g->beta || !g_mem(g, w, op, KOP_LOAD, GO_C, pos - GE_LDC, 0))
            return false;
        op->dst = 5;
    } else if (pos == GE_ALU) {
        op->kind = KOP_ALU;
        op->n = g_epi_alu(g, w);
        op->src[0] = g->beta ? 5 : 0;
    } else if (pos < GE_EXIT) {
        uint8_t kind = g->gz > 1 ? KOP_ATOMIC : KOP_STORE;
        if (!g_mem(g, w, op, kind, GO_C, pos - GE_STC, 0))
            return false;
    } else {
        op->kind = KOP_EXIT;
    }
    return true;
}

/* pc: phase; r[0]: K step; r[1]: position in the body or the epilogue. */
static void g_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct mlk_gemm *g = k->ctx;
    uint32_t steps = g_steps(g, w->wg_id.z);
    for (;;) {
        if (w->pc == GP_PRO) {
            w->pc = steps ? GP_BODY : GP_EPI;
            op->kind = KOP_ALU;
            op->n = G_ALU_PRO;
            return;
        }
        if (w->pc == GP_BODY) {
            unsigned pos = (unsigned)w->r[1];
            bool ok = g_body(g, w, op, pos, (uint32_t)w->r[0]);
            if (++w->r[1] == GB_LEN) {
                w->r[1] = 0;
                if (++w->r[0] == steps)
                    w->pc = GP_EPI;
            }
            if (ok)
                return;
            memset(op, 0, sizeof *op);
            continue;
        }
        unsigned pos = (unsigned)w->r[1]++;
        if (g_epi(g, w, op, pos))
            return;
        memset(op, 0, sizeof *op);
    }
}

/* Rows [r0, r1) x columns [c0, c1) of a row-major view. */
static unsigned g_block(addr_t base, uint64_t ld, uint64_t r0, uint64_t r1, uint64_t c0,
                        uint64_t c1, struct addr_range *out, unsigned max)
{
    struct range_list l;
    range_list_init(&l, out, max, 0);
    range_list_rows(&l, base, ld, 4, r0, r1, c0, c1);
    return range_list_done(&l, base);
}

static unsigned g_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                         struct addr_range *out, unsigned max)
{
    const struct mlk_gemm *g = k->ctx;
    uint32_t bx = wg % k->grid.x, by = wg / k->grid.x % k->grid.y, bz = wg / (k->grid.x * k->grid.y);
    uint64_t m0 = (uint64_t)by * MLK_TM, m1 = min_u64(g->m, m0 + MLK_TM);
    uint64_t n0 = (uint64_t)bx * MLK_TN, n1 = min_u64(g->n, n0 + MLK_TN);
    switch (arg) {
    case 0:
        return g_block(g->a->base + g->a_off, g->lda, m0, m1, g_kb(g, bz), g_ke(g, bz), out, max);
    case 1:
        return g_block(g->b->base + g->b_off, g->ldb, n0, n1, g_kb(g, bz), g_ke(g, bz), out, max);
    case 2:
        return g_block(g->c->base + g->c_off, g->ldc, m0, m1, n0, n1, out, max);
    default:
        return 0;
    }
}

void mlk_gemm_kernel(struct kernel *k, const char *name, const struct mlk_gemm *g)
{
    BUG_ON(!g->gz || g->a == g->c || g->b == g->c);
    wl_kernel_init(k, name, (uint32_t)div_ceil(g->n, MLK_TN), (uint32_t)div_ceil(g->m, MLK_TM),
                   16, 16, g_next);
    k->grid.z = g->gz;
    k->lds_b = MLK_GEMM_LDS_B;
    wl_kernel_arg(k, g->a, KERNEL_R);
    wl_kernel_arg(k, g->b, KERNEL_R);
    wl_kernel_arg(k, g->c, KERNEL_RW);
    k->ranges = g_ranges;
    k->ctx = g;
}

/* ---- element-wise kernels --------------------------------------------------- */

void mlk_ew_add(struct mlk_ew *e, const struct kernel_buf *b, uint64_t off, uint32_t ld,
                bool store)
{
    BUG_ON(e->ns == MLK_EW_MAX);
    e->s[e->ns++] = (struct mlk_ew_stream){b, off, ld, store};
}

static unsigned ew_nloads(const struct mlk_ew *e)
{
    unsigned n = 0;
    for (unsigned i = 0; i < e->ns; i++)
        n += !e->s[i].store;
    return n;
}

/* The i-th load (or store) stream. */
static const struct mlk_ew_stream *ew_stream(const struct mlk_ew *e, bool store, unsigned i)
{
    for (unsigned s = 0; s < e->ns; s++)
        if (e->s[s].store == store && i-- == 0)
            return &e->s[s];
    BUG("element-wise stream out of range");
}

static void ew_mem(const struct mlk_ew *e, const struct mlk_ew_stream *s, struct kernel_warp *w,
                   struct kernel_op *op, uint64_t e0, uint64_t nact)
{
    uint64_t r0 = e0 / e->cols, r1 = (e0 + nact - 1) / e->cols;
    addr_t base = s->buf->base + s->off;
    op->size = 4;
    op->mask = low_bits(nact);
    if (r0 == r1) { /* one row: consecutive addresses */
        op->base = base + (r0 * s->ld + e0 % e->cols) * 4;
        op->stride = 4;
        return;
    }
    op->lanes = true;
    for (unsigned l = 0; l < nact; l++) {
        uint64_t el = e0 + l;
        w->lane_addr[l] = base + ((el / e->cols) * s->ld + el % e->cols) * 4;
    }
}

/* pc: 0 index ALU, 1..L loads, L+1 compute, then the stores, then exit (a
 * warp with no element: its bounds test, then exit). */
static void ew_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct mlk_ew *e = k->ctx;
    uint64_t total = (uint64_t)e->rows * e->cols, e0 = kernel_gid(w, 0);
    uint64_t nact = e0 >= total ? 0 : min_u64(w->nlanes, total - e0);
    unsigned nl = ew_nloads(e), nst = e->ns - nl;
    for (;;) {
        unsigned pc = w->pc++;
        if (!nact && pc == 0 && e->alu_none) {
            op->kind = KOP_ALU;
            op->n = e->alu_none;
            return;
        }
        if (!nact || pc > nl + 1 + nst) {
            op->kind = KOP_EXIT;
            return;
        }
        if (pc == 0 || pc == nl + 1) {
            uint32_t n = pc ? e->alu : e->alu_pre;
            if (!n)
                continue;
            op->kind = KOP_ALU;
            op->n = n;
            op->src[0] = pc && nl ? 1 : 0;
        } else if (pc <= nl) {
            ew_mem(e, ew_stream(e, false, pc - 1), w, op, e0, nact);
            op->kind = KOP_LOAD;
            op->dst = 1;
        } else {
            ew_mem(e, ew_stream(e, true, pc - nl - 2), w, op, e0, nact);
            op->kind = KOP_STORE;
            op->src[0] = nl ? 1 : 0;
        }
        return;
    }
}

/* Stream i views the same elements as an earlier one (an in-place update). */
static bool ew_seen(const struct mlk_ew *e, unsigned i)
{
    for (unsigned j = 0; j < i; j++)
        if (e->s[j].buf == e->s[i].buf && e->s[j].off == e->s[i].off && e->s[j].ld == e->s[i].ld)
            return true;
    return false;
}

static unsigned ew_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct addr_range *out, unsigned max)
{
    const struct mlk_ew *e = k->ctx;
    uint64_t total = (uint64_t)e->rows * e->cols, e0 = (uint64_t)wg * e->block;
    if (arg >= e->nargs || e0 >= total)
        return 0;
    uint64_t e1 = min_u64(total, e0 + e->block);
    uint64_t r0 = e0 / e->cols, r1 = (e1 - 1) / e->cols;
    struct range_list l;
    range_list_init(&l, out, max, 0);
    for (unsigned i = 0; i < e->ns; i++) {
        const struct mlk_ew_stream *s = &e->s[i];
        if (s->buf != e->arg[arg] || ew_seen(e, i))
            continue;
        addr_t base = s->buf->base + s->off;
        for (uint64_t r = r0; r <= r1; r++) {
            uint64_t c0 = r == r0 ? e0 % e->cols : 0, c1 = r == r1 ? (e1 - 1) % e->cols + 1 : e->cols;
            range_list_add(&l, base + (r * s->ld + c0) * 4, base + (r * s->ld + c1) * 4);
        }
    }
    return range_list_done(&l, e->arg[arg]->base);
}

void mlk_ew_kernel(struct kernel *k, const char *name, struct mlk_ew *e)
{
    e->nargs = 0;
    for (unsigned i = 0; i < e->ns; i++) {
        unsigned a = 0;
        while (a < e->nargs && e->arg[a] != e->s[i].buf)
            a++;
        if (a == e->nargs) {
            e->arg[e->nargs] = e->s[i].buf;
            e->arg_rw[e->nargs++] = false;
        }
        e->arg_rw[a] |= e->s[i].store;
    }
    uint64_t wgs = div_ceil((uint64_t)e->rows * e->cols, e->block);
    BUG_ON(wgs > UINT32_MAX);
    wl_kernel_init(k, name, (uint32_t)wgs, 1, e->block, 1, ew_next);
    for (unsigned a = 0; a < e->nargs; a++)
        wl_kernel_arg(k, e->arg[a], e->arg_rw[a] ? KERNEL_RW : KERNEL_R);
    k->ranges = ew_ranges;
    k->ctx = e;
}
