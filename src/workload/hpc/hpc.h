/*
 * hpc.h -- host code shared by the HPC applications of HMG's evaluation
 * (cusolver.c, comd.c, hpgmg.c, miniamr.c): the launch list a model builds
 * at setup (a multigrid's cycle, a stage's exchanges and sweeps) and the
 * face lists of a ghost-cell exchange between the boxes (blocks) of a
 * regular grid of them.
 */
#ifndef CHIPSIM_HPC_H
#define CHIPSIM_HPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One launch of a model's run: its kernel and two arguments (a level, a
 * colour or a direction). */
struct hpc_step {
    uint8_t k, a, b;
};

struct hpc_plan {
    struct hpc_step *s;
    uint64_t n;
    size_t cap;
};

void hpc_plan_push(struct hpc_plan *p, unsigned k, unsigned a, unsigned b);
void hpc_plan_free(struct hpc_plan *p);

/* A grid of n[0] x n[1] x n[2] boxes (box b = x + n0 (y + n1 z)), each
 * stored from element base + b * bv with one ghost layer: d[a] interior
 * cells along axis a, element stride st[a]. */
struct hpc_boxes {
    uint32_t n[3], d[3];
    uint64_t base, bv, st[3];
};

/* The faces of direction dir (0..2): for each box and side (low, high), the
 * element of cell (0, 0) of the face's ghost plane (dst) and of the plane
 * it is copied from (src): the neighbour's last (low side) or first (high
 * side) interior plane. At the grid's edge: with `edges`, the box's own
 * first or last interior plane (a Dirichlet boundary filled in the same
 * kernel), else no face. Faces in (box, side) order; returns how many
 * (src and dst hold room for 2 n[0] n[1] n[2]). A face's other cells are
 * reached from cell (0, 0) by the strides of the other two axes. */
uint32_t hpc_faces(const struct hpc_boxes *g, unsigned dir, bool edges, uint32_t *src,
                   uint32_t *dst);

#endif
