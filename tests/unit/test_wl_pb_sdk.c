/*
 * The benchmark library's Polybench and CUDA SDK models: each runs at its
 * small size on the tiny machine under viper, cpelide and hmg with no stale
 * read and no annotation violation; each model's kernels, geometry,
 * argument modes, the first operations and addresses of chosen warps and
 * chosen work-groups' ranges are those of the real code, derived by hand
 * (the models driven directly, without a GPU); parameter errors.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "test_util.h"
#include "wl_harness.h"

extern const struct wl_ops wl_gemm, wl_2mm, wl_3mm, wl_atax, wl_bicg, wl_2dconv;
extern const struct wl_ops wl_transpose, wl_scalarprod, wl_blackscholes, wl_reduction,
    wl_convolution, wl_bitonic, wl_fwt, wl_histogram;

/* ---- whole runs ------------------------------------------------------------ */

static void run_small(const struct wl_ops *w, uint64_t kernels)
{
    static const char *const schemes[] = {"viper", "cpelide", "hmg"};
    for (unsigned s = 0; s < 3; s++) {
        char ini[1024];
        int n = snprintf(ini, sizeof ini,
                         "[coherence]\nscheme = %s\n[check]\nannotations = true\n[workload]\n",
                         schemes[s]);
        for (const char *const *o = w->small; *o; o++) {
            const char *eq = strchr(*o, '=');
            n += snprintf(ini + n, sizeof ini - (size_t)n, "%.*s = %s\n", (int)(eq - *o), *o,
                          eq + 1);
        }
        struct err e;
        struct machine *m = machine_new_wl(ini, w, &e);
        cr_assert(m, "%s: %s", w->name, e.msg);
        cr_assert_eq(machine_run(m), SIM_DONE, "%s under %s", w->name, schemes[s]);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0, "%s under %s", w->name,
                     schemes[s]);
        cr_expect_eq(machine_stat(m, "checker.annotation_violations"), 0, "%s under %s",
                     w->name, schemes[s]);
        cr_expect_eq(m->g.cp.st.kernels, kernels, "%s under %s: %llu kernels", w->name,
                     schemes[s], (unsigned long long)m->g.cp.st.kernels);
        machine_free(m);
    }
}

/* ---- the models driven directly -------------------------------------------- */

static void open_wl(struct wlh *h, const struct wl_ops *w, const char *ini)
{
    cr_assert(wlh_try(h, w, ini, 4, 16), "%s: %s", w->name, h->e.msg);
}

static void expect_error(const struct wl_ops *w, const char *ini, const char *want)
{
    struct wlh h;
    cr_expect_null(wlh_try(&h, w, ini, 4, 16), "%s accepted %s", w->name, ini);
    cr_expect(strstr(h.e.msg, want), "%s: '%s' does not say '%s'", w->name, h.e.msg, want);
    wlh_close(&h);
}

/* The next kernel: its name, grid and block. */
static void expect_kernel(struct wlh *h, struct kernel *k, const char *name, uint32_t gx,
                          uint32_t gy, uint32_t bx, uint32_t by)
{
    cr_assert(h->ops->next_kernel(h->self, k), "no kernel %s", name);
    cr_expect_str_eq(k->name, name);
    cr_expect(k->grid.x == gx && k->grid.y == gy && k->block.x == bx && k->block.y == by,
              "%s: grid %ux%u block %ux%u", name, k->grid.x, k->grid.y, k->block.x, k->block.y);
}

/* Its arguments: "C+ A B" names each buffer, + for read-write. */
static void expect_args(const struct kernel *k, const char *want)
{
    char got[256] = "";
    for (unsigned a = 0; a < k->nargs; a++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s%s", a ? " " : "",
                 k->args[a].buf->name, k->args[a].mode == KERNEL_RW ? "+" : "");
    cr_expect_str_eq(got, want, "%s arguments", k->name);
}

static void expect_done(struct wlh *h)
{
    struct kernel k;
    cr_expect_not(h->ops->next_kernel(h->self, &k), "a kernel too many: %s", k.name);
}

/* The next ops of warp w, as tokens: aN (N ALU instructions), l s t (global
 * load, store, atomic), L S (LDS load, store), b (barrier), x (exit).
 * Returns the last. */
static struct kernel_op expect_ops(const struct kernel *k, struct kernel_warp *w,
                                   const char *want)
{
    static const char kinds[] = {[KOP_ALU] = 'a', [KOP_LOAD] = 'l', [KOP_STORE] = 's',
                                 [KOP_ATOMIC] = 't', [KOP_LDS_LOAD] = 'L', [KOP_LDS_STORE] = 'S',
                                 [KOP_BARRIER] = 'b', [KOP_EXIT] = 'x'};
    struct kernel_op op = {0};
    for (const char *p = want; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char *end;
        char c = *p++;
        unsigned long n = c == 'a' ? strtoul(p, &end, 10) : 0;
        p = c == 'a' ? end : p;
        op = wlh_step(k, w);
        cr_assert(op.kind < sizeof kinds && kinds[op.kind] == c, "%s: op '%c' (kind %u) at '%s'",
                  k->name, kinds[op.kind], op.kind, p - 1);
        cr_assert(c != 'a' || op.n == n, "%s: alu %u, want %lu at '%s'", k->name, op.n, n, p - 1);
    }
    return op;
}

