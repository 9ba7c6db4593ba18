/*
 * hotspot3d.c -- Rodinia hotspot3D (3D.cu, opt1.cu), "grid layers
 * iterations power_file temp_file out_file": a grid x grid x layers thermal
 * stencil, one kernel hotspotOpt1 per time step with block (64, 4, 1) and
 * grid (grid / 64, grid / 4); tIn and tOut swap after every launch (the
 * first kernel reads tIn_d). Thread (i, j) walks the layers: per layer it
 * loads the layer above (temp3 = tIn[c + xy]; the centre and the layer
 * below stay in registers), its W/E/S/N neighbours (clamped to itself at
 * the grid's edges) and p[c], and stores tOut[c]; c, W, E, N, S advance by
 * xy = grid^2 per layer. Every warp covers 64 consecutive cells of one row.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * hotspotOpt1 (every instruction but global loads and stores, ret and
 * cvta.to.global), at Table II's 8 layers; see docs/workloads/hotspot3d.md.
 * The kernel is a kernel description (src/workload/kd.h); each work-group's
 * ranges are derived from it.
 * Abstracted: data values; the input files only fix the grid size.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

#define H3_BX 64
#define H3_BY 4

static const struct cfg_key hotspot3d_keys[] = {
    {"grid", CFG_INT, "512", 64, 65536, "rows and columns per layer, a multiple of 64 (Table II: 512)",
     NULL},
    {"layers", CFG_INT, "8", 2, 65536, "layers (Table II: 8)", NULL},
    {"iterations", CFG_INT, "20", 1, 1000000, "time steps = kernels (Table II: 20)", NULL},
    CFG_END,
};

/*
 * hotspotOpt1. Registers: the centre of layer z is in @centre[z] =
 * 1 + z % 3 (loaded as temp3 of layer z - 1), the layer above goes to
 * @up[z] = 1 + (z + 1) % 3 (the top layer reuses its centre: @up[nz - 1] is
 * its centre), the neighbours in 4..8. ALU counts from the kernel's PTX (see
 * the file header). Prologue 54: 42 before the first load (parameters, i,
 * j, c, the clamped W/E/N/S offsets, xy, the first addresses), layer 0's
 * other 10 addresses and its 2 extra floating-point instructions
 * (ct * amb_temp, hoisted, and an unfused multiply). Per layer the update,
 * 9 instructions split over the loads they wait for: cw W, cc temp2, ce E
 * (3); cs S, cn N, cb temp1 (3); ct temp3, sdc p (2); + ct amb_temp (1).
 * Between layers 21: the next layer's addresses, the advance, the loop
 * control, the set-up of the compiler's 4-way unrolled loop and of its
 * remainder loop (at 8 layers: 148 instructions over the 7 steps, rounded;
 * the model has 273 of the PTX's 274 per thread). Cell (i, j) of layer m0
 * is c = i + nx j + nx^2 m0; its W/E/S/N neighbours are clamped to itself
 * at the grid's edges (min and max).
 */
#define H3_I "(64*bx + tx)"
#define H3_J "(4*by + ty)"
#define H3_C H3_I " + nx*" H3_J " + nx*nx*m0"
static const char *const h3_params[] = {"nx", "nz", NULL};
static const char *const h3_bufs[] = {"p_d", "tIn_d", "tOut_d", NULL};
static const char *const h3_arrays[] = {"centre", "up", NULL};
static const struct kd_desc h3_kd = {
    .name = "hotspotOpt1", .params = h3_params, .bufs = h3_bufs, .arrays = h3_arrays,
    .range_join = 64,
    .body = "alu 54\n"
            "load tIn_d[" H3_I " + nx*" H3_J "] 4 -> r1          # temp2 of layer 0\n"
            "for m0 = 0 .. nz\n"
            "  if m0 < nz - 1\n"
            "    load tIn_d[" H3_C " + nx*nx] 4 -> r(@up[m0])  # temp3\n"
            "  end\n"
            "  load tIn_d[nx*" H3_J " + nx*nx*m0 + max(" H3_I " - 1, 0)] 4 -> r4       # W\n"
            "  load tIn_d[nx*" H3_J " + nx*nx*m0 + min(" H3_I " + 1, nx - 1)] 4 -> r5  # E\n"
            "  load tIn_d[" H3_I " + nx*nx*m0 + nx*min(" H3_J " + 1, nx - 1)] 4 -> r6  # S\n"
            "  load tIn_d[" H3_I " + nx*nx*m0 + nx*max(" H3_J " - 1, 0)] 4 -> r7       # N\n"
            "  load p_d[" H3_C "] 4 -> r8\n"
            "  alu 3 < r4 r5\n"
            "  alu 3 < r6 r7\n"
            "  alu 2 < r8 r(@up[m0])\n"
            "  alu 1 < r(@centre[m0])\n"
            "  store tOut_d[" H3_C "] 4\n"
            "  if m0 < nz - 1\n"
            "    alu 21\n"
            "  end\n"
            "end\n",
};

