/*
 * Index expressions of kernel descriptions (src/workload/kd_expr.h): parsing
 * and expansion, binding to a launch as affine functions of the per-thread
 * variables, errors, and the classification of spec ladm.md 5 (Algorithm 1,
 * Table 3.2) on the GEMM example of 5 and on library kernels whose classes
 * are derived by hand below.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "sched/ladm.h"
#include "workload/kd_expr.h"

static const char *const params[] = {"n", "w", "h"};

static struct kd_poly parse(const char *text)
{
    struct kd_poly p;
    struct err e = {0};
    cr_assert_eq(kd_parse(text, params, 3, &p, &e), 0, "%s: %s", text, e.msg);
    return p;
}

/* The coefficient of the monomial with exactly the given variables (each to
 * the first power), 0 if absent. */
static int64_t coef(const struct kd_poly *p, const enum kd_var *vars, unsigned nv)
{
    for (unsigned i = 0; i < p->n; i++) {
        uint8_t want[KD_NVARS] = {0};
        for (unsigned k = 0; k < nv; k++)
            want[vars[k]]++;
        if (!memcmp(p->m[i].pow, want, KD_NVARS))
            return p->m[i].c;
    }
    return 0;
}

Test(kd_expr, products_are_expanded_and_like_terms_combined)
{
    struct kd_poly p = parse("(by*16 + ty) * (bdx*gdx) + tx + m0*16 - 2*(tx - 3)");
    cr_expect_eq(p.n, 5);
    cr_expect_eq(coef(&p, (enum kd_var[]){KD_BY, KD_BDX, KD_GDX}, 3), 16);
    cr_expect_eq(coef(&p, (enum kd_var[]){KD_TY, KD_BDX, KD_GDX}, 3), 1);
    cr_expect_eq(coef(&p, (enum kd_var[]){KD_TX}, 1), -1);
    cr_expect_eq(coef(&p, (enum kd_var[]){KD_M0}, 1), 16);
    cr_expect_eq(coef(&p, NULL, 0), 6);
    struct kd_poly z = parse("tx - tx + 0");
    cr_expect_eq(z.n, 0, "terms that cancel leave nothing");
}

Test(kd_expr, gid_and_parameters)
{
    struct kd_poly p = parse("gid * n + w");
    cr_expect_eq(coef(&p, (enum kd_var[]){KD_BX, KD_BDX, KD_P0}, 3), 1);
    cr_expect_eq(coef(&p, (enum kd_var[]){KD_TX, KD_P0}, 2), 1);
    cr_expect_eq(coef(&p, (enum kd_var[]){KD_P0 + 1}, 1), 1);
}

Test(kd_expr, bound_to_a_launch_it_is_affine_per_thread)
{
    struct kd_poly p = parse("(by*16 + ty) * n + bx*16 + tx + m0*16*n + 3");
    struct kd_launch l = {0};
    l.v[KD_P0] = 1000;
    struct kd_affine a;
    struct err e = {0};
    cr_assert_eq(kd_bind(&p, &l, &a, &e), 0, "%s", e.msg);
    cr_expect_eq(a.c, 3);
    cr_expect_eq(a.k[KD_BY], 16000);
    cr_expect_eq(a.k[KD_TY], 1000);
    cr_expect_eq(a.k[KD_BX], 16);
    cr_expect_eq(a.k[KD_TX], 1);
    cr_expect_eq(a.k[KD_M0], 16000);
    int64_t x[KD_NDYN] = {[KD_BX] = 2, [KD_BY] = 1, [KD_TX] = 5, [KD_TY] = 7, [KD_M0] = 3};
    cr_expect_eq(kd_eval(&a, x), 16000 + 7000 + 32 + 5 + 48000 + 3);
}

Test(kd_expr, errors_name_the_problem)
{
    struct kd_poly p;
    struct err e = {0};
    cr_expect_eq(kd_parse("tx + q", params, 3, &p, &e), -1);
    cr_expect_str_eq(e.msg, "index 'tx + q': unknown name 'q'");
    cr_expect_eq(kd_parse("(tx + 1", params, 3, &p, &e), -1);
    cr_expect(strstr(e.msg, "')' expected") != NULL, "%s", e.msg);
    cr_expect_eq(kd_parse("tx 3", params, 3, &p, &e), -1);
    cr_expect_str_eq(e.msg, "index 'tx 3': unexpected '3'");
    cr_expect_eq(kd_parse("99999999999999999999", params, 3, &p, &e), -1);
    cr_expect(strstr(e.msg, "overflows") != NULL, "%s", e.msg);
    struct kd_affine a;
    struct kd_launch l = {0};
    cr_expect_eq(kd_bind(&(struct kd_poly){0}, &l, &a, &e), 0);
    p = parse("bx * tx");
    cr_expect_eq(kd_bind(&p, &l, &a, &e), -1);
    cr_expect_str_eq(e.msg, "a term multiplies bx by tx: not affine per thread");
    p = parse("m0 * m0");
    cr_expect_eq(kd_bind(&p, &l, &a, &e), -1);
}