/* n copies of the tokens t (expect_ops), in a static buffer. */
static const char *rep(unsigned n, const char *t)
{
    static char buf[4096];
    buf[0] = 0;
    for (unsigned i = 0; i < n; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s ", t);
    return buf;
}

/* The address of lane l of op, relative to buffer b (0 for the LDS). */
static uint64_t lane_at(const struct kernel_warp *w, const struct kernel_op *op, unsigned l,
                        const struct kernel_buf *b)
{
    addr_t a = op->lanes ? w->lane_addr[l] : op->base + (addr_t)((int64_t)l * op->stride);
    return a - (b ? b->base : 0);
}

static void expect_lane(const struct kernel_warp *w, const struct kernel_op *op,
                        const struct kernel_buf *b, unsigned l, uint64_t want)
{
    cr_expect_eq(lane_at(w, op, l, b), want, "%s lane %u at %llu, want %llu", b ? b->name : "lds",
                 l, (unsigned long long)lane_at(w, op, l, b), (unsigned long long)want);
}

/* Work-group g's ranges of argument a, relative to its buffer: lo, hi pairs. */
static void expect_ranges(const struct kernel *k, uint32_t g, unsigned a, const uint64_t *want,
                          unsigned n)
{
    struct addr_range got[64];
    unsigned m = k->ranges(k, g, a, got, 64);
    addr_t b = k->args[a].buf->base;
    cr_assert_eq(m, n, "%s wg %u arg %u: %u ranges, want %u (first [%llu, %llu))", k->name, g, a,
                 m, n, (unsigned long long)(m ? got[0].lo - b : 0),
                 (unsigned long long)(m ? got[0].hi - b : 0));
    for (unsigned i = 0; i < n; i++)
        cr_expect(got[i].lo - b == want[2 * i] && got[i].hi - b == want[2 * i + 1],
                  "%s wg %u arg %u range %u: [%llu, %llu)", k->name, g, a, i,
                  (unsigned long long)(got[i].lo - b), (unsigned long long)(got[i].hi - b));
}

/* ---- Polybench ------------------------------------------------------------- */
Test(wl_pb_sdk, polybench_small_runs)
{
    run_small(&wl_gemm, 1);
    run_small(&wl_2mm, 2);
    run_small(&wl_3mm, 3);
    run_small(&wl_atax, 2);
    run_small(&wl_bicg, 2);
    run_small(&wl_2dconv, 1);
}

/* One group of four steps of gemm's unrolled k loop (A[i][k] before B[k][j]). */
#define GEMM_GROUP "a1 l a1 l a1 s  l a2 l a1 s  l a2 l a1 s  l a3 l a1 s  a5 "

/* gemm 32 x 32, nk 18: 1 x 4 work-groups of 32 x 8; warp 1 of work-group 2
 * holds rows 18 and 19 (lanes 0-31, 32-63), columns 0-31. Four groups of
 * four steps, then the remainder's test and set-up (2 + 7) and two steps. */
Test(wl_pb_sdk, gemm_ops)
{
    struct wlh h;
    open_wl(&h, &wl_gemm, "[workload]\nni = 32\nnj = 32\nnk = 18\n");
    struct kernel k;
    expect_kernel(&h, &k, "gemm_kernel", 1, 4, 32, 8);
    expect_args(&k, "C+ A B");
    const struct kernel_buf *c = k.args[0].buf, *a = k.args[1].buf, *b = k.args[2].buf;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 2, 1);
    struct kernel_op op = expect_ops(&k, &w, "a23 l");
    expect_lane(&w, &op, c, 0, 18 * 32 * 4);
    expect_lane(&w, &op, c, 33, (19 * 32 + 1) * 4);
    op = expect_ops(&k, &w, "a1 s a15 a1 l");
    expect_lane(&w, &op, a, 0, 18 * 18 * 4);
    expect_lane(&w, &op, a, 63, 19 * 18 * 4);
    op = expect_ops(&k, &w, "a1 l");
    expect_lane(&w, &op, b, 5, 5 * 4);
    op = expect_ops(&k, &w, "a1 s l");
    expect_lane(&w, &op, a, 32, (19 * 18 + 1) * 4);
    op = expect_ops(&k, &w, "a2 l");
    expect_lane(&w, &op, b, 7, (32 + 7) * 4);
    expect_ops(&k, &w, "a1 s  l a2 l a1 s  l a3 l a1 s  a5 " GEMM_GROUP GEMM_GROUP GEMM_GROUP
                       "a9 l a1 l a1 s a5 l a1");
    op = expect_ops(&k, &w, "l");
    expect_lane(&w, &op, b, 1, (17 * 32 + 1) * 4);
    expect_ops(&k, &w, "a1 s a5 x");
    /* work-group 2: rows 16-23 of A (one range), of C, and all of B */
    expect_ranges(&k, 2, 1, (const uint64_t[]){16 * 18 * 4, 24 * 18 * 4}, 1);
    expect_ranges(&k, 2, 0, (const uint64_t[]){16 * 32 * 4, 24 * 32 * 4}, 1);
    expect_ranges(&k, 2, 2, (const uint64_t[]){0, 18 * 32 * 4}, 1);
    expect_done(&h);
    wlh_close(&h);
    /* 33 columns: work-group 0's rows of C are 4 bytes apart, one range */
    open_wl(&h, &wl_gemm, "[workload]\nni = 16\nnj = 33\nnk = 16\n");
    expect_kernel(&h, &k, "gemm_kernel", 2, 2, 32, 8);
    expect_ranges(&k, 0, 0, (const uint64_t[]){0, (7 * 33 + 32) * 4}, 1);
    wlh_close(&h);
}

/* One group of four steps of mm_kernel (Z[k][j] before Y[i][k]). */
#define MM_GROUP "a1 l l a1 s  a1 l l a1 s  a1 l l a1 s  a2 l l a1 s  a5 "

/* 2mm at its small size (ni 16, nj 32, nk 16, nl 32): C = A.B (inner 16),
 * then E = C.D (inner 32), each over 1 x 2 work-groups. */
