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

/* Spec ladm.md Table 3.2: how the work-groups of a kernel share a buffer,
 * by the row of the table (1 .. 7); SCHED_LOC_UNKNOWN where the workload
 * gives no index analysis (a trace, a hand-written generator) or the kernel
 * never names the buffer. */
enum sched_loc {
    SCHED_LOC_UNKNOWN,
    SCHED_LOC_NL,     /* 1: no datablock locality */
    SCHED_LOC_ROW_H,  /* 2: row locality, horizontally shared */
    SCHED_LOC_COL_H,  /* 3: column locality, horizontally shared */
    SCHED_LOC_ROW_V,  /* 4: row locality, vertically shared */
    SCHED_LOC_COL_V,  /* 5: column locality, vertically shared */
    SCHED_LOC_ITL,    /* 6: intra-thread locality */
    SCHED_LOC_UNCL,   /* 7: unclassified */
};

/* One row of LADM's locality table (spec ladm.md 3), for one buffer of one
 * launch: its class and the sizes LASP's equations need. */
struct sched_locality {
    uint8_t loc;      /* enum sched_loc */
    uint8_t elem_b;   /* bytes per element of the accesses that decide it (0: unknown) */
    int64_t stride_b; /* the motion per iteration of the outermost loop, bytes (0: none) */
    int64_t row_b;    /* the width of one of its rows, bytes (0: unknown) */
    int64_t block_b;  /* from one work-group's datablock to the next one's (in id order),
                         bytes (0: unknown) */
    int64_t offset_b; /* where work-group 0's first datablock starts in the buffer, bytes */
};

struct sched_dim {
    uint32_t x, y, z;
};

/* One buffer a kernel declares: [base, base + size). */
struct sched_buf {
    const char *name;
    addr_t base;
    uint64_t size;
    bool write;               /* the kernel may write it */
    struct sched_locality loc;
};

struct sched_launch {
    unsigned id;              /* dynamic kernel number, from 0 */
    const char *name;
    struct sched_dim grid;    /* work-groups; linear id = x + y*gx + z*gx*gy */
    struct sched_dim block;   /* work-items per work-group */
    uint64_t page_b;          /* the machine's page size ([place] page_b) */
    uint64_t unit_b;          /* the placement's interleave unit ([place] interleave_b, else
                                 the page) */
    unsigned nbufs;
    struct sched_buf bufs[SCHED_MAX_BUFS];
    const void *ctx;          /* the workload's data for this kernel (kernel.ctx) */
};

static inline uint32_t sched_nwg(const struct sched_launch *l)
{
    return l->grid.x * l->grid.y * l->grid.z;
}

#endif
