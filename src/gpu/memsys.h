/*
 * memsys.h -- the memory system of a whole machine, wired from the topology:
 * per CU an L1D and a link pair to its chiplet's L2; per chiplet an L2, a
 * link pair to its L3 slice(s), and HBM; and the network (net/net.h): per
 * GPU a fabric between its chiplets (crossbar or ring) and a network between
 * the GPUs (switch, point-to-point links or tree). Requests carry their home
 * node (page placement), and an L2 miss goes to the home's L3: locally over
 * the L2-L3 links, else over the network to the home chiplet (across its
 * GPU's fabric, or across both GPUs' fabrics and the GPU network).
 *
 * The coherence scheme (coherence/coh.h) decides at three points: a request
 * from the L1s entering a chiplet's L2, a miss leaving an L2, and a request
 * arriving at its home chiplet from the network. L3 capacity is per chiplet
 * slice (docs/memsys.md).
 */
#ifndef CHIPSIM_MEMSYS_H
#define CHIPSIM_MEMSYS_H

#include "coherence/coh.h"
#include "mem/cache.h"
#include "mem/dram.h"
#include "net/link.h"
#include "net/net.h"
#include "net/topo.h"
#include "sched/place.h"
#include "stats/stats.h"

/* Where synthetic traffic places its data. */
#define MEMSYS_HEAP_BASE 0x100000000ull

struct memsys;

/* A routing front that is a mem_port: the L2's two sides, the network
 * exit of a chiplet, the L3 slice selector. */
struct memsys_front {
    struct memsys *ms;
    unsigned node;
};

struct memsys {
    struct sim *s;
    struct topo t;
    struct clock gpu_clk;
    unsigned line_b, nch, ncu;
    struct place place;

    struct cache *l1;                 /* [ncu] */
    struct link *l1_down, *l1_up;     /* [ncu] */
    struct link_path *l1_path;        /* [ncu] */
    struct cache *l2;                 /* [nch] */
    struct memsys_front *front;       /* [nch]: per chiplet, shared by all its fronts */
    struct link *l23_down, *l23_up;   /* [nch] */
    struct link_path *l23_path;       /* [nch] */
    struct cache *l3;                 /* [nch * llc_slices] */
    struct dram *dram;                /* [nch] */
    struct net net;                   /* chiplet fabrics and the GPU network */
    struct mem_port *to_l3;           /* [nch]: chiplet -> its L3 slices (or HBM) */
    struct memsys_front *cu_front;    /* [ncu]: the fronts below each L1 */
    struct shadow shadow;             /* memory's data versions (checker) */
    bool versions;

    uint64_t *remote_requests;        /* [nch]: requests arriving from other chiplets */
    uint8_t *l2_class;                /* [nch][nch]: enum cache_data_class of home h at L2 c */
    struct memsys_copy_stats {
        uint64_t pages_placed, lines_warmed, lines_not_warmed;
    } copy_st;                        /* host copies (memsys_host_copy) */
    struct coh_machine cm;            /* the machine as coherence schemes see it */
    const struct coh_ops *coh;        /* NULL: the default hooks */
    void *coh_self;
};

void memsys_define_sections(struct cfg *c);
/* Build from a resolved configuration; cross-key problems return -1.
 * versions: keep per-word data versions everywhere (the checker). */
int memsys_build(struct memsys *ms, struct sim *s, const struct cfg *c, bool versions,
                 struct err *e);
/* Route through scheme `ops` (created on ms->cm) from now on. */
void memsys_set_coherence(struct memsys *ms, const struct coh_ops *ops, void *self);
void memsys_free(struct memsys *ms);
void memsys_reg_stats(struct memsys *ms, struct stats *st);

static inline unsigned memsys_ncus(const struct memsys *ms) { return ms->ncu; }
/* Home chiplet of addr when touched by global CU `cu` (placement policy). */
unsigned memsys_home(struct memsys *ms, addr_t addr, unsigned cu);
/* A request from CU `cu` (r->home must be set): the scheme's l1_access
 * decides whether it enters the L1 or passes it. */
void memsys_l1_access(struct memsys *ms, unsigned cu, struct req *r);
/* The same, for synthetic traffic. */
void memsys_cu_access(struct memsys *ms, unsigned cu, struct req *r);
/* Scoped synchronization by CU cu (coh.h release/acquire, or their
 * defaults); done(s, arg) when complete. */
void memsys_release(struct memsys *ms, unsigned cu, enum mem_scope scope, coh_done_fn done,
                    void *arg);
void memsys_acquire(struct memsys *ms, unsigned cu, enum mem_scope scope, coh_done_fn done,
                    void *arg);

/* A host-to-device copy of [lo, hi) (spec accelsim A12). place: the copy is
 * the first touch of its pages; the copy engine writes page p on chiplet
 * p mod chiplets, which becomes its home under first-touch placement.
 * warm: each line is installed clean in its home chiplet's L2 with memory's
 * data versions, unless the line is already cached somewhere or a
 * write-back is under way (then it is left out, counted), or its page has
 * no home yet. Takes no simulated time. */
void memsys_host_copy(struct memsys *ms, addr_t lo, addr_t hi, bool place, bool warm);

/* read_hits + write_hits of every cache whose name ends in `level`. */
uint64_t memsys_hits(const struct stats *st, const char *level);

#endif
