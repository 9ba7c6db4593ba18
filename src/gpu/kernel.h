/*
 * kernel.h -- what the simulated GPU executes: a kernel (grid and block
 * dimensions, LDS size, the data structures it touches with their access
 * modes and optional per-work-group ranges) and, for each warp, a generator
 * of operations (compute, global load/store/atomic, LDS access, barrier,
 * fence, exit). Workload models (src/workload/) produce these; the CUs run
 * them. Addresses are given per lane, either as base + lane * stride or as
 * an explicit list (kernel_warp.lane_addr).
 *
 * Abstracted: no instruction encoding or data values; a compute op of n
 * instructions stands for n dependent-free ALU instructions of the warp; the
 * register scoreboard tracks up to 63 named registers per warp. Trace-driven
 * workloads (src/workload/trace/) also give each compute op its own result
 * latency and issue interval, ops that read more than two registers, vector
 * loads that write several, per-thread interleaved memory (NVIDIA local
 * memory), a kernel-specific warp width and the host copies before a launch.
 */
#ifndef CHIPSIM_KERNEL_H
#define CHIPSIM_KERNEL_H

#include "base/base.h"
#include "base/range.h"
#include "mem/scope.h"
#include "sched/launch.h"

#define KERNEL_MAX_ARGS 16
#define KERNEL_MAX_LANES 64
#define KERNEL_MAX_REGS 64
#define KERNEL_MAX_RANGES 64 /* ranges a work-group may give per argument */

enum kernel_mode { KERNEL_R, KERNEL_RW };

struct kernel_dim {
    uint32_t x, y, z;
};

/* A data structure: a page-aligned allocation made through the workload API. */
struct kernel_buf {
    char name[40];
    addr_t base;
    uint64_t size;
};

/* One data structure a kernel accesses (CPElide's per-argument annotation). */
struct kernel_arg {
    const struct kernel_buf *buf;
    enum kernel_mode mode;
    bool same_pattern; /* same chiplets and ranges as the previous kernel (artifact flag) */
    struct sched_locality loc; /* LADM's row for it (spec ladm.md 3); zero: unknown */
};

enum kernel_op_kind {
    KOP_ALU,        /* n warp instructions of compute */
    KOP_LOAD,       /* global load of `size` bytes per active lane into dst */
    KOP_STORE,      /* global store */
    KOP_ATOMIC,     /* global read-modify-write, performed at the L2; result into dst */
    KOP_LDS_LOAD,   /* LDS read (addresses are LDS byte offsets) into dst */
    KOP_LDS_STORE,  /* LDS write */
    KOP_BARRIER,    /* work-group barrier */
    KOP_FENCE,      /* memory fence of `scope`, direction `sem` (SEM_ACQUIRE, SEM_RELEASE;
                       SEM_ACQ_REL, SEM_WEAK or SEM_RELAXED: both) */
    KOP_EXIT,       /* the warp is done */
};

#define KOP_F_MEASURE 1 /* latency counted in summary.avg_load_latency_cycles */
#define KOP_F_NOCOUNT 2 /* not a warp instruction of the program (the exit that ends a
                           traced warp whose instruction list has none) */
#define KOP_F_LOCAL 4   /* per-thread local memory (NVIDIA's LDL/STL): the L1 may keep it
                           under its own write policy (l1d.local_write_policy) */
#define KOP_F_MEASURE_BW 8 /* bytes counted in summary.achieved_gbps (a bandwidth test; a
                              latency test leaves it off, so its summary has no bandwidth) */
#define KOP_F_SPIN 16   /* KOP_LOAD: spin until every word read holds a version written during
                           the current kernel (a flag another work-group sets): the warp waits
                           for the load and issues it again, at most `n` more times, then goes
                           on (cu.spins_exhausted); needs the coherence checker's versions
                           (without them the load is issued once) */
#define KOP_F_FRESH 32  /* KOP_LOAD: every word read should hold a version written during the
                           current kernel; a line that does not counts in cu.stale_fresh_loads
                           (data a synchronization should have made visible) */

struct kernel_op {
    uint8_t kind;   /* enum kernel_op_kind */
    uint8_t size;   /* bytes per lane: 1, 2, 4, 8 or 16 */
    uint8_t scope;  /* enum mem_scope: of a fence, or of a strong load, store or atomic */
    uint8_t flags;  /* KOP_F_* */
    uint8_t dst;    /* register written (loads, atomics, LDS loads; ALU ops with lat), 1..63;
                       0 = none */
    uint8_t ndst;   /* registers written from dst on (a vector load): dst .. dst + ndst - 1,
                       all at most 63; 0 means 1 */
    uint8_t src[2]; /* registers read: the op waits until they are available */
    bool lanes;     /* addresses in warp->lane_addr instead of base + lane * stride */
    uint8_t sem;    /* enum mem_sem: global loads, stores and atomics (SEM_WEAK: plain);
                       fences: their direction (see kernel_op_scoped, kernel_op_fence) */
    uint16_t site;  /* global and LDS accesses of kernel descriptions: the static site
                       (the access's "PC" in its description, from 1; 0: none) */
    uint16_t lat;   /* KOP_ALU: cycles from issue until dst can be read (0: at once) */
    uint16_t ii;    /* cycles the op occupies its SIMD per instruction (0: cu.alu_cycles) */
    uint32_t n;     /* KOP_ALU: instructions; a KOP_F_SPIN load: the most re-issues */
    uint64_t srcs;  /* more registers read, bit r = register r (bit 0 ignored) */
    uint64_t mask;  /* active lanes; 0 = the warp's first nlanes lanes */
    addr_t base;
    int64_t stride;
    uint64_t wstride; /* global ops: 0, or each lane's `size` bytes are size/4 words of 4 B,
                         word j at the lane's address + j * wstride (interleaved per-thread
                         memory: NVIDIA local memory) */
};

