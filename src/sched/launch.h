/*
 * launch.h -- what work-group scheduling and page placement policies see of
 * a kernel launch: its number and name, its grid and work-group shape, and
 * the buffers it declares (the kernel's arguments, each a page-aligned
 * allocation of the workload API). The command processor (gpu/cp.c) fills
 * it from struct kernel, so policies depend on nothing above this layer.
 * A policy that needs more of the workload (LADM's per-argument locality
 * table, spec ladm.md 3) finds the workload's own data in `ctx`.
 */
#ifndef CHIPSIM_SCHED_LAUNCH_H
#define CHIPSIM_SCHED_LAUNCH_H

#include "base/base.h"

#define SCHED_MAX_BUFS 16

struct sched_dim {
    uint32_t x, y, z;
};

/* One buffer a kernel declares: [base, base + size). */
struct sched_buf {
    const char *name;
    addr_t base;
    uint64_t size;
    bool write;               /* the kernel may write it */
};

struct sched_launch {
    unsigned id;              /* dynamic kernel number, from 0 */
    const char *name;
    struct sched_dim grid;    /* work-groups; linear id = x + y*gx + z*gx*gy */
    struct sched_dim block;   /* work-items per work-group */
    unsigned nbufs;
    struct sched_buf bufs[SCHED_MAX_BUFS];
    const void *ctx;          /* the workload's data for this kernel (kernel.ctx) */
};

static inline uint32_t sched_nwg(const struct sched_launch *l)
{
    return l->grid.x * l->grid.y * l->grid.z;
}

#endif
