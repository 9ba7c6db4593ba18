/*
 * coh.h -- the contract of a coherence scheme. A scheme is one .c file that
 * fills a `const struct coh_ops` and one line in registry.c; it is chosen
 * with `-p coherence.scheme=NAME`.
 *
 * The GPU layer describes the machine to the scheme (struct coh_machine:
 * the caches, and ports to send requests along the chiplet hierarchy) and
 * calls its hooks at fixed points of a request's path and at kernel
 * boundaries. A NULL hook means the default behaviour given next to it.
 *
 * Request path at chiplet ch (see docs/coherence.md):
 *   L1 miss/store -> l2_access(ch)      default: into ch's L2 cache
 *   L2 miss/forward/write-back -> l2_miss(ch)
 *                         default: home == ch ? ch's L3 : network to the home
 *   arrival at the home chiplet from the network -> remote_in(home)
 *                         default: reads served by the home's L2 without
 *                         allocating, stores written through it to the L3,
 *                         atomics performed there, write-backs passed to
 *                         the L3 without touching the home's copy
 */
#ifndef CHIPSIM_COH_H
#define CHIPSIM_COH_H

#include "config/cfg.h"
#include "mem/cache.h"
#include "mem/shadow.h"
#include "net/topo.h"
#include "stats/stats.h"

struct chk;

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
    struct mem_port *to_l3;    /* [nch]: from chiplet ch's L2 to its own L3 slices */
    struct mem_port *to_net;   /* [nch]: from chiplet ch into the network, to r->home's remote_in */
    struct coh_log *log;       /* when set, every L2 operation is recorded */
    /* A control message of `bytes` from chiplet `from` to chiplet `to` over
     * the chiplet network; fn(s, obj, arg) runs on its delivery. */
    void (*send)(void *net, unsigned from, unsigned to, uint32_t bytes, enum traffic_class tc,
                 ev_fn fn, void *obj, uint64_t arg);
    void *net;
};

#define COH_MAX_ARGS 16

struct coh_range {
    addr_t lo, hi; /* [lo, hi) */
};

/* The ranges of one data structure that one chiplet's work-groups touch,
 * sorted and merged. */
struct coh_ranges {
    struct coh_range *v;
    unsigned n;
    size_t cap;
};

/* One data structure a kernel accesses, as the command processor sees it. */
struct coh_arg {
    addr_t base;
    uint64_t size;
    bool write;                 /* mode R/W */
    bool same_pattern;          /* annotation flag: same chiplets and ranges as before */
    bool ranged;                /* per-chiplet ranges known */
    struct coh_ranges *ranges;  /* [nch] when ranged */
};

struct coh_kernel {
    unsigned id;                /* dynamic kernel number, from 0 */
    ps_t ready_ps;              /* when its packet reached the command processor */
    const char *name;
    uint64_t chiplets;          /* bit c set: the kernel runs on chiplet c */
    unsigned nargs;             /* 0: unannotated */
    const struct coh_arg *args;
};

typedef void (*coh_done_fn)(struct sim *s, void *arg);

struct coh_ops {
    const char *name;
    const char *desc;                 /* one line, for `chipsim list schemes` */
    const struct cfg_key *keys;       /* the scheme's own keys, in section [coherence] */
    /* m stays valid (and may gain a log) until destroy */
    void *(*create)(const struct coh_machine *m, const struct cfg_sec *sec, struct err *e);
    void (*destroy)(void *self);
    void (*reg_stats)(void *self, struct stats *st);
    /* Implicit acquire before kernel k's first work-group; done() when finished. */
    void (*kernel_launch)(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg);
    /* Implicit release after kernel k's last work-group and its stores; done() when finished. */
    void (*kernel_end)(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg);
    void (*l2_access)(void *self, unsigned ch, struct req *r);
    void (*l2_miss)(void *self, unsigned ch, struct req *r);
    void (*remote_in)(void *self, unsigned home, struct req *r);
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
/* The L2 side of D4: flags for a request from chiplet ch's L1s, then into its L2. */
void coh_d4_l2_access(const struct coh_machine *m, const struct coh_d4 *d, unsigned ch,
                      struct req *r);

/* The default hooks, for schemes that extend them. */
void coh_default_l2_access(const struct coh_machine *m, unsigned ch, struct req *r);
void coh_default_l2_miss(const struct coh_machine *m, unsigned ch, struct req *r);
void coh_default_remote_in(const struct coh_machine *m, unsigned home, struct req *r);

/* Whole-machine kernel-boundary operations used by the schemes: run an
 * operation on many L1s or L2s in parallel and call done() when all have
 * finished. The sequencer object must stay alive until done() runs. */
#define COH_MAX_CHIPLETS 64
enum coh_cache_op { COH_FLUSH, COH_INVALIDATE, COH_INVALIDATE_CLEAN, COH_NONE };

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
