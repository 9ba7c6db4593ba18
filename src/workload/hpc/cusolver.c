/*
 * cusolver.c -- substitute for HMG's "cuSolver" (spec hmg.md 8: 1.60 GB, one
 * of the workloads with explicit .gpu-scoped synchronization): a blocked,
 * right-looking LU factorization with partial pivoting (getrf) of an n x n
 * single-precision matrix, row-major, nb columns per step. cuSOLVER's own
 * kernels are not public; the algorithm is LAPACK's sgetrf, its panel done
 * by one kernel whose work-groups synchronize through device-scope
 * release/acquire flags, as GPU panel factorizations without a host round
 * trip do (docs/workloads/cusolver.md).
 *
 * Per step (panel columns c .. c + nb): getrf_panel (one thread per row
 * below the diagonal; per column, each work-group publishes its partial
 * pivot with st.release.gpu, work-group 0 gathers them all with
 * ld.acquire.gpu, swaps the pivot row in, records ipiv and releases a flag
 * that every work-group acquires before the rank-1 update), getrf_trsm (the
 * row swaps and the unit-lower solve on the columns right of the panel, a
 * thread per column, U12 also copied to a workspace) and the trailing
 * update A22 += L21 U12 on mlk.h's tiled GEMM (NN, beta). The pivot rows
 * come from the host (random from sim.seed): no values. ALU counts from
 * nvcc 13 -arch=sm_90 PTX. Abstracted: the row swaps of the columns left of
 * the panel (they permute L only); the spin loop's compare is not issued.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/deepbench/mlk.h"

static const struct cfg_key cus_keys[] = {
    {"n", CFG_INT, "20000", 16, 65536, "order of the matrix (a multiple of nb)", NULL},
    {"nb", CFG_INT, "32", 8, 32, "panel width (8, 16, 24 or 32)", NULL},
    {"panel_block", CFG_INT, "256", 16, 1024,
     "threads per work-group of getrf_panel, one matrix row each (a multiple of 16)", NULL},
    {"block", CFG_INT, "256", 32, 1024, "threads per work-group of getrf_trsm", NULL},
    {"spins", CFG_INT, "1000000", 0, 1000000000,
     "re-issues of a flag or partial-pivot load before the warp goes on without it", NULL},
    KDW_SYNC_SCOPE_KEY("the panel's releases, acquires and fences", "the panel's work-groups"),
    CFG_END,
};

#define CUS_FLAG_WORDS 64 /* one flag per 256 B */

/* One thread per row c + gid of the panel (r rows), nb columns m0. Per
 * column: the thread's element and |v| packed with its row (5), the warp's
 * shuffle reduction (1 + 5 x 11), lane 0 of each 32 into LDS, thread 0 the
 * work-group's maximum over the nw slots into part[m0][bx] (release);
 * work-group 0 gathers the gdx partials (acquire, spinning until each is
 * written), reduces, records ipiv, swaps rows c + m0 and piv (nb lanes),
 * fences and releases flag m0; thread 0 of every work-group acquires the
 * flag; rows below the diagonal divide by the pivot, store L (also into
 * W, one row of n per column: K-major for the update) and update the rest
 * of their panel row from the pivot row. */
