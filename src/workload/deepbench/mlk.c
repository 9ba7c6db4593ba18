/*
 * mlk.c -- the tiled GEMM and the element-wise kernel of mlk.h, as kernel
 * descriptions (workload/kd.h).
 *
 * GEMM work-group (bx, by, bz) computes the 32 x 32 tile of C at rows
 * 32 by, columns 32 bx, over the K range of split bz (kc K steps of 16 from
 * K element 16 kc bz). Thread (tx, ty) owns C[32 by + ty + 16 i][32 bx + tx +
 * 16 j], i, j in {0, 1} (the classic strided micro-tile, so LDS reads are
 * conflict-free broadcasts). Per K step of 16:
 *   global loads  A[32 by + ty + 16 i][k + tx], B[32 bx + ty + 16 j][k + tx]
 *                 (16 consecutive floats per row: one 64 B line per row)
 *   LDS stores    As[tx][ty + 16 i], Bs[tx][ty + 16 j]  (k-major, rows of 33
 *                 floats: the padding of the usual transposed store)
 *   barrier
 *   16 x { LDS loads As[kk][ty + 16 i] (2), Bs[kk][tx + 16 j] (2); 4 FMAs }
 *   barrier
 * Out-of-range rows and K columns are masked on the global loads (the LDS
 * stores still write the zeros); every thread computes. The epilogue loads C
 * when beta is set, scales (alpha, beta) and stores, or adds atomically
 * under split-K. An operand stored K-major (mlk.h's NN and TN layouts) is
 * loaded as 16 K rows of 32 elements, A[k + ty][32 by + tx + 16 i], and
 * stored into LDS as it is, As[ty][tx + 16 i]; its K test is on ty.
 * Instructions per thread: the PTX of this algorithm written
 * as a plain CUDA kernel (no readable source of the library's GEMM exists),
 * block by block (docs/workloads/rnn-lstm-small.md): 57 before the first K
 * step, 25 per K step (the load bounds tests, pointer increments and loop
 * control; NN 55 and 29, TN 52 and 28: docs/workloads/dl-rnn.md), the 4
 * FMAs per kk, and the epilogue: 35 (stores), 43 (beta: C loaded first), 29
 * plus 3 per atomic the warp issues (split-K).
 *
 * The element-wise kernel's description is written from its streams (one
 * load or store statement each, offsets as parameters), once per shape.
 */
#include "mlk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- GEMM ------------------------------------------------------------------ */

/* Row ty + i of the work-group's tile of A (blk by) or B (blk bx), K
 * columns of step m0 of split bz: an operand stored one row per output row
 * or column, K contiguous. */
#define G_LOAD(buf, blk, lim, ld, off, i, r)                                                     \
    "      if " blk "*32 + ty + " i " < " lim "\n"                                             \
    "        load " buf "[" off " + (" blk "*32 + ty + " i ")*" ld " + (bz*kc + m0)*16 + tx] 4 " \
    "-> " r "\n"                                                                               \
    "      end\n"
/* The same tile of an operand stored K-major (K rows, the output dimension
 * contiguous): K row ty of the step, output elements tx + i. */
#define G_LOAD_T(buf, blk, lim, ld, off, i, r)                                                   \
    "      if " blk "*32 + tx + " i " < " lim "\n"                                             \
    "        load " buf "[" off " + ((bz*kc + m0)*16 + ty)*" ld " + " blk "*32 + tx + " i "] 4 " \
    "-> " r "\n"                                                                               \
    "      end\n"
/* Both rows (i = 0, 16) of A's (a) or B's (b) tile inside the K test of
 * their layout: K column tx (N) or K row ty (T). */
#define G_TILE_N(name, blk, lim, ld, off, r)                                                     \
    G_LOAD(name, blk, lim, ld, off, "0", r) G_LOAD(name, blk, lim, ld, off, "16", r)
#define G_TILE_T(name, blk, lim, ld, off, r)                                                     \
    G_LOAD_T(name, blk, lim, ld, off, "0", r) G_LOAD_T(name, blk, lim, ld, off, "16", r)
#define G_KTEST(t) "    if (bz*kc + m0)*16 + " t " < k\n"
#define G_A_N G_TILE_N("A", "by", "m", "lda", "aoff", "r3")
#define G_B_N G_TILE_N("B", "bx", "n", "ldb", "boff", "r4")
#define G_A_T G_TILE_T("A", "by", "m", "lda", "aoff", "r3")
#define G_B_T G_TILE_T("B", "bx", "n", "ldb", "boff", "r4")
/* The LDS stores of A (at 0) or B (at 528): transposed into k-major rows
 * of 33 (N), or as they are (T: already k-major). */
