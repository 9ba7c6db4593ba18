/*
 * memsys.h -- the memory system of a whole machine, wired from the topology:
 * per CU an L1D and a link pair to its chiplet's L2; per chiplet an L2, a
 * link pair to its L3 slice(s), and HBM; per GPU a crossbar between its
 * chiplets; and a switch between GPUs. Requests carry their home node
 * (page placement), and an L2 miss goes to the home's L3: locally over the
 * L2-L3 links, across the crossbar for another chiplet of the same GPU, and
 * over the inter-GPU switch for a chiplet of another GPU.
 *
 * This wiring has no coherence yet: the coherence layer hooks into the L2
 * miss route (remote requests to the home's L2, write policies, kernel
 * boundary operations). L3 capacity is per chiplet slice (docs/memsys.md).
 */
#ifndef CHIPSIM_MEMSYS_H
#define CHIPSIM_MEMSYS_H

#include "mem/cache.h"
#include "mem/dram.h"
#include "net/link.h"
#include "net/topo.h"
#include "net/xbar.h"
#include "sched/place.h"
#include "stats/stats.h"

/* Where workloads place their data (page-aligned buffers start here). */
#define MEMSYS_HEAP_BASE 0x100000000ull

struct memsys;

/* A routing front that is a mem_port: the L2's lower side, the L3 slice
 * selector of a chiplet, the ingress of a GPU on the inter-GPU switch. */
struct memsys_front {
    struct memsys *ms;
    unsigned node;
    struct mem_port local, xbar; /* L2 route: to the local L3, into the crossbar */
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
    struct memsys_front *l2_route;    /* [nch] */
    struct link *l23_down, *l23_up;   /* [nch] */
    struct link_path *l23_path;       /* [nch] */
    struct memsys_front *l3_front;    /* [nch] */
    struct cache *l3;                 /* [nch * llc_slices] */
    struct dram *dram;                /* [nch] */
    struct xbar *xbar;                /* [gpus] */
    struct xbar gsw;                  /* inter-GPU switch, one port per GPU */
    struct memsys_front *gpu_in;      /* [gpus] */
    struct mem_port *gsw_paths;       /* [nch * gpus]: chiplet -> GPU g */
};

void memsys_define_sections(struct cfg *c);
/* Build from a resolved configuration; cross-key problems return -1. */
int memsys_build(struct memsys *ms, struct sim *s, const struct cfg *c, struct err *e);
void memsys_free(struct memsys *ms);
void memsys_reg_stats(struct memsys *ms, struct stats *st);

static inline unsigned memsys_ncus(const struct memsys *ms) { return ms->ncu; }
/* Home chiplet of addr when touched by global CU `cu` (placement policy). */
unsigned memsys_home(struct memsys *ms, addr_t addr, unsigned cu);
/* A request from CU `cu` into its L1 (r->home must be set). */
void memsys_cu_access(struct memsys *ms, unsigned cu, struct req *r);

/* read_hits + write_hits of every cache whose name ends in `level`. */
uint64_t memsys_hits(const struct stats *st, const char *level);

#endif