static const struct kd_desc cus_panel_kd = {
    .name = "getrf_panel",
    .params = (const char *const[]){"n", "c", "nb", "r", "P", "nw", "spins", "sys", NULL},
    .bufs = (const char *const[]){"A", "W", "part", "flag", "ipiv", NULL},
    .arrays = (const char *const[]){"piv", NULL},
    .range_reads = true,
    .body = "alu 34\n"
            "for m0 = 0 .. nb\n"
            "  alu 10\n"
            "  if m0 < gid + 1 and gid < r\n"
            "    load A[(c + gid)*n + c + m0] 4 -> r1\n"
            "    alu 5 < r1\n"
            "  end\n"
            "  alu 69 < r1\n"
            "  if tx % 32 < 1\n"
            "    lds_store lds[tx / 32] 8 < r1\n"
            "  end\n"
            "  alu 1\n"
            "  barrier\n"
            "  alu 1\n"
            "  if tx < 1\n"
            "    alu 5\n"
            "    for m1 = 0 .. nw\n"
            "      alu 3\n"
            "      lds_load lds[m1] 8 -> r2\n"
            "      alu 4 < r2\n"
            "    end\n"
            "    alu 3\n"
            KDW_SCOPED("    ", "store part[m0*P + bx] 8 < r2", "release")
            "  end\n"
            "  alu 3\n"
            "  if bx < 1\n"
            "    alu 3 + 3 [tx < gdx]\n"
            "    if tx < gdx\n"
            KDW_SCOPED("      ", "load part[m0*P + tx] 8 -> r3", "acquire spin spins")
            "    end\n"
            "    alu 68 < r3\n"
            "    if tx < 1\n"
            "      alu 3\n"
            "      store ipiv[c + m0] 4 < r3\n"
            "    end\n"
            "    alu 2 + 6 [tx < nb]\n"
            "    if tx < nb\n"
            "      load A[(c + m0)*n + c + tx] 4 -> r4\n"
            "      alu 5\n"
            "      load A[@piv[m0]*n + c + tx] 4 -> r5\n"
            "      store A[(c + m0)*n + c + tx] 4 < r5\n"
            "      store A[@piv[m0]*n + c + tx] 4 < r4\n"
            "    end\n"
            KDW_SCOPED("    ", "fence", "acq_rel")
            "    alu 2\n"
            "    if tx < 1\n"
            "      alu 4\n"
            KDW_SCOPED("      ", "store flag[m0*64] 4 < r3", "release")
            "      alu 1\n"
            "    end\n"
            "  end\n"
            "  alu 1 + 3 [tx < 1]\n"
            "  if tx < 1\n"
            KDW_SCOPED("    ", "load flag[m0*64] 4 -> r6", "acquire spin spins")
            "    alu 3 < r6\n"
            "  end\n"
            "  barrier\n"
            "  alu 3\n"
            "  if m0 < gid and gid < r\n"
            "    alu 7\n"
            "    load A[(c + gid)*n + c + m0] 4 -> r7\n"
            "    load A[(c + m0)*n + c + m0] 4 -> r8\n"
            "    alu 1 < r7 r8\n"
            "    store A[(c + gid)*n + c + m0] 4 < r7\n"
            "    alu 3\n"
            "    store W[m0*n + gid] 4 < r7\n"
            "    alu 3\n"
            "    for m1 = m0 + 1 .. nb\n"
            "      alu 8\n"
            "      load A[(c + m0)*n + c + m1] 4 -> r9\n"
            "      alu 1\n"
            "      load A[(c + gid)*n + c + m1] 4 -> r10\n"
            "      alu 1 < r9 r10\n"
            "      store A[(c + gid)*n + c + m1] 4 < r10\n"
            "      alu 3\n"
            "    end\n"
            "  end\n"
            KDW_SCOPED("  ", "fence", "acq_rel")
            "  alu 3\n"
            "end\n",
};

/* One thread per column c + nb + gid right of the panel: the nb row swaps
 * (ipiv read, the rows from the host's pivots), then the unit-lower solve
 * with L11 (the same element in every lane) and the rows of U12 it has
 * written, each row stored into A and the workspace U. */
