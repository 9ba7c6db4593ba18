/*
 * hpc.c -- see hpc.h.
 */
#include "workload/hpc/hpc.h"

#include <stdlib.h>

#include "base/base.h"

void hpc_plan_push(struct hpc_plan *p, unsigned k, unsigned a, unsigned b)
{
    p->s = xgrow(p->s, sizeof *p->s, &p->cap, p->n + 1);
    p->s[p->n++] = (struct hpc_step){(uint8_t)k, (uint8_t)a, (uint8_t)b};
}

void hpc_plan_free(struct hpc_plan *p)
{
    free(p->s);
    *p = (struct hpc_plan){0};
}

uint32_t hpc_faces(const struct hpc_boxes *g, unsigned dir, bool edges, uint32_t *src,
                   uint32_t *dst)
{
    uint64_t st = g->st[dir], uv = 0;
    for (unsigned a = 0; a < 3; a++)
        uv += a == dir ? 0 : g->st[a];
    uint32_t stride = dir == 0 ? 1 : dir == 1 ? g->n[0] : g->n[0] * g->n[1];
    uint32_t nbox = g->n[0] * g->n[1] * g->n[2], d = g->d[dir], nf = 0;
    for (uint32_t b = 0; b < nbox; b++)
        for (unsigned s = 0; s < 2; s++) {
            uint32_t c = b / stride % g->n[dir];
            bool edge = s ? c + 1 == g->n[dir] : c == 0;
            if (edge && !edges)
                continue;
            uint32_t nb = edge ? b : s ? b + stride : b - stride;
            uint64_t plane = edge ? (s ? d : 1) : (s ? 1 : d);
            src[nf] = (uint32_t)(g->base + nb * g->bv + uv + plane * st);
            dst[nf++] = (uint32_t)(g->base + b * g->bv + uv + (s ? d + 1 : 0) * st);
        }
    return nf;
}
