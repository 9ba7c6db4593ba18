/*
 * sample.h -- kernel sampling (docs/sampling.md): the kernels of a run are
 * grouped by signature (name, grid, block and the data structures passed);
 * each group's first kernels and then periodic ones run in detail (every
 * n-th, the gap doubling while their estimates hold), optionally with the
 * kernels just before them (sample.warm: a detailed kernel then starts from
 * the caches and directories a timed kernel leaves, not a functional pass;
 * which kernel comes next is predicted by the order of groups last seen), and
 * the others run only functionally (cu_func_dispatch, cu_func_round): their
 * accesses pass through the caches, the directories, memory and the checker
 * at once, so every later kernel starts from the caches, directories and
 * versions an execution of them leaves, and the time they would take is
 * estimated from the group's detailed kernels
 * (run time = a + b x warp instructions, least squares over its latest
 * detailed kernels). Each detailed kernel is predicted before it runs; the
 * errors of those predictions give the estimate's error, and a group whose
 * last prediction missed, or whose work moved beyond what was measured,
 * runs in detail again.
 *
 * Approximate (docs/sampling.md): a skipped kernel's run time, and what only
 * timing decides in it (the order of its accesses and so its hits and MSHR
 * merges, DRAM row hits, the occupancy of links, ports and banks).
 */
#ifndef CHIPSIM_SAMPLE_H
#define CHIPSIM_SAMPLE_H

#include "config/cfg.h"
#include "engine/sim.h"
#include "gpu/kernel.h"
#include "stats/stats.h"

struct sample_params {
    bool on;
    uint32_t first; /* kernels of each group run in detail before any is skipped */
    uint32_t every; /* after them, one kernel in `every` runs in detail, at first; */
    uint32_t backoff; /* the gap doubles after each that was estimated within
                         tolerance, up to backoff x every, and falls back to every after
                         a miss (0 or 1: a fixed gap; every = 1: all in detail) */
    double reach;   /* and so does one whose group's last kernel ran more than this fraction
                       beyond the instruction counts the estimate was fitted on */
    double tolerance; /* and every one while the last checked missed by more than this */
    uint32_t warm;  /* a kernel also runs in detail when one of the next `warm` kernels
                       will, by the order of groups last seen (0: none) */
};

extern const struct cfg_key sample_keys[];
int sample_params_from_cfg(const struct cfg_sec *sec, struct sample_params *p, struct err *e);

#define SAMPLE_WINDOW 4 /* the latest detailed kernels a group's estimate is fitted on */
#define SAMPLE_WARM_MAX 16 /* the most kernels sample.warm looks ahead */

struct sample_group {
    uint64_t sig;
    uint32_t seen;     /* kernels of the group so far */
    uint32_t gap;      /* kernels from one periodic detailed kernel to the next */
    uint32_t due;      /* the index in the group of the next periodic one */
    bool due_now;      /* the kernel running now is periodic */
    bool sync;         /* its work-groups synchronize with each other: never skipped */
    bool have0;        /* its first kernel ran (x0, y0: it finds its data cold, so it is
                          fitted on only while it is the only one) */
    uint32_t succ;     /* the group (+1) of the kernel that followed its last one (0: none) */
    uint64_t last;     /* warp instructions of its last kernel */
    double miss;       /* relative error of the estimate of its last kernel checked */
    uint64_t x0;
    ps_t y0;
    uint64_t x[SAMPLE_WINDOW]; /* warp instructions and run ps of its latest detailed */
    ps_t y[SAMPLE_WINDOW];     /* kernels after the first, n of them, the next at next */
    unsigned n, next;
};

struct sample {
    struct sample_params p;
    uint32_t max_gap; /* of the periodic kernels: every x backoff */
    struct sample_group *g;
    size_t ng, cap;
    uint32_t prev;    /* the group (+1) of the last kernel (0: none yet) */
    struct {
        uint64_t groups, detailed, skipped;
        uint64_t warmed;         /* of the detailed: run so only because a kernel after
                                    them will be (sample.warm) */
        uint64_t skipped_insts;  /* warp instructions of the skipped kernels */
        uint64_t skipped_ps;     /* their estimated run time */
        uint64_t drain_ps;       /* of it, the time from their dispatch until the traffic
                                    of the kernel before them had drained */
        uint64_t checked;        /* detailed kernels predicted before they ran */
        uint64_t checked_ps;     /* their run time */
        uint64_t checked_err_ps; /* the sum of |prediction - run time| */
        uint64_t error_ps;       /* skipped_ps x checked_err_ps / checked_ps (skipped_ps
                                    while no kernel was checked) */
    } st;
};

void sample_init(struct sample *sm, const struct sample_params *p);
void sample_free(struct sample *sm);
void sample_reg_stats(struct sample *sm, struct stats *st, const char *prefix);
/* Kernel k is about to run: its group, and whether it runs in detail. */
unsigned sample_begin(struct sample *sm, const struct kernel *k, bool *detailed);
/* A detailed kernel of group g ended: insts warp instructions in run_ps.
 * sync: its work-groups synchronized (the group runs in detail from now on). */
void sample_detailed(struct sample *sm, unsigned g, uint64_t insts, ps_t run_ps, bool sync);
/* A skipped kernel of group g ran functionally, waited ps after its dispatch
 * for the last kernel's traffic to drain: its run time from its dispatch, the
 * estimate (the detailed kernels' times it is fitted on overlap that traffic
 * too, so the wait lies within it), or the wait where that is longer.
 * sync: its work-groups synchronized (the group runs in detail from now on). */
ps_t sample_skipped(struct sample *sm, unsigned g, uint64_t insts, bool sync, ps_t waited);

#endif
