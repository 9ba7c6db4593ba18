/*
 * atax.c -- PolyBench/GPU atax: y = A^T (A x) for A of nx x ny floats, in two
 * kernels of 256-thread work-groups: atax_kernel1, one thread per row i,
 * tmp[i] += A[i][j] * x[j] over j; atax_kernel2, one thread per column j,
 * y[j] += A[i][j] * tmp[i] over i (consecutive lanes a row apart in each
 * step: the column-wise traversal of spec dualopt.md 9.3). Each thread
 * loads and stores its output at every step, as the compiled code does.
 * Default nx = ny = 4096 (spec dualopt.md 9.2 and PolyBench/GPU's
 * default). ALU counts from nvcc 13 -arch=sm_90 PTX (docs/workloads/atax.md).
 * Abstracted: no data values; the host's initialisation (tmp zeroed).
 */
#include "workload/polybench/pb.h"

static const struct cfg_key atax_keys[] = {
    {"nx", CFG_INT, "4096", 1, 65536, "rows of A (NX)", NULL},
    {"ny", CFG_INT, "4096", 1, 65536, "columns of A (NY)", NULL},
    CFG_END,
};

/* kernel1 (row): entry 21, tmp[i], 5; after the loop the remainder's test
 * (2), a reload of tmp[i] and 5 more where there is a remainder.
 * kernel2 (column): entry 22, y[j], 5; then 2, the reload and 6. */
static const struct kd_desc atax_kd[2] = {
    {.name = "atax_kernel1", .params = pb_mv_params, .bufs = pb_mv_bufs,
     .body = "alu 21\n"
             "if gid < nx\n"
             "  load o[gid] 4 -> r1\n"
             "  alu 5\n" PB_ROW_MAIN
             "  alu 2\n"
             "  if 4*q < ny\n"
             "    load o[gid] 4 -> r1\n"
             "    alu 5\n" PB_MV_REM(PB_ROW_LD, "ny")
             "  end\n"
             "end\n"},
    {.name = "atax_kernel2", .params = pb_mv_params, .bufs = pb_mv_bufs,
     .body = "alu 22\n"
             "if gid < ny\n"
             "  load o[gid] 4 -> r1\n"
             "  alu 5\n" PB_COL_MAIN
             "  alu 2\n"
             "  if 4*q < nx\n"
             "    load o[gid] 4 -> r1\n"
             "    alu 6\n" PB_MV_REM(PB_COL_LD, "nx")
             "  end\n"
             "end\n"},
};

/* Vectors x (ny), tmp (nx), y (ny): tmp = A x, then y = A^T tmp. */
static const char *const atax_vecs[] = {"x", "tmp", "y", NULL};
static const struct pb_mv_def atax_def = {
    .vecs = atax_vecs, .nx_long = {0, 1, 0}, .v = {0, 1}, .o = {1, 2}};

static const struct kd_desc *const atax_descs[] = {&atax_kd[0], &atax_kd[1], NULL};
static const struct pb_mv_model atax_model = {
    .m = {.size = sizeof(struct pb_mv), .descs = atax_descs, .setup = pb_mv_setup,
          .plan = pb_mv_plan},
    .def = &atax_def};

static void *atax_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&atax_model.m, env, sec, e);
}

static const char *const atax_small[] = {"nx=64", "ny=64", NULL};

const struct wl_ops wl_atax = {
    .name = "atax",
    .suite = "Polybench",
    .desc = "PolyBench/GPU atax: tmp = A.x by rows, then y = A^T.tmp by columns",
    .keys = atax_keys,
    .small = atax_small,
    .create = atax_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
