/*
 * cu.h -- a compute unit: warp slots spread over SIMD units, in-order issue
 * per warp, a register scoreboard (a warp stalls only when an operation
 * reads a register whose load is still in flight), a coalescer that turns a
 * warp's lane addresses into one request per cache line, the L1 data cache
 * (owned by the memory system), the LDS, and work-group barriers.
 *
 * Timing (docs/gpu.md): each SIMD (NVIDIA: sub-core) has a warp scheduler
 * (oldest-first or GTO) that picks, at every free issue slot, one of its
 * warps whose next operation can issue; an instruction occupies the SIMD for
 * its issue interval (alu_cycles, or the op's own ii), and other warps fill
 * the cycles until a result is ready. A run of compute that no other warp
 * would take a slot from is issued at once without events. A memory or LDS
 * instruction also needs the CU's one global-memory (LDS) pipeline, granted
 * to the oldest ready warp of the CU; its line requests all enter the L1 at
 * once and the L1's ports accept them at their rate. Stores are
 * fire-and-forget for the warp but must be acknowledged before a release of
 * device or system scope (a fence, or a releasing store or atomic) completes;
 * an acquire of those scopes (an acquire fence, an acquiring load or atomic)
 * waits for the warp's loads (docs/gpu.md "Scopes"); a warp's exit waits for every access it has in flight, so
 * nothing of a kernel is in flight at its release. Every request carries its
 * op's scope and strength. A compute op
 * may carry its own issue interval and result latency (trace-driven
 * workloads): a later op that reads its destination issues no earlier than
 * the result is ready.
 */
#ifndef CHIPSIM_CU_H
#define CHIPSIM_CU_H

#include "coherence/checker.h"
#include "gpu/kernel.h"
#include "mem/cache.h"
#include "mem/lds.h"

enum cu_sched { CU_SCHED_GTO, CU_SCHED_OLDEST };

struct cu_params {
    unsigned simds;           /* SIMD units (issue slots) per CU */
    unsigned warps_per_simd;  /* warp slots per SIMD */
    unsigned warp_size;       /* threads per warp */
    unsigned alu_cycles;      /* SIMD cycles per warp instruction */
    unsigned max_wgs;         /* work-groups resident per CU */
    unsigned coalesce_lanes;  /* lanes per coalescing group; 0 = the whole warp */
    enum cu_sched sched;      /* warp scheduling policy of each SIMD */
    unsigned gmem_pipe_cycles; /* CU-wide global-memory pipeline: cycles per instruction */
    unsigned lds_pipe_cycles;  /* CU-wide LDS pipeline: cycles per instruction */
};

extern const struct cfg_key cu_keys[];
int cu_params_from_cfg(const struct cfg_sec *sec, struct cu_params *p, struct err *e);

struct cu;
struct cu_wg;

/* What a CU needs from the machine around it. */
struct cu_env {
    struct sim *s;
    const struct clock *clk;
    struct chk *chk;
    /* home chiplet of a line (page placement on first touch) */
    unsigned (*home)(void *obj, addr_t addr, unsigned cu);
    void *home_obj;
    /* a work-group finished (all warps exited, their stores acknowledged) */
    void (*wg_done)(void *obj, struct cu *cu, uint32_t wg);
    void *wg_done_obj;
    /* The memory side (gpu/memsys.c): a request into the CU's L1 as the
     * coherence scheme routes it, and scoped release/acquire with done(s,
     * arg) at their end. NULL: straight into the L1, and synchronization
     * that completes at once. */
    void (*l1_access)(void *obj, unsigned cu, struct req *r);
    void (*sync)(void *obj, unsigned cu, bool release, enum mem_scope scope,
                 void (*done)(struct sim *s, void *arg), void *arg);
    void *mem_obj;
};

/* W_RUN: waiting for its SIMD's scheduler to pick it (from ready_at on).
 * W_DRAIN: waiting for accesses in flight (enum cu_drain says which): an
 * exit (a work-group ends only when nothing of it is in flight), or the
 * accesses a scoped release or acquire orders. W_SYNC: that release or
 * acquire under way (cu_fence_release, cu_fence_acquire in cu.c). */
enum cu_warp_state { W_FREE, W_RUN, W_WAIT_REG, W_WAIT_BAR, W_DRAIN, W_SYNC };

/* What a W_DRAIN warp waits for. */
enum cu_drain {
    DR_EXIT,     /* every access of the warp; then it ends */
    DR_RELEASE,  /* its stores and atomics (acknowledged); then a release */
    DR_LOADS,    /* its loads and atomics (returned); then a spin check and/or an acquire */
};

/* The steps of a scoped synchronization still to do once the drain is over. */
enum { SYNC_SPIN = 1, SYNC_REL = 2, SYNC_ACQ = 4 };

/* What the sub-core schedulers read of every warp they look at comes first,
 * in the struct's first host cache line (the warps are 64-byte aligned). */