/* Scoped accesses and fences (PTX names; docs/gpu.md "Scopes"). A global
 * load, store or atomic is weak (plain) unless given a scope and a strength:
 *   ld.acquire.gpu    op->kind = KOP_LOAD;   kernel_op_scoped(op, SCOPE_GPU, SEM_ACQUIRE)
 *   ld.relaxed.gpu    op->kind = KOP_LOAD;   kernel_op_scoped(op, SCOPE_GPU, SEM_RELAXED)
 *   st.release.sys    op->kind = KOP_STORE;  kernel_op_scoped(op, SCOPE_SYS, SEM_RELEASE)
 *   atom.relaxed.gpu  op->kind = KOP_ATOMIC; kernel_op_scoped(op, SCOPE_GPU, SEM_RELAXED)
 *   atom.acq_rel.gpu  op->kind = KOP_ATOMIC; kernel_op_scoped(op, SCOPE_GPU, SEM_ACQ_REL)
 *   fence.acq_rel.gpu kernel_op_fence(op, SCOPE_GPU, SEM_ACQ_REL)
 * The CU carries scope and strength into every request of the op; a release
 * first waits for the warp's earlier stores and atomics, an acquire makes the
 * warp wait for the access's result; scope CTA orders nothing beyond the CU
 * (gpu/cu.c, cu_fence_release and cu_fence_acquire). */
static inline void kernel_op_scoped(struct kernel_op *op, enum mem_scope scope, enum mem_sem sem)
{
    op->scope = (uint8_t)scope;
    op->sem = (uint8_t)sem;
}
static inline void kernel_op_fence(struct kernel_op *op, enum mem_scope scope, enum mem_sem sem)
{
    op->kind = KOP_FENCE;
    kernel_op_scoped(op, scope, sem);
}

struct kernel;

/* A warp's identity and the generator's private state. */
struct kernel_warp {
    const struct kernel *k;
    uint32_t wg;                   /* linear work-group id: x + y*gx + z*gx*gy */
    struct kernel_dim wg_id;       /* its coordinates */
    uint32_t warp;                 /* warp index within the work-group */
    uint32_t nlanes;               /* threads in this warp (the last may be partial) */
    uint32_t warp_size;
    uint32_t pc;                   /* generator state, starts at 0 */
    uint64_t r[8];                 /* generator state, starts at 0 */
    addr_t lane_addr[KERNEL_MAX_LANES];
};

/* Fill *op with the warp's next operation. op is zeroed before each call. */
typedef void (*kernel_next_fn)(const struct kernel *k, struct kernel_warp *w,
                               struct kernel_op *op);
/* The ranges of argument `arg` that work-group `wg` may touch, at most `max`;
 * returns how many (0: unknown, the whole structure). A struct range_list
 * (base/range.h) builds them. */
typedef unsigned (*kernel_ranges_fn)(const struct kernel *k, uint32_t wg, unsigned arg,
                                     struct addr_range *out, unsigned max);

struct kernel {
    char name[48];
    struct kernel_dim grid;   /* work-groups */
    struct kernel_dim block;  /* work-items per work-group */
    uint32_t lds_b;           /* LDS bytes per work-group */
    uint32_t warp_size;       /* threads per warp of this kernel, at most 64 (0: the CU's);
                                 a traced NVIDIA kernel keeps its 32-thread warps on any CU */
    unsigned nargs;           /* 0: unannotated kernel */
    struct kernel_arg args[KERNEL_MAX_ARGS];
    kernel_next_fn next;
    kernel_ranges_fn ranges;  /* NULL: no per-work-group ranges */
    /* Host-to-device copies made before this launch (the command processor
     * places their pages and may warm the L2 with them); the array belongs
     * to the workload and must outlive the launch. */
    const struct addr_range *copies;
    unsigned ncopies;
    const void *ctx;          /* workload data; must outlive the run */
    uint64_t p[8];            /* small parameters for the generator */
};

static inline uint32_t kernel_nwg(const struct kernel *k)
{
    return k->grid.x * k->grid.y * k->grid.z;
}
static inline uint32_t kernel_wg_threads(const struct kernel *k)
{
    return k->block.x * k->block.y * k->block.z;
}
/* Linear thread index within the work-group of lane l. */
static inline uint32_t kernel_tid(const struct kernel_warp *w, unsigned l)
{
    return w->warp * w->warp_size + l;
}
/* Global linear thread id of lane l (1D view: wg * threads_per_wg + tid). */
static inline uint64_t kernel_gid(const struct kernel_warp *w, unsigned l)
{
    return (uint64_t)w->wg * kernel_wg_threads(w->k) + kernel_tid(w, l);
}

#endif
