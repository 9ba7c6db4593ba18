/*
 * rod2.h -- small helpers shared by the Rodinia low-reuse models (btree,
 * dwt2d, nw, pathfinder, srad-v2): lane masks from thread-index intervals,
 * op builders, and an accumulator for per-work-group byte ranges.
 *
 * The op builders fill one kernel_op; the generators stay readable state
 * machines that call them. A range accumulator merges touching ranges and,
 * when more ranges would be needed than the caller allows, degrades to the
 * single span that covers them all (a conservative superset, still a valid
 * annotation) instead of "unknown".
 */
#ifndef CHIPSIM_ROD2_H
#define CHIPSIM_ROD2_H

#include "workload/wl.h"

/* Lanes [0, nlanes) of the warp. */
static inline uint64_t rod2_all(const struct kernel_warp *w)
{
    return w->nlanes >= 64 ? ~0ull : (1ull << w->nlanes) - 1;
}

/* Lanes whose work-group thread index (warp * warp_size + lane) is in [lo, hi]. */
static inline uint64_t rod2_tid_mask(const struct kernel_warp *w, int64_t lo, int64_t hi)
{
    int64_t t0 = (int64_t)w->warp * w->warp_size;
    int64_t a = lo - t0, b = hi - t0;
    if (a < 0)
        a = 0;
    if (b >= (int64_t)w->nlanes)
        b = (int64_t)w->nlanes - 1;
    if (a > b)
        return 0;
    uint64_t upto = b >= 63 ? ~0ull : (1ull << (b + 1)) - 1;
    return upto & ~((1ull << a) - 1);
}

/* A global or LDS access: lane l at base + l * stride (mask 0 is never
 * passed: callers skip ops without active lanes). */
static inline void rod2_mem(struct kernel_op *op, uint8_t kind, addr_t base, int64_t stride,
                            uint8_t size, uint64_t mask)
{
    op->kind = kind;
    op->base = base;
    op->stride = stride;
    op->size = size;
    op->mask = mask;
}

/* The same with per-lane addresses (already in w->lane_addr). */
static inline void rod2_mem_lanes(struct kernel_op *op, uint8_t kind, uint8_t size, uint64_t mask)
{
    op->kind = kind;
    op->lanes = true;
    op->size = size;
    op->mask = mask;
}

static inline void rod2_alu(struct kernel_op *op, uint32_t n, uint8_t src0, uint8_t src1)
{
    op->kind = KOP_ALU;
    op->n = n;
    op->src[0] = src0;
    op->src[1] = src1;
}

/* Per-work-group ranges of one argument. */
struct rod2_rg {
    struct kernel_range *v;
    unsigned n, max;
    bool over;
    addr_t lo, hi; /* span of everything added */
};

static inline void rod2_rg_init(struct rod2_rg *r, struct kernel_range *out, unsigned max)
{
    *r = (struct rod2_rg){.v = out, .max = max, .lo = ~(addr_t)0};
}

static inline void rod2_rg_add(struct rod2_rg *r, addr_t lo, addr_t hi)
{
    if (lo >= hi)
        return;
    r->lo = lo < r->lo ? lo : r->lo;
    r->hi = hi > r->hi ? hi : r->hi;
    struct kernel_range *last = r->n ? &r->v[r->n - 1] : NULL;
    if (last && lo <= last->hi && hi >= last->lo) {
        last->lo = lo < last->lo ? lo : last->lo;
        last->hi = hi > last->hi ? hi : last->hi;
    } else if (r->n < r->max) {
        r->v[r->n++] = (struct kernel_range){lo, hi};
    } else {
        r->over = true;
    }
}

/* The count to return from a ranges callback; a work-group that touches
 * nothing declares one empty range at `base`. */
static inline unsigned rod2_rg_done(struct rod2_rg *r, addr_t base)
{
    if (!r->max)
        return 0;
    if (r->over) {
        r->v[0] = (struct kernel_range){r->lo, r->hi};
        return 1;
    }
    if (!r->n)
        r->v[r->n++] = (struct kernel_range){base, base};
    return r->n;
}

/* Element range [first, last] of an array of `elem` bytes at base, clipped to
 * [0, count). */
static inline void rod2_rg_elems(struct rod2_rg *r, addr_t base, uint32_t elem, int64_t first,
                                 int64_t last, int64_t count)
{
    if (first < 0)
        first = 0;
    if (last >= count)
        last = count - 1;
    if (first <= last)
        rod2_rg_add(r, base + (addr_t)first * elem, base + (addr_t)(last + 1) * elem);
}

#endif
