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
 * Abstracted: data values; the input files only fix the grid size.
 */
#include <stdlib.h>

#include "workload/rodinia/dense.h"

#define HS_BS 16         /* BLOCK_SIZE */
#define HS_POWER 1024    /* LDS: temp_on_cuda at 0, power_on_cuda, temp_t */
#define HS_TEMP_T 2048

static const struct cfg_key hotspot_keys[] = {
    {"grid", CFG_INT, "512", 1, 65536, "grid rows and columns (Table II: 512)", NULL},
    {"pyramid_height", CFG_INT, "2", 1, 7, "time steps per kernel (Table II: 2)", NULL},
    {"iterations", CFG_INT, "20", 1, 1000000, "time steps in all (Table II: 20)", NULL},
    CFG_END,
};

struct hotspot {
    const struct kernel_buf *temp[2], *power;
    int32_t n, ph;
    uint32_t blocks; /* per side */
    unsigned total, nkernels, kernels;
};

static void *hotspot_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    (void)e; /* the key table's ranges are the only constraints */
    struct hotspot *h = xcalloc(1, sizeof *h);
    h->n = (int32_t)cfg_int(sec, "grid");
    h->ph = (int32_t)cfg_int(sec, "pyramid_height");
    h->total = (unsigned)cfg_uint(sec, "iterations");
    h->blocks = (uint32_t)div_ceil((uint64_t)h->n, (uint64_t)(HS_BS - 2 * h->ph));
    h->nkernels = (unsigned)div_ceil(h->total, (uint64_t)h->ph);
    uint64_t size = (uint64_t)h->n * (uint64_t)h->n * 4;
    h->temp[0] = wl_alloc(env, "MatrixTemp0", size);
    h->temp[1] = wl_alloc(env, "MatrixTemp1", size);
    h->power = wl_alloc(env, "MatrixPower", size);
    return h;
}

static void hotspot_destroy(void *self)
{
    free(self);
}

/* A work-group's tile: origin (may be negative) and the valid part. */
struct hs_tile {
    int32_t y, x;              /* blkY, blkX */
    int32_t vy0, vy1, vx0, vx1; /* validYmin .. validXmax, tile coordinates */
    int32_t it;                 /* iteration */
};

static struct hs_tile hs_tile(const struct kernel *k, uint32_t bx, uint32_t by)
{
    const struct hotspot *h = k->ctx;
    struct hs_tile t = {.it = (int32_t)k->p[0]};
    int32_t small = HS_BS - 2 * t.it;
    t.y = small * (int32_t)by - h->ph;
    t.x = small * (int32_t)bx - h->ph;
    t.vy0 = t.y < 0 ? -t.y : 0;
    t.vx0 = t.x < 0 ? -t.x : 0;
    t.vy1 = t.y + HS_BS - 1 > h->n - 1 ? HS_BS - 1 - (t.y + HS_BS - 1 - h->n + 1) : HS_BS - 1;
    t.vx1 = t.x + HS_BS - 1 > h->n - 1 ? HS_BS - 1 - (t.x + HS_BS - 1 - h->n + 1) : HS_BS - 1;
    return t;
}

static bool hs_in(int32_t v, int32_t lo, int32_t hi)
{
    return v >= lo && v <= hi;
}

/* Does thread (tx, ty) compute in step i (i < 0: does it load its cell)? */
static bool hs_on(const struct hotspot *h, const struct hs_tile *t, int32_t tx, int32_t ty,
                  int32_t i)
{
    if (i < 0)
        return hs_in(t->y + ty, 0, h->n - 1) && hs_in(t->x + tx, 0, h->n - 1);
    return hs_in(tx, i + 1, HS_BS - i - 2) && hs_in(ty, i + 1, HS_BS - i - 2) &&
           hs_in(tx, t->vx0, t->vx1) && hs_in(ty, t->vy0, t->vy1);
}

static uint64_t hs_mask(const struct kernel_warp *w, const struct hs_tile *t, int32_t i)
{
    const struct hotspot *h = w->k->ctx;
    uint64_t m = 0;
    for (unsigned l = 0; l < w->nlanes; l++)
        m |= (uint64_t)hs_on(h, t, (int32_t)dn_tx(w, l), (int32_t)dn_ty(w, l), i) << l;
    return m;
}