struct hotspot3d {
    struct wl_env *env;
    struct kd_prog *prog;
    const struct kernel_buf *p, *t[2]; /* t[0] = tIn_d at the start */
    uint32_t *centre, *up;             /* [nz]: the registers of each layer */
    uint64_t nx, nz;
    unsigned iterations, kernels;
};

static void hotspot3d_destroy(void *self)
{
    struct hotspot3d *h = self;
    kd_prog_free(h->prog);
    free(h->centre);
    free(h->up);
    free(h);
}

static void *hotspot3d_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t nx = cfg_uint(sec, "grid");
    if (nx % H3_BX) {
        cfg_err(e, sec, "grid", "must be a multiple of %d (the work-group width)", H3_BX);
        return NULL;
    }
    struct hotspot3d *h = xcalloc(1, sizeof *h);
    h->env = env;
    if (!(h->prog = kd_compile(&h3_kd, e))) {
        hotspot3d_destroy(h);
        return NULL;
    }
    h->nx = nx;
    h->nz = cfg_uint(sec, "layers");
    h->iterations = (unsigned)cfg_uint(sec, "iterations");
    h->centre = xcalloc(h->nz, sizeof *h->centre);
    h->up = xcalloc(h->nz, sizeof *h->up);
    for (uint64_t z = 0; z < h->nz; z++) {
        h->centre[z] = (uint32_t)(1 + z % 3);
        h->up[z] = z + 1 < h->nz ? (uint32_t)(1 + (z + 1) % 3) : h->centre[z];
    }
    uint64_t size = nx * nx * h->nz * 4;
    h->p = wl_alloc(env, "p_d", size);
    h->t[0] = wl_alloc(env, "tIn_d", size);
    h->t[1] = wl_alloc(env, "tOut_d", size);
    return h;
}

static bool hotspot3d_next_kernel(void *self, struct kernel *k)
{
    struct hotspot3d *h = self;
    if (h->kernels == h->iterations)
        return false;
    unsigned j = h->kernels++;
    int64_t params[] = {(int64_t)h->nx, (int64_t)h->nz};
    const struct kernel_buf *bufs[] = {h->p, h->t[j % 2], h->t[!(j % 2)]};
    const struct kd_array arrays[] = {{h->centre, h->nz}, {h->up, h->nz}};
    struct err e;
    if (kd_launch(h->prog, k, (struct kernel_dim){(uint32_t)(h->nx / H3_BX),
                                                  (uint32_t)(h->nx / H3_BY), 1},
                  (struct kernel_dim){H3_BX, H3_BY, 1}, params, bufs, arrays, &e))
        return wl_fail(h->env, &e);
    k->args[0].same_pattern = j > 0;
    return true;
}

static const char *const hotspot3d_small[] = {"grid=64", "layers=4", "iterations=2", NULL};

const struct wl_ops wl_hotspot3d = {
    .name = "hotspot3d",
    .suite = "Rodinia",
    .desc = "Rodinia hotspot3D: 3D thermal stencil, one kernel per time step, ping-pong buffers",
    .keys = hotspot3d_keys,
    .small = hotspot3d_small,
    .create = hotspot3d_create,
    .next_kernel = hotspot3d_next_kernel,
    .destroy = hotspot3d_destroy,
};
