/*
 * place.h -- page placement: which chiplet (node) is the home of each page.
 * The home's L3 slice and HBM hold the page; schemes route by it.
 *
 * A policy (`struct place_ops`, listed in sched/registry.c) has a rule for
 * every address, `first_touch` (the chiplet of the first CU that touches a
 * page becomes its home for the rest of the run; spec cpelide 2.3) or
 * `interleave` (unit i of `interleave_b` bytes on node i mod N), and may
 * place each buffer a kernel declares at the buffer's first launch
 * (first_launch hook, through place_set()): `chunk` splits a buffer into
 * contiguous runs of pages per GPU and then per chiplet (spec dualopt 2.2,
 * ladm 2 kernel-wide). LADM's LASP (spec ladm 6) is one more ops table.
 *
 * Costs (docs/sched.md): a page placed by a kernel's first touch costs a
 * fault of `fault_us` (spec ladm 1, L12), charged to the requests of the
 * page that leave an L1 before the fault is served (place_gate_l1s());
 * a page a policy moves to another home costs `migrate_us`, and the launch
 * that moves it waits for every such copy, one after another.
 * The page table is an open-addressing hash map that grows only when a new
 * page is placed.
 */
#ifndef CHIPSIM_PLACE_H
#define CHIPSIM_PLACE_H

#include "base/pagemap.h"
#include "config/cfg.h"
#include "engine/sim.h"
#include "mem/cache.h"
#include "net/topo.h"
#include "sched/launch.h"

struct stats;

enum place_rule { PLACE_FIRST_TOUCH, PLACE_INTERLEAVE };
enum place_chunk_chiplets { PLACE_CHUNK_CONTIGUOUS, PLACE_CHUNK_INTERLEAVE };

struct place;

struct place_ops {
    const char *name, *desc;
    const struct cfg_key *keys;   /* its own keys in [place]; NULL: none */
    enum place_rule rule;         /* pages the policy did not place */
    /* The first launch that declares buffer l->bufs[b]: give its pages homes
     * with place_set() (pages left alone follow `rule`). NULL: none. */
    void (*first_launch)(struct place *p, const struct sched_launch *l, unsigned b);
};

extern const struct place_ops *const place_registry[];
extern const struct cfg_key place_keys[];
extern const char place_choices[];
const struct place_ops *place_find(const char *name);
/* Define [place]: place_keys and every policy's own keys. */
void place_define_section(struct cfg *c);

struct place_params {
    const struct place_ops *ops;
    uint64_t page_b;              /* a power of two, 4 KiB .. 2 MiB */
    uint64_t interleave_b;        /* the interleave unit; 0: page_b */
    enum place_chunk_chiplets chunk_chiplets;
    bool interleave_hier;         /* interleave over the GPUs first (interleave_order = hier) */
    ps_t fault_ps, migrate_ps;
};

/* A CU's L1 to the rest of the memory system, holding back requests to a
 * page whose first-touch fault is being served. */
struct place_gate {
    struct place *p;
    struct mem_port down;
};

struct place_stats {
    uint64_t first_touches;       /* pages placed by a kernel access */
    uint64_t faults;              /* first-touch faults served (fault_us > 0) */
    uint64_t fault_waits;         /* requests that waited for a fault */
    uint64_t policy_pages;        /* pages a policy placed at a buffer's first launch */
    uint64_t migrations;          /* placed pages a policy moved to another home */
};

struct place {
    struct place_params p;
    struct topo t;                /* homes are global chiplet indices */
    unsigned page_shift;
    unsigned nhomes;
    struct pagemap pages;         /* page number -> home | PLACE_F_FAULT */
    struct u64map faults;         /* page number -> time its fault is served */
    struct u64map bufs;           /* base of each buffer launched so far */
    ps_t owed_ps;                 /* migration time of the launch being placed */
    struct place_gate *gates;     /* [ngates], only with a fault cost */
    unsigned ngates;
    struct place_stats st;
};

int place_init_cfg(struct place *p, const struct cfg_sec *sec, const struct topo *t,
                   struct err *e);
void place_init(struct place *p, const struct place_params *pp, const struct topo *t);
void place_free(struct place *p);
void place_reg_stats(struct place *p, struct stats *st, const char *prefix);

/* Home of addr as a kernel access by a CU of chiplet `toucher` sees it
 * (placing the page there on a first touch). */
unsigned place_home(struct place *p, addr_t addr, unsigned toucher);
/* Home if already placed (or fixed by the rule), else -1. */
int place_lookup(const struct place *p, addr_t addr);
/* A host copy places addr's page on `home` unless it has one (no fault). */
void place_copy(struct place *p, addr_t addr, unsigned home);

/* Policies: addr's page goes to `home` (a migration if it had another). */
void place_set(struct place *p, addr_t addr, unsigned home);
/* A launch: place the buffers it declares for the first time; returns the
 * time their migrations take (0 without any). */
ps_t place_launch(struct place *p, const struct sched_launch *l);

/* With a fault cost, put a gate below each of the n L1s. */
void place_gate_l1s(struct place *p, struct cache *l1, unsigned n);
/* When a request to addr may leave the L1 (<= now: at once); starts the
 * fault of a page first touched by a kernel access. */
ps_t place_ready(struct place *p, addr_t addr, ps_t now);

#endif
