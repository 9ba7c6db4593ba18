/*
 * dense.h -- helpers shared by the Rodinia dense-kernel models (backprop,
 * gaussian, hotspot, hotspot3d, lud): building warp operations whose lane
 * addresses the models compute per thread (w->lane_addr), lane masks from
 * per-thread predicates, and per-work-group range lists for row-major
 * float matrices.
 *
 * Ranges: a list is built in ascending address order; a piece that starts
 * less than DN_GAP_B bytes after the previous one ends is merged into it, so
 * no 64-byte line holds bytes of two separate ranges (the annotation
 * checker tests each line access against one range). A list longer than the
 * caller's maximum makes the builder report "unknown" (0).
 */
#ifndef CHIPSIM_RODINIA_DENSE_H
#define CHIPSIM_RODINIA_DENSE_H

#include "workload/wl.h"

#define DN_GAP_B 64 /* merge distance of range pieces: the line size of every config */

/* The first n lanes. */
static inline uint64_t dn_first(unsigned n)
{
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* Thread coordinates of lane l in the work-group (CUDA linearisation:
 * tid = x + y * blockDim.x). */
static inline uint32_t dn_tx(const struct kernel_warp *w, unsigned l)
{
    return kernel_tid(w, l) % w->k->block.x;
}
static inline uint32_t dn_ty(const struct kernel_warp *w, unsigned l)
{
    return kernel_tid(w, l) / w->k->block.x % w->k->block.y;
}

/* n instructions of compute that wait for registers s0 and s1 (0: none). */
void dn_alu(struct kernel_op *op, uint32_t n, uint8_t s0, uint8_t s1);
/* A 4-byte access of the lanes in mask (not 0) at w->lane_addr: global
 * (KOP_LOAD, KOP_STORE) or LDS (KOP_LDS_LOAD, KOP_LDS_STORE). reg is the
 * destination of a load or the source register of a store (0: none). */
void dn_lanes(struct kernel_op *op, uint8_t kind, uint64_t mask, uint8_t reg);
void dn_barrier(struct kernel_op *op);

struct dn_ranges {
    struct kernel_range *v;
    unsigned n, max;
    bool over; /* more pieces than max */
};

void dn_ranges_init(struct dn_ranges *r, struct kernel_range *out, unsigned max);
/* Append [lo, hi) (ascending order; empty pieces are ignored). */
void dn_range(struct dn_ranges *r, addr_t lo, addr_t hi);
/* Append columns [c0, c1) of rows [r0, r1) of a row-major matrix of 4-byte
 * elements with `pitch` elements per row, at base. */
void dn_rows(struct dn_ranges *r, addr_t base, uint64_t pitch, uint64_t r0, uint64_t r1,
             uint64_t c0, uint64_t c1);
/* The number of ranges, 0 (unknown: the whole structure) after an overflow.
 * A work-group that touches nothing of the structure gets the one empty
 * range [base, base), so the whole structure is not assumed. */
unsigned dn_ranges_done(struct dn_ranges *r, addr_t base);

#endif
