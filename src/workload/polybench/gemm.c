/*
 * gemm.c -- PolyBench/GPU gemm: C = alpha A B + beta C (single precision),
 * one thread per element of C in 32 x 8 work-groups: the thread scales
 * C[i][j] by beta, then accumulates alpha A[i][k] B[k][j] over k, loading
 * and storing C[i][j] at every step as the compiled code does (the
 * pointers may alias). Every work-group row re-reads the same rows of A and
 * every work-group column the same columns of B (spec remote-core.md 14).
 * Default NI = NJ = NK = 512, PolyBench/GPU's (the GPGPU-Sim-compatible
 * version's default, spec remote-core.md 14). ALU counts from nvcc 13
 * -arch=sm_90 PTX (docs/workloads/gemm.md).
 * Abstracted: no data values; the host's initialisation and result check.
 */
#include <string.h>

#include "workload/polybench/pb.h"

static const struct cfg_key gemm_keys[] = {
    {"ni", CFG_INT, "512", 1, 65536, "rows of A and C (NI)", NULL},
    {"nj", CFG_INT, "512", 1, 65536, "columns of B and C (NJ)", NULL},
    {"nk", CFG_INT, "512", 1, 65536, "columns of A, rows of B (NK)", NULL},
    CFG_END,
};

/* gemm_kernel's PTX: the entry (parameters, i, j, both tests: 23), C[i][j]
 * *= beta (1 between the load and the store), the loop's preheader (15);
 * in the unrolled loop A[i][k] is loaded before B[k][j] (pb.h names them Y
 * and Z and C X). */
#define GEMM_STEP(A, K, B) A PB_LD_Y(K) B PB_LD_Z(K) PB_ST_X
static const char *const gemm_bufs[] = {"X", "Y", "Z", NULL};
static const struct kd_desc gemm_kd = {
    .name = "gemm_kernel",
    .params = (const char *const[]){"ni", "nj", "nk", "q", NULL},
    .bufs = gemm_bufs,
    .range_join = PB_JOIN,
    .body = "alu 23\n"
            "if " PB_I " < ni\n"
            " if " PB_J " < nj\n"
            "  load X[" PB_I "*nj + " PB_J "] 4 -> r1\n"
            "  alu 1 < r1\n"
            "  store X[" PB_I "*nj + " PB_J "] 4 < r1\n"
            "  alu 15\n"
            "  for m0 = 0 .. q\n" GEMM_STEP(PB_ALU(1), "4*m0", PB_ALU(1))
                GEMM_STEP("", "4*m0 + 1", PB_ALU(2)) GEMM_STEP("", "4*m0 + 2", PB_ALU(2))
                    GEMM_STEP("", "4*m0 + 3", PB_ALU(3)) PB_ALU(5)
            "  end\n"
            "  alu 2 + 7 [4*q < nk]\n"
            "  for m1 = 4*q .. nk\n" GEMM_STEP("", "m1", PB_ALU(1)) PB_ALU(5)
            "  end\n"
            " end\n"
            "end\n",
};

struct gemm {
    struct kdw w;
    uint64_t n[3]; /* ni, nj, nk */
    const struct kernel_buf *bufs[3]; /* C, A, B */
};

static int gemm_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct gemm *g = (struct gemm *)w;
    static const char *const keys[] = {"ni", "nj", "nk"};
    for (unsigned i = 0; i < 3; i++)
        g->n[i] = cfg_uint(sec, keys[i]);
    g->bufs[0] = wl_alloc(w->env, "C", g->n[0] * g->n[1] * 4);
    g->bufs[1] = wl_alloc(w->env, "A", g->n[0] * g->n[2] * 4);
    g->bufs[2] = wl_alloc(w->env, "B", g->n[2] * g->n[1] * 4);
    return 0;
}

static bool gemm_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct gemm *g = (const struct gemm *)w;
    if (i == 1)
        return false;
    pb_launch_2d(l, 0, g->n[0], g->n[1]);
    for (unsigned k = 0; k < 3; k++)
        l->params[k] = (int64_t)g->n[k];
    l->params[3] = (int64_t)(g->n[2] / 4);
    memcpy(l->bufs, g->bufs, sizeof g->bufs);
    return true;
}

static const struct kd_desc *const gemm_descs[] = {&gemm_kd, NULL};
static const struct kdw_model gemm_model = {
    .size = sizeof(struct gemm), .descs = gemm_descs, .setup = gemm_setup, .plan = gemm_plan};

static void *gemm_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&gemm_model, env, sec, e);
}

static const char *const gemm_small[] = {"ni=32", "nj=32", "nk=16", NULL};

const struct wl_ops wl_gemm = {
    .name = "gemm",
    .suite = "Polybench",
    .desc = "PolyBench/GPU gemm: C = alpha.A.B + beta.C, one thread per element of C",
    .keys = gemm_keys,
    .small = gemm_small,
    .create = gemm_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