#define G_ST(at, ix, r) "    lds_store lds[" at ix "] 4 < " r "\n"
#define G_ST_N(at, r) G_ST(at, "tx*33 + ty", r) G_ST(at, "tx*33 + ty + 16", r)
#define G_ST_T(at, r) G_ST(at, "ty*33 + tx", r) G_ST(at, "ty*33 + tx + 16", r)
/* C[32 by + ty + i][32 bx + tx + j] and [.. + j + 16], inside the matrix. */
#define G_C(op, i, tail)                                                                       \
    "  if by*32 + ty + " i " < m\n"                                                            \
    "    if bx*32 + tx < n\n"                                                                  \
    "      " op " C[coff + (by*32 + ty + " i ")*ldc + bx*32 + tx] 4" tail "\n"                  \
    "    end\n"                                                                                \
    "    if bx*32 + tx + 16 < n\n"                                                             \
    "      " op " C[coff + (by*32 + ty + " i ")*ldc + bx*32 + tx + 16] 4" tail "\n"             \
    "    end\n"                                                                                \
    "  end\n"
/* The split-K epilogue's count: 29, and 3 per atomic (i, j) some lane makes
 * (every warp has lanes of both column halves' first column: j = 1 is a
 * test of the work-group, i one of the warp's rows). */
#define G_ATOM_ALU(per)                                                                        \
    "    alu 29 + " per " [by*32 + ty < m] + " per " [by*32 + ty + 16 < m]\n"
/* The K steps (set-up `pro`, `step` per step, the tiles' loads and LDS
 * stores), the 16 kk of 4 FMAs from LDS, and the epilogue. */
#define G_BODY(pro, step, loads, stores)                                                       \
    "alu " pro "\n"                                                                            \
    "for m0 = 0 .. kc                     # the split's K steps\n"                             \
    "  if (bz*kc + m0)*16 < k\n"                                                               \
    "    alu " step "\n" loads stores                                                          \
    "    barrier\n"                                                                            \
    "    for m1 = 0 .. 16\n"                                                                   \
    "      lds_load lds[m1*33 + ty] 4 -> r1\n"                                                 \
    "      lds_load lds[m1*33 + ty + 16] 4 -> r1\n"                                            \
    "      lds_load lds[528 + m1*33 + tx] 4 -> r2\n"                                           \
    "      lds_load lds[528 + m1*33 + tx + 16] 4 -> r2\n"                                      \
    "      alu 4 < r1 r2\n"                                                                    \
    "    end\n"                                                                                \
    "    barrier\n"                                                                            \
    "  end\n"                                                                                  \
    "end\n"                                                                                    \
    "if 0 < beta                          # C read first\n"                                    \
    G_C("load", "0", " -> r5") G_C("load", "16", " -> r5")                                     \
    "  alu 43 < r5\n"                                                                          \
    "end\n"                                                                                    \
    "if beta < 1\n"                                                                            \
    "  if gdz < 2\n"                                                                           \
    "    alu 35\n"                                                                             \
    "  end\n"                                                                                  \
    "  if 1 < gdz                         # split-K\n"                                         \
    "    if bx*32 + 16 < n\n" G_ATOM_ALU("6")                                                  \
    "    end\n"                                                                                \
    "    if n < bx*32 + 17\n" G_ATOM_ALU("3")                                                  \
    "    end\n"                                                                                \
    "  end\n"                                                                                  \
    "end\n"                                                                                    \
    "if gdz < 2\n" G_C("store", "0", "") G_C("store", "16", "")                                \
    "end\n"                                                                                    \
    "if 1 < gdz\n" G_C("atomic", "0", "") G_C("atomic", "16", "")                              \
    "end\n"

static const char *const g_params[] = {"m",    "n",    "k",    "lda", "ldb",  "ldc",
                                       "aoff", "boff", "coff", "kc",  "beta", NULL};
static const char *const g_bufs[] = {"A", "B", "C", NULL};
#define G_KD(kname, text) {.name = kname, .params = g_params, .bufs = g_bufs, .body = text}
/* Set-up and per-step counts per layout (docs/workloads/dl-rnn.md): NT 57
 * and 25, NN 55 and 29 (B's K-row test and its row's address), TN 52 and
 * 28. */
const struct kd_desc mlk_gemm_kd[MLK_NLAYOUTS] = {
    [MLK_L_NT] = G_KD("sgemm_nt", G_BODY("57", "25", G_KTEST("tx") G_A_N G_B_N "    end\n",
                                       G_ST_N("", "r3") G_ST_N("528 + ", "r4"))),
    [MLK_L_NN] = G_KD("sgemm_nn",
                    G_BODY("55", "29",
                           G_KTEST("tx") G_A_N "    end\n" G_KTEST("ty") G_B_T "    end\n",
                           G_ST_N("", "r3") G_ST_T("528 + ", "r4"))),
    [MLK_L_TN] = G_KD("sgemm_tn", G_BODY("52", "28", G_KTEST("ty") G_A_T G_B_T "    end\n",
                                       G_ST_T("", "r3") G_ST_T("528 + ", "r4"))),
};

