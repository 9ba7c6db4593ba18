/*
 * stencil2d.c -- SHOC Stencil2D: a 9-point stencil (centre, four edge and
 * four diagonal neighbours, three weights) over an n x n grid of floats
 * held with a one-cell halo ((n + 2) x (n + 2)), `iterations` sweeps that
 * swap the two grids (spec dualopt.md 9 "st": halos cross GPU boundaries).
 *
 * Modelled (kernel descriptions, kd.h): 16 x 16 work-groups, each stages
 * its tile and the tile's halo in LDS (18 x 18 floats): every thread loads
 * its cell, threads of the first row load the rows above and below, those
 * of the first column the columns left and right, thread (0, 0) the four
 * corners; a barrier; then nine LDS reads, the weighted sum and the store.
 * ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA version
 * (docs/workloads/stencil2d.md). Size: SHOC's 4096 x 4096 class,
 * MGPUSim's 5 iterations (spec dualopt.md 9.2 scales inputs up).
 * Abstracted: no data values; SHOC's MPI halo exchange (one GPU per rank)
 * is not part of a single-process run.
 */
#include <string.h>

#include "workload/kdw.h"

static const struct cfg_key st_keys[] = {
    {"n", CFG_INT, "4096", 16, 65536, "grid side (a multiple of 16)", NULL},
    {"iterations", CFG_INT, "5", 1, 1000000, "sweeps (kernel launches)", NULL},
    CFG_END,
};

/* PTX per block: entry 20 (parameters, the cell's row and column, its
 * address), after the load the LDS address (4), after the store the row
 * test and the halo addresses (5); first row: 1 after its first load, 5
 * before its second; the column test (2); the corner test (2) and 5
 * between the corners' pairs; after the barrier 11 among the nine LDS reads
 * (the adds and the three multiplies), then the store. */
static const char *const st_params[] = {"w", NULL};
static const char *const st_bufs[] = {"in", "out", NULL};
static const struct kd_desc st_kd = {
    .name = "stencil2d",
    .params = st_params,
    .bufs = st_bufs,
    .range_join = 128, /* a warp's rows share lines: the checker tests lines */
    .body = "alu 20\n"
            "load in[(16*by + ty + 1)*w + 16*bx + tx + 1] 4 -> r1\n"
            "alu 4\n"
            "lds_store lds[(ty + 1)*18 + tx + 1] 4 < r1\n"
            "alu 5\n"
            "if ty < 1                                   # the rows above and below\n"
            "  load in[(16*by + ty)*w + 16*bx + tx + 1] 4 -> r2\n"
            "  alu 1\n"
            "  lds_store lds[ty*18 + tx + 1] 4 < r2\n"
            "  alu 5\n"
            "  load in[(16*by + ty + 17)*w + 16*bx + tx + 1] 4 -> r3\n"
            "  lds_store lds[(ty + 17)*18 + tx + 1] 4 < r3\n"
            "end\n"
            "alu 2\n"
            "if tx < 1                                   # the columns left and right\n"
            "  load in[(16*by + ty + 1)*w + 16*bx + tx] 4 -> r4\n"
            "  lds_store lds[(ty + 1)*18 + tx] 4 < r4\n"
            "  load in[(16*by + ty + 1)*w + 16*bx + tx + 17] 4 -> r5\n"
            "  lds_store lds[(ty + 1)*18 + tx + 17] 4 < r5\n"
            "end\n"
            "alu 2\n"
            "if tx < 1\n"
            "  if ty < 1                                 # the four corners\n"
            "    load in[(16*by + ty)*w + 16*bx + tx] 4 -> r6\n"
            "    lds_store lds[ty*18 + tx] 4 < r6\n"
            "    load in[(16*by + ty)*w + 16*bx + tx + 17] 4 -> r7\n"
            "    lds_store lds[ty*18 + tx + 17] 4 < r7\n"
            "    alu 5\n"
            "    load in[(16*by + ty + 17)*w + 16*bx + tx] 4 -> r8\n"
            "    lds_store lds[(ty + 17)*18 + tx] 4 < r8\n"
            "    load in[(16*by + ty + 17)*w + 16*bx + tx + 17] 4 -> r9\n"
            "    lds_store lds[(ty + 17)*18 + tx + 17] 4 < r9\n"
            "  end\n"
            "end\n"
            "barrier\n"
            "lds_load lds[(ty + 1)*18 + tx + 1] 4 -> r10\n"
            "lds_load lds[ty*18 + tx + 1] 4 -> r11\n"
            "lds_load lds[(ty + 2)*18 + tx + 1] 4 -> r12\n"
            "alu 1 < r11 r12\n"
            "lds_load lds[(ty + 1)*18 + tx] 4 -> r13\n"
            "alu 1 < r13\n"
            "lds_load lds[(ty + 1)*18 + tx + 2] 4 -> r14\n"
            "alu 3 < r14\n"
            "lds_load lds[ty*18 + tx] 4 -> r15\n"
            "lds_load lds[ty*18 + tx + 2] 4 -> r16\n"
            "alu 1 < r15 r16\n"
            "lds_load lds[(ty + 2)*18 + tx] 4 -> r17\n"
            "alu 1 < r17\n"
            "lds_load lds[(ty + 2)*18 + tx + 2] 4 -> r18\n"
            "alu 4 < r10 r18\n"
            "store out[(16*by + ty + 1)*w + 16*bx + tx + 1] 4\n",
};

struct st {
    struct kdw w;
    const struct kernel_buf *grid[2];
    uint64_t n;
    unsigned iterations;
};

static int st_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct st *s = (struct st *)w;
    s->n = cfg_uint(sec, "n");
    if (s->n % 16)
        return cfg_err(e, sec, "n", "must be a multiple of the 16 x 16 tile");
    s->iterations = (unsigned)cfg_uint(sec, "iterations");
    s->grid[0] = wl_alloc(w->env, "a", (s->n + 2) * (s->n + 2) * 4);
    s->grid[1] = wl_alloc(w->env, "b", (s->n + 2) * (s->n + 2) * 4);
    return 0;
}

/* Sweep i reads grid i % 2 and writes the other. */
static bool st_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct st *s = (const struct st *)w;
    if (i == s->iterations)
        return false;
    uint32_t t = (uint32_t)(s->n / 16);
    l->grid = (struct kernel_dim){t, t, 1};
    l->block = (struct kernel_dim){16, 16, 1};
    l->params[0] = (int64_t)s->n + 2;
    l->bufs[0] = s->grid[i % 2];
    l->bufs[1] = s->grid[(i + 1) % 2];
    l->lds_b = 18 * 18 * 4;
    return true;
}

static const struct kd_desc *const st_descs[] = {&st_kd, NULL};
static const struct kdw_model st_model = {
    .size = sizeof(struct st), .descs = st_descs, .setup = st_setup, .plan = st_plan};

static void *st_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&st_model, env, sec, e);
}

static const char *const st_small[] = {"n=32", "iterations=2", NULL};

const struct wl_ops wl_stencil2d = {
    .name = "stencil2d",
    .suite = "SHOC",
    .desc = "SHOC Stencil2D: 9-point stencil, 16 x 16 tiles with halo in LDS, iterated",
    .keys = st_keys,
    .small = st_small,
    .create = st_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
