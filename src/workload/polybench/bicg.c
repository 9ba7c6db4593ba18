/*
 * bicg.c -- PolyBench/GPU bicg, the BiCG sub-kernel: s = A^T r and q = A p
 * for A of nx x ny floats, in two kernels of 256-thread work-groups:
 * bicg_kernel1, one thread per column j, s[j] = 0, then s[j] += r[i] *
 * A[i][j] over i (consecutive lanes a row apart: the column-wise traversal
 * of spec dualopt.md 9.3); bicg_kernel2, one thread per row i, q[i] = 0,
 * then q[i] += A[i][j] * p[j] over j. Each thread stores its output at
 * every step, as the compiled code does. Default nx = ny = 4096 (spec
 * dualopt.md 9.2 and PolyBench/GPU's default). ALU counts from nvcc 13
 * -arch=sm_90 PTX (docs/workloads/bicg.md).
 * Abstracted: no data values; the host's initialisation.
 */
#include "workload/polybench/pb.h"

static const struct cfg_key bicg_keys[] = {
    {"nx", CFG_INT, "4096", 1, 65536, "rows of A (NX)", NULL},
    {"ny", CFG_INT, "4096", 1, 65536, "columns of A (NY)", NULL},
    CFG_END,
};

/* kernel1 (column): entry 15, the zero, 14; after the loop the remainder's
 * test (2) and its set-up (6). kernel2 (row): entry 14, the zero, 14; then
 * 2 and 5. */
static const struct kd_desc bicg_kd[2] = {
    {.name = "bicg_kernel1", .params = pb_mv_params, .bufs = pb_mv_bufs,
     .body = "alu 15\n"
             "if gid < ny\n"
             "  store o[gid] 4\n"
             "  alu 14\n" PB_COL_MAIN
             "  alu 2 + 6 [4*q < nx]\n" PB_MV_REM(PB_COL_LD, "nx")
             "end\n"},
    {.name = "bicg_kernel2", .params = pb_mv_params, .bufs = pb_mv_bufs,
     .body = "alu 14\n"
             "if gid < nx\n"
             "  store o[gid] 4\n"
             "  alu 14\n" PB_ROW_MAIN
             "  alu 2 + 5 [4*q < ny]\n" PB_MV_REM(PB_ROW_LD, "ny")
             "end\n"},
};

/* Vectors r (nx), s (ny), p (ny), q (nx): s = A^T r, then q = A p. */
static const char *const bicg_vecs[] = {"r", "s", "p", "q", NULL};
static const struct pb_mv_def bicg_def = {
    .vecs = bicg_vecs, .nx_long = {1, 0, 0, 1}, .v = {0, 2}, .o = {1, 3}};

static const struct kd_desc *const bicg_descs[] = {&bicg_kd[0], &bicg_kd[1], NULL};
static const struct pb_mv_model bicg_model = {
    .m = {.size = sizeof(struct pb_mv), .descs = bicg_descs, .setup = pb_mv_setup,
          .plan = pb_mv_plan},
    .def = &bicg_def};

static void *bicg_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&bicg_model.m, env, sec, e);
}

static const char *const bicg_small[] = {"nx=64", "ny=64", NULL};

const struct wl_ops wl_bicg = {
    .name = "bicg",
    .suite = "Polybench",
    .desc = "PolyBench/GPU bicg: s = A^T.r by columns and q = A.p by rows",
    .keys = bicg_keys,
    .small = bicg_small,
    .create = bicg_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
