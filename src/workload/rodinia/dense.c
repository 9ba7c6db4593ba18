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

void dn_ranges_init(struct dn_ranges *r, struct kernel_range *out, unsigned max)
{
    *r = (struct dn_ranges){.v = out, .max = max};
}

void dn_range(struct dn_ranges *r, addr_t lo, addr_t hi)
{
    if (lo >= hi || r->over)
        return;
    BUG_ON(r->n && lo < r->v[r->n - 1].lo); /* callers append in ascending order */
    if (r->n && lo < r->v[r->n - 1].hi + DN_GAP_B) {
        struct kernel_range *last = &r->v[r->n - 1];
        last->hi = max_u64(last->hi, hi);
        return;
    }
    if (r->n == r->max) {
        r->over = true;
        return;
    }
    r->v[r->n++] = (struct kernel_range){lo, hi};
}

void dn_rows(struct dn_ranges *r, addr_t base, uint64_t pitch, uint64_t r0, uint64_t r1,
             uint64_t c0, uint64_t c1)
{
    if (c0 >= c1)
        return;
    for (uint64_t row = r0; row < r1; row++)
        dn_range(r, base + (row * pitch + c0) * 4, base + (row * pitch + c1) * 4);
}

unsigned dn_ranges_done(struct dn_ranges *r, addr_t base)
{
    if (r->over)
        return 0;
    if (!r->n && r->max) {
        r->v[0] = (struct kernel_range){base, base};
        return 1;
    }
    return r->n;
}
