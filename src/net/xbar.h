/*
 * xbar.h -- an N-port crossbar that is non-blocking inside (spec cpelide.md,
 * D7: 768 GB/s per chiplet port per direction, 16 B flits, 8 B headers).
 *
 * Modelled: each port has an ingress link (chiplet -> crossbar) and an egress
 * link (crossbar -> chiplet) of the port bandwidth. A message serialises on
 * its source's ingress, crosses the switch in `lat` cycles, then serialises
 * on its destination's egress in order of arrival there; so two sources
 * sending to one destination contend on that egress, disjoint pairs do not.
 * Store-and-forward: the egress starts once the whole message has arrived.
 * Abstracted: no internal buffers, credits, arbitration priorities or
 * head-of-line blocking (queues are unbounded FIFOs), no virtual channels.
 * Flits are counted on both links of a port; the location total
 * (flits_remote) only on ingress, so each message counts once (docs/net.md).
 */
#ifndef CHIPSIM_XBAR_H
#define CHIPSIM_XBAR_H

#include "base/pool.h"
#include "net/link.h"

struct xbar_params {
    double port_gbps; /* per port per direction, GB/s (Table I: 768; D7) */
    uint32_t lat;     /* switch traversal, cycles of the crossbar clock */
    uint32_t flit_b;  /* D7: 16 */
    uint32_t header_b; /* D7: 8 */
};

extern const struct cfg_key xbar_keys[];
int xbar_params_from_cfg(const struct cfg_sec *sec, struct xbar_params *p, struct err *e);

struct xbar;

/* One (source, destination) pair; the return entry of a request in flight
 * points here, so the response finds its way back whatever the target did
 * to the request's fields. */
struct xbar_path {
    struct xbar *x;
    uint16_t src, dst;
};

/* A source port's routing front: sends each request to port r->home. */
struct xbar_src {
    struct xbar *x;
    uint16_t src;
};

struct xbar {
    struct xbar_params p;
    const struct clock *clk;
    unsigned n;
    struct link *in, *out;    /* per port: ingress (with the switch latency), egress */
    struct mem_port *target;  /* per port: where requests to that port are delivered */
    struct xbar_path *paths;  /* n * n, [src * n + dst] */
    struct xbar_src *srcs;    /* n */
    struct pool msgs;         /* messages between ingress and egress */
    unsigned home_base;       /* xbar_port() sends r to port r->home - home_base (set it to
                                 the GPU's first global chiplet when homes are global) */
};

void xbar_init(struct xbar *x, const struct xbar_params *p, const struct clock *c,
               unsigned nports, enum net_loc loc);
void xbar_free(struct xbar *x);
/* Stats per port: <prefix>.port<i>.in.* and <prefix>.port<i>.out.* (link stats). */
void xbar_reg_stats(struct xbar *x, struct stats *st, const char *prefix);

/* Send `bytes` from port src to port dst; fn(s, obj, arg) runs on delivery.
 * The message is injected on the next edge of the crossbar clock. */
void xbar_send(struct sim *s, struct xbar *x, unsigned src, unsigned dst, uint32_t bytes,
               enum traffic_class tc, ev_fn fn, void *obj, uint64_t arg);

/* Request paths. Attach the component that serves requests arriving at a
 * port (e.g. chiplet j's L2, or its remote-request handler); then a request
 * sent into xbar_port(x, i) travels i -> j = r->home - x->home_base, is served
 * there, and its response travels back j -> i before it completes at the sender.
 * xbar_path_port(x, i, j) is the same with a fixed destination j. */
void xbar_attach(struct xbar *x, unsigned port, struct mem_port target);
struct mem_port xbar_port(struct xbar *x, unsigned src);
struct mem_port xbar_path_port(struct xbar *x, unsigned src, unsigned dst);

#endif