Test(wl_pb_sdk, mm2_ops)
{
    struct wlh h;
    open_wl(&h, &wl_2mm, "[workload]\nni = 16\nnj = 32\nnk = 16\nnl = 32\n");
    struct kernel k;
    expect_kernel(&h, &k, "mm_kernel", 1, 2, 32, 8);
    expect_args(&k, "C+ A B");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 3); /* rows 14, 15 */
    struct kernel_op op = expect_ops(&k, &w, "a22 s");
    expect_lane(&w, &op, k.args[0].buf, 32, 15 * 32 * 4);
    op = expect_ops(&k, &w, "a16 a1 l");
    expect_lane(&w, &op, k.args[2].buf, 3, 3 * 4);
    op = expect_ops(&k, &w, "l");
    expect_lane(&w, &op, k.args[1].buf, 0, 14 * 16 * 4);
    expect_ops(&k, &w, "a1 s  a1 l l a1 s  a1 l l a1 s  a2 l l a1 s  a5 " MM_GROUP MM_GROUP
                       MM_GROUP "a2 x");
    expect_kernel(&h, &k, "mm_kernel", 1, 2, 32, 8);
    expect_args(&k, "E+ C D");
    wlh_warp_at(&w, &k, 0, 0);
    op = expect_ops(&k, &w, "a22 s a16 a1 l l");
    expect_lane(&w, &op, k.args[1].buf, 32, 32 * 4); /* C[1][0]: rows of 32 */
    expect_ranges(&k, 1, 1, (const uint64_t[]){8 * 32 * 4, 16 * 32 * 4}, 1);
    expect_done(&h);
    wlh_close(&h);
}

/* 3mm at its small size: E = A.B (16 x 32), F = C.D (32 x 32), G = E.F
 * (16 x 32, inner 32). */
Test(wl_pb_sdk, mm3_kernels)
{
    struct wlh h;
    open_wl(&h, &wl_3mm, "[workload]\nni = 16\nnj = 32\nnk = 16\nnl = 32\nnm = 16\n");
    struct kernel k;
    expect_kernel(&h, &k, "mm_kernel", 1, 2, 32, 8);
    expect_args(&k, "E+ A B");
    expect_kernel(&h, &k, "mm_kernel", 1, 4, 32, 8);
    expect_args(&k, "F+ C D");
    expect_kernel(&h, &k, "mm_kernel", 1, 2, 32, 8);
    expect_args(&k, "G+ E F");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    expect_ops(&k, &w, "a22 s a16 " MM_GROUP MM_GROUP MM_GROUP MM_GROUP MM_GROUP MM_GROUP MM_GROUP
                       MM_GROUP "a2 x");
    expect_done(&h);
    wlh_close(&h);
}

/* atax 64 x 64 (one work-group of 256, lanes 0-63 active) and 64 x 70:
 * kernel1 runs over rows (A[i][j], x[j] the same in every lane), kernel2
 * over columns (A[i][j] a row apart per lane, tmp[i] the same). */
Test(wl_pb_sdk, atax_ops)
{
    struct wlh h;
    open_wl(&h, &wl_atax, "[workload]\nnx = 64\nny = 70\n");
    struct kernel k;
    expect_kernel(&h, &k, "atax_kernel1", 1, 1, 256, 1);
    expect_args(&k, "A x tmp+");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 1); /* threads 64-127: no row */
    expect_ops(&k, &w, "a21 x");
    wlh_warp_at(&w, &k, 0, 0);
    struct kernel_op op = expect_ops(&k, &w, "a21 l a5 l");
    expect_lane(&w, &op, k.args[0].buf, 3, 3 * 70 * 4);
    op = expect_ops(&k, &w, "l");
    expect_lane(&w, &op, k.args[1].buf, 40, 0);
    for (unsigned g = 0; g < 70 / 4; g++)
        expect_ops(&k, &w, g ? "l l a1 s  l l a1 s  l l a1 s  l l a1 s  a6"
                             : "a1 s  l l a1 s  l l a1 s  l l a1 s  a6");
    op = expect_ops(&k, &w, "a2 l a5 l"); /* the remainder: j = 68, 69 */
    expect_lane(&w, &op, k.args[0].buf, 1, (70 + 68) * 4);
    expect_ops(&k, &w, "l a1 s a5 l l a1 s a5 x");
    expect_ranges(&k, 0, 0, (const uint64_t[]){0, 64 * 70 * 4}, 1);
    expect_ranges(&k, 0, 1, (const uint64_t[]){0, 70 * 4}, 1);
    expect_ranges(&k, 0, 2, (const uint64_t[]){0, 64 * 4}, 1);
    expect_kernel(&h, &k, "atax_kernel2", 1, 1, 256, 1);
    expect_args(&k, "A tmp y+");
    wlh_warp_at(&w, &k, 0, 1); /* threads 64-69 */
    op = expect_ops(&k, &w, "a22 l");
    cr_expect_eq(op.mask, 0x3f);
    op = expect_ops(&k, &w, "a5 l");
    expect_lane(&w, &op, k.args[0].buf, 5, 69 * 4);
    op = expect_ops(&k, &w, "l a1 s a1 l");
    expect_lane(&w, &op, k.args[0].buf, 0, (70 + 64) * 4);
    expect_done(&h);
    wlh_close(&h);
}

/* bicg 64 x 64: kernel1 over columns (s[j] zeroed, then r[i] A[i][j]),
 * kernel2 over rows (q[i] zeroed, then A[i][j] p[j]); no remainder. */
