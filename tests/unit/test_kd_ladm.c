/*
 * test_kd_ladm.c -- spec ladm.md 5 on kernel descriptions (kd_buf_class):
 * every global access of a buffer classified by Algorithm 1 with its
 * outermost loop's variable, the accesses inside the most loops deciding.
 * The expected classes are derived by hand from Table 3.2.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "cli_util.h"
#include "test_util.h"
#include "workload/kd.h"

static const char *const params[] = {"w", "h", "t", NULL};
static const char *const bufs[] = {"A", "B", "C", NULL};
static const char *const arrays[] = {"row", "col", NULL};

static struct kd_prog *compile(const char *body)
{
    return tkd_compile(params, bufs, arrays, body);
}

static enum sched_loc cls(const struct kd_prog *p, unsigned buf, bool grid_2d,
                            unsigned accesses, struct kd_class *c)
{
    cr_expect_eq(kd_buf_class(p, buf, grid_2d, c), accesses, "buffer %u's accesses", buf);
    return c->loc;
}

/* Line of out holding all of the strings a, b, c. */
static bool has_line(const char *out, const char *a, const char *b, const char *c)
{
    for (const char *l = out, *end; l && *l; l = end ? end + 1 : NULL) {
        end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l) : strlen(l);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)n, l);
        if (strstr(line, a) && strstr(line, b) && strstr(line, c))
            return true;
    }
    return false;
}

/* The tiled GEMM of spec ladm.md 5 (WIDTH = bdx * gdx, TILE 16, t tiles):
 * A is shared by a row of work-groups moving horizontally (row 2), B by a
 * column moving vertically (row 5), C by no one (row 1). */
Test(kd_ladm, tiled_gemm)
{
    struct kd_prog *p = compile("for m0 = 0 .. t\n"
                                "  load A[(by*16 + ty)*(bdx*gdx) + tx + m0*16] 4 -> r1\n"
                                "  load B[m0*16*bdx*gdx + ty*(bdx*gdx) + bx*16 + tx] 4 -> r2\n"
                                "  lds_store lds[ty*16 + tx] 4 < r1\n"
                                "  barrier\n"
                                "end\n"
                                "store C[(by*16 + ty)*(bdx*gdx) + bx*16 + tx] 4\n");
    struct kd_class c;
    cr_expect_eq(cls(p, 0, true, 1, &c), SCHED_LOC_ROW_H);
    cr_expect(c.stride.n == 1 && c.stride.m[0].c == 16, "A moves a tile per iteration");
    cr_expect_eq(cls(p, 1, true, 1, &c), SCHED_LOC_COL_V);
    cr_expect_eq(cls(p, 2, true, 1, &c), SCHED_LOC_NL);
    cr_expect_eq(c.stride.n, 0, "C: no loop");
    /* on a 1D grid the row and column classes do not exist */
    cr_expect_eq(cls(p, 0, false, 1, &c), SCHED_LOC_UNCL);
    kd_prog_free(p);
}

/* A 2D five-point stencil clamped at the edges (hotspot's form): every
 * access depends on both bx and by and has no loop: no datablock locality
 * (row 1), the clamps taken as their unclamped arguments. */
Test(kd_ladm, clamped_stencil)
{
    struct kd_prog *p = compile("load A[(by*16 + ty)*w + bx*16 + tx] 4 -> r1\n"
                                "load A[(by*16 + ty)*w + max(bx*16 + tx - 1, 0)] 4 -> r2\n"
                                "load A[(by*16 + ty)*w + min(bx*16 + tx + 1, w - 1)] 4 -> r3\n"
                                "load A[max(by*16 + ty - 1, 0)*w + bx*16 + tx] 4 -> r4\n"
                                "store B[(by*16 + ty)*w + bx*16 + tx] 4 < r1 r2 r3 r4\n");
    struct kd_class c;
    cr_expect_eq(cls(p, 0, true, 4, &c), SCHED_LOC_NL);
    cr_expect_eq(cls(p, 1, true, 1, &c), SCHED_LOC_NL);
    kd_prog_free(p);
}

