/*
 * xbar.c -- the crossbar as two links per port: ingress (carrying the switch
 * latency) and egress. Between the two a message waits in a pooled record
 * (the egress is reserved when the message reaches it, not when it is sent,
 * so the egress serves messages in arrival order). Requests need no record
 * of their own beyond that: the return entry pushed on the request points at
 * its (source, destination) pair, which sends the response back.
 *
 * Bandwidth: port_gbps is converted to bytes per cycle of the crossbar clock
 * at init (link_bw_from_gbps, exact for GB/s with up to 3 decimals at an
 * integer-picosecond period), then kept as an exact rational by the links.
 * Default lat = 60 cycles per traversal: D6 puts a remote hop round trip at
 * +121 cycles; two traversals plus serialisation give about that.
 */
#include "xbar.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats/stats.h"

const struct cfg_key xbar_keys[] = {
    /* spec cpelide Table I, D7 */
    {"port_gbps", CFG_FLOAT, "768", 0.001, 1e6,
     "bandwidth per port per direction, GB/s (a multiple of 0.001)", NULL},
    /* spec cpelide D6 */
    {"lat", CFG_INT, "60", 0, 1e6, "switch traversal latency, cycles", NULL},
    /* spec cpelide D7 */
    {"flit_b", CFG_INT, "16", 1, 4096, "flit size in bytes", NULL},
    {"header_b", CFG_INT, "8", 1, 4096, "header bytes per message", NULL},
    CFG_END,
};

int xbar_params_from_cfg(const struct cfg_sec *sec, struct xbar_params *p, struct err *e)
{
    *p = (struct xbar_params){
        .port_gbps = cfg_float(sec, "port_gbps"),
        .lat = (uint32_t)cfg_uint(sec, "lat"),
        .flit_b = (uint32_t)cfg_uint(sec, "flit_b"),
        .header_b = (uint32_t)cfg_uint(sec, "header_b"),
    };
    double milli = p->port_gbps * 1000;
    if (fabs(milli - nearbyint(milli)) > 1e-4)
        return cfg_err(e, sec, "port_gbps",
                       "must be a multiple of 0.001 GB/s (so bytes per cycle stay exact)");
    return 0;
}

/* A message between the ingress and the egress. */
struct xbar_msg {
    ev_fn fn;
    void *obj;
    uint64_t arg;
    uint32_t bytes;
    uint16_t dst;
    uint8_t tc;
};

static void init_links(struct xbar *x, enum net_loc loc)
{
    struct link_params in = {x->p.lat, link_bw_from_gbps(x->p.port_gbps, x->clk), x->p.flit_b,
                             x->p.header_b};
    struct link_params out = in;
    out.lat = 0;
    x->in = xcalloc(x->n, sizeof *x->in);
    x->out = xcalloc(x->n, sizeof *x->out);
    for (unsigned i = 0; i < x->n; i++) {
        link_init(&x->in[i], &in, x->clk, loc);
        link_init(&x->out[i], &out, x->clk, loc);
        x->out[i].count_loc = false; /* counted once, at ingress */
    }
}

void xbar_init(struct xbar *x, const struct xbar_params *p, const struct clock *c,
               unsigned nports, enum net_loc loc)
{
    BUG_ON(nports == 0 || nports > UINT16_MAX);
    *x = (struct xbar){.p = *p, .clk = c, .n = nports};
    init_links(x, loc);
    x->target = xcalloc(nports, sizeof *x->target);
    x->paths = xcalloc((size_t)nports * nports, sizeof *x->paths);
    x->srcs = xcalloc(nports, sizeof *x->srcs);
    for (unsigned i = 0; i < nports; i++) {
        x->srcs[i] = (struct xbar_src){x, (uint16_t)i};
        for (unsigned j = 0; j < nports; j++)
            x->paths[i * nports + j] = (struct xbar_path){x, (uint16_t)i, (uint16_t)j};
    }
    pool_init(&x->msgs, sizeof(struct xbar_msg), 64 * (size_t)nports);
}

