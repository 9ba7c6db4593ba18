/*
 * wl_harness.h -- driving a workload model's generators directly in tests.
 */
#ifndef CHIPSIM_TEST_WL_HARNESS_H
#define CHIPSIM_TEST_WL_HARNESS_H

#include "gpu/kernel.h"
#include "workload/wl.h"

/* Warp `warp` of work-group `wg` of kernel k, 64 lanes, fresh generator state. */
void wlh_warp_at(struct kernel_warp *w, const struct kernel *k, uint32_t wg, uint32_t warp);
/* The warp's next op; a memory op's lane addresses are in w->lane_addr
 * however the op gives them (base and stride, or per lane). */
struct kernel_op wlh_step(const struct kernel *k, struct kernel_warp *w);

/* A workload model created outside any machine. */
struct wlh {
    struct cfg cfg;
    struct wl_env env;
    const struct wl_ops *ops;
    void *self;
    struct err e;
};

/* Create w from INI text (a [workload] section) as for a machine of nch
 * chiplets and ncus CUs with 64-lane warps; NULL, with the message in h->e,
 * if the configuration or the model rejects it. Close it either way. */
void *wlh_try(struct wlh *h, const struct wl_ops *w, const char *ini, unsigned nch,
              unsigned ncus);
/* The same with warps of warp_size lanes. */
void *wlh_try_ws(struct wlh *h, const struct wl_ops *w, const char *ini, unsigned nch,
                 unsigned ncus, unsigned warp_size);
void wlh_close(struct wlh *h);

#endif
