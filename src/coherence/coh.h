/*
 * coh.h -- the contract of a coherence scheme. A scheme is one .c file that
 * fills a `const struct coh_ops` and one line in registry.c; it is chosen
 * with `-p coherence.scheme=NAME`.
 *
 * The GPU layer describes the machine to the scheme (struct coh_machine)
 * and asks its hooks, at fixed points of a request's path, where the
 * request goes next: a hook returns a struct coh_route (next hop, flags to
 * set or clear) and the memory system (gpu/memsys.c) carries it out. Hooks
 * may also act (a directory update, an invalidation) before answering.
 * A NULL hook means the default given next to it (docs/coherence.md).
 *
 *   request from CU cu          -> l1_access(cu)    default: into cu's L1
 *   L1 miss, store, atomic      -> l1_miss(cu)      default: to the chiplet's L2
 *   data arriving for cu's L1   -> l1_fill(cu)      (a notification)
 *   entering chiplet ch's L2    -> l2_access(ch)    default: into ch's L2
 *   L2 miss/forward/write-back  -> l2_miss(ch)      default: home == ch ? L3 : home
 *   arriving at the GPU home    -> gpu_home_in(n)   default: on to the system home
 *   arriving at the system home -> remote_in(home)  default: the home's L2 serves
 *                         reads without allocating, writes stores through to
 *                         the L3, performs atomics, passes write-backs to the
 *                         L3 without touching the home's copy
 *
 * Homes: every address has a system home (r->home, a chiplet chosen by page
 * placement) and, on every GPU, a GPU home: the chiplet of that GPU with the
 * system home's index within its GPU (coh_gpu_home). Scoped synchronization
 * (mem/scope.h): acquire and release hooks run at fences and at acquire
 * loads and release stores, and finish when the scheme has made the writes
 * visible at that scope.
 */
#ifndef CHIPSIM_COH_H
#define CHIPSIM_COH_H

#include "base/pool.h"
#include "base/range.h"
#include "config/cfg.h"
#include "mem/cache.h"
#include "mem/scope.h"
#include "mem/shadow.h"
#include "net/topo.h"
#include "stats/stats.h"

struct chk;
struct coh_walkq;

struct coh_machine {
    struct sim *s;
    const struct topo *t;
    unsigned nch, ncu;
    unsigned cu_per_ch;
    struct cache *l1;          /* [ncu], global CU index */
    struct cache *l2;          /* [nch] */
    struct cache *l3;          /* [nch * l3_per_ch]: chiplet ch's slices from ch * l3_per_ch */
    unsigned l3_per_ch;        /* 0: no L3 */
    struct shadow *mem;        /* memory's data versions (kept when the checker is on) */
    struct chk *chk;           /* the coherence checker (for oracles; its `on` may be false) */
    ps_t gpu_period_ps;        /* the GPU (core and L2) clock */
    double cp_period_ps;       /* the command processors' clock */
    ps_t cp_unicast_ps, cp_broadcast_ps; /* global-to-local CP crossbar */
    struct coh_log *log;       /* when set, every L2 operation is recorded */
    struct coh_walkq *l1q;     /* [ncu]: walks of each L1 asked for inside kernels */
    struct coh_walkq *l2q;     /* [nch]: the same for each L2 */
    /* A control message of `bytes` from chiplet `from` to chiplet `to` over
     * the chiplet network; fn(s, obj, arg) runs on its delivery. */
    void (*send)(void *net, unsigned from, unsigned to, uint32_t bytes, enum traffic_class tc,
                 ev_fn fn, void *obj, uint64_t arg);
    void *net;
};

#define COH_MAX_ARGS 16

/* One data structure a kernel accesses, as the command processor sees it. */
struct coh_arg {
    addr_t base;
    uint64_t size;
    bool write;                 /* mode R/W */
    bool same_pattern;          /* annotation flag: same chiplets and ranges as before */
    bool ranged;                /* per-chiplet ranges known */
    struct range_set *ranges;   /* [nch] when ranged: what each chiplet's work-groups touch */
};

struct coh_kernel {
    unsigned id;                /* dynamic kernel number, from 0 */
    ps_t ready_ps;              /* when its packet reached the command processor */
    const char *name;
    uint64_t chiplets;          /* bit c set: the kernel runs on chiplet c */
    bool itl;                   /* the buffer the kernel follows has intra-thread locality
                                   (spec ladm.md 8: CRB's RONCE) */
    unsigned nargs;             /* 0: unannotated */
    const struct coh_arg *args;
};

