/*
 * bh_tree.h -- the host side of the Barnes-Hut model (barnes_hut.c): the
 * bodies, the octree built from them each time step, its centres of mass,
 * the bodies' tree order, and what the GPU kernels' data-dependent reads
 * find: each body's descent when it is inserted, each cell's children, and
 * each warp's walk of the tree in the force kernel (Burtscher and
 * Pingali's warp-synchronous traversal: a cell is opened unless it is far
 * enough for every body of the warp). The forces from that walk advance the
 * bodies, so the next step's tree follows the motion.
 */
#ifndef CHIPSIM_WL_BH_TREE_H
#define CHIPSIM_WL_BH_TREE_H

#include "base/base.h"

#define BH_WARP 32     /* bodies that walk the tree together */
#define BH_MAX_DEPTH 48

/* One examined child in a warp's walk. */
enum bh_act { BH_EMPTY, BH_USE, BH_OPEN };

struct bh_tree {
    uint32_t nb, cap, ncells;       /* bodies; cell slots; cells in this step's tree */
    float *x, *y, *z, *m;           /* [nb + cap]: bodies, then cells (node nb + k) */
    float *vx, *vy, *vz, *ax, *ay, *az; /* [nb] */
    uint32_t *count;                /* [nb + cap]: bodies below */
    int32_t *child;                 /* [8 * cap]: -1 none, else a node */
    float rootdiam;
    /* the kernels' reads */
    uint32_t dmax;                  /* descent slots per body (padded) */
    uint32_t *dep, *path, *leaf, *nsub; /* per body: its descent's slots, the slot it locks,
                                           the cells it adds */
    uint32_t *cn;                   /* [8 * cap]: child node + 1 (0: none) */
    uint32_t *sp;                   /* [8 * cap]: a body child's place in tree order */
    uint32_t *sorted;               /* [nb]: the bodies in tree order */
    uint32_t nwarps, len;           /* warps of the force kernel (whole work-groups of 8: the
                                       last may have none); events per warp (padded) */
    uint32_t *ne;                   /* [nwarps]: events of each warp's walk */
    uint32_t *es, *en, *ea, *ed;    /* [nwarps * len]: the slot read, its node + 1 (0:
                                       none), enum bh_act, the stack depth */
    size_t ev_cap;
};

/* nb bodies of a Plummer sphere from seed. */
void bh_init(struct bh_tree *t, uint32_t nb, uint64_t seed);
/* One time step's tree and reads; then the forces and the move by dt. */
void bh_step(struct bh_tree *t, float dt);
void bh_free(struct bh_tree *t);

#endif