/* ---- element-wise kernels ------------------------------------------------------ */

#define EW_TEXT 4096

/* A description written from an element-wise kernel's streams. */
struct ew_desc {
    char name[48], body[EW_TEXT];
    char names[2][MLK_EW_MAX][4]; /* b0.., o0.. */
    const char *bufs[MLK_EW_MAX + 1], *params[MLK_EW_MAX + 1];
    struct kd_desc d;
    struct kd_prog *p;
};

struct mlk {
    struct kd_prog *gemm[MLK_NLAYOUTS];
    struct ew_desc **ew;
    size_t nds, cap; /* descriptions written so far */
};

struct mlk *mlk_new(struct err *e)
{
    struct mlk *l = xcalloc(1, sizeof *l);
    if (kd_compile_all(mlk_gemm_kd, MLK_NLAYOUTS, l->gemm, e)) {
        mlk_free(l);
        return NULL;
    }
    return l;
}

void mlk_free(struct mlk *l)
{
    if (!l)
        return;
    kd_progs_free(l->gemm, MLK_NLAYOUTS);
    for (size_t i = 0; i < l->nds; i++) {
        kd_prog_free(l->ew[i]->p);
        free(l->ew[i]);
    }
    free(l->ew);
    free(l);
}

void mlk_gemm_init(struct mlk_gemm *g)
{
    uint64_t ktiles = div_ceil(g->k, MLK_TK);
    uint64_t per = div_ceil(ktiles, g->splits ? g->splits : 1);
    g->kchunk = (uint32_t)(per * MLK_TK);
    g->gz = (uint32_t)div_ceil(ktiles, per);
}

void mlk_gemm_plan(const struct mlk_gemm *g, unsigned first, struct kdw_launch *l)
{
    BUG_ON(!g->gz || g->a == g->c || g->b == g->c || (g->beta && g->gz > 1) ||
           g->layout >= MLK_NLAYOUTS);
    int64_t params[] = {g->m,         g->n,         g->k,         g->lda,
                        g->ldb,       g->ldc,       g->a_off / 4, g->b_off / 4,
                        g->c_off / 4, g->kchunk / MLK_TK, g->beta};
    *l = (struct kdw_launch){.prog = first + g->layout,
                             .grid = {(uint32_t)div_ceil(g->n, MLK_TN),
                                      (uint32_t)div_ceil(g->m, MLK_TM), g->gz},
                             .block = {16, 16, 1}, .bufs = {g->a, g->b, g->c},
                             .lds_b = MLK_GEMM_LDS_B};
    memcpy(l->params, params, sizeof params);
}

int mlk_gemm_launch(struct mlk *l, struct kernel *k, const char *name, const struct mlk_gemm *g,
                    struct err *e)
{
    struct kdw_launch p;
    mlk_gemm_plan(g, 0, &p);
    if (kd_launch(l->gemm[p.prog], k, p.grid, p.block, p.params, p.bufs, NULL, e))
        return -1;
    snprintf(k->name, sizeof k->name, "%s", name);
    k->lds_b = p.lds_b;
    return 0;
}

void mlk_ew_add(struct mlk_ew *e, const struct kernel_buf *b, uint64_t off, uint32_t ld,
                bool store)
{
    BUG_ON(e->ns == MLK_EW_MAX);
    e->s[e->ns++] = (struct mlk_ew_stream){b, off, ld, store};
}

/* The distinct buffers of e's streams in order (into bufs); each stream's
 * buffer index in which[]. Returns how many. */
static unsigned ew_bufs(const struct mlk_ew *e, const struct kernel_buf **bufs, unsigned *which)
{
    unsigned n = 0;
    for (unsigned i = 0; i < e->ns; i++) {
        unsigned a = 0;
        while (a < n && bufs[a] != e->s[i].buf)
            a++;
        if (a == n)
            bufs[n++] = e->s[i].buf;
        which[i] = a;
    }
    return n;
}

/* Append to the body. */
static void put(char *body, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(char *body, const char *fmt, ...)
{
    size_t len = strlen(body);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body + len, EW_TEXT - len, fmt, ap);
    va_end(ap);
    BUG_ON(n < 0 || (size_t)n >= EW_TEXT - len);
}