/* Address patterns: the global cell, and LDS cells of the three tiles. */
enum { HA_CELL, HL_C, HL_POWER, HL_S, HL_N, HL_E, HL_W, HL_T };

static addr_t hs_addr(const struct hotspot *h, const struct hs_tile *t, const struct kernel_buf *b,
                      unsigned what, int32_t tx, int32_t ty)
{
    int32_t x = tx, y = ty;
    switch (what) {
    case HA_CELL:
        return b->base + ((uint64_t)(t->y + ty) * (uint64_t)h->n + (uint64_t)(t->x + tx)) * 4;
    case HL_POWER: return HS_POWER + (uint32_t)(ty * HS_BS + tx) * 4;
    case HL_T: return HS_TEMP_T + (uint32_t)(ty * HS_BS + tx) * 4;
    case HL_S: y = ty + 1 > t->vy1 ? t->vy1 : ty + 1; break;
    case HL_N: y = ty - 1 < t->vy0 ? t->vy0 : ty - 1; break;
    case HL_E: x = tx + 1 > t->vx1 ? t->vx1 : tx + 1; break;
    case HL_W: x = tx - 1 < t->vx0 ? t->vx0 : tx - 1; break;
    default: break; /* HL_C */
    }
    return (uint32_t)(y * HS_BS + x) * 4;
}

/* A memory op of the lanes in mask at pattern `what`. */
static void hs_mem(struct kernel_warp *w, const struct hs_tile *t, struct kernel_op *op,
                   uint8_t kind, const struct kernel_buf *b, unsigned what, uint64_t mask,
                   uint8_t reg)
{
    const struct hotspot *h = w->k->ctx;
    for (unsigned l = 0; l < w->nlanes; l++)
        w->lane_addr[l] = hs_addr(h, t, b, what, (int32_t)dn_tx(w, l), (int32_t)dn_ty(w, l));
    dn_lanes(op, kind, mask, reg);
}

/* The step r[0]'s stencil: pc 8-17. Compute (PTX, see calculate_temp
 * below): 19 instructions, in double precision (2.0 is a double literal),
 * split over the three pairs of loads they wait for: the conversions of
 * the centre and the power (2); N + S, its conversion, 2 x centre, the
 * difference and its fused multiply-add with Ry_1 (5); the same for E + W
 * with Rx_1, amb_temp - centre scaled by Rz_1, the sums, the step and the
 * conversion back (11), plus computed = true after the store (1). */
static void hs_stencil(struct kernel_warp *w, const struct hs_tile *t, struct kernel_op *op,
                       unsigned pc, uint64_t m)
{
    static const uint8_t what[6] = {HL_C, HL_POWER, HL_S, HL_N, HL_E, HL_W};
    if (pc <= 13)
        hs_mem(w, t, op, KOP_LDS_LOAD, NULL, what[pc - 8], m, (uint8_t)(pc - 5));
    else if (pc <= 16)
        dn_alu(op, (uint32_t)(pc == 14 ? 2 : pc == 15 ? 5 : 12), (uint8_t)(3 + 2 * (pc - 14)),
               (uint8_t)(4 + 2 * (pc - 14)));
    else
        hs_mem(w, t, op, KOP_LDS_STORE, NULL, HL_T, m, 0);
}

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
 * pc: 0 prologue, 1-4 load the tiles, 5 barrier, 6 clamps, 7 step test,
 * 8-17 stencil, 18 barrier, 19-20 copy back, 21 barrier, 22-23 store,
 * 24 exit; r[0] = step i, r[1] the lanes whose cell is in the grid, r[2]
 * the lanes computing in step i (both worked out once).
 */
