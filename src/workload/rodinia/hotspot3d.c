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
 * Abstracted: data values; the input files only fix the grid size.
 */
#include <stdlib.h>

#include "workload/rodinia/dense.h"

#define H3_BX 64
#define H3_BY 4

static const struct cfg_key hotspot3d_keys[] = {
    {"grid", CFG_INT, "512", 64, 65536, "rows and columns per layer, a multiple of 64 (Table II: 512)",
     NULL},
    {"layers", CFG_INT, "8", 2, 65536, "layers (Table II: 8)", NULL},
    {"iterations", CFG_INT, "20", 1, 1000000, "time steps = kernels (Table II: 20)", NULL},
    CFG_END,
};

struct hotspot3d {
    const struct kernel_buf *p, *t[2]; /* t[0] = tIn_d at the start */
    uint64_t nx, nz;
    unsigned iterations, kernels;
};

static void *hotspot3d_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t nx = cfg_uint(sec, "grid");
    if (nx % H3_BX) {
        cfg_err(e, sec, "grid", "must be a multiple of %d (the work-group width)", H3_BX);
        return NULL;
    }
    struct hotspot3d *h = xcalloc(1, sizeof *h);
    h->nx = nx;
    h->nz = cfg_uint(sec, "layers");
    h->iterations = (unsigned)cfg_uint(sec, "iterations");
    uint64_t size = nx * nx * h->nz * 4;
    h->p = wl_alloc(env, "p_d", size);
    h->t[0] = wl_alloc(env, "tIn_d", size);
    h->t[1] = wl_alloc(env, "tOut_d", size);
    return h;
}

static void hotspot3d_destroy(void *self)
{
    free(self);
}

/* Neighbour patterns of a cell in layer z. */
enum { H3_C, H3_UP, H3_W, H3_E, H3_S, H3_N };

/* Element index of pattern `what` of thread (i, j) in layer z. */
static uint64_t h3_index(const struct hotspot3d *h, unsigned what, uint64_t i, uint64_t j,
                         uint64_t z)
{
    uint64_t c = i + j * h->nx + z * h->nx * h->nx;
    switch (what) {
    case H3_UP: return c + h->nx * h->nx;
    case H3_W: return i == 0 ? c : c - 1;
    case H3_E: return i == h->nx - 1 ? c : c + 1;
    case H3_N: return j == 0 ? c : c - h->nx;
    case H3_S: return j == h->nx - 1 ? c : c + h->nx;
    default: return c;
    }
}

static void h3_mem(struct kernel_warp *w, struct kernel_op *op, uint8_t kind,
                   const struct kernel_buf *b, unsigned what, uint8_t reg)
{
    const struct hotspot3d *h = w->k->ctx;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint64_t i = (uint64_t)w->wg_id.x * H3_BX + dn_tx(w, l);
        uint64_t j = (uint64_t)w->wg_id.y * H3_BY + dn_ty(w, l);
        w->lane_addr[l] = b->base + h3_index(h, what, i, j, w->r[0]) * 4;
    }
    dn_lanes(op, kind, low_bits(w->nlanes), reg);
}

/*
 * hotspotOpt1. Registers: the centre of layer z is in 1 + z % 3 (loaded
 * as temp3 of layer z - 1), the neighbours in 4..8. ALU counts from the
 * kernel's PTX (see the file header). Prologue 54: 42 before the first
 * load (parameters, i, j, c, the clamped W/E/N/S offsets, xy, the first
 * addresses), layer 0's other 10 addresses and its 2 extra floating-point
 * instructions (ct * amb_temp, hoisted, and an unfused multiply). Per
 * layer the update, 9 instructions split over the loads they wait for:
 * cw W, cc temp2, ce E (3); cs S, cn N, cb temp1 (3); ct temp3, sdc p (2);
 * + ct amb_temp (1). Between layers 21: the next layer's addresses, the
 * advance, the loop control, the set-up of the compiler's 4-way unrolled
 * loop and of its remainder loop (at 8 layers: 148 instructions over the 7
 * steps, rounded; the model has 273 of the PTX's 274 per thread).
 * pc: 0 prologue, 1 temp2 = tIn[c]; per layer r[0]: 2 temp3, 3-7 the
 * neighbours and p[c], 8-11 the update, 12 store, 13 advance; 14 exit.
 */