static const struct kd_desc cus_trsm_kd = {
    .name = "getrf_trsm",
    .params = (const char *const[]){"n", "c", "nb", "q", NULL},
    .bufs = (const char *const[]){"A", "U", "ipiv", NULL},
    .arrays = (const char *const[]){"piv", NULL},
    .range_reads = true,
    .body = "alu 13 + 7 [gid < q]\n"
            "if gid < q\n"
            "  for m0 = 0 .. nb\n"
            "    alu 9\n"
            "    load A[(c + m0)*n + c + nb + gid] 4 -> r1\n"
            "    load ipiv[c + m0] 4 -> r2\n"
            "    alu 4 < r2\n"
            "    load A[@piv[m0]*n + c + nb + gid] 4 -> r3\n"
            "    store A[(c + m0)*n + c + nb + gid] 4 < r3\n"
            "    store A[@piv[m0]*n + c + nb + gid] 4 < r1\n"
            "    alu 3\n"
            "  end\n"
            "  alu 5\n"
            "  for m0 = 0 .. nb\n"
            "    alu 7\n"
            "    load A[(c + m0)*n + c + nb + gid] 4 -> r4\n"
            "    alu 2 + 5 [0 < m0]\n"
            "    for m1 = 0 .. m0\n"
            "      alu 1\n"
            "      load A[(c + m0)*n + c + m1] 4 -> r5\n"
            "      load U[m1*n + c + nb + gid] 4 -> r6\n"
            "      alu 7 < r5 r6\n"
            "    end\n"
            "    store A[(c + m0)*n + c + nb + gid] 4 < r4\n"
            "    alu 5\n"
            "    store U[m0*n + c + nb + gid] 4 < r4\n"
            "    alu 3\n"
            "  end\n"
            "end\n",
};

enum { K_PANEL = MLK_NLAYOUTS, K_TRSM };

struct cus {
    struct kdw w;
    uint32_t n, nb, pb, block, spins, steps, pmax;
    bool sys; /* the panel's synchronization at system scope */
    uint32_t *piv; /* [n]: the pivot row of each column */
    const struct kernel_buf *a, *wk, *u, *part, *flag, *ipiv;
};

/* Every work-group of the largest panel must be resident at once: work-group
 * 0 waits for every partial pivot, every other for work-group 0's flag. */
static int cus_resident(const struct cus *s, const struct wl_env *env,
                        const struct cfg_sec *sec, struct err *e)
{
    if (s->pmax > s->pb)
        return cfg_err(e, sec, "n", "%u rows need %u panel work-groups, more than the %u "
                       "partial pivots work-group 0 gathers (panel_block)", s->n, s->pmax,
                       s->pb);
    unsigned nch = env->nchiplets ? env->nchiplets : 1, cus = env->ncus / nch;
    uint64_t warps = div_ceil(s->pb, env->warp_size ? env->warp_size : 32);
    uint64_t per_cu = env->warp_slots ? env->warp_slots / warps : 0;
    if (env->warp_slots && div_ceil(s->pmax, nch) > cus * per_cu)
        return cfg_err(e, sec, "n", "%u panel work-groups of %u threads must be resident at "
                       "once (%u per chiplet), but a chiplet holds %llu", s->pmax, s->pb,
                       (unsigned)div_ceil(s->pmax, nch), (unsigned long long)(cus * per_cu));
    return 0;
}

static int cus_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct cus *s = (struct cus *)w;
    s->n = (uint32_t)cfg_uint(sec, "n");
    s->nb = (uint32_t)cfg_uint(sec, "nb");
    s->pb = (uint32_t)cfg_uint(sec, "panel_block");
    s->block = (uint32_t)cfg_uint(sec, "block");
    s->spins = (uint32_t)cfg_uint(sec, "spins");
    s->sys = kdw_sync_sys(w, sec);
    if (s->nb % 8)
        return cfg_err(e, sec, "nb", "not a multiple of 8");
    if (s->n % s->nb)
        return cfg_err(e, sec, "n", "not a multiple of nb = %u", s->nb);
    if (s->pb % 16)
        return cfg_err(e, sec, "panel_block", "not a multiple of 16");
    s->steps = s->n / s->nb;
    s->pmax = (uint32_t)div_ceil(s->n, s->pb);
    if (cus_resident(s, w->env, sec, e))
        return -1;
    uint64_t n = s->n;
    s->a = wl_alloc(w->env, "A", n * n * 4);
    s->wk = wl_alloc(w->env, "W", n * s->nb * 4);
    s->u = wl_alloc(w->env, "U", n * s->nb * 4);
    s->part = wl_alloc(w->env, "part", (uint64_t)s->nb * s->pmax * 8);
    s->flag = wl_alloc(w->env, "flag", (uint64_t)s->nb * CUS_FLAG_WORDS * 4);
    s->ipiv = wl_alloc(w->env, "ipiv", n * 4);
    struct rng g;
    rng_seed(&g, w->env->seed);
    s->piv = xmalloc(n * sizeof *s->piv);
    for (uint32_t j = 0; j < s->n; j++)
        s->piv[j] = j + (uint32_t)rng_below(&g, s->n - j);
    return 0;
}

