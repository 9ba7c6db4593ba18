/*
 * lulesh.h -- what lulesh.c (mesh, buffers, launches) and lulesh_wg.c (the
 * kernels whose threads work together through LDS, as kernel descriptions)
 * share.
 */
#ifndef CHIPSIM_CORAL2_LULESH_H
#define CHIPSIM_CORAL2_LULESH_H

#include "workload/kdw.h"

/* The hourglass kernels: [0] where the elements fill every work-group, [1]
 * where the last one's threads past the last element take it (@elc). */
extern const struct kd_desc lulesh_hg_control_kd[2], lulesh_fb_hourglass_kd[2];
extern const struct kd_desc lulesh_courant_kd, lulesh_hydro_kd;

/* The hexahedron's neighbour nodes of each node (@nbn, 48 entries). */
extern const uint32_t lulesh_nb_node[48];

#define LULESH_SW_BITS 7 /* bits of the switch's count per warp */
#define LULESH_SETS 7    /* node sets of the hourglass sign tests */

/* The hourglass kernels' host tables for a block of `block` threads (E x 8)
 * and warps of `warp`: sw[b * block + t] bit b of the instructions the
 * switch of CalcElemVolumeDerivative adds for the warp whose first thread is
 * t (0 at the other threads), sets[8 k + n] whether node n is in sign set k. */
void lulesh_hg_tables(uint32_t block, unsigned warp, uint32_t *sw, uint32_t *sets);

#endif