static enum sched_loc cls(const char *text, bool grid_2d, struct kd_class *c)
{
    struct kd_poly p = parse(text);
    kd_classify(&p, KD_M0, grid_2d, c);
    return c->loc;
}

/* Spec ladm.md 5, the tiled GEMM: A is shared by a row of work-groups moving
 * horizontally (row 2), B by a column moving vertically (row 5), C by no
 * one (row 1). */
Test(kd_expr, gemm_example_of_table_3_2)
{
    struct kd_class c;
    cr_expect_eq(cls("(by*16 + ty) * (bdx*gdx) + tx + m0*16", true, &c), SCHED_LOC_ROW_H);
    cr_expect_eq(c.stride.n, 1);
    cr_expect_eq(coef(&c.stride, NULL, 0), 16, "A moves one tile per iteration");
    cr_expect_eq(cls("m0*16*bdx*gdx + ty*(bdx*gdx) + bx*16 + tx", true, &c), SCHED_LOC_COL_V);
    cr_expect_eq(coef(&c.stride, (enum kd_var[]){KD_BDX, KD_GDX}, 2), 16,
                 "B moves 16 rows of the matrix per iteration");
    cr_expect_eq(cls("(by*16 + ty) * (bdx*gdx) + bx*16 + tx", true, &c), SCHED_LOC_NL);
    cr_expect_eq(c.stride.n, 0, "no loop term");
}

/* Library kernels, classes derived by hand from Algorithm 1:
 * - vectorAdd, c[gid]: depends on bx, 1D grid, no loop -> NL (row 1);
 * - a grid-stride loop, a[gid + m0*gdx*bdx]: NL with the stride of the whole grid;
 * - CSR spmv/bfs, col[m0] with m0 from row_ptr[i] to row_ptr[i+1]: the loop
 *   variable alone -> ITL (row 6);
 * - the gathered x[col[j]]: data-dependent -> unclassified (row 7);
 * - atax, A[gid*n + m0]: each thread walks its row -> ITL;
 * - bicg, A[m0*n + gid]: depends on bx, strides a row per iteration -> NL, stride n;
 * - transpose, out[(bx*16 + ty)*h + by*16 + tx]: 2D grid, both bx and by, no loop -> NL;
 * - a 2D row sweep, a[(by*16 + ty)*w + m0*16 + tx]: by only, no gdx -> row 2;
 * - a 2D column sweep, a[(m0*16 + ty)*(bdx*gdx) + bx*16 + tx]: bx only, gdx in
 *   the motion -> row 5;
 * - every work-group reading the same table, t[tx + m0*256] on a 1D grid:
 *   no bx -> unclassified. */
Test(kd_expr, library_kernels_classified_by_hand)
{
    struct kd_class c;
    cr_expect_eq(cls("gid", false, &c), SCHED_LOC_NL);
    cr_expect_eq(cls("wg0 + tx", false, &c), SCHED_LOC_NL, "a work-group's irregular chunk");
    cr_expect_eq(cls("gid + m0*gdx*bdx", false, &c), SCHED_LOC_NL);
    cr_expect_eq(coef(&c.stride, (enum kd_var[]){KD_GDX, KD_BDX}, 2), 1);
    cr_expect_eq(cls("m0", false, &c), SCHED_LOC_ITL);
    cr_expect_eq(cls("ind", false, &c), SCHED_LOC_UNCL);
    cr_expect_eq(cls("gid*n + m0", false, &c), SCHED_LOC_ITL);
    cr_expect_eq(cls("m0*n + gid", false, &c), SCHED_LOC_NL);
    cr_expect_eq(coef(&c.stride, (enum kd_var[]){KD_P0}, 1), 1);
    cr_expect_eq(cls("(bx*16 + ty)*h + by*16 + tx", true, &c), SCHED_LOC_NL);
    cr_expect_eq(cls("(by*16 + ty)*w + m0*16 + tx", true, &c), SCHED_LOC_ROW_H);
    cr_expect_eq(cls("(m0*16 + ty)*(bdx*gdx) + bx*16 + tx", true, &c), SCHED_LOC_COL_V);
    cr_expect_eq(cls("tx + m0*256", false, &c), SCHED_LOC_UNCL);
    cr_expect_str_eq(ladm_loc_name(SCHED_LOC_COL_V), "column-vertical");
}