static void cus_panel(const struct cus *s, uint32_t c, struct kdw_launch *l)
{
    uint32_t r = s->n - c;
    *l = (struct kdw_launch){.prog = K_PANEL, .grid = {(uint32_t)div_ceil(r, s->pb), 1, 1},
                             .block = {s->pb, 1, 1}, .lds_b = 32 * 8,
                             .bufs = {s->a, s->wk, s->part, s->flag, s->ipiv},
                             .arrays = {{s->piv + c, s->nb}}};
    int64_t p[] = {s->n, c, s->nb, r, s->pmax, (s->pb + 31) / 32, s->spins, s->sys};
    memcpy(l->params, p, sizeof p);
}

static void cus_trsm(const struct cus *s, uint32_t c, struct kdw_launch *l)
{
    uint32_t q = s->n - c - s->nb;
    *l = (struct kdw_launch){.prog = K_TRSM, .grid = {(uint32_t)div_ceil(q, s->block), 1, 1},
                             .block = {s->block, 1, 1}, .bufs = {s->a, s->u, s->ipiv},
                             .arrays = {{s->piv + c, s->nb}}};
    int64_t p[] = {s->n, c, s->nb, q};
    memcpy(l->params, p, sizeof p);
}

/* A22 (rows and columns c + nb ..) += L21 U12: W (nb x n, from column nb)
 * and U (nb x n, from column c + nb), both K-major (TN). */
static void cus_update(const struct cus *s, uint32_t c, struct kdw_launch *l)
{
    uint32_t q = s->n - c - s->nb;
    struct mlk_gemm g = {.a = s->wk, .b = s->u, .c = s->a, .a_off = (uint64_t)s->nb * 4,
                         .b_off = (uint64_t)(c + s->nb) * 4,
                         .c_off = ((uint64_t)(c + s->nb) * s->n + c + s->nb) * 4,
                         .m = q, .n = q, .k = s->nb, .lda = s->n, .ldb = s->n, .ldc = s->n,
                         .splits = 1, .beta = true, .layout = MLK_L_TN};
    mlk_gemm_init(&g);
    mlk_gemm_plan(&g, 0, l);
}

static uint64_t cus_count(const struct kdw *w)
{
    const struct cus *s = (const struct cus *)w;
    return 3ull * s->steps - 2;
}

static bool cus_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct cus *s = (const struct cus *)w;
    if (i >= cus_count(w))
        return false;
    uint32_t c = (uint32_t)(i / 3) * s->nb;
    if (i % 3 == 0)
        cus_panel(s, c, l);
    else if (i % 3 == 1)
        cus_trsm(s, c, l);
    else
        cus_update(s, c, l);
    return true;
}

static void cus_release(struct kdw *w)
{
    free(((struct cus *)w)->piv);
}

static const struct kd_desc *const cus_descs[] = {MLK_GEMM_DESCS, &cus_panel_kd, &cus_trsm_kd,
                                                  NULL};
static const struct kdw_model cus_model = {.size = sizeof(struct cus), .descs = cus_descs,
                                           .setup = cus_setup, .plan = cus_plan,
                                           .count = cus_count, .release = cus_release};

static void *cus_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&cus_model, env, sec, e);
}

static const char *const cus_small[] = {"n=32", "nb=8", "panel_block=16", "block=32", NULL};

const struct wl_ops wl_cusolver = {
    .name = "cusolver",
    .suite = "HPC",
    .desc = "blocked LU with partial pivoting (getrf): panel synchronized by .gpu release/acquire "
            "flags, trsm, GEMM update (HMG cuSolver; substitute)",
    .keys = cus_keys,
    .small = cus_small,
    .create = cus_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