void xbar_free(struct xbar *x)
{
    for (unsigned i = 0; i < x->n; i++) {
        link_free(&x->in[i]);
        link_free(&x->out[i]);
    }
    free(x->in);
    free(x->out);
    free(x->target);
    free(x->paths);
    free(x->srcs);
    pool_destroy(&x->msgs);
    *x = (struct xbar){0};
}

void xbar_reg_stats(struct xbar *x, struct stats *st, const char *prefix)
{
    const char *dot = prefix && *prefix ? "." : "";
    for (unsigned i = 0; i < x->n; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s%sport%u.in", dot[0] ? prefix : "", dot, i);
        link_reg_stats(&x->in[i], st, name);
        snprintf(name, sizeof name, "%s%sport%u.out", dot[0] ? prefix : "", dot, i);
        link_reg_stats(&x->out[i], st, name);
    }
}

/* The message has crossed the switch: queue it on the destination's egress. */
static void xbar_mid(struct sim *s, void *obj, uint64_t arg)
{
    struct xbar *x = obj;
    struct xbar_msg *mp = (struct xbar_msg *)(uintptr_t)arg;
    struct xbar_msg m = *mp;
    pool_put(&x->msgs, mp);
    ps_t t = link_reserve(&x->out[m.dst], s->now, m.bytes, (enum traffic_class)m.tc);
    sim_at(s, t, m.fn, m.obj, m.arg);
}

void xbar_send(struct sim *s, struct xbar *x, unsigned src, unsigned dst, uint32_t bytes,
               enum traffic_class tc, ev_fn fn, void *obj, uint64_t arg)
{
    SIM_ASSERT(s, "xbar", src < x->n && dst < x->n);
    struct xbar_msg *m = pool_get(&x->msgs);
    *m = (struct xbar_msg){fn, obj, arg, bytes, (uint16_t)dst, (uint8_t)tc};
    link_send(s, &x->in[src], bytes, tc, xbar_mid, x, (uint64_t)(uintptr_t)m);
}

/* ---- request paths ---- */

static void xp_response(struct sim *s, struct req *r, void *obj)
{
    struct xbar_path *xp = obj;
    struct xbar *x = xp->x;
    xbar_send(s, x, xp->dst, xp->src, link_msg_bytes(&x->in[xp->dst].p, r, true),
              link_msg_tc(r, true), req_complete_ev, r, 0);
}

static void xp_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct xbar_path *xp = obj;
    struct req *r = (struct req *)(uintptr_t)arg;
    req_on_done(r, xp_response, xp);
    mem_send(s, &xp->x->target[xp->dst], r);
}

static void xp_send(struct sim *s, struct xbar_path *xp, struct req *r)
{
    struct xbar *x = xp->x;
    if (!x->target[xp->dst].access)
        SIM_BUG(s, "xbar", "request to port %u, which has no target attached", xp->dst);
    xbar_send(s, x, xp->src, xp->dst, link_msg_bytes(&x->in[xp->src].p, r, false),
              link_msg_tc(r, false), xp_arrive, xp, (uint64_t)(uintptr_t)r);
}

static void path_access(struct sim *s, void *self, struct req *r) { xp_send(s, self, r); }

static void src_access(struct sim *s, void *self, struct req *r)
{
    struct xbar_src *xs = self;
    struct xbar *x = xs->x;
    unsigned port = (unsigned)r->home - x->home_base; /* wraps if home < base */
    if (port >= x->n)
        SIM_BUG(s, "xbar", "request home %u is not one of ports %u..%u", r->home, x->home_base,
                x->home_base + x->n - 1);
    xp_send(s, &x->paths[(size_t)xs->src * x->n + port], r);
}

void xbar_attach(struct xbar *x, unsigned port, struct mem_port target)
{
    BUG_ON(port >= x->n || !target.access);
    x->target[port] = target;
}

struct mem_port xbar_port(struct xbar *x, unsigned src)
{
    BUG_ON(src >= x->n);
    return (struct mem_port){src_access, &x->srcs[src]};
}

struct mem_port xbar_path_port(struct xbar *x, unsigned src, unsigned dst)
{
    BUG_ON(src >= x->n || dst >= x->n);
    return (struct mem_port){path_access, &x->paths[(size_t)src * x->n + dst]};
}
