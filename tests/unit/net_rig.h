/*
 * net_rig.h -- helpers of the network tests (test_net.c, test_net_topo.c):
 * a recorder of delivery events, a memory that answers after a fixed time,
 * a requester, and a network of G GPUs x C chiplets on its own simulation.
 */
#ifndef CHIPSIM_NET_RIG_H
#define CHIPSIM_NET_RIG_H

#include "net/net.h"

#define REC_MAX 4096
struct rec {
    ps_t t[REC_MAX];
    uint64_t arg[REC_MAX];
    int n;
};
/* An ev_fn: records (now, arg) in the struct rec passed as obj. */
void rec_ev(struct sim *s, void *obj, uint64_t arg);

/* A memory that answers every request `lat_ps` after it arrives. */
struct fakemem {
    ps_t lat_ps;
    int n;
    ps_t arrived;
    bool scribble; /* change r->home, which the network must not rely on */
};
void fakemem_access(struct sim *s, void *self, struct req *r);

/* The requester's own return entry. */
struct requester {
    ps_t done_at;
    int done;
    uint8_t nret_at_done;
};
struct req *new_req(struct sim *s, enum req_kind kind, uint32_t size, uint16_t home,
                    struct requester *q);

struct net_rig {
    struct sim s;
    struct clock c;
    struct net n;
    struct rec r;
};
void net_rig_init(struct net_rig *g, unsigned gpus, unsigned chiplets, const struct net_params *p,
                  double mhz);
void net_rig_free(struct net_rig *g);
/* The link named `name` (asserts that it exists). */
struct link *lk(struct net *n, const char *name);
/* Messages counted by the node named `name` (asserts that it exists). */
uint64_t fwd(const struct net *n, const char *name);

#endif