static void hotspot3d_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct hotspot3d *h = k->ctx;
    const struct kernel_buf *in = h->t[k->p[0]], *out = h->t[!k->p[0]];
    uint64_t z = w->r[0];
    bool top = z == h->nz - 1;
    uint8_t centre = (uint8_t)(1 + z % 3), up = top ? centre : (uint8_t)(1 + (z + 1) % 3);
    static const uint8_t nb[5] = {H3_W, H3_E, H3_S, H3_N, H3_C};
    unsigned pc = w->pc++;
    if (pc == 2 && top)
        pc = w->pc++; /* the top layer reuses temp3 */
    switch (pc) {
    case 0: dn_alu(op, 54, 0, 0); break;
    case 1: h3_mem(w, op, KOP_LOAD, in, H3_C, 1); break;
    case 2: h3_mem(w, op, KOP_LOAD, in, H3_UP, up); break;
    case 3: case 4: case 5: case 6:
        h3_mem(w, op, KOP_LOAD, in, nb[pc - 3], (uint8_t)(pc + 1));
        break;
    case 7: h3_mem(w, op, KOP_LOAD, h->p, H3_C, 8); break;
    case 8: dn_alu(op, 3, 4, 5); break;
    case 9: dn_alu(op, 3, 6, 7); break;
    case 10: dn_alu(op, 2, 8, up); break;
    case 11: dn_alu(op, 1, centre, 0); break;
    case 12: h3_mem(w, op, KOP_STORE, out, H3_C, 0); break;
    case 13:
        if (top) {
            w->pc = 14;
            op->kind = KOP_EXIT;
            break;
        }
        w->r[0]++;
        w->pc = 2;
        dn_alu(op, 21, 0, 0);
        break;
    default:
        op->kind = KOP_EXIT;
    }
}

/* Per layer: p and tOut the work-group's 4 x 64 cells; tIn also the halo
 * row above and below and the cells left and right of each row (inside the
 * grid). If the rows do not fit in max, one range per layer (and if those do
 * not fit either, the list's overflow rule: the span of them all). */
static void h3_layer(const struct hotspot3d *h, const struct kernel_buf *b, bool halo, uint64_t z,
                     uint64_t i0, uint64_t j0, struct range_list *r, bool coarse)
{
    uint64_t nx = h->nx, base = b->base + z * nx * nx * 4;
    uint64_t jlo = halo && j0 > 0 ? j0 - 1 : j0, jhi = min_u64(j0 + H3_BY + halo, nx);
    uint64_t ilo = halo && i0 > 0 ? i0 - 1 : i0, ihi = min_u64(i0 + H3_BX + halo, nx);
    if (coarse) {
        range_list_add(r, base + (jlo * nx + ilo) * 4, base + ((jhi - 1) * nx + ihi) * 4);
        return;
    }
    for (uint64_t j = jlo; j < jhi; j++) {
        bool mid = j >= j0 && j < j0 + H3_BY;
        range_list_rows(r, base, nx, 4, j, j + 1, mid ? ilo : i0, mid ? ihi : i0 + H3_BX);
    }
}

static unsigned hotspot3d_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                                 struct addr_range *out, unsigned max)
{
    if (arg >= k->nargs)
        return 0;
    const struct hotspot3d *h = k->ctx;
    const struct kernel_buf *b = k->args[arg].buf;
    uint32_t gx = (uint32_t)(h->nx / H3_BX);
    uint64_t i0 = (uint64_t)(wg % gx) * H3_BX, j0 = (uint64_t)(wg / gx) * H3_BY;
    bool halo = arg == 1; /* tIn */
    struct range_list r;
    for (int coarse = 0; coarse < 2; coarse++) {
        range_list_init(&r, out, max, DN_GAP_B);
        for (uint64_t z = 0; z < h->nz; z++)
            h3_layer(h, b, halo, z, i0, j0, &r, coarse);
        if (!r.over)
            break;
    }
    return range_list_done(&r, b->base);
}

static bool hotspot3d_next_kernel(void *self, struct kernel *k)
{
    struct hotspot3d *h = self;
    if (h->kernels == h->iterations)
        return false;
    unsigned j = h->kernels++;
    wl_kernel_init(k, "hotspotOpt1", (uint32_t)(h->nx / H3_BX), (uint32_t)(h->nx / H3_BY), H3_BX,
                   H3_BY, hotspot3d_next);
    wl_kernel_arg(k, h->p, KERNEL_R);
    wl_kernel_arg(k, h->t[j % 2], KERNEL_R);
    wl_kernel_arg(k, h->t[!(j % 2)], KERNEL_RW);
    k->args[0].same_pattern = j > 0;
    k->p[0] = j % 2;
    k->ranges = hotspot3d_ranges;
    k->ctx = h;
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