typedef void (*coh_done_fn)(struct sim *s, void *arg);

/* Where a request goes next, relative to the unit whose hook decided. */
enum coh_hop {
    COH_HOP_L1,       /* into the CU's L1 (l1_access) */
    COH_HOP_L2,       /* into the chiplet's L2 (from a CU: over its L1-L2 link, past its L1) */
    COH_HOP_L3,       /* to the chiplet's L3 slices (no L3: its HBM) */
    COH_HOP_HOME,     /* over the network to the system home r->home, arriving at remote_in */
    COH_HOP_GPU_HOME, /* over the GPU's fabric to this GPU's home of the address, arriving at
                         gpu_home_in (at remote_in when that is the system home) */
    COH_HOP_HELD,     /* the scheme keeps the request: it forwards or completes it itself */
};

struct coh_route {
    uint8_t hop;   /* enum coh_hop */
    uint8_t set;   /* REQ_F_* flags to set on the request before it moves */
    uint8_t clear; /* REQ_F_* flags to clear */
};

static inline struct coh_route coh_route_to(enum coh_hop hop, unsigned set)
{
    return (struct coh_route){(uint8_t)hop, (uint8_t)set, 0};
}

/* A store of GPU or system scope that is not weak: written through to its
 * scope's home whatever the L2s' write policy (spec hmg.md 4.3: every store
 * of scope wider than .cta). */
static inline bool coh_strong_store(const struct req *r)
{
    return r->kind == REQ_WRITE && r->sem != SEM_WEAK && r->scope >= SCOPE_GPU;
}

/* A strong access at GPU scope or wider to a line homed on another chiplet:
 * it may not be served by a copy here (the home is where it synchronizes). */
static inline bool coh_strong_remote(unsigned ch, const struct req *r)
{
    return r->home != ch && r->sem != SEM_WEAK && r->scope >= SCOPE_GPU;
}

/* This GPU's home of an address whose system home is chiplet `home`. */
static inline unsigned coh_gpu_home(const struct topo *t, unsigned home, unsigned gpu)
{
    return gpu * t->chiplets + topo_chiplet_local(t, home);
}

struct coh_ops {
    const char *name;
    const char *desc;                 /* one line, for `chipsim list schemes` */
    const struct cfg_key *keys;       /* the scheme's own keys, in section [coherence] */
    bool annotations;                 /* reads the kernels' annotations (coh_arg's ranges and
                                         same_pattern); without it the command processor
                                         does not gather them */
    /* m stays valid (and may gain a log) until destroy */
    void *(*create)(const struct coh_machine *m, const struct cfg_sec *sec, struct err *e);
    void (*destroy)(void *self);
    void (*reg_stats)(void *self, struct stats *st);
    /* Implicit acquire before kernel k's first work-group; done() when finished. */
    void (*kernel_launch)(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg);
    /* Implicit release after kernel k's last work-group and its stores; done() when finished. */
    void (*kernel_end)(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg);
    /* The request path (see the top of this file); each returns the next hop. */
    struct coh_route (*l1_access)(void *self, unsigned cu, struct req *r);
    struct coh_route (*l1_miss)(void *self, unsigned cu, struct req *r);
    void (*l1_fill)(void *self, unsigned cu, struct req *r);
    struct coh_route (*l2_access)(void *self, unsigned ch, struct req *r);
    struct coh_route (*l2_miss)(void *self, unsigned ch, struct req *r);
    struct coh_route (*gpu_home_in)(void *self, unsigned node, struct req *r);
    struct coh_route (*remote_in)(void *self, unsigned home, struct req *r);
    /* A scoped release by CU cu (a release fence, or the ordering of a release
     * store), after the CU has drained its stores: done() when its writes are
     * visible at `scope`. Default: done at once. */
    void (*release)(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done, void *arg);
    /* A scoped acquire by CU cu: done() when its later loads see what was
     * released at `scope` before. Default: at GPU and system scope, cu's L1 is
     * invalidated (it is not kept coherent). */
    void (*acquire)(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done, void *arg);
};