Test(wl_pb_sdk, bicg_ops)
{
    struct wlh h;
    open_wl(&h, &wl_bicg, "[workload]\nnx = 64\nny = 64\n");
    struct kernel k;
    expect_kernel(&h, &k, "bicg_kernel1", 1, 1, 256, 1);
    expect_args(&k, "A r s+");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    struct kernel_op op = expect_ops(&k, &w, "a15 s a14 l");
    expect_lane(&w, &op, k.args[0].buf, 9, 9 * 4);
    for (unsigned g = 0; g < 16; g++)
        expect_ops(&k, &w, g ? "l l a1 s  a1 l l a1 s  a1 l l a1 s  a2 l l a1 s  a5"
                             : "l a1 s  a1 l l a1 s  a1 l l a1 s  a2 l l a1 s  a5");
    expect_ops(&k, &w, "a2 x");
    expect_kernel(&h, &k, "bicg_kernel2", 1, 1, 256, 1);
    expect_args(&k, "A p q+");
    wlh_warp_at(&w, &k, 0, 0);
    op = expect_ops(&k, &w, "a14 s a14 l");
    expect_lane(&w, &op, k.args[0].buf, 2, 2 * 64 * 4);
    expect_done(&h);
    wlh_close(&h);
}

/* 2dconv 64 x 64: 2 x 8 work-groups of 32 x 8. Warp 0 of work-group 0 holds
 * rows 0 and 1, columns 0-31: only row 1, columns 1-31 (lanes 33-63) work. */
Test(wl_pb_sdk, conv2d_ops)
{
    struct wlh h;
    open_wl(&h, &wl_2dconv, "[workload]\nni = 64\nnj = 64\n");
    struct kernel k;
    expect_kernel(&h, &k, "Convolution2D_kernel", 2, 8, 32, 8);
    expect_args(&k, "A B+");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    struct kernel_op op = expect_ops(&k, &w, "a29 l");
    cr_expect_eq(op.mask, ~0ull << 33);
    expect_lane(&w, &op, k.args[0].buf, 33, 0);
    expect_lane(&w, &op, k.args[0].buf, 40, 7 * 4);
    op = expect_ops(&k, &w, "l a2 l a4 l a2 l a1 l a2 l a1 l a1 l");
    expect_lane(&w, &op, k.args[0].buf, 33, (2 * 64 + 2) * 4);
    op = expect_ops(&k, &w, "a3 s");
    expect_lane(&w, &op, k.args[1].buf, 63, (64 + 31) * 4);
    expect_ops(&k, &w, "x");
    /* work-group 15 (the last): rows 56-62 and columns 32-62 work, so it
     * reads rows 55-63, columns 31-63 (pieces 124 bytes apart, joined: less
     * than a line), and writes rows 56-62, columns 32-62 (132 bytes apart) */
    uint64_t wr[14];
    for (unsigned r = 0; r < 7; r++) {
        wr[2 * r] = ((56 + r) * 64 + 32) * 4;
        wr[2 * r + 1] = ((56 + r) * 64 + 63) * 4;
    }
    expect_ranges(&k, 15, 0, (const uint64_t[]){(55 * 64 + 31) * 4, 64 * 64 * 4}, 1);
    expect_ranges(&k, 15, 1, wr, 7);
    expect_done(&h);
    wlh_close(&h);
}

Test(wl_pb_sdk, polybench_parameter_errors)
{
    expect_error(&wl_gemm, "[workload]\nni = 0\n", "ni");
    expect_error(&wl_2mm, "[workload]\nnl = 65537\n", "nl");
    expect_error(&wl_2dconv, "[workload]\nnj = 2\n", "nj");
}

/* ---- CUDA SDK -------------------------------------------------------------- */

Test(wl_pb_sdk, sdk_small_runs)
{
    run_small(&wl_transpose, 2);
    run_small(&wl_scalarprod, 1);
    run_small(&wl_blackscholes, 2);
    run_small(&wl_reduction, 2);
    run_small(&wl_convolution, 2);
    run_small(&wl_bitonic, 45);
    run_small(&wl_fwt, 7);
    run_small(&wl_histogram, 2);
}

/* transpose 64 wide, 48 high: 4 x 3 tiles. Warp 1 of tile (1, 2) holds
 * thread rows 4-7: it reads rows 36-39, columns 16-31 of idata and writes
 * rows 20-23, columns 32-47 of odata (48 wide). */
Test(wl_pb_sdk, transpose_ops)
{
    struct wlh h;
    open_wl(&h, &wl_transpose, "[workload]\nwidth = 64\nheight = 48\niterations = 2\n");
    struct kernel k;
    expect_kernel(&h, &k, "transposeCoalesced", 4, 3, 16, 16);
    expect_args(&k, "odata+ idata");
    cr_expect_eq(k.lds_b, 16 * 17 * 4);
    const struct kernel_buf *o = k.args[0].buf, *in = k.args[1].buf;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 9, 1);
    struct kernel_op op = expect_ops(&k, &w, "a18 l");
    expect_lane(&w, &op, in, 0, (36 * 64 + 16) * 4);
    expect_lane(&w, &op, in, 17, (37 * 64 + 17) * 4);
    op = expect_ops(&k, &w, "a4 S");
    expect_lane(&w, &op, NULL, 17, (17 * 5 + 1) * 4);
    op = expect_ops(&k, &w, "b a3 L");
    expect_lane(&w, &op, NULL, 17, (17 * 1 + 5) * 4);
    op = expect_ops(&k, &w, "a2 s");
    expect_lane(&w, &op, o, 0, (20 * 48 + 32) * 4);
    expect_lane(&w, &op, o, 63, (23 * 48 + 47) * 4);
    expect_ops(&k, &w, "x");
    uint64_t rin[32], rout[32];
    for (unsigned r = 0; r < 16; r++) {
        rin[2 * r] = ((32 + r) * 64 + 16) * 4;
        rin[2 * r + 1] = ((32 + r) * 64 + 32) * 4;
        rout[2 * r] = ((16 + r) * 48 + 32) * 4;
        rout[2 * r + 1] = (17 + r) * 48 * 4;
    }
    expect_ranges(&k, 9, 1, rin, 16);
    expect_ranges(&k, 9, 0, rout, 16);
    expect_kernel(&h, &k, "transposeCoalesced", 4, 3, 16, 16);
    cr_expect(k.args[0].same_pattern && k.args[1].same_pattern);
    expect_done(&h);
    wlh_close(&h);
}

