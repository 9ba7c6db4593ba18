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
 * The three kernels are kernel descriptions (src/workload/kd.h); each
 * work-group's ranges are derived from them.
 * Abstracted: data values (no pivoting, so they do not change addresses);
 * LDS reads are single words (no ds_read_b64/b128 widening).
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

#define LUD_BS 16
#define LUD_T 1024u /* bytes of one 16 x 16 float tile in LDS */

static const struct cfg_key lud_keys[] = {
    {"size", CFG_INT, "512", 16, 65536, "matrix dimension, a multiple of 16 (Table II: 512.dat)",
     NULL},
    CFG_END,
};

/*
 * The building blocks, as the compiler emits them. A copy of n rows of the
 * matrix to or from LDS: n global loads into r1 .. rn, then n LDS stores
 * (or n LDS loads, then n global stores). A dot step, acc -= sum over j < n
 * of x(j) * y(j), then acc /= d when it divides: after `test` instructions
 * of loop control and addresses, load acc (r31), x(j) and y(j) (r(2j+1),
 * r(2j+2)) and d (r32); per term a multiply and a subtract (2); the
 * division (div.rn.f32, 1 PTX instruction); store acc. The compiler unrolls
 * the inner loop 4 times with a remainder: `test` is all of the step's PTX
 * but the terms and the division, counted per i in the tables below.
 *
 * lud_diagonal: the once-per-thread work 104 (57 before the barrier:
 * parameters, ids, the copy's addresses; 47 of the copy out's addresses);
 * per step i < 15 the column update (lanes tx > i) and, after a barrier,
 * the row update; rows 1..15 back to memory. shadow at LDS float 0.
 */
#define LUD_COPY(cond, n, gidx, lidx)                                                             \
    "if " cond "\n"                                                                               \
    "  for m0 = 0 .. " n "\n"                                                                     \
    "    load d_m[" gidx "] 4 -> r(m0 + 1)\n"                                                     \
    "  end\n"                                                                                     \
    "  for m0 = 0 .. " n "\n"                                                                     \
    "    lds_store lds[" lidx "] 4 < r(m0 + 1)\n"                                                 \
    "  end\n"                                                                                     \
    "end\n"
#define LUD_COPY_OUT(cond, n, gidx, lidx)                                                         \
    "if " cond "\n"                                                                               \
    "  for m0 = 0 .. " n "\n"                                                                     \
    "    lds_load lds[" lidx "] 4 -> r(m0 + 1)\n"                                                 \
    "  end\n"                                                                                     \
    "  for m0 = 0 .. " n "\n"                                                                     \
    "    store d_m[" gidx "] 4 < r(m0 + 1)\n"                                                     \
    "  end\n"                                                                                     \
    "end\n"
/* One dot step of loop m0 (i) over the lanes where cond holds: acc, x(m1),
 * y(m1), its n terms, test (a table read), and d if it divides. */
#define LUD_DOT(cond, test, acc, x, y, n)                                                         \
    "  if " cond "\n"                                                                             \
    "    alu (" test ")\n"                                                                        \
    "    lds_load lds[" acc "] 4 -> r31\n"                                                        \
    "    for m1 = 0 .. " n "\n"                                                                   \
    "      lds_load lds[" x "] 4 -> r(2*m1 + 1)\n"                                                \
    "      lds_load lds[" y "] 4 -> r(2*m1 + 2)\n"                                                \
    "    end\n"
#define LUD_TERMS(n)                                                                              \
    "    for m1 = 0 .. " n "\n"                                                                   \
    "      alu 2 < r(2*m1 + 1) r(2*m1 + 2)\n"                                                     \
    "    end\n"
#define LUD_DIVIDE(d, acc)                                                                        \
    "    lds_load lds[" d "] 4 -> r32\n" LUD_TERMS("m0") "    alu 1 < r31 r32\n"                  \
    "    lds_store lds[" acc "] 4 < r31\n"                                                        \
    "  end\n"
#define LUD_NODIV(n, acc) LUD_TERMS(n) "    lds_store lds[" acc "] 4 < r31\n  end\n"
/* A dot step with n terms; one that divides by d (n = m0). */
#define LUD_STEP(cond, test, acc, x, y, n) LUD_DOT(cond, test, acc, x, y, n) LUD_NODIV(n, acc)
#define LUD_STEP_DIV(cond, test, acc, x, y, d)                                                    \
    LUD_DOT(cond, test, acc, x, y, "m0") LUD_DIVIDE(d, acc)

