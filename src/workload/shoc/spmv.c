/*
 * spmv.c -- SHOC Spmv, the CSR scalar kernel: y = A x with one thread per
 * row (spec dualopt.md 9 "spmv", remote-core.md 14 "S-SpMV"). SHOC makes a
 * random n x n matrix with 1% non-zeros; its largest standard size is 16384
 * rows (2,684,354 non-zeros), the default here. A Matrix Market file (for
 * instance ../shared/data/suitesparse-mtx) can be read through `input`.
 *
 * Modelled (kernel descriptions, kd.h): each thread reads its row's bounds
 * (rowDelimiters[row], [row + 1]), then per non-zero the column index, the
 * value and the gathered vec[cols[j]] (an index read from the CSR arrays
 * the host keeps), and stores out[row]. The kernel is launched `iterations`
 * times on the same data. ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA
 * version, the row loop kept rolled (docs/workloads/spmv.md).
 * Abstracted: no data values (a file's values are not read); the CSR vector
 * and ELLPACK-R kernels SHOC also times.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"
#include "workload/shoc/sparse.h"

static const struct cfg_key spmv_keys[] = {
    SPARSE_KEYS("16384", "2684354"),
    {"block", CFG_INT, "128", 1, 1024, "threads per work-group (SHOC: 128)", NULL},
    {"iterations", CFG_INT, "10", 1, 1000000, "kernel launches", NULL},
    CFG_END,
};

/* PTX: the entry (parameters, the row, its test, the bounds' addresses: 15),
 * the two bound loads, the zero sum and the loop test (7); per non-zero the
 * column load, the addresses of val[j] and vec[col] (2), the two loads, the
 * fma and the loop step (6); the address of out[row] (2). */
static const char *const spmv_params[] = {"n", NULL};
static const char *const spmv_bufs[] = {"val", "cols", "rowDelimiters", "vec", "out", NULL};
static const char *const spmv_arrays[] = {"row", "col", NULL};
static const struct kd_desc spmv_kd = {
    .name = "spmv_csr_scalar",
    .params = spmv_params,
    .bufs = spmv_bufs,
    .arrays = spmv_arrays,
    .body = "alu 15\n"
            "if gid < n\n"
            "  load rowDelimiters[gid] 4 -> r1\n"
            "  load rowDelimiters[gid + 1] 4 -> r2\n"
            "  alu 7 < r1 r2\n"
            "  for m0 = @row[gid] .. @row[gid + 1]\n"
            "    load cols[m0] 4 -> r3\n"
            "    alu 2\n"
            "    load val[m0] 4 -> r4\n"
            "    load vec[@col[m0]] 4 -> r5 < r3\n"
            "    alu 6 < r4 r5\n"
            "  end\n"
            "  alu 2\n"
            "  store out[gid] 4\n"
            "end\n",
};

struct spmv {
    struct kdw w;
    struct graph a;
    const struct kernel_buf *bufs[5];
    uint32_t block;
    unsigned iterations;
};

static int spmv_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct spmv *s = (struct spmv *)w;
    if (sparse_load(&s->a, sec, 0, w->env->seed, e))
        return -1;
    s->block = (uint32_t)cfg_uint(sec, "block");
    s->iterations = (unsigned)cfg_uint(sec, "iterations");
    uint64_t n = s->a.n, m = s->a.m;
    static const char *const names[] = {"val", "cols", "rowDelimiters", "vec", "out"};
    const uint64_t size[] = {m * 4, m * 4, (n + 1) * 4, n * 4, n * 4};
    for (unsigned i = 0; i < 5; i++)
        s->bufs[i] = wl_alloc(w->env, names[i], size[i]);
    return 0;
}

static bool spmv_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct spmv *s = (const struct spmv *)w;
    if (i == s->iterations)
        return false;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(s->a.n, s->block), 1, 1};
    l->block = (struct kernel_dim){s->block, 1, 1};
    l->params[0] = s->a.n;
    l->arrays[0] = (struct kd_array){s->a.row, (uint64_t)s->a.n + 1};
    l->arrays[1] = (struct kd_array){s->a.col, s->a.m};
    memcpy(l->bufs, s->bufs, sizeof s->bufs);
    return true;
}

static void spmv_release(struct kdw *w)
{
    graph_free(&((struct spmv *)w)->a);
}

static const struct kd_desc *const spmv_descs[] = {&spmv_kd, NULL};
static const struct kdw_model spmv_model = {.size = sizeof(struct spmv), .descs = spmv_descs,
                                            .setup = spmv_setup, .plan = spmv_plan,
                                            .release = spmv_release};

static void *spmv_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&spmv_model, env, sec, e);
}

static const char *const spmv_small[] = {"rows=512", "nnz=2048", "iterations=2", NULL};

const struct wl_ops wl_spmv = {
    .name = "spmv",
    .suite = "SHOC",
    .desc = "SHOC Spmv, CSR scalar kernel: one thread per row of a random 1% matrix",
    .keys = spmv_keys,
    .small = spmv_small,
    .create = spmv_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