/* scalarProd: 4 vectors of 1536 over 2 work-groups (vectors bx and bx + 2),
 * two passes over the elements (the second for accumulators below 512). */
Test(wl_pb_sdk, scalarprod_ops)
{
    struct wlh h;
    open_wl(&h, &wl_scalarprod, "[workload]\nvectors = 4\nelements = 1536\nblocks = 2\n");
    struct kernel k;
    expect_kernel(&h, &k, "scalarProdGPU", 2, 1, 256, 1);
    expect_args(&k, "C+ A B");
    cr_expect_eq(k.lds_b, 4096);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0);
    struct kernel_op op = expect_ops(&k, &w, "a16 a6 a15 l");
    expect_lane(&w, &op, k.args[1].buf, 3, (1536 + 3) * 4);
    op = expect_ops(&k, &w, "l a2 l");
    expect_lane(&w, &op, k.args[1].buf, 3, (1536 + 1024 + 3) * 4);
    expect_ops(&k, &w, "l a2 a8 S a4  a15 l l a2 l l a2 a8 S a4  a15 l l a2 a8 S a4"
                       "  a15 l l a2 a8 S a4");
    /* ten halving steps: offsets 512 (two accumulators a thread) .. 1 */
    expect_ops(&k, &w, "a1 b a2 a3 L L a1 S a3 a3 L L a1 S a3");
    expect_ops(&k, &w, rep(9, "a1 b a2 a3 L L a1 S a3"));
    op = expect_ops(&k, &w, "a1 b a1 L a2 s");
    expect_lane(&w, &op, k.args[0].buf, 0, 1 * 4);
    op = expect_ops(&k, &w, "a3 a6 a15 l");
    expect_lane(&w, &op, k.args[1].buf, 0, 3 * 1536 * 4);
    /* work-group 0's last warp (threads 192-255) adds only at 512 and 256 */
    wlh_warp_at(&w, &k, 0, 3);
    expect_ops(&k, &w, "a16 a6 a15 l l a2 l l a2 a8 S a4  a15 l l a2 l l a2 a8 S a4"
                       "  a15 l l a2 a8 S a4  a15 l l a2 a8 S a4");
    expect_ops(&k, &w, "a1 b a2 a3 L L a1 S a3 a3 L L a1 S a3  a1 b a2 a3 L L a1 S a3");
    expect_ops(&k, &w, rep(8, "a1 b a2"));
    expect_ops(&k, &w, "a1 b a3 a6");
    expect_ranges(&k, 1, 1, (const uint64_t[]){1536 * 4, 2 * 1536 * 4, 3 * 1536 * 4, 4 * 1536 * 4},
                  2);
    expect_done(&h);
    wlh_close(&h);
}

/* BlackScholes: 1500 options over 8 x 128 threads, two options a thread
 * where gid < 476. */
Test(wl_pb_sdk, blackscholes_ops)
{
    struct wlh h;
    open_wl(&h, &wl_blackscholes,
            "[workload]\noptions = 1500\nblocks = 8\nthreads = 128\niterations = 2\n");
    struct kernel k;
    expect_kernel(&h, &k, "BlackScholesGPU", 8, 1, 128, 1);
    expect_args(&k, "CallResult+ PutResult+ StockPrice OptionStrike OptionYears");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 3, 1); /* options 448-511 */
    struct kernel_op op = expect_ops(&k, &w, "a32 l");
    expect_lane(&w, &op, k.args[4].buf, 0, 448 * 4);
    op = expect_ops(&k, &w, "a1 l l a50 s a6 s a4 l");
    cr_expect_eq(op.mask, 0x0fffffff); /* options 1472-1499 */
    expect_lane(&w, &op, k.args[4].buf, 27, 1499 * 4);
    expect_ops(&k, &w, "a1 l l a50 s a6 s a4 x");
    wlh_warp_at(&w, &k, 7, 1);
    expect_ops(&k, &w, "a32 l a1 l l a50 s a6 s a4 x");
    /* work-group 3: options 384-511 and 1408-1499 (cut at 1500) */
    expect_ranges(&k, 3, 2, (const uint64_t[]){384 * 4, 512 * 4, 1408 * 4, 1500 * 4}, 2);
    expect_kernel(&h, &k, "BlackScholesGPU", 8, 1, 128, 1);
    expect_done(&h);
    wlh_close(&h);
}

/* reduction of 16384 floats, at most 8 work-groups: a pass of 8 x 256
 * threads (four grid-stride steps), then one of 1 x 4 threads over the 8
 * partial sums, in place. */
