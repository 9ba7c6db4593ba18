/*
 * gaussian.c -- Rodinia gaussian (gaussian.cu): forward elimination of a
 * Size x Size system a x = b without pivoting, two kernels per eliminated
 * row t = 0 .. Size-2:
 *   Fan1  grid ceil(Size / 512), block 512:  thread i < Size-1-t:
 *         m[Size (i+t+1) + t] = a[Size (i+t+1) + t] / a[Size t + t]
 *   Fan2  grid ceil(Size/4) x ceil(Size/4), block 4 x 4: thread (x, y) with
 *         x < Size-1-t, y < Size-t:
 *         a[Size (x+1+t) + y+t] -= m[Size (x+1+t) + t] * a[Size t + y+t];
 *         if (y == 0) b[x+1+t] -= m[Size (x+1+t) + y+t] * b[t]
 * (x = blockIdx.x * 4 + threadIdx.x, y likewise in y). The grids do not
 * shrink with t: later kernels have many work-groups whose threads all
 * return at the bounds test. Back substitution runs on the host.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * gaussian.cu (every instruction but global loads and stores, barriers, ret
 * and cvta.to.global); blocks with no op of their own are counted in the
 * nearest op run as often. See docs/workloads/gaussian.md.
 * Abstracted: data values (no pivoting, so they do not change addresses).
 */
#include <stdlib.h>

#include "workload/rodinia/dense.h"

static const struct cfg_key gaussian_keys[] = {
    {"size", CFG_INT, "256", 2, 32768, "matrix dimension (Table II: 256, matrix256)", NULL},
    {"block", CFG_INT, "512", 1, 1024, "Fan1 threads per work-group (MAXBLOCKSIZE)", NULL},
    {"block_xy", CFG_INT, "4", 1, 32, "Fan2 work-group side (BLOCK_SIZE_XY)", NULL},
    CFG_END,
};

struct gaussian {
    const struct kernel_buf *m, *a, *b;
    uint32_t size, block, bxy, grid1, grid2;
    unsigned kernels;
};

static void *gaussian_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    (void)e; /* the key table's ranges are the only constraints */
    struct gaussian *g = xcalloc(1, sizeof *g);
    g->size = (uint32_t)cfg_uint(sec, "size");
    g->block = (uint32_t)cfg_uint(sec, "block");
    g->bxy = (uint32_t)cfg_uint(sec, "block_xy");
    g->grid1 = (uint32_t)div_ceil(g->size, g->block);
    g->grid2 = (uint32_t)div_ceil(g->size, g->bxy);
    uint64_t n2 = (uint64_t)g->size * g->size * 4;
    g->m = wl_alloc(env, "m_cuda", n2);
    g->a = wl_alloc(env, "a_cuda", n2);
    g->b = wl_alloc(env, "b_cuda", (uint64_t)g->size * 4);
    return g;
}

static void gaussian_destroy(void *self)
{
    free(self);
}

/* ---- Fan1 ---------------------------------------------------------------- */

/* Lanes of the warp whose thread index is below Size-1-t. */
static uint64_t fan1_mask(const struct gaussian *g, const struct kernel_warp *w, uint32_t t)
{
    uint64_t i0 = kernel_gid(w, 0), lim = g->size - 1 - t;
    return i0 >= lim ? 0 : low_bits((unsigned)min_u64(w->nlanes, lim - i0));
}

/* One lane per row: base at thread 0's row, stride one row. */
static void fan1_col(struct kernel_op *op, uint8_t kind, const struct gaussian *g,
                     const struct kernel_buf *buf, const struct kernel_warp *w, uint32_t t,
                     uint64_t mask)
{
    op->kind = kind;
    op->size = 4;
    op->mask = mask;
    op->base = buf->base + ((uint64_t)g->size * (kernel_gid(w, 0) + t + 1) + t) * 4;
    op->stride = (int64_t)g->size * 4;
}

/* ALU counts from the kernel's PTX (see the file header): the bounds test,
 * run by every warp, 12 (parameters, ids, the compare and its branch); in
 * warps with a thread below the bound, the addresses of the two loads
 * follow, 13, counted in op 0. Then the division (div.rn.f32: one PTX
 * instruction, a subroutine of about 10 in SASS) and m's address, 2. */
static void fan1_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct gaussian *g = k->ctx;
    uint32_t t = (uint32_t)k->p[0];
    uint64_t mask = fan1_mask(g, w, t);
    switch (w->pc++) {
    case 0: /* if (threadIdx.x + blockIdx.x * blockDim.x >= Size-1-t) return */
        if (!mask)
            w->pc = 5;
        dn_alu(op, mask ? 25 : 12, 0, 0);
        break;
    case 1: /* m[Size (i+t+1) + t] = a[Size (i+t+1) + t] / a[Size t + t] */
        fan1_col(op, KOP_LOAD, g, g->a, w, t, mask);
        op->dst = 1;
        break;
    case 2:
        op->kind = KOP_LOAD;
        op->size = 4;
        op->mask = mask;
        op->base = g->a->base + ((uint64_t)g->size * t + t) * 4; /* stride 0: one word */
        op->dst = 2;
        break;
    case 3:
        dn_alu(op, 2, 1, 2);
        break;
    case 4:
        fan1_col(op, KOP_STORE, g, g->m, w, t, mask);
        break;
    default:
        w->pc = 5;
        op->kind = KOP_EXIT;
    }
}

