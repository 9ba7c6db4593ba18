/*
 * rod2.h -- small helpers shared by the Rodinia low-reuse models (btree,
 * dwt2d, nw, pathfinder, srad-v2): lane masks from thread-index intervals,
 * op builders, and clipped element spans for per-work-group ranges (a
 * struct range_list, base/range.h).
 *
 * The op builders fill one kernel_op; the generators stay readable state
 * machines that call them.
 */
#ifndef CHIPSIM_ROD2_H
#define CHIPSIM_ROD2_H

#include "workload/wl.h"

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

/* Element range [first, last] of an array of `elem` bytes at base, clipped to
 * [0, count). */
static inline void rod2_elems(struct range_list *r, addr_t base, uint32_t elem, int64_t first,
                              int64_t last, int64_t count)
{
    if (first < 0)
        first = 0;
    if (last >= count)
        last = count - 1;
    if (first <= last)
        range_list_add(r, base + (addr_t)first * elem, base + (addr_t)(last + 1) * elem);
}

#endif