Test(wl_pb_sdk, reduction_ops)
{
    struct wlh h;
    open_wl(&h, &wl_reduction, "[workload]\nn = 16384\nblocks = 8\n");
    struct kernel k;
    expect_kernel(&h, &k, "reduce6", 8, 1, 256, 1);
    expect_args(&k, "g_idata g_odata+");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0);
    struct kernel_op op = expect_ops(&k, &w, "a13 a2 l");
    expect_lane(&w, &op, k.args[0].buf, 0, 512 * 4);
    op = expect_ops(&k, &w, "a4 l");
    expect_lane(&w, &op, k.args[0].buf, 0, 768 * 4);
    op = expect_ops(&k, &w, "a4 a2 l");
    expect_lane(&w, &op, k.args[0].buf, 1, (4096 + 513) * 4);
    expect_ops(&k, &w, "a4 l a4 a2 l a4 l a4 a2 l a4 l a4 a3 S b a2 L a1 S b a2 L a1 S b a2");
    op = expect_ops(&k, &w, "L");
    cr_expect_eq(op.mask, 0xffffffffull);
    expect_lane(&w, &op, NULL, 1, (1 + 32) * 4);
    op = expect_ops(&k, &w, "a1 S L a1 S L a1 S L a1 S L a1 S L");
    expect_lane(&w, &op, NULL, 0, 1 * 4);
    op = expect_ops(&k, &w, "a1 S a2 L a2 s");
    expect_lane(&w, &op, k.args[1].buf, 0, 1 * 4);
    wlh_warp_at(&w, &k, 1, 2); /* threads 128-191: no tree step */
    expect_ops(&k, &w, "a13 a2 l a4 l a4 a2 l a4 l a4 a2 l a4 l a4 a2 l a4 l a4 a3 S"
                       " b a2 b a2 b a2 a2 x");
    uint64_t in[8];
    for (unsigned m = 0; m < 4; m++) {
        in[2 * m] = (512 + 4096 * m) * 4;
        in[2 * m + 1] = (1024 + 4096 * m) * 4;
    }
    expect_ranges(&k, 1, 0, in, 4);
    expect_ranges(&k, 1, 1, (const uint64_t[]){4, 8}, 1);
    expect_kernel(&h, &k, "reduce6", 1, 1, 4, 1);
    expect_args(&k, "g_odata+");
    wlh_warp_at(&w, &k, 0, 0);
    op = expect_ops(&k, &w, "a13 a2 l a4 l");
    expect_lane(&w, &op, k.args[0].buf, 3, 7 * 4);
    expect_ops(&k, &w, "a4 a3 S b a2 L a1 S L a1 S a2 L a2 s x");
    expect_done(&h);
    wlh_close(&h);
}

/* convolutionSeparable on 128 x 64: rows over 1 x 16 work-groups of 16 x 4
 * (no halo inside the image on either side), columns over 8 x 1 of 16 x 8. */
Test(wl_pb_sdk, convolution_ops)
{
    struct wlh h;
    open_wl(&h, &wl_convolution, "[workload]\nwidth = 128\nheight = 64\n");
    struct kernel k;
    expect_kernel(&h, &k, "convolutionRowsKernel", 1, 16, 16, 4);
    expect_args(&k, "d_Buffer+ d_Input");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0); /* rows 4-7 */
    struct kernel_op op = expect_ops(&k, &w, "a23 l");
    expect_lane(&w, &op, k.args[1].buf, 0, 4 * 128 * 4);
    expect_lane(&w, &op, k.args[1].buf, 17, (5 * 128 + 1) * 4);
    op = expect_ops(&k, &w, "S");
    expect_lane(&w, &op, NULL, 17, (160 + 1 + 16) * 4);
    expect_ops(&k, &w, rep(7, "l S"));
    expect_ops(&k, &w, "a4 S a3 S b");
    op = expect_ops(&k, &w, "L");
    expect_lane(&w, &op, NULL, 0, 8 * 4);
    expect_ops(&k, &w, "a2");
    expect_ops(&k, &w, rep(16, "L a2"));
    op = expect_ops(&k, &w, "a2 s");
    expect_lane(&w, &op, k.args[0].buf, 0, 4 * 128 * 4);
    for (unsigned i = 1; i < 8; i++) {
        expect_ops(&k, &w, rep(16, "L a1"));
        expect_ops(&k, &w, "a1 s");
    }
    expect_ops(&k, &w, "x");
    /* rows 4-7, whole (no halo inside the image) */
    expect_ranges(&k, 1, 1, (const uint64_t[]){4 * 512, 8 * 512}, 1);
    expect_ranges(&k, 1, 0, (const uint64_t[]){4 * 512, 8 * 512}, 1);
    expect_kernel(&h, &k, "convolutionColumnsKernel", 8, 1, 16, 8);
    expect_args(&k, "d_Output+ d_Buffer");
    wlh_warp_at(&w, &k, 2, 1); /* columns 32-47, thread rows 4-7 */
    op = expect_ops(&k, &w, "a24 l");
    expect_lane(&w, &op, k.args[1].buf, 0, (4 * 128 + 32) * 4);
    expect_ops(&k, &w, "S a1");
    expect_ops(&k, &w, rep(7, "l S a1"));
    expect_ops(&k, &w, "a5 S a8 S b");
    expect_ops(&k, &w, rep(17, "L a2"));
    op = expect_ops(&k, &w, "a1 s");
    expect_lane(&w, &op, k.args[0].buf, 16, (5 * 128 + 32) * 4);
    op = expect_ops(&k, &w, "L");
    expect_lane(&w, &op, NULL, 0, (4 + 17) * 4); /* output 2's first new tap */
    wlh_close(&h);
}

Test(wl_pb_sdk, sdk_parameter_errors)
{
    expect_error(&wl_transpose, "[workload]\nwidth = 40\n", "width");
    expect_error(&wl_scalarprod, "[workload]\nvectors = 6\nblocks = 4\n", "vectors");
    expect_error(&wl_scalarprod, "[workload]\nvectors = 2\nblocks = 4\n", "blocks");
    expect_error(&wl_reduction, "[workload]\nn = 1000\n", "n");
    expect_error(&wl_reduction, "[workload]\nblocks = 3\n", "blocks");
    expect_error(&wl_convolution, "[workload]\nheight = 100\n", "height");
}

/* Kernel n (from 0) of the workload. */
static void skip_kernels(struct wlh *h, unsigned n)
{
    struct kernel k;
    for (unsigned i = 0; i < n; i++)
        cr_assert(h->ops->next_kernel(h->self, &k), "no kernel %u", i);
}