/* ---- Fan2 ---------------------------------------------------------------- */

enum { F2_M_XT, F2_A_T, F2_A_XY, F2_B_T, F2_B_X };

/* Lanes with x < Size-1-t and y < Size-t; with `b`, also y == 0. */
static uint64_t fan2_mask(const struct gaussian *g, const struct kernel_warp *w, uint32_t t,
                          bool b)
{
    uint64_t m = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint64_t x = (uint64_t)w->wg_id.x * g->bxy + dn_tx(w, l);
        uint64_t y = (uint64_t)w->wg_id.y * g->bxy + dn_ty(w, l);
        bool on = x < g->size - 1u - t && y < g->size - t && (!b || y == 0);
        m |= (uint64_t)on << l;
    }
    return m;
}

/* Element index of pattern `what` for thread (x, y). */
static uint64_t fan2_index(const struct gaussian *g, unsigned what, uint64_t x, uint64_t y,
                           uint32_t t)
{
    uint64_t s = g->size;
    switch (what) {
    case F2_M_XT: return s * (x + 1 + t) + t;
    case F2_A_T: return s * t + y + t;
    case F2_A_XY: return s * (x + 1 + t) + y + t;
    case F2_B_T: return t;
    default: return x + 1 + t; /* F2_B_X */
    }
}

static void fan2_mem(struct kernel_warp *w, struct kernel_op *op, uint8_t kind,
                     const struct kernel_buf *buf, unsigned what, uint64_t mask, uint8_t reg)
{
    const struct gaussian *g = w->k->ctx;
    uint32_t t = (uint32_t)w->k->p[0];
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint64_t x = (uint64_t)w->wg_id.x * g->bxy + dn_tx(w, l);
        uint64_t y = (uint64_t)w->wg_id.y * g->bxy + dn_ty(w, l);
        w->lane_addr[l] = buf->base + fan2_index(g, what, x, y, t) * 4;
    }
    dn_lanes(op, kind, mask, reg);
}

/* ALU counts from the kernel's PTX (see the file header): the x bounds
 * test 13 (parameters, ids), in warps that pass it the y test 7; in warps
 * with an active lane the addresses of m and a[t] 10, then the multiply and
 * a's own address 5, the subtract 1; the yidx == 0 test 2; in the lanes
 * with y == 0 the addresses of m and b (4, counted with the multiply) and
 * the multiply with b[x]'s address 3, the subtract 1. m is reloaded for b's
 * update because the store to a may alias it (no __restrict__). */
static void fan2_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct gaussian *g = k->ctx;
    uint32_t t = (uint32_t)k->p[0];
    uint64_t all = fan2_mask(g, w, t, false), b0 = 0;
    if (w->pc >= 9 && w->pc < 15)
        b0 = fan2_mask(g, w, t, true);
    switch (w->pc++) {
    case 0: { /* the two bounds tests: return */
        bool xin = false; /* some lane passes the x test: the warp runs the y test */
        for (unsigned l = 0; l < w->nlanes; l++)
            xin |= (uint64_t)w->wg_id.x * g->bxy + dn_tx(w, l) < g->size - 1u - t;
        if (!all)
            w->pc = 15;
        dn_alu(op, xin ? 20 : 13, 0, 0);
        break;
    }
    case 1:
        dn_alu(op, 10, 0, 0);
        break;
    case 2: /* a[Size (x+1+t) + y+t] -= m[Size (x+1+t) + t] * a[Size t + y+t] */
        fan2_mem(w, op, KOP_LOAD, g->m, F2_M_XT, all, 1);
        break;
    case 3:
        fan2_mem(w, op, KOP_LOAD, g->a, F2_A_T, all, 2);
        break;
    case 4:
        fan2_mem(w, op, KOP_LOAD, g->a, F2_A_XY, all, 3);
        break;
    case 5:
        dn_alu(op, 5, 1, 2);
        break;
    case 6:
        dn_alu(op, 1, 3, 0);
        break;
    case 7:
        fan2_mem(w, op, KOP_STORE, g->a, F2_A_XY, all, 0);
        break;
    case 8: /* if (yidx == 0) */
        if (!fan2_mask(g, w, t, true))
            w->pc = 15;
        dn_alu(op, 2, 0, 0);
        break;
    case 9: /* b[x+1+t] -= m[Size (x+1+t) + y+t] * b[t] */
        fan2_mem(w, op, KOP_LOAD, g->m, F2_M_XT, b0, 1);
        break;
    case 10:
        fan2_mem(w, op, KOP_LOAD, g->b, F2_B_T, b0, 2);
        break;
    case 11:
        fan2_mem(w, op, KOP_LOAD, g->b, F2_B_X, b0, 3);
        break;
    case 12:
        dn_alu(op, 7, 1, 2);
        break;
    case 13:
        dn_alu(op, 1, 3, 0);
        break;
    case 14:
        fan2_mem(w, op, KOP_STORE, g->b, F2_B_X, b0, 0);
        break;
    default:
        w->pc = 15;
        op->kind = KOP_EXIT;
    }
}