extern const struct coh_ops *const coh_registry[];
const struct coh_ops *coh_find(const char *name);
/* Keys shared by every scheme (section [coherence]): scheme and the D4 switches. */
extern const struct cfg_key coh_common_keys[];

/* Spec cpelide D4: what a chiplet's L2 does with lines homed elsewhere. */
struct coh_d4 {
    bool read_alloc;   /* requester_yes: keep remote-read lines (gem5 artifact) */
    bool store_local;  /* write_back: keep remote stores dirty locally (gem5 artifact) */
};
void coh_d4_from_cfg(const struct cfg_sec *sec, struct coh_d4 *d);
/* The L2 side of D4: a request from chiplet ch's L1s into its L2, with the
 * flags D4 gives it; a strong remote access goes straight to its home. */
struct coh_route coh_d4_l2_access(const struct coh_d4 *d, unsigned ch, const struct req *r);

/* Scoped synchronization of the schemes that follow D4 (viper, cpelide): at
 * GPU scope or wider, a release flushes the CU's chiplet L2 when remote
 * stores stay there (write_back), and an acquire invalidates the clean lines
 * of that L2 when remote reads stay there (requester_yes), then the CU's L1.
 * Work-group scope needs nothing (a work-group runs on one CU). */
struct coh_d4_sync {
    struct pool steps;         /* acquires under way that have an L2 walk before the L1's */
    bool skip_acquire_inv;     /* testing only: acquires invalidate nothing */
};
void coh_d4_sync_init(struct coh_d4_sync *y);
void coh_d4_sync_free(struct coh_d4_sync *y);
void coh_d4_release(const struct coh_machine *m, const struct coh_d4 *d, unsigned cu,
                    enum mem_scope scope, coh_done_fn done, void *arg);
void coh_d4_acquire(const struct coh_machine *m, const struct coh_d4 *d, struct coh_d4_sync *y,
                    unsigned cu, enum mem_scope scope, coh_done_fn done, void *arg);

/* The default hooks, for schemes that extend them (the two on every request's
 * path inline). */
/* The L1 side of a strong access of GPU or system scope (HMG 4.3 and 5.2;
 * Accel-Sim bypasses the L1 for LDG.STRONG.GPU, AMD's GLC loads skip the
 * TCP): nothing keeps an L1 coherent during a kernel, so a load is served
 * below it (its copy of the line is dropped, so a later load cannot see an
 * older value, and the fill leaves none), and a store is written through
 * (keeping the L1's copy up to date for the CU's own later loads). */
static inline struct coh_route coh_default_l1_access(const struct coh_machine *m, unsigned cu,
                                                     struct req *r)
{
    if (r->sem == SEM_WEAK || r->scope < SCOPE_GPU)
        return coh_route_to(COH_HOP_L1, 0);
    if (r->kind == REQ_READ) {
        cache_inval_line(&m->l1[cu], r->addr);
        return coh_route_to(COH_HOP_L1, REQ_F_NOALLOC);
    }
    return coh_route_to(COH_HOP_L1, r->kind == REQ_WRITE ? REQ_F_WT : 0);
}

/* A miss goes to the L3 at its home, to the home elsewhere. */
static inline struct coh_route coh_default_l2_miss(unsigned ch, const struct req *r)
{
    return coh_route_to(r->home == ch ? COH_HOP_L3 : COH_HOP_HOME, 0);
}

struct coh_route coh_default_remote_in(const struct req *r);

/* A home that allocates lines for remote readers needs MSHRs kept for
 * remote requests ([l2] mshrs_remote > 0): -1 with the error on `key` in e
 * when on and there are none, else 0. */
int coh_home_alloc_check(const struct coh_machine *m, const struct cfg_sec *sec, const char *key,
                         bool on, struct err *e);

/* Walks (flush, invalidate) of one cache asked for inside a kernel, by
 * scoped releases and acquires of many warps: a walk asked for while another
 * runs waits for it, asks for the same operation are served by one walk, and
 * each asker's done() runs when a walk that began after its request ends. */
