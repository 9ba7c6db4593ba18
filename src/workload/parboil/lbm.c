/*
 * lbm.c -- Parboil LBM: a lattice-Boltzmann fluid solver (D3Q19) over a
 * 120 x 120 x 150 grid, one stream-collide kernel per time step, the two
 * grids swapped between steps (spec ladm.md 10 "LBM": unclassified, 120
 * threads per work-group, 18,000 work-groups, 370 MB).
 *
 * Modelled (kernel descriptions, kd.h): Parboil's CUDA layout, a structure
 * of arrays: field e (19 distributions, then the cell flags) of every cell
 * is contiguous, rows padded to `px` cells, one margin plane below and
 * above the grid. A work-group is one row (blockIdx.x = y, blockIdx.y = z),
 * a thread one cell: it reads its 19 distributions and its flags
 * (coalesced, one field after another), computes density, velocity and the
 * collision, and writes each distribution to the neighbour the direction
 * points to in the other grid (19 coalesced rows, shifted by one cell, row
 * or plane). ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA version
 * (docs/workloads/lbm.md). Not a substitute: Parboil's inputs are the grid
 * size and an obstacle file that only sets the flags' values.
 * Abstracted: no data values (the flags' branches are ALU work either way).
 */
#include <string.h>

#include "workload/kdw.h"

static const struct cfg_key lbm_keys[] = {
    {"nx", CFG_INT, "120", 1, 1024, "cells per row (threads per work-group)", NULL},
    {"ny", CFG_INT, "120", 1, 65535, "rows per plane", NULL},
    {"nz", CFG_INT, "150", 1, 65535, "planes", NULL},
    {"px", CFG_INT, "128", 1, 65536, "cells per padded row in memory (at least nx)", NULL},
    {"iterations", CFG_INT, "1", 1, 1000000,
     "time steps (launches; ladm.md's 18,000 work-groups are one)", NULL},
    CFG_END,
};

/* The cell's index in a field: plane z + 1 (below it the margin), row y. */
#define LBM_C "(by + 1)*px*ny + bx*px + tx"

/* PTX: the entry (parameters, x, y, z, the cell's index: 14), 3 then 2
 * between the distribution loads (their addresses), 1 before the flags; the
 * collision (sums, velocity, the flags' tests, the equilibria: 101); the
 * addresses and relaxation between the 19 stores (13 to 15 each). */
static const char *const lbm_params[] = {"nc", "px", "ny", NULL};
static const char *const lbm_bufs[] = {"src", "dst", NULL};
static const struct kd_desc lbm_kd = {
    .name = "performStreamCollide",
    .params = lbm_params,
    .bufs = lbm_bufs,
    .body = "alu 14\n"
            "load src[" LBM_C "] 4 -> r1\n"
            "alu 3\n"
            "load src[nc + " LBM_C "] 4 -> r1\n"
            "for m0 = 2 .. 19\n"
            "  alu 2\n"
            "  load src[m0*nc + " LBM_C "] 4 -> r1\n"
            "end\n"
            "alu 1\n"
            "load src[19*nc + " LBM_C "] 4 -> r2     # the flags\n"
            "alu 101 < r1 r2\n"
            "store dst[" LBM_C "] 4        # C\n"
            "alu 13\n"
            "store dst[1*nc + " LBM_C " + 1] 4        # E\n"
            "alu 13\n"
            "store dst[2*nc + " LBM_C " - 1] 4        # W\n"
            "alu 13\n"
            "store dst[3*nc + " LBM_C " + px] 4        # N\n"
            "alu 13\n"
            "store dst[4*nc + " LBM_C " - px] 4        # S\n"
            "alu 13\n"
            "store dst[5*nc + " LBM_C " + px*ny] 4        # T\n"
            "alu 14\n"
            "store dst[6*nc + " LBM_C " - px*ny] 4        # B\n"
            "alu 14\n"
            "store dst[7*nc + " LBM_C " + 1 + px] 4        # NE\n"
            "alu 14\n"
            "store dst[8*nc + " LBM_C " - 1 + px] 4        # NW\n"
            "alu 14\n"
            "store dst[9*nc + " LBM_C " + 1 - px] 4        # SE\n"
            "alu 15\n"
            "store dst[10*nc + " LBM_C " - 1 - px] 4        # SW\n"
            "alu 12\n"
            "store dst[11*nc + " LBM_C " + 1 + px*ny] 4        # TE\n"
            "alu 13\n"
            "store dst[12*nc + " LBM_C " - 1 + px*ny] 4        # TW\n"
            "alu 12\n"
            "store dst[13*nc + " LBM_C " + 1 - px*ny] 4        # BE\n"
            "alu 13\n"
            "store dst[14*nc + " LBM_C " - 1 - px*ny] 4        # BW\n"
            "alu 14\n"
            "store dst[15*nc + " LBM_C " + px + px*ny] 4        # TN\n"
            "alu 14\n"
            "store dst[16*nc + " LBM_C " - px + px*ny] 4        # TS\n"
            "alu 13\n"
            "store dst[17*nc + " LBM_C " + px - px*ny] 4        # BN\n"
            "alu 13\n"
            "store dst[18*nc + " LBM_C " - px - px*ny] 4        # BS\n",
};

struct lbm {
    struct kdw w;
    const struct kernel_buf *grid[2];
    uint64_t nx, ny, nz, px, nc;
    unsigned iterations;
};

static int lbm_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct lbm *b = (struct lbm *)w;
    b->nx = cfg_uint(sec, "nx");
    b->ny = cfg_uint(sec, "ny");
    b->nz = cfg_uint(sec, "nz");
    b->px = cfg_uint(sec, "px");
    b->iterations = (unsigned)cfg_uint(sec, "iterations");
    if (b->px < b->nx)
        return cfg_err(e, sec, "px", "a padded row must hold the %llu cells of a row",
                       (unsigned long long)b->nx);
    b->nc = b->px * b->ny * (b->nz + 2);
    b->grid[0] = wl_alloc(w->env, "src_grid", 20 * b->nc * 4);
    b->grid[1] = wl_alloc(w->env, "dst_grid", 20 * b->nc * 4);
    return 0;
}

/* Step i reads grid i % 2 and writes the other. */
static bool lbm_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct lbm *b = (const struct lbm *)w;
    if (i == b->iterations)
        return false;
    l->grid = (struct kernel_dim){(uint32_t)b->ny, (uint32_t)b->nz, 1};
    l->block = (struct kernel_dim){(uint32_t)b->nx, 1, 1};
    l->params[0] = (int64_t)b->nc;
    l->params[1] = (int64_t)b->px;
    l->params[2] = (int64_t)b->ny;
    l->bufs[0] = b->grid[i % 2];
    l->bufs[1] = b->grid[(i + 1) % 2];
    return true;
}

static const struct kd_desc *const lbm_descs[] = {&lbm_kd, NULL};
static const struct kdw_model lbm_model = {
    .size = sizeof(struct lbm), .descs = lbm_descs, .setup = lbm_setup, .plan = lbm_plan};

static void *lbm_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&lbm_model, env, sec, e);
}

static const char *const lbm_small[] = {"nx=32", "ny=2", "nz=2", "px=32", "iterations=2",
                                        NULL};

const struct wl_ops wl_lbm = {
    .name = "lbm",
    .suite = "Parboil",
    .desc = "Parboil LBM: D3Q19 stream-collide, one thread per cell, grids swapped per step",
    .keys = lbm_keys,
    .small = lbm_small,
    .create = lbm_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