/* ---- ranges ---------------------------------------------------------------- */

/* Fan1 work-group wg: a[t][t] and the column t elements of its rows (one
 * span from the first to the last: one element per row), m's likewise. */
static void fan1_ranges(const struct gaussian *g, uint32_t wg, const struct kernel_buf *buf,
                        uint32_t t, struct range_list *r)
{
    uint64_t lim = g->size - 1u - t, i0 = (uint64_t)wg * g->block;
    uint64_t i1 = min_u64(i0 + g->block, lim), s = g->size;
    if (i0 >= lim)
        return;
    if (buf == g->a)
        range_list_add(r, buf->base + (s * t + t) * 4, buf->base + (s * t + t + 1) * 4);
    range_list_add(r, buf->base + (s * (i0 + t + 1) + t) * 4,
                   buf->base + (s * (i1 + t) + t + 1) * 4);
}

/* Fan2 work-group (gx, gy): the rows and columns of its active threads. */
static void fan2_ranges(const struct gaussian *g, uint32_t wg, const struct kernel_buf *buf,
                        uint32_t t, struct range_list *r)
{
    uint64_t s = g->size, gx = wg % g->grid2, gy = wg / g->grid2;
    uint64_t x0 = gx * g->bxy, x1 = min_u64(x0 + g->bxy, s - 1 - t);
    uint64_t y0 = gy * g->bxy, y1 = min_u64(y0 + g->bxy, s - t);
    if (x0 >= x1 || y0 >= y1)
        return;
    if (buf == g->m) {
        range_list_rows(r, buf->base, s, 4, x0 + 1 + t, x1 + 1 + t, t, t + 1);
    } else if (buf == g->a) {
        range_list_rows(r, buf->base, s, 4, t, t + 1, y0 + t, y1 + t);
        range_list_rows(r, buf->base, s, 4, x0 + 1 + t, x1 + 1 + t, y0 + t, y1 + t);
    } else if (y0 == 0) {
        range_list_add(r, buf->base + t * 4, buf->base + (t + 1) * 4);
        range_list_add(r, buf->base + (x0 + 1 + t) * 4, buf->base + (x1 + 1 + t) * 4);
    }
}

static unsigned gaussian_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                                struct addr_range *out, unsigned max)
{
    if (arg >= k->nargs)
        return 0;
    const struct gaussian *g = k->ctx;
    const struct kernel_buf *buf = k->args[arg].buf;
    struct range_list r;
    range_list_init(&r, out, max, DN_GAP_B);
    if (k->next == fan1_next)
        fan1_ranges(g, wg, buf, (uint32_t)k->p[0], &r);
    else
        fan2_ranges(g, wg, buf, (uint32_t)k->p[0], &r);
    return range_list_done(&r, buf->base);
}

/* Kernel 2t is Fan1 of row t, 2t+1 its Fan2. */
static bool gaussian_next_kernel(void *self, struct kernel *k)
{
    struct gaussian *g = self;
    uint32_t t = g->kernels / 2;
    if (t >= g->size - 1)
        return false;
    if (g->kernels++ % 2 == 0) {
        wl_kernel_init(k, "Fan1", g->grid1, 1, g->block, 1, fan1_next);
        wl_kernel_arg(k, g->m, KERNEL_RW);
        wl_kernel_arg(k, g->a, KERNEL_R);
    } else {
        wl_kernel_init(k, "Fan2", g->grid2, g->grid2, g->bxy, g->bxy, fan2_next);
        wl_kernel_arg(k, g->m, KERNEL_R);
        wl_kernel_arg(k, g->a, KERNEL_RW);
        wl_kernel_arg(k, g->b, KERNEL_RW);
    }
    k->p[0] = t;
    k->ranges = gaussian_ranges;
    k->ctx = g;
    return true;
}

static const char *const gaussian_small[] = {"size=30", NULL};

const struct wl_ops wl_gaussian = {
    .name = "gaussian",
    .suite = "Rodinia",
    .desc = "Rodinia gaussian: forward elimination, Fan1 and Fan2 kernels per row",
    .keys = gaussian_keys,
    .small = gaussian_small,
    .create = gaussian_create,
    .next_kernel = gaussian_next_kernel,
    .destroy = gaussian_destroy,
};
