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

/* Criterion checks on a model (tests of the benchmark library). */
/* Open w at its small size plus the extra INI lines; asserts it opens (4
 * chiplets, 8 CUs). */
void wlh_open_small(struct wlh *h, const struct wl_ops *w, const char *extra);
/* The same on a machine whose 4 chiplets form `gpus` GPUs. */
void wlh_open_small_gpus(struct wlh *h, const struct wl_ops *w, const char *extra,
                         unsigned gpus);
/* w refuses the INI text with exactly this message. */
void wlh_expect_error(const struct wl_ops *w, const char *ini, const char *want);
/* The next kernel: its name, grid and block (x, y), and its argument modes
 * as a string of 'R' and 'W'. */
void wlh_next_kernel(struct wlh *h, struct kernel *k, const char *name, uint32_t gx,
                     uint32_t gy, uint32_t bx, uint32_t by, const char *modes);
/* No kernel is left, and none failed. */
void wlh_no_more(struct wlh *h);
/* The warp's next op is ALU n. */
void wlh_expect_alu(const struct kernel *k, struct kernel_warp *w, uint32_t n);

#endif
