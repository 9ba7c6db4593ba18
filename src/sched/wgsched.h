/*
 * wgsched.h -- work-group scheduling as a mapping: once per kernel, a
 * policy gives every work-group its target, a chiplet (global index, so
 * also a GPU) and optionally one CU of that chiplet (docs/sched.md).
 *
 * Policies are `struct wgs_ops` in the one list sched/registry.c:
 * `static` (contiguous blocks per chiplet, spec cpelide 2.3; the default),
 * `round_robin`, `batched` (batched round-robin, MCM-GPU's Batch+FT, spec
 * ladm 2), `hierarchical` (a contiguous block per GPU, then batched
 * round-robin over its chiplets, spec ladm 7) and `partition` (a block per
 * GPU, then one contiguous chunk per CU, spec dualopt 2.2). A new policy
 * (LADM's row/column binding, spec ladm 7) is one ops table and one
 * registry line; neither this file nor the command processor changes.
 *
 * Dispatch order. The mapping puts each work-group in one queue: its
 * chiplet's shared queue (any CU) or one CU's own queue; every queue is in
 * ascending linear work-group id. A chiplet's local command processor
 * (gpu/cp.c) makes one dispatch at a time: it visits its CUs in turn
 * (`cu_order`: round_robin starts after the CU visited last, greedy starts
 * at CU 0) and gives the first CU that has room and work the lowest id of
 * that CU's own queue, else of the chiplet's shared queue. So when a CU
 * frees a slot, its next work-group is the lowest-numbered one still queued
 * for it or for its chiplet. Nothing moves between chiplets or between CUs'
 * own queues (no stealing; spec ladm L7).
 */
#ifndef CHIPSIM_WGSCHED_H
#define CHIPSIM_WGSCHED_H

#include "config/cfg.h"
#include "net/topo.h"
#include "sched/launch.h"

#define WGS_ANY_CU 0xffffu

/* Where one work-group runs: a global chiplet index, and a CU index within
 * that chiplet or WGS_ANY_CU (the chiplet's CP picks one as they free up). */
struct wgs_target {
    uint16_t chiplet, cu;
};

enum wgs_cu_order { WGS_CU_ROUND_ROBIN, WGS_CU_GREEDY };

struct wgs_ops;

struct wgs_params {
    const struct wgs_ops *ops;    /* the policy */
    unsigned batch;               /* `batched`: consecutive work-groups per batch */
    unsigned hier_batch;          /* `hierarchical`: the same, inside a GPU */
    unsigned chiplets_per_kernel; /* chiplets 0 .. k-1 run each kernel; 0 = all (spec D12) */
    enum wgs_cu_order cu_order;
};

/* What a policy's map() is given. */
struct wgs_ctx {
    const struct topo *t;
    const struct wgs_params *p;
    const struct sched_launch *l;
    uint32_t n;                   /* work-groups, linear ids 0 .. n-1 */
    unsigned used;                /* chiplets used: global indices 0 .. used-1 */
};

struct wgs_ops {
    const char *name, *desc;      /* for `chipsim list params` and docs/sched.md */
    const struct cfg_key *keys;   /* its own keys in [sched]; NULL: none */
    /* Optional private state; NULL + message on bad input. */
    void *(*create)(const struct cfg_sec *sec, const struct topo *t, struct err *e);
    void (*destroy)(void *self);
    /* The target of every work-group of the launch, out[0 .. x->n-1]; each
     * chiplet must be below x->used. Called at each launch, not per dispatch. */
    void (*map)(void *self, const struct wgs_ctx *x, struct wgs_target *out);
};

extern const struct wgs_ops *const wgs_registry[];
extern const struct cfg_key wgs_keys[];
extern const char wgs_choices[];
const struct wgs_ops *wgs_find(const char *name);
/* Define [sched]: wgs_keys and every policy's own keys. */
void wgs_define_section(struct cfg *c);

/* The scheduler: a policy and the current kernel's queues. */
struct wgs {
    struct topo t;
    struct wgs_params p;
    void *self;                   /* the policy's state */
    uint32_t n;                   /* work-groups of the current kernel */
    struct wgs_target *tgt;       /* [n] */
    uint32_t *order;              /* [n]: work-groups by queue, ascending in each */
    size_t cap;
    unsigned qper, nq;            /* queues per chiplet (shared, then one per CU), in all */
    uint32_t *qstart, *qhead;     /* [nq + 1], [nq] */
    uint32_t *left;               /* [chiplets]: work-groups not yet taken */
};

int wgs_init_cfg(struct wgs *w, const struct cfg_sec *sec, const struct topo *t, struct err *e);
int wgs_init(struct wgs *w, const struct topo *t, const struct wgs_params *p,
             const struct cfg_sec *sec, struct err *e);
void wgs_free(struct wgs *w);
/* Chiplets each kernel uses. */
unsigned wgs_used(const struct wgs *w);
/* Map the work-groups of launch l and fill the queues (once per kernel). */
void wgs_plan(struct wgs *w, const struct sched_launch *l);

static inline struct wgs_target wgs_target_of(const struct wgs *w, uint32_t wg)
{
    return w->tgt[wg];
}
/* Work-groups of chiplet ch not yet taken. */
static inline uint32_t wgs_left(const struct wgs *w, unsigned ch) { return w->left[ch]; }
/* Whether CU `cu` (index within chiplet ch) has a work-group to take. */
bool wgs_has(const struct wgs *w, unsigned ch, unsigned cu);
/* Take CU cu's next work-group: its own queue first, else the chiplet's. */
uint32_t wgs_take(struct wgs *w, unsigned ch, unsigned cu);
/* Every work-group mapped to chiplet ch (its queues, each ascending): *n of them. */
const uint32_t *wgs_chiplet_wgs(const struct wgs *w, unsigned ch, uint32_t *n);

#endif