struct coh_walk_wait {
    coh_done_fn fn;
    void *arg;
    uint8_t op;                /* enum coh_cache_op */
};
struct coh_walkq {
    struct sim *s;
    struct cache *c;
    struct coh_walk_wait *w;   /* waiting, the running batch first */
    size_t n, cap, running;    /* running: entries of the batch under way (0: idle) */
    uint64_t flushes, invalidates; /* walks made (counted apart from kernel boundaries') */
};
void coh_walkq_init(struct coh_walkq *q, struct sim *s, struct cache *c);
void coh_walkq_free(struct coh_walkq *q);
/* op: COH_FLUSH, COH_INVALIDATE, COH_INVALIDATE_CLEAN or COH_INVALIDATE_FOREIGN. */
void coh_walkq_add(struct coh_walkq *q, int op, coh_done_fn fn, void *arg);

/* Whole-machine kernel-boundary operations used by the schemes: run an
 * operation on many L1s or L2s in parallel and call done() when all have
 * finished. The sequencer object must stay alive until done() runs. */
#define COH_MAX_CHIPLETS 64
/* COH_INVALIDATE_FOREIGN: the clean lines homed on other chiplets only
 * (cache_invalidate_foreign). */
enum coh_cache_op { COH_FLUSH, COH_INVALIDATE, COH_INVALIDATE_CLEAN, COH_NONE,
                    COH_INVALIDATE_FOREIGN };

/* A record of every L2 operation issued, for tests and traces. */
struct coh_log_ent {
    ps_t t;
    unsigned kernel, chiplet;
    enum coh_cache_op op;
};
struct coh_log {
    struct coh_log_ent *v;
    size_t n, cap;
};

struct coh_seq;
struct coh_seq_slot {
    struct coh_seq *q;
    unsigned ch;
    bool again;                /* a second operation follows on this chiplet */
    enum coh_cache_op second;
};

struct coh_seq {
    const struct coh_machine *m;
    unsigned kernel;           /* for the log */
    unsigned outstanding;
    coh_done_fn done;
    void *arg;
    struct coh_seq_slot slot[COH_MAX_CHIPLETS];
};

void coh_seq_init(struct coh_seq *q, const struct coh_machine *m);
void coh_cp_timing(struct coh_machine *m, double cp_mhz, unsigned unicast_cycles,
                   unsigned broadcast_cycles);

/* A command-processor round (spec cpelide 4.7, 4.8), charged alike to every
 * scheme: the global CP's request reaches the local CPs (unicast to one,
 * broadcast to several), ops(obj) starts their cache operations, which end
 * with coh_round_ops_done(s, round); each local CP acknowledges (unicast)
 * and, for a launch, the global CP broadcasts launch-enable; then done(). */
struct coh_round {
    const struct coh_machine *m;
    bool enable;
    void (*ops)(void *obj);
    void *obj;
    coh_done_fn done;
    void *arg;
};
void coh_round(struct coh_round *r, const struct coh_machine *m, ps_t at, unsigned targets,
               bool enable, void (*ops)(void *obj), void *obj, coh_done_fn done, void *arg);
void coh_round_ops_done(struct sim *s, void *round);

/* A launch in the schemes whose only launch operation is the L1s': one
 * command-processor round that invalidates every L1. count (if not NULL)
 * counts the launches that did; skip is a testing fault that leaves the
 * L1s valid. */
struct coh_l1_launch {
    struct coh_seq q;
    struct coh_round round;
    uint64_t *count;
    bool skip;
};
void coh_l1_launch_init(struct coh_l1_launch *l, const struct coh_machine *m, uint64_t *count,
                        bool skip);
void coh_l1_launch(struct coh_l1_launch *l, const struct coh_kernel *k, coh_done_fn done,
                   void *arg);
void coh_all_l1(struct coh_seq *q, enum coh_cache_op op, coh_done_fn done, void *arg);
/* chiplets: bitmask of chiplets whose L2 takes the operation. */
void coh_l2s(struct coh_seq *q, uint64_t chiplets, enum coh_cache_op op, coh_done_fn done,
             void *arg);
/* Per chiplet, `first` on the chiplets of mask1, then `second` on those of
 * mask2 (after the first, on chiplets in both); chiplets run in parallel. */
void coh_l2_pair(struct coh_seq *q, uint64_t mask1, enum coh_cache_op first, uint64_t mask2,
                 enum coh_cache_op second, coh_done_fn done, void *arg);
/* The general form: chiplet c runs ops[c][0], then ops[c][1] (COH_NONE: no
 * operation); chiplets run in parallel. */
void coh_l2_each(struct coh_seq *q, const enum coh_cache_op (*ops)[2], coh_done_fn done,
                 void *arg);

#endif
