/*
 * wl_harness.h -- driving a workload model's generators directly in tests.
 */
#ifndef CHIPSIM_TEST_WL_HARNESS_H
#define CHIPSIM_TEST_WL_HARNESS_H

#include "gpu/kernel.h"

/* Warp `warp` of work-group `wg` of kernel k, 64 lanes, fresh generator state. */
void wlh_warp_at(struct kernel_warp *w, const struct kernel *k, uint32_t wg, uint32_t warp);
/* The warp's next op. */
struct kernel_op wlh_step(const struct kernel *k, struct kernel_warp *w);

#endif
