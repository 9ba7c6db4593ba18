/*
 * hotspot.c -- Rodinia hotspot (hotspot.cu), "grid pyramid_height
 * iterations temp_file power_file": a grid x grid thermal stencil. Each
 * kernel calculate_temp runs `iteration` = min(pyramid_height, remaining)
 * time steps on 16 x 16 tiles staged in LDS (temp_on_cuda, power_on_cuda,
 * temp_t): the tiles overlap by a halo of pyramid_height cells on each
 * side, shrinking by one cell per step, so each work-group writes back only
 * its inner (16 - 2 iteration)^2 cells. Grid: ceil(grid / (16 - 2 ph))^2
 * work-groups of 16 x 16 threads; ceil(iterations / ph) kernels; the two
 * temperature buffers swap roles each kernel (MatrixTemp[0] is read first).
 * Per kernel: load the tile (inside the grid), barrier; per step: the
 * threads inside the shrinking range (and the grid) compute temp_t from
 * their 5-point neighbourhood (clamped to the valid part of the tile),
 * barrier, copy temp_t back to temp_on_cuda, barrier (not after the last
 * step); the threads of the last step store temp_t to temp_dst.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * calculate_temp (every instruction but global and LDS loads and stores,
 * barriers, ret and cvta.to.global); blocks with no op of their own are
 * counted in the nearest op run as often. See docs/workloads/hotspot.md.
 * The kernel is a kernel description (src/workload/kd.h); each work-group's
 * ranges are derived from it.
 * Abstracted: data values; the input files only fix the grid size.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

#define HS_BS 16 /* BLOCK_SIZE */

static const struct cfg_key hotspot_keys[] = {
    {"grid", CFG_INT, "512", 1, 65536, "grid rows and columns (Table II: 512)", NULL},
    {"pyramid_height", CFG_INT, "2", 1, 7, "time steps per kernel (Table II: 2)", NULL},
    {"iterations", CFG_INT, "20", 1, 1000000, "time steps in all (Table II: 20)", NULL},
    CFG_END,
};

/*
 * calculate_temp. ALU counts from the kernel's PTX (see the file header):
 * 47 before the loads (parameters, ids, the tile and index arithmetic, the
 * load test, the LDS and global addresses); 62 after the first barrier
 * (temp_t's address, the valid range, the clamped N/S/W/E addresses, the
 * compiler's step / Cap and three reciprocals, 1 instruction each in PTX,
 * and the tail: the computed test and temp_dst's address, 5). Per step
 * the range tests (7 + 6: every warp has lanes that pass the tx test) and
 * the i == iteration - 1 test after the barrier (2): 15; from the second
 * step on, also the previous step's computed test and loop control (6).
 * The stencil's 19 instructions, in double precision (2.0 is a double
 * literal), are split over the three pairs of loads they wait for: the
 * conversions of the centre and the power (2); N + S, its conversion,
 * 2 x centre, the difference and its fused multiply-add with Ry_1 (5); the
 * same for E + W with Rx_1, amb_temp - centre scaled by Rz_1, the sums, the
 * step and the conversion back (11), plus computed = true after the store
 * (1).
 *
 * The tile of work-group (bx, by) starts at row Y = (16 - 2 it) by - ph and
 * column X likewise; thread (tx, ty) holds cell (Y + ty, X + tx). The
 * valid part of the tile is its cells inside the grid; a neighbour past it
 * is clamped to the cell itself: the N row is ty - @up[Y + ty] (0 in grid
 * row 0, else 1), the S row ty + @down[Y + ty] (0 in the last row), and W,
 * E likewise. LDS in floats: temp_on_cuda at 0, power_on_cuda at 256,
 * temp_t at 512. Step m0 computes where the cell is valid and tx, ty lie in
 * m0 + 1 .. 14 - m0.
 */
