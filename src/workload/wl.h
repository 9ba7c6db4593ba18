/*
 * wl.h -- the workload API. A workload is a named, parameterised generator of
 * a sequence of kernels (gpu/kernel.h). It allocates its data structures
 * through wl_alloc() (page-aligned, so structures never share a page) and
 * hands out kernels one at a time; data-dependent workloads run their
 * algorithm inside the model to decide addresses and iteration counts.
 *
 * Adding a workload: one .c file with a `const struct wl_ops`, one line in
 * src/workload/registry.c. Its parameters are a cfg_key table; users set them
 * with `-p workload.KEY=VALUE` (section [workload]).
 */
#ifndef CHIPSIM_WL_H
#define CHIPSIM_WL_H

#include "config/cfg.h"
#include "gpu/kernel.h"

/* Where buffers are placed in the simulated address space. */
#define WL_HEAP_BASE 0x100000000ull

struct stats;

struct wl_env {
    uint64_t page_b;        /* allocation alignment (the placement page size) */
    unsigned warp_size;     /* threads per warp of the simulated GPU */
    unsigned nchiplets;     /* chiplets in the system (for information) */
    unsigned ncus;          /* compute units in the system */
    addr_t next;            /* next free address */
    struct kernel_buf **bufs;
    size_t nbufs, bufs_cap;
    uint64_t seed;          /* for generated inputs */
    /* What one CU holds, for workloads that must check their kernels fit
     * (0 = unknown); set by the caller after wl_env_init(). */
    uint32_t lds_b;         /* LDS bytes per CU */
    unsigned warp_slots;    /* warp slots per CU */
    /* Also set by the caller when it knows them (wl_env_init: 1 and false). */
    unsigned ngpus;         /* GPUs in the system, nchiplets / ngpus chiplets each */
    bool versions;          /* requests carry data versions (the coherence checker is on):
                               what KOP_F_SPIN and KOP_F_FRESH loads look at */
    bool annotations;       /* something reads the kernels' annotations (the coherence
                               scheme or the annotation checker; wl_env_init: true): a
                               workload may skip deriving what only they need */
    /* Set by wl_fail(): the workload cannot go on (a launch its parameters
     * make impossible); the run stops with this error and exit status 2. */
    bool failed;
    struct err err;
};

void wl_env_init(struct wl_env *env, uint64_t page_b, unsigned warp_size, unsigned nchiplets,
                 unsigned ncus, uint64_t seed);
void wl_env_free(struct wl_env *env);
/* A new page-aligned data structure of `size` bytes. */
const struct kernel_buf *wl_alloc(struct wl_env *env, const char *name, uint64_t size);
/* The structure that contains addr, or NULL. */
const struct kernel_buf *wl_find_buf(const struct wl_env *env, addr_t addr);
uint64_t wl_footprint(const struct wl_env *env);
/* For next_kernel: record why the workload cannot go on (e, prefixed with the
 * workload's name by the caller) and return false, which ends the kernels. */
bool wl_fail(struct wl_env *env, const struct err *e);

struct wl_ops {
    const char *name;
    const char *suite;                /* the benchmark suite it comes from ("Rodinia", "micro") */
    const char *desc;                 /* one line, for `chipsim list workloads` */
    const struct cfg_key *keys;       /* parameters (section [workload]) */
    const char *const *small;         /* "key=value" overrides for a quick run (tests) */
    void *(*create)(struct wl_env *env, const struct cfg_sec *sec, struct err *e);
    /* Fill *k with the next kernel; false when the workload is finished or,
     * after wl_fail(), cannot go on. */
    bool (*next_kernel)(void *self, struct kernel *k);
    void (*destroy)(void *self);
    /* Optional: register the workload's own counters. */
    void (*reg_stats)(void *self, struct stats *st);
    /* Optional: how many kernels the workload has, when it knows (a progress
     * line's ETA); 0 = unknown. */
    size_t (*kernels)(void *self);
    /* Its kernels come from files its parameters name (a trace): commands
     * that run every workload (classify) run it only when it is named. */
    bool needs_input;
};

extern const struct wl_ops *const wl_registry[];
const struct wl_ops *wl_find(const char *name);

/* Helpers for kernel descriptions. */
void wl_kernel_init(struct kernel *k, const char *name, uint32_t gx, uint32_t gy, uint32_t bx,
                    uint32_t by, kernel_next_fn next);
void wl_kernel_arg(struct kernel *k, const struct kernel_buf *b, enum kernel_mode mode);

#endif
