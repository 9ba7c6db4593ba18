/*
 * coh_hier.h -- the homes and routes of the hierarchical multi-GPU
 * protocols (spec hmg.md 5.1, 5.2), shared by hmg.c and swcoh.c. A line's
 * system home is the chiplet page placement chose (r->home); its GPU home on
 * GPU g is g's GPM with the system home's index (H1), on the system home's
 * GPU the system home itself. Flat (on = false): one home per line, every
 * chiplet a peer of every other.
 */
#ifndef CHIPSIM_COH_HIER_H
#define CHIPSIM_COH_HIER_H

#include "coh.h"

struct coh_hier {
    unsigned cpg;       /* chiplets (GPMs) per GPU */
    unsigned cu_per_ch;
    bool on;            /* GPU homes under system homes; false: flat */
};

static inline unsigned coh_hier_gpu(const struct coh_hier *x, unsigned ch)
{
    return ch / x->cpg;
}

static inline unsigned coh_hier_src(const struct coh_hier *x, const struct req *r)
{
    return r->src / x->cu_per_ch;
}

/* GPU g's home of a line whose system home is chiplet home (flat: home). */
static inline unsigned coh_hier_gpu_home(const struct coh_hier *x, unsigned home, unsigned g)
{
    return x->on ? g * x->cpg + home % x->cpg : home;
}

/* Where a strong access of r's scope synchronizes, for a requester on
 * chiplet ch (spec hmg.md 5.2): GPU scope at its GPU's home of the line,
 * system scope at the system home (flat: both at the one home); -1 for a
 * weak or work-group-scope access. */
static inline int coh_hier_sync(const struct coh_hier *x, unsigned ch, const struct req *r)
{
    if (r->sem == SEM_WEAK || r->scope < SCOPE_GPU)
        return -1;
    return (int)(r->scope == SCOPE_GPU ? coh_hier_gpu_home(x, r->home, coh_hier_gpu(x, ch))
                                       : r->home);
}

/* Where an atomic from chiplet ch is performed: at its scope's node, a weak
 * one at the system home. */
static inline unsigned coh_hier_atomic(const struct coh_hier *x, unsigned ch, const struct req *r)
{
    int n = coh_hier_sync(x, ch, r);
    return n < 0 ? r->home : (unsigned)n;
}

/* A strong load from chiplet ch that synchronizes elsewhere goes straight
 * there (a .sys one past the GPU home); true with the route in *rt. Strong
 * stores and atomics are stores for coherence and take the stores' route
 * (spec hmg.md 5.2's routing rules): through the local L2 and the GPU home,
 * each updating or dropping its copy, so that no cache on the way keeps the
 * old data where its home's directory, recording the requester as a sharer,
 * would not invalidate it. */
static inline bool coh_hier_strong(const struct coh_hier *x, unsigned ch, const struct req *r,
                                   struct coh_route *rt)
{
    if (r->kind != REQ_READ)
        return false;
    int sn = coh_hier_sync(x, ch, r);
    if (sn < 0 || (unsigned)sn == ch)
        return false;
    *rt = coh_route_to(sn == (int)r->home ? COH_HOP_HOME : COH_HOP_GPU_HOME, 0);
    return true;
}

/* A miss, write-through or write-back from chiplet ch's L2: to its GPU's
 * home of the line, from there to the system home, from there to memory. */
static inline struct coh_route coh_hier_miss(const struct coh_hier *x, unsigned ch,
                                             const struct req *r)
{
    if (r->home == ch)
        return coh_route_to(COH_HOP_L3, 0);
    bool gpu_home_next = x->on && coh_hier_gpu_home(x, r->home, coh_hier_gpu(x, ch)) != ch;
    return coh_route_to(gpu_home_next ? COH_HOP_GPU_HOME : COH_HOP_HOME, 0);
}

/* The flags of a request arriving at home n (a GPU or the system home) from
 * another chiplet: remote, allocating for readers unless !alloc, stores
 * written through onward unless write_back (strong ones always), an atomic
 * performed here only if it is this node's to perform (else passed on). */
static inline unsigned coh_hier_home_flags(const struct coh_hier *x, unsigned n,
                                           const struct req *r, bool alloc, bool write_back)
{
    unsigned set = REQ_F_REMOTE;
    if (r->kind == REQ_READ && !alloc)
        set |= REQ_F_NOALLOC; /* the home serves or relays */
    if (r->kind == REQ_ATOMIC && coh_hier_atomic(x, coh_hier_src(x, r), r) != n)
        set |= REQ_F_NOALLOC | REQ_F_WT; /* on to the system home */
    else if (((r->kind == REQ_WRITE || r->kind == REQ_ATOMIC) && !write_back) ||
             coh_strong_store(r))
        set |= REQ_F_WT; /* written through onward */
    return set;
}

/* The request path on HMG's routes at the requester's L2 (hmg after its
 * directory's event, swcoh, ideal under mode = hier): a strong load to
 * its scope's home, an atomic passed on where it is not this node's to
 * perform, stores written through if write_through, strong ones always. */
static inline struct coh_route coh_hier_l2_access(const struct coh_hier *x, unsigned ch,
                                                  const struct req *r, bool write_through)
{
    struct coh_route rt;
    if (coh_hier_strong(x, ch, r, &rt))
        return rt;
    if (r->kind == REQ_ATOMIC && coh_hier_atomic(x, ch, r) != ch)
        return coh_route_to(COH_HOP_L2, REQ_F_NOALLOC | REQ_F_WT); /* performed at its home */
    bool store = r->kind == REQ_WRITE || r->kind == REQ_ATOMIC;
    bool wt = (store && write_through) || coh_strong_store(r);
    return coh_route_to(COH_HOP_L2, wt ? REQ_F_WT : 0);
}

/* The same protocols at a GPU home (hmg after its directory's event):
 * write-backs go on to the system home, the rest is served (and kept,
 * unless !alloc) here. */
static inline struct coh_route coh_hier_gpu_home_route(const struct coh_hier *x, unsigned n,
                                                       const struct req *r, bool alloc,
                                                       bool write_back)
{
    if (r->kind == REQ_WRITEBACK)
        return coh_route_to(COH_HOP_HOME, 0);
    return coh_route_to(COH_HOP_L2, coh_hier_home_flags(x, n, r, alloc, write_back));
}

#endif