/* The tiled transpose (the SDK's, rows of a tile in a loop of t steps of 4
 * rows): both the read and the write depend on bx and by, the loop moves
 * 4 rows: no datablock locality, stride 4 rows. */
Test(kd_ladm, tiled_transpose)
{
    struct kd_prog *p = compile("for m0 = 0 .. t\n"
                                "  load A[(by*16 + ty + m0*4)*w + bx*16 + tx] 4 -> r1\n"
                                "  lds_store lds[(ty + m0*4)*17 + tx] 4 < r1\n"
                                "end\n"
                                "barrier\n"
                                "for m0 = 0 .. t\n"
                                "  lds_load lds[tx*17 + ty + m0*4] 4 -> r2\n"
                                "  store B[(bx*16 + ty + m0*4)*h + by*16 + tx] 4 < r2\n"
                                "end\n");
    struct kd_class c;
    cr_expect_eq(cls(p, 0, true, 1, &c), SCHED_LOC_NL);
    cr_expect(c.stride.n == 1 && c.stride.m[0].c == 4 && c.stride.m[0].pow[KD_P0] == 1,
              "A: 4 rows of w per iteration");
    cr_expect_eq(cls(p, 1, true, 1, &c), SCHED_LOC_NL);
    kd_prog_free(p);
}

/* CSR traversal (bfs, spmv): the row bounds read by thread (no datablock
 * locality), the columns walked by each thread over its own range
 * (intra-thread, row 6), the gathered vector data-dependent (unclassified,
 * row 7). */
Test(kd_ladm, indirect_csr_traversal)
{
    struct kd_prog *p = compile("load A[gid] 4 -> r1\n"
                                "for m0 = @row[gid] .. @row[gid + 1]\n"
                                "  load B[m0] 4 -> r2\n"
                                "  load C[@col[m0]] 4 -> r3\n"
                                "end\n");
    struct kd_class c;
    cr_expect_eq(cls(p, 0, false, 1, &c), SCHED_LOC_NL);
    cr_expect_eq(cls(p, 1, false, 1, &c), SCHED_LOC_ITL);
    cr_expect_eq(cls(p, 2, false, 1, &c), SCHED_LOC_UNCL);
    kd_prog_free(p);
}

/* A table read at the loop's own variable plus the thread's place (JDS:
 * d_data[jds_ptr[k] + ix]): each thread walks its element of a data-dependent
 * datablock per iteration, intra-thread (row 6; Table 3.4's SpMV-jds). The
 * value alone (a gather, x[col[m]]), the value scaled, or a table read at an
 * index that is not m alone stay data-dependent (row 7). */
Test(kd_ladm, data_dependent_datablock_walk)
{
    struct kd_prog *p = compile("for m0 = 0 .. t\n"
                                "  load A[@row[m0] + gid] 4 -> r1\n"
                                "  load B[@row[m0]] 4 -> r2\n"
                                "  load B[2*@row[m0] + gid] 4 -> r3\n"
                                "  load C[@row[m0*w + gid] + gid] 4 -> r4\n"
                                "end\n");
    struct kd_class c;
    cr_expect_eq(cls(p, 0, false, 1, &c), SCHED_LOC_ITL);
    cr_expect_eq(cls(p, 0, true, 1, &c), SCHED_LOC_ITL, "on a 2D grid too");
    cr_expect_eq(cls(p, 1, false, 2, &c), SCHED_LOC_UNCL);
    cr_expect_eq(cls(p, 2, false, 1, &c), SCHED_LOC_UNCL);
    kd_prog_free(p);
    /* the value read before the loop: no walk */
    p = compile("load A[@row[gid] + tx] 4 -> r1\n");
    cr_expect_eq(cls(p, 0, false, 1, &c), SCHED_LOC_UNCL);
    kd_prog_free(p);
}

/* Accesses inside more loops dominate; at the same depth they must agree;
 * a buffer never named is unclassified with no access. */