#define HS_Y "(16 - 2*it)*by - ph + ty"
#define HS_X "(16 - 2*it)*bx - ph + tx"
#define HS_CELL "[(" HS_Y ")*n + " HS_X "]"
#define HS_VALID "-1 < " HS_Y " and " HS_Y " < n and -1 < " HS_X " and " HS_X " < n"
static const char *const hs_params[] = {"n", "ph", "it", NULL};
static const char *const hs_bufs[] = {"power", "temp_src", "temp_dst", NULL};
static const char *const hs_arrays[] = {"up", "down", NULL};
static const struct kd_desc hs_kd = {
    .name = "calculate_temp", .params = hs_params, .bufs = hs_bufs, .arrays = hs_arrays,
    .range_join = 64,
    .body = "alu 47\n"
            "if " HS_VALID "\n"
            "  load temp_src" HS_CELL " 4 -> r1\n"
            "  load power" HS_CELL " 4 -> r2\n"
            "  lds_store lds[16*ty + tx] 4 < r1\n"
            "  lds_store lds[256 + 16*ty + tx] 4 < r2\n"
            "end\n"
            "barrier\n"
            "alu 62\n"
            "for m0 = 0 .. it\n"
            "  alu 15 + 6 [0 < m0]\n"
            "  if " HS_VALID " and m0 < tx and tx < 15 - m0 and m0 < ty and ty < 15 - m0\n"
            "    lds_load lds[16*ty + tx] 4 -> r3\n"
            "    lds_load lds[256 + 16*ty + tx] 4 -> r4\n"
            "    lds_load lds[16*(ty + @down[" HS_Y "]) + tx] 4 -> r5    # S\n"
            "    lds_load lds[16*(ty - @up[" HS_Y "]) + tx] 4 -> r6      # N\n"
            "    lds_load lds[16*ty + tx + @down[" HS_X "]] 4 -> r7      # E\n"
            "    lds_load lds[16*ty + tx - @up[" HS_X "]] 4 -> r8        # W\n"
            "    alu 2 < r3 r4\n"
            "    alu 5 < r5 r6\n"
            "    alu 12 < r7 r8\n"
            "    lds_store lds[512 + 16*ty + tx] 4\n"
            "  end\n"
            "  barrier\n"
            "  if m0 < it - 1\n"
            "    if " HS_VALID " and m0 < tx and tx < 15 - m0 and m0 < ty and ty < 15 - m0\n"
            "      lds_load lds[512 + 16*ty + tx] 4 -> r9\n"
            "      lds_store lds[16*ty + tx] 4 < r9\n"
            "    end\n"
            "    barrier\n"
            "  end\n"
            "end\n"
            "if " HS_VALID " and it - 1 < tx and tx < 16 - it and it - 1 < ty and ty < 16 - it\n"
            "  lds_load lds[512 + 16*ty + tx] 4 -> r10\n"
            "  store temp_dst" HS_CELL " 4 < r10\n"
            "end\n",
};

struct hotspot {
    struct wl_env *env;
    struct kd_prog *prog;
    const struct kernel_buf *temp[2], *power;
    uint32_t *up, *down; /* [n]: 0 at the grid's first (last) row or column, else 1 */
    int32_t n, ph;
    uint32_t blocks; /* per side */
    unsigned total, nkernels, kernels;
};

static void hotspot_destroy(void *self)
{
    struct hotspot *h = self;
    kd_prog_free(h->prog);
    free(h->up);
    free(h->down);
    free(h);
}

static void *hotspot_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct hotspot *h = xcalloc(1, sizeof *h);
    h->env = env;
    if (!(h->prog = kd_compile(&hs_kd, e))) {
        hotspot_destroy(h);
        return NULL;
    }
    h->n = (int32_t)cfg_int(sec, "grid");
    h->ph = (int32_t)cfg_int(sec, "pyramid_height");
    h->total = (unsigned)cfg_uint(sec, "iterations");
    h->blocks = (uint32_t)div_ceil((uint64_t)h->n, (uint64_t)(HS_BS - 2 * h->ph));
    h->nkernels = (unsigned)div_ceil(h->total, (uint64_t)h->ph);
    h->up = xcalloc((size_t)h->n, sizeof *h->up);
    h->down = xcalloc((size_t)h->n, sizeof *h->down);
    for (int32_t i = 0; i < h->n; i++) {
        h->up[i] = i > 0;
        h->down[i] = i < h->n - 1;
    }
    uint64_t size = (uint64_t)h->n * (uint64_t)h->n * 4;
    h->temp[0] = wl_alloc(env, "MatrixTemp0", size);
    h->temp[1] = wl_alloc(env, "MatrixTemp1", size);
    h->power = wl_alloc(env, "MatrixPower", size);
    return h;
}

static unsigned hs_iteration(const struct hotspot *h, unsigned kernel)
{
    unsigned t = kernel * (unsigned)h->ph;
    return h->total - t < (unsigned)h->ph ? h->total - t : (unsigned)h->ph;
}

/* Kernel j: time steps from j * ph; reads MatrixTemp[j % 2] (src = 1,
 * dst = 0 swapped before each launch). */
static bool hotspot_next_kernel(void *self, struct kernel *k)
{
    struct hotspot *h = self;
    if (h->kernels == h->nkernels)
        return false;
    unsigned j = h->kernels++, it = hs_iteration(h, j);
    int64_t params[] = {h->n, h->ph, it};
    const struct kernel_buf *bufs[] = {h->power, h->temp[j % 2], h->temp[!(j % 2)]};
    const struct kd_array arrays[] = {{h->up, (uint64_t)h->n}, {h->down, (uint64_t)h->n}};
    struct err e;
    if (kd_launch(h->prog, k, (struct kernel_dim){h->blocks, h->blocks, 1},
                  (struct kernel_dim){HS_BS, HS_BS, 1}, params, bufs, arrays, &e))
        return wl_fail(h->env, &e);
    k->lds_b = 3 * HS_BS * HS_BS * 4;
    /* power's ranges depend only on the tile shape, i.e. on the step count */
    k->args[0].same_pattern = j > 0 && hs_iteration(h, j - 1) == it;
    return true;
}

static const char *const hotspot_small[] = {"grid=64", "iterations=5", NULL};

const struct wl_ops wl_hotspot = {
    .name = "hotspot",
    .suite = "Rodinia",
    .desc = "Rodinia hotspot: 2D thermal stencil, pyramid of time steps on LDS tiles",
    .keys = hotspot_keys,
    .small = hotspot_small,
    .create = hotspot_create,
    .next_kernel = hotspot_next_kernel,
    .destroy = hotspot_destroy,
};
