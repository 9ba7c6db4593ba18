/*
 * pagerank.c -- Hetero-Mark PageRank (spec dualopt.md 9 "pr"; the PageRank
 * of spec ladm.md 10, 18 MB): `iterations` sparse matrix-vector products
 * y = A x over the graph's CSR matrix, x and y swapped between launches.
 * Hetero-Mark's kernel gives each row a work-group of 64 threads: the lanes
 * stride over the row's non-zeros, accumulate val[j] * x[col[j]] in LDS, and
 * reduce the 64 partial sums in LDS (no barrier: a 64-wide wavefront);
 * lane 0 writes y[row].
 *
 * Modelled (kernel descriptions, kd.h): that kernel. The lanes walk the
 * row's non-zeros in 64-element chunks aligned to 64 (lane l takes the
 * elements at 64 k + l that lie in the row) where the real kernel starts
 * at the row's first element: the same elements and lines, lanes rotated;
 * the chunk bounds are host arrays. The loop's variable is the element (jj
 * in the kernel, stepping 64), so an index reads as the kernel's col[jj]
 * (spec ladm.md 5: intra-thread). Default input: ladm.md's (Pannotia's
 * coAuthorsDBLP, 299,067 vertices, 1,955,352 arcs, about 18 MB), which we
 * do not have: a substitute uniform random graph of that size; any graph
 * file through `input`. 10 iterations (ladm.md's 23,365 launched
 * work-groups of 128 threads over 2,337 per kernel). ALU counts from nvcc
 * 13 -arch=sm_90 PTX of a CUDA version (docs/workloads/pagerank.md).
 * Abstracted: no data values; the host's convergence check.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"
#include "workload/shoc/sparse.h"

static const struct cfg_key pr_keys[] = {
    SPARSE_KEYS("299067", "1955352"),
    {"iterations", CFG_INT, "10", 1, 1000000, "kernel launches (x and y swapped each time)", NULL},
    CFG_END,
};

/* PTX: the entry (parameters, ids, row and lane, the y[row] address: 21),
 * after the zero store the bound addresses (1), the two bound loads, the
 * zero for vals (3), after its LDS store the loop set-up (7); per chunk the
 * col load, two addresses (2), the val and x loads, the fma, jj += 64 and
 * the loop test (6), and the LDS store of the running sum (the compiler
 * keeps it in a register otherwise); per halving step the test and branch
 * (2), the LDS load of vals[local + k], the add (1) and the store; lane 0's
 * add into y[row] (1) and the store (its load of y[row] is folded: the
 * kernel stored 0 there). */
static const char *const pr_params[] = {"n", NULL};
static const char *const pr_bufs[] = {"rowOffset", "col", "val", "x", "y", NULL};
static const char *const pr_arrays[] = {"row", "c0", "c1", "half", "col", NULL};
static const struct kd_desc pr_kd = {
    .name = "pageRank_kernel",
    .params = pr_params,
    .bufs = pr_bufs,
    .arrays = pr_arrays,
    .body = "alu 21\n"
            "store y[bx] 4\n"
            "alu 1\n"
            "load rowOffset[bx] 4 -> r1\n"
            "load rowOffset[bx + 1] 4 -> r2\n"
            "alu 3 < r1 r2\n"
            "lds_store lds[tx] 4\n"
            "alu 7\n"
            "for m0 = 64*@c0[bx] + tx .. 64*@c1[bx] + tx step 64\n"
            "  if @row[bx] < m0 + 1\n"
            "    if m0 < @row[bx + 1]\n"
            "      load col[m0] 4 -> r3\n"
            "      alu 2\n"
            "      load val[m0] 4 -> r4\n"
            "      load x[@col[m0]] 4 -> r5 < r3\n"
            "      alu 6 < r4 r5\n"
            "      lds_store lds[tx] 4\n"
            "    end\n"
            "  end\n"
            "end\n"
            "for m1 = 0 .. 6\n"
            "  alu 2\n"
            "  if tx < @half[m1]\n"
            "    lds_load lds[tx + @half[m1]] 4 -> r6\n"
            "    alu 1 < r6\n"
            "    lds_store lds[tx] 4 < r6\n"
            "  end\n"
            "end\n"
            "if tx < 1\n"
            "  alu 1\n"
            "  store y[bx] 4\n"
            "end\n",
};

struct pr {
    struct kdw w;
    struct graph a;
    uint32_t *c0, *c1;
    const struct kernel_buf *bufs[5];
    unsigned iterations;
};

static const uint32_t pr_half[6] = {32, 16, 8, 4, 2, 1};

static int pr_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct pr *p = (struct pr *)w;
    if (sparse_load(&p->a, sec, 0, w->env->seed, e))
        return -1;
    p->iterations = (unsigned)cfg_uint(sec, "iterations");
    uint32_t n = p->a.n;
    p->c0 = xmalloc(n * sizeof *p->c0);
    p->c1 = xmalloc(n * sizeof *p->c1);
    for (uint32_t r = 0; r < n; r++) {
        p->c0[r] = p->a.row[r] / 64;
        p->c1[r] = (uint32_t)div_ceil(p->a.row[r + 1], 64);
    }
    uint64_t m = p->a.m;
    static const char *const names[] = {"rowOffset", "col", "val", "x", "y"};
    const uint64_t size[] = {((uint64_t)n + 1) * 4, m * 4, m * 4, (uint64_t)n * 4,
                             (uint64_t)n * 4};
    for (unsigned i = 0; i < 5; i++)
        p->bufs[i] = wl_alloc(w->env, names[i], size[i]);
    return 0;
}

static bool pr_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct pr *p = (const struct pr *)w;
    if (i == p->iterations)
        return false;
    l->grid = (struct kernel_dim){p->a.n, 1, 1};
    l->block = (struct kernel_dim){64, 1, 1};
    l->params[0] = p->a.n;
    l->arrays[0] = (struct kd_array){p->a.row, (uint64_t)p->a.n + 1};
    l->arrays[1] = (struct kd_array){p->c0, p->a.n};
    l->arrays[2] = (struct kd_array){p->c1, p->a.n};
    l->arrays[3] = (struct kd_array){pr_half, 6};
    l->arrays[4] = (struct kd_array){p->a.col, p->a.m};
    l->lds_b = 64 * 4;
    memcpy(l->bufs, p->bufs, sizeof p->bufs);
    if (i % 2) { /* x and y swapped */
        l->bufs[3] = p->bufs[4];
        l->bufs[4] = p->bufs[3];
    }
    return true;
}

static void pr_release(struct kdw *w)
{
    struct pr *p = (struct pr *)w;
    graph_free(&p->a);
    free(p->c0);
    free(p->c1);
}

static const struct kd_desc *const pr_descs[] = {&pr_kd, NULL};
static const struct kdw_model pr_model = {.size = sizeof(struct pr), .descs = pr_descs,
                                          .setup = pr_setup, .plan = pr_plan,
                                          .release = pr_release};

static void *pr_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&pr_model, env, sec, e);
}

static const char *const pr_small[] = {"rows=32", "nnz=256", "iterations=2", NULL};

const struct wl_ops wl_pagerank = {
    .name = "pagerank",
    .suite = "HeteroMark",
    .desc = "Hetero-Mark PageRank: CSR SpMV, 64 threads per row with an LDS reduction "
            "(substitute graph)",
    .keys = pr_keys,
    .small = pr_small,
    .create = pr_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