/* The pair of one bitonic thread: leftId and rightId, in keys. */
static void expect_pair(struct wlh *h, unsigned skip, uint32_t wg, unsigned lane, uint64_t left,
                        uint64_t d)
{
    struct kernel k;
    skip_kernels(h, skip);
    expect_kernel(h, &k, "bitonicSort", 4, 1, 64, 1);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, wg, 0);
    struct kernel_op op = expect_ops(&k, &w, "a19 l");
    expect_lane(&w, &op, k.args[0].buf, lane, left * 4);
    op = expect_ops(&k, &w, "a2 l");
    expect_lane(&w, &op, k.args[0].buf, lane, (left + d) * 4);
    op = expect_ops(&k, &w, "a10 s");
    expect_lane(&w, &op, k.args[0].buf, lane, left * 4);
    op = expect_ops(&k, &w, "s");
    expect_lane(&w, &op, k.args[0].buf, lane, (left + d) * 4);
    expect_ops(&k, &w, "x");
}

/* bitonic sort of 512 keys in work-groups of 64: 9 stages, 45 passes;
 * thread t's left key is (t mod d) + (t / d) 2d. */
Test(wl_pb_sdk, bitonic_ops)
{
    struct wlh h;
    open_wl(&h, &wl_bitonic, "[workload]\nn = 512\nblock = 64\n");
    cr_expect_eq(h.ops->kernels(h.self), 45);
    expect_pair(&h, 0, 1, 3, 134, 1);         /* stage 0, d 1: t 67 */
    expect_pair(&h, 28 - 1, 3, 0, 320, 128);  /* stage 7, pass 0, d 128: t 192 */
    expect_pair(&h, 30 - 29, 1, 40, 200, 32); /* stage 7, pass 2, d 32: t 104 */
    expect_pair(&h, 36 - 31, 3, 5, 197, 256); /* stage 8, pass 0, d 256: t 197 */
    skip_kernels(&h, 44 - 37);
    struct kernel k;
    expect_kernel(&h, &k, "bitonicSort", 4, 1, 64, 1);
    expect_args(&k, "theArray+");
    struct addr_range r[4];
    cr_expect_eq(k.ranges(&k, 0, 0, r, 4), 0, "ranges through an array: unknown");
    expect_done(&h);
    wlh_close(&h);
}

/* The Walsh transform of 2^12 points: fwtBatch2Kernel (stride 1024, 4 x
 * 256 threads), fwtBatch1Kernel (4 batches of 1024), the same on
 * d_Kernel, modulateKernel, and the transform of d_Data again. */
Test(wl_pb_sdk, fwt_sequence)
{
    struct wlh h;
    open_wl(&h, &wl_fwt, "[workload]\nlog2 = 12\n");
    struct kernel k;
    static const char *const bufs[] = {"d_Data+", "d_Data+", "d_Kernel+", "d_Kernel+",
                                       "d_Data+ d_Kernel", "d_Data+", "d_Data+"};
    for (unsigned i = 0; i < 7; i++) {
        bool b1 = i == 1 || i == 3 || i == 6;
        if (i == 4)
            expect_kernel(&h, &k, "modulateKernel", 128, 1, 256, 1);
        else if (b1)
            expect_kernel(&h, &k, "fwtBatch1Kernel", 4, 1, 256, 1);
        else
            expect_kernel(&h, &k, "fwtBatch2Kernel", 4, 1, 256, 1);
        expect_args(&k, bufs[i]);
        struct kernel_warp w;
        wlh_warp_at(&w, &k, 2, 1);
        if (i == 0) { /* gid 576: i0 = gid, stride 1024 */
            struct kernel_op op = expect_ops(&k, &w, "a22 l");
            expect_lane(&w, &op, k.args[0].buf, 0, 576 * 4);
            op = expect_ops(&k, &w, "a2 l");
            expect_lane(&w, &op, k.args[0].buf, 0, (576 + 1024) * 4);
            expect_ops(&k, &w, "a1 l a1 l a6 s a2 s a2 s a2 s x");
        }
        if (i == 4) {
            expect_ops(&k, &w, "a29 a2 l a2 l a1 s a1 x");
            wlh_warp_at(&w, &k, 16, 0); /* gid 4096: none */
            expect_ops(&k, &w, "a29 x");
        }
    }
    expect_done(&h);
    wlh_close(&h);
}

/* 2^14 points: the second fwtBatch2Kernel has stride 1024, so i0 = 4 pos -
 * 3 (pos mod 1024); fwtBatch1Kernel then has 16 batches of 1024 points
 * (five radix-4 stages, no radix-2). 2^13: batches of 2048 (odd: a
 * radix-2 stage of paired LDS accesses). */