static const char *const lud_params[] = {"size", "off", NULL};
static const char *const lud_bufs[] = {"d_m", NULL};
static const char *const diag_arrays[] = {"col_test", "row_test", NULL};
static const char *const peri_arrays[] = {"row_test", "col_test", NULL};
enum { LUD_DIAG, LUD_PERI, LUD_INTERNAL };
static const struct kd_desc lud_kd[3] = {
    [LUD_DIAG] = {.name = "lud_diagonal", .params = lud_params, .bufs = lud_bufs,
                  .arrays = diag_arrays, .range_join = 64,
                  .body = "alu 104\n"
                          LUD_COPY("tx < 16", "16", "(off + m0)*size + off + tx", "16*m0 + tx")
                          "barrier\n"
                          "for m0 = 0 .. 15\n"
                          LUD_STEP_DIV("m0 < tx", "@col_test[m0]", "16*tx + m0", "16*tx + m1",
                                       "16*m1 + m0", "17*m0")
                          "  barrier\n"
                          LUD_STEP("m0 < tx", "@row_test[m0]", "16*m0 + 16 + tx",
                                   "16*m0 + 16 + m1", "16*m1 + tx", "m0 + 1")
                          "  barrier\n"
                          "end\n"
                          LUD_COPY_OUT("tx < 16", "15", "(off + 1 + m0)*size + off + tx",
                                       "16*m0 + 16 + tx")},
    /* lud_perimeter: threads 0-15 (idx = tx) take the diagonal block's upper
     * half and peri_row, threads 16-31 (idx = tx - 16) its lower half and
     * peri_col; blk = offset + 16 (bx + 1) is this work-group's block row
     * and column. The once-per-thread work of both branches 231
     * (parameters, ids and the copies' addresses 123, the branches around
     * the barriers and the loops' set-up 18, the copies out 90). LDS
     * floats: dia at 0, peri_row at 256, peri_col at 512. */
    [LUD_PERI] = {.name = "lud_perimeter", .params = lud_params, .bufs = lud_bufs,
                  .arrays = peri_arrays, .range_join = 64,
                  .body = "alu 231\n"
                          LUD_COPY("tx < 16", "8", "(off + m0)*size + off + tx", "16*m0 + tx")
                          LUD_COPY("tx < 16", "16", "(off + m0)*size + off + 16*bx + 16 + tx",
                                   "256 + 16*m0 + tx")
                          LUD_COPY("15 < tx", "8", "(off + 8 + m0)*size + off + tx - 16",
                                   "128 + 16*m0 + tx - 16")
                          LUD_COPY("15 < tx", "16", "(off + 16*bx + 16 + m0)*size + off + tx - 16",
                                   "512 + 16*m0 + tx - 16")
                          "barrier\n"
                          "for m0 = 1 .. 16\n"
                          LUD_STEP("tx < 16", "@row_test[m0]", "256 + 16*m0 + tx", "16*m0 + m1",
                                   "256 + 16*m1 + tx", "m0")
                          "end\n"
                          "for m0 = 0 .. 16\n"
                          LUD_STEP_DIV("15 < tx", "@col_test[m0]", "512 + 16*(tx - 16) + m0",
                                       "512 + 16*(tx - 16) + m1", "16*m1 + m0", "17*m0")
                          "end\n"
                          "barrier\n"
                          LUD_COPY_OUT("tx < 16", "15",
                                       "(off + 1 + m0)*size + off + 16*bx + 16 + tx",
                                       "256 + 16*m0 + 16 + tx")
                          LUD_COPY_OUT("15 < tx", "16",
                                       "(off + 16*bx + 16 + m0)*size + off + tx - 16",
                                       "512 + 16*m0 + tx - 16")},
    /* lud_internal: the once-per-thread work 36 (32 before the barrier:
     * parameters, ids, global_row_id, global_col_id, the addresses of both
     * copies; 4 after it: peri_row's column address and the block's own
     * element's), one fma per term, one subtract. The loop is unrolled, so
     * its 32 LDS reads come before the 16 multiply-adds; the compiler also
     * issues the load of the block's own element right after the barrier
     * (it does not depend on LDS). LDS floats: peri_row at 0, peri_col at
     * 256. */
    [LUD_INTERNAL] = {.name = "lud_internal", .params = lud_params, .bufs = lud_bufs,
                      .range_join = 64,
                      .body = "alu 36\n"
                              "load d_m[(off + ty)*size + off + 16*bx + 16 + tx] 4 -> r1\n"
                              "load d_m[(off + 16*by + 16 + ty)*size + off + tx] 4 -> r2\n"
                              "lds_store lds[16*ty + tx] 4 < r1\n"
                              "lds_store lds[256 + 16*ty + tx] 4 < r2\n"
                              "barrier\n"
                              "load d_m[(off + 16*by + 16 + ty)*size + off + 16*bx + 16 + tx] 4 "
                              "-> r33\n"
                              "for m0 = 0 .. 16\n"
                              "  lds_load lds[256 + 16*ty + m0] 4 -> r(2*m0 + 1)\n"
                              "  lds_load lds[16*m0 + tx] 4 -> r(2*m0 + 2)\n"
                              "end\n"
                              "for m0 = 0 .. 16\n"
                              "  alu 1 < r(2*m0 + 1) r(2*m0 + 2)\n"
                              "end\n"
                              "alu 1 < r33\n"
                              "store d_m[(off + 16*by + 16 + ty)*size + off + 16*bx + 16 + tx] "
                              "4\n"},
};

