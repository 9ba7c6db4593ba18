/*
 * dense.c -- see dense.h.
 */
#include "workload/rodinia/dense.h"

void dn_alu(struct kernel_op *op, uint32_t n, uint8_t s0, uint8_t s1)
{
    op->kind = KOP_ALU;
    op->n = n;
    op->src[0] = s0;
    op->src[1] = s1;
}

void dn_lanes(struct kernel_op *op, uint8_t kind, uint64_t mask, uint8_t reg)
{
    BUG_ON(!mask); /* 0 would mean every lane: callers skip ops with no active lane */
    op->kind = kind;
    op->size = 4;
    op->lanes = true;
    op->mask = mask;
    if (kind == KOP_LOAD || kind == KOP_LDS_LOAD)
        op->dst = reg;
    else
        op->src[0] = reg;
}

void dn_barrier(struct kernel_op *op)
{
    op->kind = KOP_BARRIER;
}