struct cu_warp {
    uint8_t state;            /* enum cu_warp_state */
    uint8_t simd;
    bool have_op;
    uint8_t op_pipe;          /* enum cu_pipe: the CU-wide pipeline the op needs (with have_op) */
    uint8_t drain;            /* enum cu_drain: what W_DRAIN waits for */
    uint8_t sync;             /* SYNC_* steps still to do after the drain */
    uint8_t sync_scope;       /* enum mem_scope of those steps */
    uint8_t sync_step;        /* SYNC_REL or SYNC_ACQ: the one under way in W_SYNC */
    uint64_t pending;         /* registers with loads in flight */
    uint64_t op_srcs;         /* registers the op reads (with have_op) */
    ps_t op_srcs_at;          /* when the last ALU result among them is ready: reg_at only
                                 changes when the warp issues, so it holds while have_op */
    ps_t ready_at;
    uint64_t age;             /* dispatch order: smaller is older */
    struct cu_wg *wg;
    bool released;            /* the current op's release is done: issue the op itself */
    bool spin_old;            /* a line of the spin load held a word not written this kernel */
    uint32_t spins;           /* re-issues of the current KOP_F_SPIN load */
    uint32_t stores_out;      /* store and atomic lines not yet acknowledged */
    uint32_t loads_out;       /* load, atomic and LDS results not yet returned */
    struct cu *cu;            /* its CU */
    struct kernel_op op;
    struct kernel_warp kw;
    uint16_t reg_lines[KERNEL_MAX_REGS];
    ps_t reg_at[KERNEL_MAX_REGS]; /* when each register's ALU result is ready */
} __attribute__((aligned(64)));

/* A SIMD unit (NVIDIA: a sub-core) and its warp scheduler. */
struct cu_simd {
    ps_t free;                /* its issue port is free from */
    ps_t armed;               /* a scheduler look pending at this time (UINT64_MAX: none) */
    int last;                 /* warp slot it issued last (GTO's greedy warp), -1: none */
    uint64_t slots;           /* bit i: warp slot i is its own */
};

struct cu_wg {
    const struct kernel *k;
    uint32_t wg;
    unsigned nwarps, exited, at_barrier;
    uint32_t lds_b;
    uint64_t slots;           /* warp slots it occupies */
    bool busy;
};

struct cu_stats {
    uint64_t warp_insts, alu_insts, mem_insts, lds_insts;
    uint64_t load_lines, store_lines, atomic_lines;
    uint64_t wgs, barriers, fences;
    uint64_t releases, acquires;          /* scoped (GPU, system) synchronizations done */
    uint64_t spin_retries, spins_exhausted, stale_fresh_loads;
    uint64_t measured_loads, measured_latency_ps, measured_bytes;
};

struct cu {
    unsigned id;              /* global CU index */
    char name[24];
    struct cu_params p;
    struct cu_env env;
    struct cache *l1;
    struct lds *lds;
    unsigned line_b;
    struct cu_warp *warps;    /* simds * warps_per_simd slots */
    unsigned nslots;
    uint64_t free_slots;      /* bit i: slot i free */
    uint64_t run_slots;       /* bit i: the warp in slot i is in W_RUN (set_state) */
    struct cu_wg *wgs;        /* max_wgs */
    unsigned nwgs;
    uint32_t lds_used, lds_size;
    struct cu_simd *simd;     /* per SIMD (sub-core): its scheduler */
    uint64_t next_age;        /* dispatch order of warps, for oldest-first */
    ps_t gmem_free, lds_free; /* CU-wide memory pipelines free from */
    uint64_t reqs_out;        /* line requests in flight */
    ps_t meas_first, meas_last; /* issue of the first / completion of the last load flagged
                                   for bandwidth (KOP_F_MEASURE_BW) */
    struct cu_stats st;
};

void cu_init(struct cu *cu, unsigned id, const struct cu_params *p, const struct cu_env *env,
             struct cache *l1, struct lds *lds, unsigned lds_size);
void cu_free(struct cu *cu);
void cu_reg_stats(struct cu *cu, struct stats *st, const char *prefix);
/* Room for one more work-group of kernel k? */
bool cu_can_accept(const struct cu *cu, const struct kernel *k);
/* Start work-group wg of k on this CU now. */
void cu_dispatch(struct cu *cu, const struct kernel *k, uint32_t wg);
/* Kernel sampling's warming pass (gpu/sample.h), in functional mode
 * (s->functional): cu_func_dispatch places a work-group as cu_dispatch does,
 * but schedules nothing; each cu_func_round then carries out the next
 * operation of every warp that can go on, memory requests completing through
 * the memory system before the next is sent, and frees the work-groups that
 * have ended (the CU's counters count them as in time). *sync is set if a
 * warp synchronizes with other work-groups (a fence, acquire or release of
 * GPU or system scope, or a spin load): that is not waited for. Returns
 * whether work-groups remain. */
void cu_func_dispatch(struct cu *cu, const struct kernel *k, uint32_t wg);
bool cu_func_round(struct cu *cu, bool *sync);
/* Work-groups resident. */
static inline unsigned cu_busy_wgs(const struct cu *cu) { return cu->nwgs; }

#endif