/* The stores (or the loads) of e, one statement per stream: element gid of
 * a contiguous view, or within row m0 when some stream is a strided view
 * (the loop over the rows finds each lane's row). */
static void ew_streams(char *body, const struct mlk_ew *e, const unsigned *which, bool store,
                       bool rows, const char *tail)
{
    bool any = false;
    for (unsigned i = 0; i < e->ns; i++)
        any |= e->s[i].store == store;
    if (!any)
        return;
    if (rows)
        put(body, "  for m0 = 0 .. %u\n    if m0*%u < gid + 1\n      if gid < m0*%u + %u\n",
            e->rows, e->cols, e->cols, e->cols);
    for (unsigned i = 0; i < e->ns; i++) {
        if (e->s[i].store != store)
            continue;
        put(body, "        %s b%u[o%u + gid", store ? "store" : "load", which[i], i);
        if (rows && e->s[i].ld != e->cols)
            put(body, " + m0*%lld", (long long)e->s[i].ld - e->cols);
        put(body, "] 4%s\n", tail);
    }
    if (rows)
        put(body, "      end\n    end\n  end\n");
}

/* e's body: the bounds test and index arithmetic, the loads, the compute,
 * the stores. */
static void ew_text(char *body, const struct mlk_ew *e, const unsigned *which)
{
    uint64_t total = (uint64_t)e->rows * e->cols;
    bool rows = false, loads = false;
    for (unsigned i = 0; i < e->ns; i++) {
        rows |= e->s[i].ld != e->cols;
        loads |= !e->s[i].store;
    }
    BUG_ON(e->alu_none > e->alu_pre);
    body[0] = '\0';
    if (e->alu_none && e->alu_pre > e->alu_none)
        put(body, "alu %u + %u [gid < %llu]\n", e->alu_none, e->alu_pre - e->alu_none,
            (unsigned long long)total);
    else if (e->alu_none)
        put(body, "alu %u\n", e->alu_none);
    put(body, "if gid < %llu\n", (unsigned long long)total);
    if (!e->alu_none && e->alu_pre)
        put(body, "  alu %u\n", e->alu_pre);
    const char *wait = loads ? " < r1" : ""; /* the loaded values */
    ew_streams(body, e, which, false, rows, " -> r1");
    if (e->alu)
        put(body, "  alu %u%s\n", e->alu, wait);
    ew_streams(body, e, which, true, rows, wait);
    put(body, "end\n");
}

/* The compiled description of kernel `name` with this body, written once. */
static struct ew_desc *ew_find(struct mlk *l, const char *name, const char *body, unsigned nbufs,
                               unsigned ns, struct err *e)
{
    for (size_t i = 0; i < l->nds; i++)
        if (!strcmp(l->ew[i]->name, name) && !strcmp(l->ew[i]->body, body))
            return l->ew[i];
    struct ew_desc *d = xcalloc(1, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->body, sizeof d->body, "%s", body);
    for (unsigned i = 0; i < MLK_EW_MAX; i++) {
        snprintf(d->names[0][i], sizeof d->names[0][i], "b%u", i);
        snprintf(d->names[1][i], sizeof d->names[1][i], "o%u", i);
        d->bufs[i] = i < nbufs ? d->names[0][i] : NULL;
        d->params[i] = i < ns ? d->names[1][i] : NULL;
    }
    d->d = (struct kd_desc){.name = d->name, .params = d->params, .bufs = d->bufs, .body = d->body};
    if (!(d->p = kd_compile(&d->d, e))) {
        free(d);
        return NULL;
    }
    l->ew = xgrow(l->ew, sizeof *l->ew, &l->cap, l->nds + 1);
    return l->ew[l->nds++] = d;
}

int mlk_ew_launch(struct mlk *l, struct kernel *k, const char *name, const struct mlk_ew *e,
                  struct err *err)
{
    const struct kernel_buf *bufs[MLK_EW_MAX];
    unsigned which[MLK_EW_MAX];
    unsigned nbufs = ew_bufs(e, bufs, which);
    char body[EW_TEXT];
    ew_text(body, e, which);
    struct ew_desc *d = ew_find(l, name, body, nbufs, e->ns, err);
    if (!d)
        return -1;
    int64_t params[MLK_EW_MAX];
    for (unsigned i = 0; i < e->ns; i++)
        params[i] = (int64_t)(e->s[i].off / 4);
    uint64_t wgs = div_ceil((uint64_t)e->rows * e->cols, e->block);
    BUG_ON(wgs > UINT32_MAX);
    return kd_launch(d->p, k, (struct kernel_dim){(uint32_t)wgs, 1, 1},
                     (struct kernel_dim){e->block, 1, 1}, params, bufs, NULL, err);
}