static void hotspot_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct hotspot *h = k->ctx;
    const struct kernel_buf *src = h->temp[k->p[1]], *dst = h->temp[!k->p[1]];
    struct hs_tile t = hs_tile(k, w->wg_id.x, w->wg_id.y);
    int32_t i = (int32_t)w->r[0];
    if (w->pc == 0)
        w->r[1] = hs_mask(w, &t, -1);
    else if (w->pc == 7)
        w->r[2] = hs_mask(w, &t, i);
    uint64_t ld = w->r[1], m = w->r[2];
    unsigned pc = w->pc++;
    if (pc >= 1 && pc <= 4 && !ld)
        pc = w->pc = 5; /* no cell of this warp is inside the grid */
    switch (pc) {
    case 0: dn_alu(op, 47, 0, 0); break;
    case 1: hs_mem(w, &t, op, KOP_LOAD, src, HA_CELL, ld, 1); break;
    case 2: hs_mem(w, &t, op, KOP_LOAD, h->power, HA_CELL, ld, 2); break;
    case 3: hs_mem(w, &t, op, KOP_LDS_STORE, NULL, HL_C, ld, 1); break;
    case 4: hs_mem(w, &t, op, KOP_LDS_STORE, NULL, HL_POWER, ld, 2); break;
    case 5: w->pc = 6; dn_barrier(op); break;
    case 6: dn_alu(op, 62, 0, 0); break;
    case 7:
        if (!m)
            w->pc = 18;
        dn_alu(op, i > 0 ? 21 : 15, 0, 0);
        break;
    case 18:
        if (i == t.it - 1)
            w->pc = 22;
        else if (!m)
            w->pc = 21;
        dn_barrier(op);
        break;
    case 19: hs_mem(w, &t, op, KOP_LDS_LOAD, NULL, HL_T, m, 9); break;
    case 20: hs_mem(w, &t, op, KOP_LDS_STORE, NULL, HL_C, m, 9); break;
    case 21: w->r[0]++; w->pc = 7; dn_barrier(op); break;
    case 22:
        if (!m) {
            w->pc = 24;
            op->kind = KOP_EXIT;
            break;
        }
        hs_mem(w, &t, op, KOP_LDS_LOAD, NULL, HL_T, m, 10);
        break;
    case 23: hs_mem(w, &t, op, KOP_STORE, dst, HA_CELL, m, 10); break;
    default:
        if (pc >= 8 && pc <= 17) {
            hs_stencil(w, &t, op, pc, m);
            break;
        }
        w->pc = 24;
        op->kind = KOP_EXIT;
    }
}

/* power and temp_src: the tile's cells inside the grid; temp_dst: the
 * cells of the threads that compute in the last step. */
static unsigned hotspot_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                               struct addr_range *out, unsigned max)
{
    if (arg >= k->nargs)
        return 0;
    const struct hotspot *h = k->ctx;
    const struct kernel_buf *b = k->args[arg].buf;
    struct hs_tile t = hs_tile(k, wg % h->blocks, wg / h->blocks);
    int32_t y0 = 0, y1 = HS_BS - 1, x0 = 0, x1 = HS_BS - 1; /* tile coordinates */
    if (k->args[arg].mode == KERNEL_RW) {
        y0 = t.it > t.vy0 ? t.it : t.vy0;
        x0 = t.it > t.vx0 ? t.it : t.vx0;
        y1 = HS_BS - 1 - t.it < t.vy1 ? HS_BS - 1 - t.it : t.vy1;
        x1 = HS_BS - 1 - t.it < t.vx1 ? HS_BS - 1 - t.it : t.vx1;
    } else {
        y0 = t.vy0, y1 = t.vy1, x0 = t.vx0, x1 = t.vx1;
    }
    struct range_list r;
    range_list_init(&r, out, max, DN_GAP_B);
    if (y0 <= y1 && x0 <= x1)
        range_list_rows(&r, b->base, (uint64_t)h->n, 4, (uint64_t)(t.y + y0),
                        (uint64_t)(t.y + y1 + 1), (uint64_t)(t.x + x0), (uint64_t)(t.x + x1 + 1));
    return range_list_done(&r, b->base);
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
    wl_kernel_init(k, "calculate_temp", h->blocks, h->blocks, HS_BS, HS_BS, hotspot_next);
    k->lds_b = 3 * HS_BS * HS_BS * 4;
    wl_kernel_arg(k, h->power, KERNEL_R);
    wl_kernel_arg(k, h->temp[j % 2], KERNEL_R);
    wl_kernel_arg(k, h->temp[!(j % 2)], KERNEL_RW);
    /* power's ranges depend only on the tile shape, i.e. on the step count */
    k->args[0].same_pattern = j > 0 && hs_iteration(h, j - 1) == it;
    k->p[0] = it;
    k->p[1] = j % 2;
    k->ranges = hotspot_ranges;
    k->ctx = h;
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
