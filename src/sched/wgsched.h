/*
 * wgsched.h -- which chiplet runs each work-group of a kernel.
 *
 * `static` (spec cpelide 2.3, the artifact's kernel-wide partitioning): the
 * linear work-group ids are cut into one contiguous block per chiplet used,
 * chiplet c (0-based) taking floor(N/k) + (c < N mod k ? 1 : 0) ids, blocks
 * in chiplet order. `round_robin`: work-group i goes to chiplet i mod k.
 * Within a chiplet the local command processor hands work-groups to its
 * CUs round-robin (gpu/cp.c).
 */
#ifndef CHIPSIM_WGSCHED_H
#define CHIPSIM_WGSCHED_H

#include "base/base.h"

enum wgs_policy { WGS_STATIC, WGS_ROUND_ROBIN };

/* Iteration over the work-groups a chiplet receives, in dispatch order. */
struct wgs_iter {
    uint32_t next, end, step;
};

/* Work-groups of chiplet index c among k chiplets used, for n work-groups. */
struct wgs_iter wgs_chiplet(enum wgs_policy p, uint32_t n, unsigned k, unsigned c);
static inline bool wgs_more(const struct wgs_iter *it) { return it->next < it->end; }
static inline uint32_t wgs_take(struct wgs_iter *it)
{
    uint32_t wg = it->next;
    it->next += it->step;
    return wg;
}
static inline uint32_t wgs_count(const struct wgs_iter *it)
{
    return it->next >= it->end ? 0 : (it->end - it->next + it->step - 1) / it->step;
}

#endif