/* The dot steps' `test` counts from the PTX (see above), per i: lud_diagonal's
 * column and row updates, lud_perimeter's peri_row (i >= 1) and peri_col. */
static const uint32_t lud_diag_col[LUD_BS - 1] = {12, 29, 32, 34, 37, 45, 48, 50,
                                                  46, 54, 57, 59, 55, 63, 66};
static const uint32_t lud_diag_row[LUD_BS - 1] = {19, 21, 21, 23, 32, 34, 34, 34,
                                                  43, 45, 45, 45, 54, 56, 56};
static const uint32_t lud_peri_row[LUD_BS] = {0,  22, 24, 24, 25, 33, 35, 35,
                                              31, 39, 41, 41, 37, 45, 47, 47};
static const uint32_t lud_peri_col[LUD_BS] = {11, 27, 29, 30, 31, 38, 40, 41,
                                              40, 47, 49, 50, 49, 56, 58, 59};

struct lud {
    struct wl_env *env;
    struct kd_prog *prog[3];
    const struct kernel_buf *m;
    uint32_t size;
    unsigned nkernels, kernels;
};

static void lud_destroy(void *self)
{
    struct lud *u = self;
    kd_progs_free(u->prog, 3);
    free(u);
}

static void *lud_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t size = cfg_uint(sec, "size");
    if (size % LUD_BS) {
        cfg_err(e, sec, "size", "must be a multiple of %d (BLOCK_SIZE)", LUD_BS);
        return NULL;
    }
    struct lud *u = xcalloc(1, sizeof *u);
    u->env = env;
    if (kd_compile_all(lud_kd, 3, u->prog, e)) {
        lud_destroy(u);
        return NULL;
    }
    u->size = (uint32_t)size;
    u->nkernels = 3 * (u->size / LUD_BS - 1) + 1;
    u->m = wl_alloc(env, "d_m", size * size * 4);
    return u;
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
    static const struct kd_array diag[] = {{lud_diag_col, LUD_BS - 1}, {lud_diag_row, LUD_BS - 1}};
    static const struct kd_array peri[] = {{lud_peri_row, LUD_BS}, {lud_peri_col, LUD_BS}};
    static const uint32_t lds[3] = {LUD_T, 3 * LUD_T, 2 * LUD_T};
    struct kernel_dim grid[3] = {{1, 1, 1}, {n, 1, 1}, {n, n, 1}};
    struct kernel_dim block[3] = {{LUD_BS, 1, 1}, {2 * LUD_BS, 1, 1}, {LUD_BS, LUD_BS, 1}};
    int64_t params[] = {u->size, off};
    struct err e;
    if (kd_launch(u->prog[kind], k, grid[kind], block[kind], params, &u->m,
                  kind == LUD_DIAG ? diag : peri, &e))
        return wl_fail(u->env, &e);
    k->lds_b = lds[kind];
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
