/*
 * spmv_jds.c -- Parboil SpMV: y = A x with A in JDS format (rows sorted by
 * decreasing length, stored as jagged diagonals: diagonal k holds the k-th
 * non-zero of every row that has one, padded to whole warps), one thread
 * per sorted row (spec ladm.md 10 "SpMV-jds": ITL, 32 threads per
 * work-group, 4585 work-groups, 30 MB).
 *
 * Modelled (kernel descriptions, kd.h): each thread reads its block's
 * diagonal count sh_zcnt[bx]; per diagonal k, jds_ptr[k], then
 * d_index[jds_ptr[k] + ix] and d_data[jds_ptr[k] + ix] (coalesced) and the
 * gather x_vec[d_index[...]]; then d_perm[ix] and the scattered store
 * dst[d_perm[ix]]. The host builds the JDS arrays and binds the diagonal
 * starts, the block counts, the columns (as a dense diagonal x row table)
 * and the permutation as arrays. Input: Parboil's large input is
 * Dubcova3 (146,689 rows, 3,636,643 non-zeros), which ../shared/data does
 * not have: a banded random matrix of that size is the substitute; a
 * Matrix Market file through `input`. ALU counts from nvcc 13 -arch=sm_90
 * PTX of a CUDA version (docs/workloads/spmv-jds.md).
 * Abstracted: no data values; jds_ptr and sh_zcnt live in constant memory
 * in Parboil and are global loads here.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"
#include "workload/shoc/sparse.h"

#define JDS_WARP 32
#define JDS_MAX_TABLE (1ull << 28) /* entries of the diagonal x row column table */

static const struct cfg_key jds_keys[] = {
    SPARSE_KEYS("146689", "3636643"),
    {"band", CFG_INT, "1024", 1, 2147483647.0,
     "columns of the generated matrix lie within this distance of the diagonal", NULL},
    {"iterations", CFG_INT, "1", 1, 1000000, "kernel launches", NULL},
    CFG_END,
};

/* PTX: the entry (parameters, ix, its test, &sh_zcnt[bx]: 16), after the
 * count's load the loop set-up (5); per diagonal after jds_ptr[k] the index
 * j and its addresses (4), after d_index[j] the address of d_data[j] (2),
 * after the data and x loads the fma and the loop test (5); then &d_perm[ix]
 * (2) and after its load &dst[perm] (2). */
static const char *const jds_params[] = {"n", "dimp", NULL};
static const char *const jds_bufs[] = {"dst_vector", "d_data", "d_index", "d_perm", "x_vec",
                                       "jds_ptr", "sh_zcnt", NULL};
static const char *const jds_arrays[] = {"zcnt", "ptr", "xc", "perm", NULL};
static const struct kd_desc jds_kd = {
    .name = "spmv_jds",
    .params = jds_params,
    .bufs = jds_bufs,
    .arrays = jds_arrays,
    .body = "alu 16\n"
            "if gid < n\n"
            "  load sh_zcnt[bx] 4 -> r1\n"
            "  alu 5 < r1\n"
            "  for m0 = 0 .. @zcnt[bx]\n"
            "    load jds_ptr[m0] 4 -> r2\n"
            "    alu 4 < r2\n"
            "    load d_index[@ptr[m0] + gid] 4 -> r3\n"
            "    alu 2\n"
            "    load d_data[@ptr[m0] + gid] 4 -> r4\n"
            "    load x_vec[@xc[m0*dimp + gid]] 4 -> r5 < r3\n"
            "    alu 5 < r4 r5\n"
            "  end\n"
            "  alu 2\n"
            "  load d_perm[gid] 4 -> r6\n"
            "  alu 2 < r6\n"
            "  store dst_vector[@perm[gid]] 4\n"
            "end\n",
};

struct jds {
    struct kdw w;
    uint32_t n, dimp, ndiag;
    uint32_t *perm, *zcnt, *ptr, *xc;
    uint64_t padded; /* entries of d_data and d_index */
    const struct kernel_buf *bufs[7];
    unsigned iterations;
};

static uint32_t row_len(const struct graph *a, uint32_t r)
{
    return a->row[r + 1] - a->row[r];
}

/* perm: the rows by decreasing length, in row order within a length (a
 * counting sort); zcnt: each warp's longest row, its first. */
