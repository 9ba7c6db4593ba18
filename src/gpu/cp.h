/*
 * cp.h -- the command processors: one global CP that takes kernels in
 * order, decides where their work-groups go and performs the implicit
 * synchronization at kernel boundaries through the coherence scheme, and
 * one local CP per chiplet that hands its share of work-groups to its CUs
 * as they have room (spec cpelide 2.3, 4.1, 4.7, 4.8). Which chiplet and CU
 * each work-group gets, and the dispatch order, are the scheduler's
 * (sched/wgsched.h, section [sched]).
 *
 * A kernel's life: packet available -> the CP's scheduling latency
 * (`launch_us`, the artifact's 2 us GSDelay, every configuration) -> the
 * scheme's acquire (kernel_launch) -> work-group dispatch, one work-group
 * per `wg_dispatch_cycles` per chiplet -> all work-groups done (their warps
 * exited after their stores were acknowledged) -> the scheme's release
 * (kernel_end) -> next kernel. Kernels of one stream never overlap. When a
 * packet is taken, the placement policy places the buffers the kernel
 * declares for the first time (sched/place.h); pages it moves are copied
 * after the scheduling latency, before the acquire (cp.migrate_ps).
 * Host-to-device copies a kernel carries (kernel.copies) are made when its
 * packet is taken, in no simulated time: they place their pages and may warm
 * the L2 (`memcpy_place`, `memcpy_warm_l2`; spec accelsim A12).
 */
#ifndef CHIPSIM_CP_H
#define CHIPSIM_CP_H

#include "coherence/coh.h"
#include "gpu/cu.h"
#include "gpu/sample.h"
#include "sched/wgsched.h"

struct cp_params {
    double launch_us;             /* scheduling latency per kernel */
    double cp_mhz;                /* CP clock */
    unsigned unicast_cycles, broadcast_cycles; /* global-to-local CP crossbar, CP cycles */
    unsigned wg_dispatch_cycles;  /* per chiplet, between two work-group dispatches */
    bool memcpy_place;            /* host copies place their pages */
    bool memcpy_warm_l2;          /* host copies leave their lines in the L2 */
    struct sample_params sample;  /* [sample], read by the caller */
};

extern const struct cfg_key cp_keys[];
int cp_params_from_cfg(const struct cfg_sec *sec, struct cp_params *p, struct err *e);

/* Where kernels come from: fill *k, false when there are no more. */
typedef bool (*cp_next_fn)(void *obj, struct kernel *k);
/* Called after each kernel's release (for progress reports, per-kernel stats). */
typedef void (*cp_kernel_fn)(void *obj, unsigned id, const struct kernel *k);
/* A host-to-device copy of [lo, hi) before a launch (the machine's memory side). */
typedef void (*cp_copy_fn)(void *obj, addr_t lo, addr_t hi, bool place, bool warm);
/* A kernel is launched: place the buffers it declares for the first time;
 * returns the time the page moves take (the machine's memory side). */
typedef ps_t (*cp_place_fn)(void *obj, const struct sched_launch *l);

struct cp_chiplet {
    unsigned rr;             /* next CU to try, round-robin */
    bool dispatching;        /* a dispatch event is pending */
    bool refill;             /* functional pass: a work-group ended, its CU has room */
};

struct cp {
    struct sim *s;
    const struct clock *clk;
    struct cp_params p;
    struct cu *cus;
    unsigned nch, cu_per_ch;
    const struct coh_ops *coh;
    void *coh_self;
    struct chk *chk;         /* told when each kernel starts, may be NULL */
    cp_next_fn next;
    void *next_obj;
    cp_kernel_fn on_kernel;
    void *on_kernel_obj;
    cp_copy_fn copy;
    void *copy_obj;
    cp_place_fn place;
    void *place_obj;
    uint64_t page_b, unit_b;      /* the page size and interleave unit the launches report */
    struct wgs ws;           /* work-group scheduling ([sched]) */

    struct kernel k;         /* the kernel in flight */
    struct sched_launch launch; /* what the policies see of it */
    ps_t owed_ps;            /* its page moves, still to be made */
    unsigned kid;            /* its dynamic number */
    struct coh_kernel ck;
    struct coh_arg args[KERNEL_MAX_ARGS];
    struct range_set *ranges; /* [KERNEL_MAX_ARGS * nch] */
    struct cp_chiplet *chip;
    uint32_t wgs_left;       /* not yet finished */
    bool running, finished;
    ps_t ready_ps, next_ready_ps; /* packet arrival of this kernel and of the next */
    ps_t first_launch, last_end, phase_t;
    ps_t kernel_t;           /* end of this kernel's launch latency */
    ps_t *kernel_ps;         /* each finished kernel's time without its launch latency */
    size_t nkernel_ps, kernel_ps_cap;
    struct sample smp;       /* kernel sampling ([sample]) */
    unsigned sgroup;         /* the kernel's group */
    bool sdetailed;          /* it runs in detail */
    uint64_t sinsts, ssync;  /* warp instructions and synchronizations before it */
    struct {
        uint64_t kernels, wgs, launch_ps, acquire_ps, run_ps, release_ps, migrate_ps;
        uint64_t memcpys, memcpy_bytes;
    } st;
};

/* sched: the [sched] section; the machine's shape is t (-1 on bad input). */
int cp_init(struct cp *cp, struct sim *s, const struct clock *clk, const struct cp_params *p,
            struct cu *cus, const struct topo *t, const struct cfg_sec *sched, struct err *e);
void cp_free(struct cp *cp);
void cp_set_coherence(struct cp *cp, const struct coh_ops *ops, void *self);
void cp_set_copy(struct cp *cp, cp_copy_fn fn, void *obj);
/* What the scheduling and placement policies see of launch `id` of k (its
 * grid, buffers and their locality table), on pages of page_b bytes and an
 * interleave unit of unit_b. */
void cp_describe_launch(const struct kernel *k, unsigned id, uint64_t page_b, uint64_t unit_b,
                        struct sched_launch *l);
void cp_set_place(struct cp *cp, cp_place_fn fn, void *obj, uint64_t page_b, uint64_t unit_b);
void cp_reg_stats(struct cp *cp, struct stats *st, const char *prefix);
/* Begin running kernels from next() at the current time. */
void cp_start(struct cp *cp, cp_next_fn next, void *obj, cp_kernel_fn on_kernel, void *kobj);
/* Kernel times without launch latency (acquire + run + release), ps:
 * minimum, median and maximum over the finished kernels (0 if none). */
void cp_kernel_times(const struct cp *cp, ps_t *min, ps_t *median, ps_t *max);
/* A CU finished a work-group (wired into every CU's environment). */
void cp_wg_done(void *obj, struct cu *cu, uint32_t wg);

#endif
