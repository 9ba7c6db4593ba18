/*
 * kdw.h -- a workload made of kernel descriptions (kd.h): the one driver of
 * the benchmark library's models. A model gives its descriptions, a setup
 * that reads its parameters, allocates its buffers and computes its host
 * data, and a plan that says what its i-th launch is; the driver compiles
 * the descriptions, launches them, and derives each argument's same_pattern.
 *
 * same_pattern (CPElide's artifact flag, docs/cpelide.md): set on an
 * argument when the previous kernel that used the same buffer had the same
 * grid and, work-group by work-group, the same derived ranges of it, all of
 * them known (no work-group declared the whole structure). It is derived
 * from the descriptions, not written by the model.
 *
 * A model's state is a struct that begins with struct kdw:
 *
 *   struct gemm { struct kdw w; uint64_t n; ... };
 *   static const struct kdw_model gemm_model = {
 *       .size = sizeof(struct gemm), .descs = gemm_descs,
 *       .setup = gemm_setup, .plan = gemm_plan};
 *   static void *gemm_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
 *   { return kdw_create(&gemm_model, env, sec, e); }
 *   const struct wl_ops wl_gemm = {..., .create = gemm_create,
 *       .next_kernel = kdw_next_kernel, .destroy = kdw_destroy, .kernels = kdw_kernels};
 */
#ifndef CHIPSIM_KDW_H
#define CHIPSIM_KDW_H

#include "workload/kd.h"
#include "workload/wl.h"

#define KDW_MAX_PROGS 32

/* A line of description text whose scope the launch chooses: `PRE gpu POST`
 * where the parameter sys is 0, `PRE sys POST` where it is 1 (a workload
 * synchronizing at .gpu scope on one GPU and at .sys scope on several), IND
 * its indentation. */
#define KDW_SCOPED(IND, PRE, POST)                                                             \
    IND "if sys < 1\n" IND "  " PRE " gpu " POST "\n" IND "end\n"                                  \
    IND "if 0 < sys\n" IND "  " PRE " sys " POST "\n" IND "end\n"

/* The key that chooses that scope, `sync_scope` (auto, gpu, sys), for a
 * workload whose WHAT synchronizes WHO across work-groups: on several GPUs
 * they may sit on different GPUs, which .gpu operations do not order. */
#define KDW_SYNC_SCOPE_KEY(WHAT, WHO)                                                            \
    {"sync_scope", CFG_ENUM, "auto", 0, 0,                                                       \
     "scope of " WHAT ": gpu, sys, or auto (gpu on a machine of one GPU, sys on several: " WHO \
     " may run on different GPUs, which a .gpu release and acquire do not order)",              \
     "auto|gpu|sys"}

/* One launch: which description, its geometry and what it is bound to. */
struct kdw_launch {
    unsigned prog; /* index into the model's descs */
    struct kernel_dim grid, block;
    int64_t params[KD_MAX_PARAMS];           /* in the description's order */
    const struct kernel_buf *bufs[KD_MAX_BUFS];
    struct kd_array arrays[KD_MAX_ARRAYS];   /* their data must outlive the launch */
    uint32_t lds_b;                          /* LDS bytes per work-group */
};

struct kdw;

struct kdw_model {
    size_t size;                             /* the model's state, beginning with struct kdw */
    const struct kd_desc *const *descs;      /* NULL-terminated, at most KDW_MAX_PROGS */
    /* Read the parameters, allocate the buffers (wl_alloc) and compute the host
     * data; 0, or -1 with the reason in e (cfg_err naming the key). */
    int (*setup)(struct kdw *w, const struct cfg_sec *sec, struct err *e);
    /* Launch i (from 0) into *l, which comes zeroed; false when there is none. */
    bool (*plan)(struct kdw *w, uint64_t i, struct kdw_launch *l);
    /* Optional: how many launches (0: unknown). */
    uint64_t (*count)(const struct kdw *w);
    /* Optional: free what setup allocated besides the buffers. */
    void (*release)(struct kdw *w);
};

/* The previous use of a buffer (for same_pattern). */
struct kdw_use {
    const struct kernel_buf *buf;
    struct kernel_dim grid;
    struct addr_range *r;  /* every work-group's ranges, in order */
    uint32_t *end;         /* work-group g's ranges end at r[end[g]] */
    size_t nr, r_cap, end_cap;
    bool known;            /* every work-group's ranges are known */
};

struct kdw {
    const struct kdw_model *m;
    struct wl_env *env;
    struct kd_prog *prog[KDW_MAX_PROGS];
    unsigned nprog;
    uint64_t launched;
    struct kdw_use *use;   /* one per buffer launched so far */
    size_t nuse, use_cap;
    struct kdw_use scratch; /* the launch being recorded */
};

void *kdw_create(const struct kdw_model *m, struct wl_env *env, const struct cfg_sec *sec,
                 struct err *e);
bool kdw_next_kernel(void *self, struct kernel *k);
void kdw_destroy(void *self);
size_t kdw_kernels(void *self);
/* KDW_SYNC_SCOPE_KEY's choice in sec: true for system scope (sys, or auto
 * on a machine of several GPUs), the value of the parameter `sys`. */
bool kdw_sync_sys(const struct kdw *w, const struct cfg_sec *sec);

#endif