static void jds_sort(struct jds *j, const struct graph *a)
{
    uint32_t maxlen = 0;
    for (uint32_t r = 0; r < a->n; r++)
        maxlen = row_len(a, r) > maxlen ? row_len(a, r) : maxlen;
    uint32_t *start = xcalloc((size_t)maxlen + 2, sizeof *start);
    for (uint32_t r = 0; r < a->n; r++)
        start[maxlen - row_len(a, r) + 1]++;
    for (uint32_t b = 1; b <= maxlen + 1; b++)
        start[b] += start[b - 1];
    j->perm = xmalloc(a->n * sizeof *j->perm);
    for (uint32_t r = 0; r < a->n; r++)
        j->perm[start[maxlen - row_len(a, r)]++] = r;
    free(start);
    j->zcnt = xcalloc(j->dimp / JDS_WARP, sizeof *j->zcnt);
    for (uint32_t b = 0; b < j->dimp / JDS_WARP; b++)
        j->zcnt[b] = b * JDS_WARP < a->n ? row_len(a, j->perm[b * JDS_WARP]) : 0;
    j->ndiag = maxlen;
}

/* ptr: each diagonal's start (diagonal k: 32 entries per warp with a row
 * longer than k); xc: diagonal k's columns, row by sorted row (0 in the
 * padding). */
static void jds_diagonals(struct jds *j, const struct graph *a)
{
    j->ptr = xmalloc(j->ndiag * sizeof *j->ptr);
    j->xc = xcalloc((size_t)j->ndiag * j->dimp, sizeof *j->xc);
    uint32_t warps = j->dimp / JDS_WARP;
    j->padded = 0;
    for (uint32_t k = 0; k < j->ndiag; k++) {
        j->ptr[k] = (uint32_t)j->padded;
        while (warps && j->zcnt[warps - 1] <= k)
            warps--;
        j->padded += (uint64_t)warps * JDS_WARP;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        uint32_t r = j->perm[i];
        for (uint32_t k = 0; k < row_len(a, r); k++)
            j->xc[(size_t)k * j->dimp + i] = a->col[a->row[r] + k];
    }
}

static int jds_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct jds *j = (struct jds *)w;
    struct graph a;
    if (sparse_load(&a, sec, cfg_uint(sec, "band"), w->env->seed, e))
        return -1;
    j->iterations = (unsigned)cfg_uint(sec, "iterations");
    j->n = a.n;
    j->dimp = (uint32_t)div_ceil(a.n, JDS_WARP) * JDS_WARP;
    jds_sort(j, &a);
    if ((uint64_t)j->ndiag * j->dimp > JDS_MAX_TABLE) {
        graph_free(&a);
        return cfg_err(e, sec, *cfg_str(sec, "input") ? "input" : "nnz",
                       "the longest row (%u) times the rows (%u) exceeds %llu", j->ndiag, j->n,
                       JDS_MAX_TABLE);
    }
    jds_diagonals(j, &a);
    graph_free(&a);
    const uint64_t size[] = {j->n * 4ull, j->padded * 4, j->padded * 4, j->n * 4ull,
                             j->n * 4ull, j->ndiag * 4ull, j->dimp / JDS_WARP * 4ull};
    for (unsigned i = 0; i < 7; i++)
        j->bufs[i] = wl_alloc(w->env, jds_bufs[i], size[i]);
    return 0;
}

static bool jds_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct jds *j = (const struct jds *)w;
    if (i == j->iterations)
        return false;
    l->grid = (struct kernel_dim){j->dimp / JDS_WARP, 1, 1};
    l->block = (struct kernel_dim){JDS_WARP, 1, 1};
    l->params[0] = j->n;
    l->params[1] = j->dimp;
    l->arrays[0] = (struct kd_array){j->zcnt, j->dimp / JDS_WARP};
    l->arrays[1] = (struct kd_array){j->ptr, j->ndiag};
    l->arrays[2] = (struct kd_array){j->xc, (uint64_t)j->ndiag * j->dimp};
    l->arrays[3] = (struct kd_array){j->perm, j->n};
    memcpy(l->bufs, j->bufs, sizeof j->bufs);
    return true;
}

static void jds_release(struct kdw *w)
{
    struct jds *j = (struct jds *)w;
    free(j->perm);
    free(j->zcnt);
    free(j->ptr);
    free(j->xc);
}

static const struct kd_desc *const jds_descs[] = {&jds_kd, NULL};
static const struct kdw_model jds_model = {.size = sizeof(struct jds), .descs = jds_descs,
                                           .setup = jds_setup, .plan = jds_plan,
                                           .release = jds_release};

static void *jds_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&jds_model, env, sec, e);
}

static const char *const jds_small[] = {"rows=256", "nnz=2048", "band=16", NULL};

const struct wl_ops wl_spmv_jds = {
    .name = "spmv-jds",
    .suite = "Parboil",
    .desc = "Parboil SpMV, JDS format: one thread per sorted row (substitute banded matrix)",
    .keys = jds_keys,
    .small = jds_small,
    .create = jds_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