Test(wl_pb_sdk, fwt_butterflies)
{
    struct wlh h;
    open_wl(&h, &wl_fwt, "[workload]\nlog2 = 14\n");
    skip_kernels(&h, 1);
    struct kernel k;
    expect_kernel(&h, &k, "fwtBatch2Kernel", 16, 1, 256, 1);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 5, 0); /* pos 1280: lo 256, i0 4352 */
    struct kernel_op op = expect_ops(&k, &w, "a22 l");
    expect_lane(&w, &op, k.args[0].buf, 0, 4352 * 4);
    expect_kernel(&h, &k, "fwtBatch1Kernel", 16, 1, 256, 1);
    cr_expect_eq(k.lds_b, 4096);
    expect_ranges(&k, 3, 0, (const uint64_t[]){3 * 4096, 4 * 4096}, 1); /* its batch */
    wlh_warp_at(&w, &k, 3, 1);
    op = expect_ops(&k, &w, "a13 a4 l");
    expect_lane(&w, &op, k.args[0].buf, 1, (3 * 1024 + 65) * 4);
    expect_ops(&k, &w, "a3 S a3 a4 l a3 S a3 a4 l a3 S a3 a4 l a3 S a3 a4");
    const char *stage = "a6 b a6 L L a2 L L a3 S a1 S a1 S a1 S a3";
    op = expect_ops(&k, &w, "a6 b a6 L");
    expect_lane(&w, &op, NULL, 1, 65 * 4); /* stride 256: i0 = tx */
    expect_ops(&k, &w, "L a2 L L a3 S a1 S a1 S a1 S a3 a6 b a6");
    op = expect_ops(&k, &w, "L");
    expect_lane(&w, &op, NULL, 1, 257 * 4); /* stride 64: tx 65, lo 1 */
    expect_ops(&k, &w, "L a2 L L a3 S a1 S a1 S a1 S a3");
    expect_ops(&k, &w, rep(3, stage));
    expect_ops(&k, &w, "a6 b a3");
    expect_ops(&k, &w, rep(4, "a2 L a4 s a3"));
    expect_ops(&k, &w, "x");
    wlh_close(&h);
    open_wl(&h, &wl_fwt, "[workload]\nlog2 = 13\n");
    skip_kernels(&h, 1);
    expect_kernel(&h, &k, "fwtBatch1Kernel", 4, 1, 512, 1);
    wlh_warp_at(&w, &k, 0, 0);
    expect_ops(&k, &w, "a13");
    expect_ops(&k, &w, rep(4, "a4 l a3 S a3"));
    expect_ops(&k, &w, "a4");
    expect_ops(&k, &w, rep(5, stage));
    op = expect_ops(&k, &w, "a6 b a7 a3 L");
    cr_expect_eq(op.size, 8);
    expect_lane(&w, &op, NULL, 1, 8);
    expect_ops(&k, &w, "a2 S a3 a3 L a2 S a3 b a3");
    wlh_close(&h);
}

/* histogram of 6144 bytes over 4 work-groups of 192 (1536 words, two
 * grid-stride steps), merged by 256 work-groups of 32 threads. */
Test(wl_pb_sdk, histogram_ops)
{
    struct wlh h;
    open_wl(&h, &wl_histogram, "[workload]\nbytes = 6144\npartials = 4\nmerge_threads = 32\n");
    struct kernel k;
    expect_kernel(&h, &k, "histogram256Kernel", 4, 1, 192, 1);
    expect_args(&k, "d_PartialHistograms+ d_Data");
    cr_expect_eq(k.lds_b, 6144);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    struct kernel_op op = expect_ops(&k, &w, "a8 S");
    expect_lane(&w, &op, NULL, 5, 5 * 4);
    op = expect_ops(&k, &w, "S");
    expect_lane(&w, &op, NULL, 5, (192 + 5) * 4);
    op = expect_ops(&k, &w, "S S S S S S b a9 a2 l");
    expect_lane(&w, &op, k.args[1].buf, 3, 3 * 4);
    op = expect_ops(&k, &w, "a4 L");
    for (unsigned l = 0; l < 64; l++) { /* lanes 32-63: warp 1's sub-histogram */
        uint64_t at = lane_at(&w, &op, l, NULL);
        cr_expect(at >= (l / 32) * 1024 && at < (l / 32 + 1) * 1024, "lane %u at %llu", l,
                  (unsigned long long)at);
    }
    op = expect_ops(&k, &w, "S a5 L S a5 L S a4 L S a3 a2 l");
    expect_lane(&w, &op, k.args[1].buf, 0, 768 * 4);
    expect_ops(&k, &w, "a4 L S a5 L S a5 L S a4 L S a3 b a5");
    const char *bin = "L L a1 L a1 L a1 L a1 L a3";
    expect_ops(&k, &w, bin);
    op = expect_ops(&k, &w, "s a5");
    expect_ops(&k, &w, bin);
    op = expect_ops(&k, &w, "s");
    expect_lane(&w, &op, k.args[0].buf, 0, 192 * 4);
    expect_ops(&k, &w, "a5 x");
    expect_ranges(&k, 1, 1, (const uint64_t[]){192 * 4, 384 * 4, 960 * 4, 1152 * 4}, 2);
    expect_ranges(&k, 1, 0, (const uint64_t[]){1024, 2048}, 1);
    expect_kernel(&h, &k, "mergeHistogram256Kernel", 256, 1, 32, 1);
    expect_args(&k, "d_Histogram+ d_PartialHistograms");
    wlh_warp_at(&w, &k, 7, 0);
    op = expect_ops(&k, &w, "a12 a2 l");
    cr_expect_eq(op.mask, 0xf);
    expect_lane(&w, &op, k.args[1].buf, 3, (7 + 3 * 256) * 4);
    expect_ops(&k, &w, "a5 a3 S");
    expect_ops(&k, &w, rep(4, "b a2 L L a1 S"));
    op = expect_ops(&k, &w, "b a2 L L a1 S L a3 s");
    expect_lane(&w, &op, k.args[0].buf, 0, 7 * 4);
    expect_ops(&k, &w, "x");
    /* bin 7 of the 4 partial histograms: a word each, a row apart */
    uint64_t rp[8];
    for (unsigned t = 0; t < 4; t++) {
        rp[2 * t] = (7 + 256 * t) * 4;
        rp[2 * t + 1] = rp[2 * t] + 4;
    }
    expect_ranges(&k, 7, 1, rp, 4);
    expect_done(&h);
    wlh_close(&h);
}

Test(wl_pb_sdk, sdk_more_parameter_errors)
{
    expect_error(&wl_bitonic, "[workload]\nn = 1000\n", "n");
    expect_error(&wl_bitonic, "[workload]\nn = 64\nblock = 64\n", "n");
    expect_error(&wl_bitonic, "[workload]\nblock = 48\n", "block");
    expect_error(&wl_histogram, "[workload]\nbytes = 6145\n", "bytes");
    expect_error(&wl_histogram, "[workload]\nmerge_threads = 48\n", "merge_threads");
    expect_error(&wl_fwt, "[workload]\nlog2 = 3\n", "log2");
}
