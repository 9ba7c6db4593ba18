/*
 * dense.h -- helpers shared by the Rodinia dense-kernel models (backprop,
 * gaussian, hotspot, hotspot3d, lud): building warp operations whose lane
 * addresses the models compute per thread (w->lane_addr) and lane masks from
 * per-thread predicates.
 *
 * Ranges: each model lists a work-group's pieces of its row-major float
 * matrices in a struct range_list (base/range.h) that joins pieces less than
 * DN_GAP_B bytes apart, so no 64-byte line holds bytes of two separate
 * ranges (the annotation checker tests each line access against one range).
 */
#ifndef CHIPSIM_RODINIA_DENSE_H
#define CHIPSIM_RODINIA_DENSE_H

#include "workload/wl.h"

#define DN_GAP_B 64 /* join distance of range pieces: the line size of every config */

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

#endif