Test(kd_ladm, the_deepest_accesses_decide)
{
    struct kd_prog *p = compile("load A[gid] 4 -> r1\n"
                                "for m0 = 0 .. t\n"
                                "  load A[gid*w + m0] 4 -> r2\n"
                                "  load B[gid*w + m0] 4 -> r3\n"
                                "  load B[@col[gid*w + m0]] 4 -> r4\n"
                                "end\n");
    struct kd_class c;
    cr_expect_eq(cls(p, 0, false, 2, &c), SCHED_LOC_ITL, "the loop's walk, not the read before it");
    cr_expect_eq(cls(p, 1, false, 2, &c), SCHED_LOC_UNCL, "a walk and a gather disagree");
    cr_expect_eq(cls(p, 2, false, 0, &c), SCHED_LOC_UNCL);
    kd_prog_free(p);
}

/* `chipsim classify --ladm`: a row per kernel argument with its Table 3.2
 * row and class (sssp's CSR kernel: the walked columns and values
 * intra-thread, the gathered vector unclassified), and per kernel the
 * actions its largest argument's class calls for; no workload selected is
 * bad input, with nothing printed. */
Test(kd_ladm, classify_ladm_prints_every_argument)
{
    const char *argv[] = {"classify", "--ladm", "--small", "-w", "vecadd,sssp", NULL};
    struct cli_result r = cli_exec(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    static const char *const rows[][3] = {
        {"vecadd", " c ", "1 no-locality"},
        {"spmv_min_dot_plus_kernel", " row ", "1 no-locality"},
        {"spmv_min_dot_plus_kernel", " col ", "6 intra-thread"},
        {"spmv_min_dot_plus_kernel", " data ", "6 intra-thread"},
        {"spmv_min_dot_plus_kernel", " x ", "7 unclassified"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        cr_expect(has_line(r.out, rows[i][0], rows[i][1], rows[i][2]), "no line with %s%s%s:\n%s",
                  rows[i][0], rows[i][1], rows[i][2], r.out);
    cli_result_free(&r);
    /* dl-fc's GEMM at its default size: A shared by rows of work-groups, B
     * (the weights, the largest) by columns: column binding (Table 3.4's
     * FC layers), row-based placement (horizontal motion) */
    const char *fc[] = {"classify", "--ladm", "-w", "dl-fc", NULL};
    r = cli_exec(fc);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, " A                    2 row-horizontal") &&
              strstr(r.out, " B                    3 column-horizontal"), "%s", r.out);
    cr_expect(strstr(r.out, "=> scheduling column-binding, placement row-based, L2 insertion "
                            "RTWICE (largest argument B, "), "%s", r.out);
    cli_result_free(&r);
    const char *none[] = {"classify", "--ladm", "-w", "nosuch", NULL};
    r = cli_exec(none);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.out, "");
    cr_expect(strstr(r.err, "no workload matches 'nosuch'"), "%s", r.err);
    cli_result_free(&r);
}

/* Table 3.4's ITL rows on our models' decisive kernels: pagerank's walk of
 * its row's arcs (col[jj], jj stepping 64 as Hetero-Mark's kernel does) and
 * spmv-jds's diagonals (d_data[jds_ptr[k] + ix]): intra-thread, so kernel-wide
 * scheduling and placement with RONCE (CRB, spec ladm.md 8). */
Test(kd_ladm, classify_ladm_table_3_4_itl)
{
    const char *argv[] = {"classify", "--ladm", "-w", "pagerank,spmv-jds", "-p",
                          "workload.rows=4096", "-p", "workload.nnz=65536", NULL};
    struct cli_result r = cli_exec(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    static const char *const rows[][3] = {
        {"pageRank_kernel", " col ", "6 intra-thread"},
        {"pageRank_kernel", " val ", "6 intra-thread"},
        {"spmv_jds", " d_data ", "6 intra-thread"},
        {"spmv_jds", " d_index ", "6 intra-thread"},
        {"spmv_jds", " x_vec ", "7 unclassified"},
        {"=> scheduling kernel-wide, placement kernel-wide, L2 insertion RONCE",
         "largest argument col,", ""},
        {"=> scheduling kernel-wide, placement kernel-wide, L2 insertion RONCE",
         "largest argument d_data,", ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        cr_expect(has_line(r.out, rows[i][0], rows[i][1], rows[i][2]), "no line with %s%s%s:\n%s",
                  rows[i][0], rows[i][1], rows[i][2], r.out);
    cli_result_free(&r);
}
