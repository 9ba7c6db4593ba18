/*
 * net.c -- building the networks (net.h) and moving messages over them.
 *
 * Every network is nodes joined by one-way links (net/link.h); a route is
 * the list of links a message crosses. Routes are fixed per (source,
 * destination) and kept per fabric ([gpu][endpoint][endpoint], the GPU's
 * port being the last endpoint) and per GPU pair, so a trip between GPUs is
 * three routes: source fabric to its port, GPU network, destination fabric
 * from its port.
 *
 * A message is a pooled record that moves hop by hop: at each node it is
 * offered to its next link (store-and-forward: ready the moment it has
 * arrived; the first link takes it on an edge of the link clock, as
 * link_send). With credits, a message holds its current link's credit until
 * the next link takes it (or, at the last link, until it is delivered), so a
 * full link stops its upstream links hop by hop; requests and responses,
 * and the legs before and inside the destination GPU, use separate virtual
 * channels, and a message entering a ring needs two free slots (bubble flow
 * control), which keeps every route deadlock-free (docs/net.md). Without
 * credits the last hop schedules the delivery itself: a crossbar message is
 * two events, as it always was.
 */
#include "net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

struct net_msg {
    struct link_wait w;        /* first: waiting for the credit of hops[next] */
    struct net *net;
    ev_fn fn;
    void *obj;
    uint64_t arg;
    struct net_route seg[3];
    uint32_t fixed, payload;   /* bytes on every link, or payload + each link's header */
    int32_t cur;               /* link holding the message (-1: none yet) */
    uint32_t next;             /* link it is offered to */
    uint32_t hi;               /* hop within the current segment */
    uint8_t nseg, si, resp, tc, mc, cur_vc;
};

/* ---- building ---- */

static unsigned add_node(struct net *n, char *name)
{
    n->nodes = xgrow(n->nodes, sizeof *n->nodes, &n->nodes_cap, n->nnodes + 1);
    n->nodes[n->nnodes] = (struct net_node){.name = name};
    return n->nnodes++;
}

struct link_spec {
    const struct net_hop_params *h;
    uint32_t lat;       /* cycles after serialisation */
    enum net_loc loc;
    enum net_lc lc;
    bool ring, enter;   /* a ring link; messages may enter their network here */
};

static uint32_t add_link(struct net *n, const struct link_spec *sp, unsigned to, char *name)
{
    if (n->nlinks == n->links_cap) {
        size_t cap = n->links_cap;
        n->links = xgrow(n->links, sizeof *n->links, &cap, n->nlinks + 1);
        n->lname = xrealloc(n->lname, cap * sizeof *n->lname);
        n->lto = xrealloc(n->lto, cap * sizeof *n->lto);
        n->lring = xrealloc(n->lring, cap * sizeof *n->lring);
        n->links_cap = (unsigned)cap;
    }
    const struct net_hop_params *h = sp->h;
    struct link_params p = {sp->lat, link_bw_from_gbps(h->gbps, n->clk), h->flit_b, h->header_b,
                            h->resp_header_b, h->buf_msgs};
    uint32_t i = n->nlinks++;
    link_init(&n->links[i], &p, n->clk, sp->loc);
    n->links[i].count_loc = sp->enter;
    n->links[i].cls = &n->cls[sp->lc];
    n->lname[i] = name;
    n->lto[i] = to;
    n->lring[i] = sp->ring;
    return i;
}

static void push_hop(struct net *n, uint32_t link)
{
    n->hops = xgrow(n->hops, sizeof *n->hops, &n->hops_cap, n->nhops + 1);
    n->hops[n->nhops++] = link;
}

static struct net_route *fab_route(struct net *n, unsigned g, unsigned a, unsigned b)
{
    return &n->fab[((size_t)g * n->ends + a) * n->ends + b];
}

/* Nodes of one GPU's endpoints: its chiplets' nodes, then its port node. */
struct ends {
    unsigned node[65];
};

/* The crossbar: per endpoint an ingress link (carrying the switch latency)
 * and an egress link; i -> j crosses in[i] and out[j]. */
static void build_xbar(struct net *n, unsigned g, const struct ends *e)
{
    const struct net_hop_params *h = &n->p.xbar;
    unsigned sw = add_node(n, xasprintf("gpu%u.xbar", g));
    uint32_t in[65], out[65];
    struct link_spec ingress = {h, h->lat, LOC_REMOTE, LC_INTER_CHIPLET, false, true};
    struct link_spec egress = {h, 0, LOC_REMOTE, LC_INTER_CHIPLET, false, false};
    for (unsigned i = 0; i < n->ends; i++) {
        char port[16];
        if (i == n->chiplets)
            snprintf(port, sizeof port, "gpu_port");
        else
            snprintf(port, sizeof port, "port%u", i);
        in[i] = add_link(n, &ingress, sw, xasprintf("gpu%u.xbar.%s.in", g, port));
        out[i] = add_link(n, &egress, e->node[i], xasprintf("gpu%u.xbar.%s.out", g, port));
    }
    for (unsigned i = 0; i < n->ends; i++)
        for (unsigned j = 0; j < n->ends; j++) {
            *fab_route(n, g, i, j) = (struct net_route){(uint32_t)n->nhops, 2};
            push_hop(n, in[i]);
            push_hop(n, out[j]);
        }
}

/* Ring links from stop i to stop j, the shorter way round (clockwise on a tie). */
static void push_ring(struct net *n, unsigned c, const uint32_t *cw, const uint32_t *ccw,
                      unsigned i, unsigned j)
{
    unsigned d = (j + c - i) % c;
    if (d <= c - d)
        for (unsigned k = 0; k < d; k++)
            push_hop(n, cw[(i + k) % c]);
    else
        for (unsigned k = 0; k < c - d; k++)
            push_hop(n, ccw[(i + c - k) % c]);
}

/* The ring: stop i is chiplet i; cw[i] goes i -> i+1, ccw[i] i -> i-1; the
 * port hangs off stop 0 by a link each way. */
static void build_ring(struct net *n, unsigned g, const struct ends *e)
{
    const struct net_hop_params *h = &n->p.ring;
    unsigned c = n->chiplets;
    uint32_t cw[64], ccw[64], up = 0, down = 0;
    struct link_spec ring = {h, h->lat, LOC_REMOTE, LC_INTER_CHIPLET, true, true};
    struct link_spec port = {h, h->lat, LOC_REMOTE, LC_INTER_CHIPLET, false, true};
    for (unsigned i = 0; i < c; i++)
        n->nodes[e->node[i]].name = xasprintf("gpu%u.ring.stop%u", g, i);
    for (unsigned i = 0; c > 1 && i < c; i++) {
        cw[i] = add_link(n, &ring, e->node[(i + 1) % c], xasprintf("gpu%u.ring.stop%u.cw", g, i));
        if (c > 2)
            ccw[i] = add_link(n, &ring, e->node[(i + c - 1) % c],
                              xasprintf("gpu%u.ring.stop%u.ccw", g, i));
    }
    if (n->ends > c) {
        up = add_link(n, &port, e->node[c], xasprintf("gpu%u.ring.port.up", g));
        down = add_link(n, &port, e->node[0], xasprintf("gpu%u.ring.port.down", g));
    }
    for (unsigned i = 0; i < n->ends; i++)
        for (unsigned j = 0; j < n->ends; j++) {
            struct net_route *r = fab_route(n, g, i, j);
            r->off = (uint32_t)n->nhops;
            if (i == c && j == c)
                ;
            else if (i == c) {
                push_hop(n, down);
                push_ring(n, c, cw, ccw, 0, j);
            } else if (j == c) {
                push_ring(n, c, cw, ccw, i, 0);
                push_hop(n, up);
            } else {
                push_ring(n, c, cw, ccw, i, j);
            }
            r->len = (uint32_t)(n->nhops - r->off);
        }
}

static struct net_route *inter_route(struct net *n, unsigned a, unsigned b)
{
    return &n->inter[(size_t)a * n->gpus + b];
}

static void build_switch(struct net *n, const unsigned *port)
{
    const struct net_hop_params *h = &n->p.gswitch;
    unsigned sw = add_node(n, xasprintf("system.gpu_link"));
    uint32_t in[64], out[64];
    struct link_spec ingress = {h, h->lat, LOC_GPU_GPU, LC_INTER_GPU, false, true};
    struct link_spec egress = {h, 0, LOC_GPU_GPU, LC_INTER_GPU, false, false};
    for (unsigned g = 0; g < n->gpus; g++) {
        in[g] = add_link(n, &ingress, sw, xasprintf("system.gpu_link.port%u.in", g));
        out[g] = add_link(n, &egress, port[g], xasprintf("system.gpu_link.port%u.out", g));
    }
    for (unsigned a = 0; a < n->gpus; a++)
        for (unsigned b = 0; b < n->gpus; b++) {
            *inter_route(n, a, b) = (struct net_route){(uint32_t)n->nhops, 2};
            push_hop(n, in[a]);
            push_hop(n, out[b]);
        }
}

static void build_p2p(struct net *n, const unsigned *port)
{
    const struct net_hop_params *h = &n->p.p2p;
    struct link_spec sp = {h, h->lat, LOC_GPU_GPU, LC_INTER_GPU, false, true};
    for (unsigned a = 0; a < n->gpus; a++)
        for (unsigned b = 0; b < n->gpus; b++) {
            if (a == b)
                continue;
            uint32_t l = add_link(n, &sp, port[b], xasprintf("system.gpu_p2p.gpu%u.to_gpu%u", a, b));
            *inter_route(n, a, b) = (struct net_route){(uint32_t)n->nhops, 1};
            push_hop(n, l);
        }
}

/* MGPUSim's PCIe tree: a switch per pair of GPUs, the switches under a root
 * complex. A link into a switch carries that switch's latency, so a trip
 * within a pair crosses one switch and any other three (GPU 1 -> GPU 3:
 * its pair's switch, the root, the other pair's switch; dualopt.md 8.3). */
static void build_tree(struct net *n, const unsigned *port)
{
    const struct net_hop_params *h = &n->p.tree;
    unsigned nsw = (n->gpus + 1) / 2, sw[32], root = 0;
    uint32_t gup[64], gdown[64], sup[32], sdown[32];
    struct link_spec into = {h, h->lat + h->sw_lat, LOC_GPU_GPU, LC_INTER_GPU, false, true};
    struct link_spec down = {h, h->lat, LOC_GPU_GPU, LC_INTER_GPU, false, false};
    struct link_spec inner = {h, h->lat + h->sw_lat, LOC_GPU_GPU, LC_INTER_GPU, false, false};
    for (unsigned k = 0; k < nsw; k++)
        sw[k] = add_node(n, xasprintf("system.gpu_tree.sw%u", k));
    if (nsw > 1)
        root = add_node(n, xasprintf("system.gpu_tree.root"));
    for (unsigned g = 0; g < n->gpus; g++) {
        gup[g] = add_link(n, &into, sw[g / 2], xasprintf("system.gpu_tree.gpu%u.up", g));
        gdown[g] = add_link(n, &down, port[g], xasprintf("system.gpu_tree.gpu%u.down", g));
    }
    for (unsigned k = 0; nsw > 1 && k < nsw; k++) {
        sup[k] = add_link(n, &inner, root, xasprintf("system.gpu_tree.sw%u.up", k));
        sdown[k] = add_link(n, &inner, sw[k], xasprintf("system.gpu_tree.sw%u.down", k));
    }
    for (unsigned a = 0; a < n->gpus; a++)
        for (unsigned b = 0; b < n->gpus; b++) {
            struct net_route *r = inter_route(n, a, b);
            r->off = (uint32_t)n->nhops;
            if (a != b) {
                push_hop(n, gup[a]);
                if (a / 2 != b / 2) {
                    push_hop(n, sup[a / 2]);
                    push_hop(n, sdown[b / 2]);
                }
                push_hop(n, gdown[b]);
            }
            r->len = (uint32_t)(n->nhops - r->off);
        }
}

static void msg_pending_watch(struct net *n)
{
    sim_watch(n->s, "net", net_pending, net_dump, n);
}

void net_init(struct net *n, struct sim *s, const struct clock *c, const struct topo *t,
              const struct net_params *p)
{
    BUG_ON(t->gpus == 0 || t->gpus > 64 || t->chiplets == 0 || t->chiplets > 64);
    *n = (struct net){.s = s, .clk = c, .p = *p, .gpus = t->gpus, .chiplets = t->chiplets};
    n->nch = t->gpus * t->chiplets;
    n->ends = t->chiplets + (t->gpus > 1);
    n->fab = xcalloc((size_t)n->gpus * n->ends * n->ends, sizeof *n->fab);
    n->inter = xcalloc((size_t)n->gpus * n->gpus, sizeof *n->inter);
    n->ch_gpu = xcalloc(n->nch, sizeof *n->ch_gpu);
    n->ch_local = xcalloc(n->nch, sizeof *n->ch_local);
    unsigned chnode0 = n->nnodes, port[64];
    for (unsigned ch = 0; ch < n->nch; ch++) {
        add_node(n, NULL);
        n->ch_gpu[ch] = (uint16_t)(ch / n->chiplets);
        n->ch_local[ch] = (uint16_t)(ch % n->chiplets);
    }
    for (unsigned g = 0; n->gpus > 1 && g < n->gpus; g++)
        port[g] = add_node(n, xasprintf("gpu%u.port", g));
    for (unsigned g = 0; g < n->gpus; g++) {
        struct ends e;
        for (unsigned i = 0; i < n->chiplets; i++)
            e.node[i] = chnode0 + g * n->chiplets + i;
        if (n->gpus > 1)
            e.node[n->chiplets] = port[g];
        if (p->fabric == NET_RING)
            build_ring(n, g, &e);
        else
            build_xbar(n, g, &e);
    }
    if (n->gpus > 1) {
        if (p->gpunet == NET_P2P)
            build_p2p(n, port);
        else if (p->gpunet == NET_TREE)
            build_tree(n, port);
        else
            build_switch(n, port);
    }
    n->pairs = xcalloc((size_t)n->nch * n->nch, sizeof *n->pairs);
    n->srcs = xcalloc(n->nch, sizeof *n->srcs);
    n->target = xcalloc(n->nch, sizeof *n->target);
    for (unsigned a = 0; a < n->nch; a++) {
        n->srcs[a] = (struct net_src){n, (uint16_t)a};
        for (unsigned b = 0; b < n->nch; b++)
            n->pairs[(size_t)a * n->nch + b] = (struct net_pair){n, (uint16_t)a, (uint16_t)b};
    }
    pool_init(&n->msgs, sizeof(struct net_msg), 64 * (size_t)n->ends * n->gpus);
    msg_pending_watch(n);
}

void net_free(struct net *n)
{
    if (!n->links && !n->nodes)
        return;
    for (unsigned i = 0; i < n->nlinks; i++) {
        link_free(&n->links[i]);
        free(n->lname[i]);
    }
    for (unsigned i = 0; i < n->nnodes; i++)
        free(n->nodes[i].name);
    void *arrays[] = {n->links, n->lname, n->lto, n->lring, n->nodes, n->hops, n->fab,
                      n->inter, n->ch_gpu, n->ch_local, n->pairs, n->srcs, n->target};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        free(arrays[i]);
    pool_destroy(&n->msgs);
    *n = (struct net){0};
}

void net_reg_stats(struct net *n, struct stats *st)
{
    for (unsigned i = 0; i < n->nlinks; i++)
        link_reg_stats(&n->links[i], st, n->lname[i]);
    for (unsigned i = 0; i < n->nnodes; i++)
        if (n->nodes[i].name)
            stats_reg(st, n->nodes[i].name, "forwarded", &n->nodes[i].forwarded,
                      "messages that arrived at this node and went on");
    for (unsigned lc = 0; lc < LC_N; lc++) {
        char pre[64];
        snprintf(pre, sizeof pre, "system.net.%s", link_lc_name((enum net_lc)lc));
        link_reg_class_stats(&n->cls[lc], st, pre);
    }
}

/* ---- moving messages ---- */

static void route(const struct net *n, unsigned a, unsigned b, struct net_msg *m)
{
    unsigned ga = n->ch_gpu[a], gb = n->ch_gpu[b], e = n->ends;
    unsigned la = n->ch_local[a], lb = n->ch_local[b];
    if (ga == gb) {
        m->seg[0] = n->fab[((size_t)ga * e + la) * e + lb];
        m->nseg = m->seg[0].len != 0;
        return;
    }
    unsigned p = n->chiplets;
    m->seg[0] = n->fab[((size_t)ga * e + la) * e + p];
    m->seg[1] = n->inter[(size_t)ga * n->gpus + gb];
    m->seg[2] = n->fab[((size_t)gb * e + p) * e + lb];
    m->nseg = 3;
}

static inline unsigned msg_vc(const struct net_msg *m)
{
    return link_vc(m->resp, m->nseg == 3 && m->si == 2);
}

static void hop_ev(struct sim *s, void *obj, uint64_t arg);

/* The link m->next takes m (its credit is m's now): serialise it there and
 * free the link it leaves. */
static void accept(struct net *n, struct net_msg *m)
{
    struct sim *s = n->s;
    struct link *l = &n->links[m->next];
    int32_t prev = m->cur;
    unsigned pvc = m->cur_vc;
    m->cur = (int32_t)m->next;
    m->cur_vc = (uint8_t)msg_vc(m);
    uint32_t bytes = m->fixed ? m->fixed : l->hdr[m->resp] + m->payload;
    ps_t ready = prev < 0 ? clock_edge(l->clk, s->now) : s->now;
    ps_t t = link_reserve(l, ready, bytes, (enum traffic_class)m->tc, (enum net_mc)m->mc,
                          m->hi == 0);
    bool last = m->si + 1 == m->nseg && m->hi + 1 == m->seg[m->si].len;
    if (last && !link_bounded(l)) {
        sim_at(s, t, m->fn, m->obj, m->arg);
        pool_put(&n->msgs, m);
    } else {
        sim_at(s, t, hop_ev, n, (uint64_t)(uintptr_t)m);
    }
    if (prev >= 0)
        link_release(s, &n->links[prev], pvc);
}

static void msg_go(struct sim *s, struct link_wait *w)
{
    (void)s;
    struct net_msg *m = (struct net_msg *)w;
    accept(m->net, m);
}

/* Offer m to the next link of its route. */
static void offer(struct net *n, struct net_msg *m)
{
    uint32_t l = n->hops[m->seg[m->si].off + m->hi];
    m->next = l;
    /* bubble flow control: entering a ring (not moving along it) takes two slots */
    unsigned need = n->lring[l] && !(m->cur >= 0 && n->lring[m->cur]) ? 2 : 1;
    if (link_acquire(n->s, &n->links[l], &m->w, msg_vc(m), need))
        accept(n, m);
}

/* m has arrived at the far end of m->cur. */
static void hop_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct net *n = obj;
    struct net_msg *m = (struct net_msg *)(uintptr_t)arg;
    if (++m->hi == m->seg[m->si].len) {
        m->si++;
        m->hi = 0;
    }
    if (m->si == m->nseg) {
        /* delivered over a bounded last link: the consumer takes it */
        struct link *l = &n->links[m->cur];
        unsigned vc = m->cur_vc;
        ev_fn fn = m->fn;
        void *fobj = m->obj;
        uint64_t farg = m->arg;
        pool_put(&n->msgs, m);
        link_release(s, l, vc);
        fn(s, fobj, farg);
        return;
    }
    n->nodes[n->lto[m->cur]].forwarded++;
    offer(n, m);
}

static struct net_msg *msg_new(struct net *n, unsigned a, unsigned b, ev_fn fn, void *obj,
                               uint64_t arg)
{
    struct net_msg *m = pool_get(&n->msgs);
    m->w.go = msg_go;
    m->net = n;
    m->fn = fn;
    m->obj = obj;
    m->arg = arg;
    m->cur = -1;
    m->si = 0;
    m->hi = 0;
    route(n, a, b, m);
    return m;
}

static void msg_start(struct net *n, struct net_msg *m)
{
    if (!m->nseg) {
        /* a ring stop to itself: nothing to cross */
        sim_at(n->s, clock_edge(n->clk, n->s->now), m->fn, m->obj, m->arg);
        pool_put(&n->msgs, m);
        return;
    }
    offer(n, m);
}

static void tally_route(struct net *n, unsigned a, unsigned b, uint32_t fixed, uint32_t payload,
                        bool resp, enum traffic_class tc, enum net_mc mc);

void net_send(struct net *n, unsigned from, unsigned to, uint32_t bytes, enum traffic_class tc,
              ev_fn fn, void *obj, uint64_t arg)
{
    SIM_ASSERT(n->s, "net", from < n->nch && to < n->nch && bytes > 0);
    enum net_mc mc = tc == TC_COH ? MC_INVAL : MC_REQUEST;
    if (n->s->functional) { /* delivered at once */
        tally_route(n, from, to, bytes, 0, false, tc, mc);
        fn(n->s, obj, arg);
        return;
    }
    struct net_msg *m = msg_new(n, from, to, fn, obj, arg);
    m->fixed = bytes;
    m->payload = 0;
    m->resp = 0;
    m->tc = (uint8_t)tc;
    m->mc = (uint8_t)mc;
    msg_start(n, m);
}

static void send_req(struct net *n, unsigned a, unsigned b, struct req *r, bool resp, ev_fn fn,
                     void *obj, uint64_t arg)
{
    struct net_msg *m = msg_new(n, a, b, fn, obj, arg);
    struct link_msg lm = link_msg_of(r, resp);
    m->fixed = 0;
    m->payload = lm.payload;
    m->resp = resp;
    m->tc = lm.tc;
    m->mc = lm.mc;
    msg_start(n, m);
}

/* ---- request paths ---- */

/* Functional mode (engine/sim.h): a message from a to b counted on every
 * link of its route at once, taking no time and no credit. */
static void tally_route(struct net *n, unsigned a, unsigned b, uint32_t fixed, uint32_t payload,
                        bool resp, enum traffic_class tc, enum net_mc mc)
{
    struct net_msg m;
    route(n, a, b, &m);
    for (unsigned si = 0; si < m.nseg; si++)
        for (uint32_t h = 0; h < m.seg[si].len; h++) {
            struct link *l = &n->links[n->hops[m.seg[si].off + h]];
            link_tally(l, fixed ? fixed : l->hdr[resp] + payload, tc, mc, h == 0);
        }
}

static void tally_req(struct net *n, unsigned a, unsigned b, const struct req *r, bool resp)
{
    struct link_msg lm = link_msg_of(r, resp);
    tally_route(n, a, b, 0, lm.payload, resp, (enum traffic_class)lm.tc, (enum net_mc)lm.mc);
}

static void np_func_response(struct sim *s, struct req *r, void *obj)
{
    struct net_pair *p = obj;
    tally_req(p->net, p->dst, p->src, r, true);
    req_complete(s, r);
}

static void np_response(struct sim *s, struct req *r, void *obj)
{
    (void)s;
    struct net_pair *p = obj;
    send_req(p->net, p->dst, p->src, r, true, req_complete_ev, r, 0);
}

static void np_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct net_pair *p = obj;
    struct req *r = (struct req *)(uintptr_t)arg;
    req_on_done(r, np_response, p);
    mem_send(s, &p->net->target[p->dst], r);
}

static void np_send(struct sim *s, struct net_pair *p, struct req *r)
{
    struct net *n = p->net;
    if (!n->target[p->dst].access)
        SIM_BUG(s, "net", "request to chiplet %u, which has no target attached", p->dst);
    if (s->functional) {
        tally_req(n, p->src, p->dst, r, false);
        req_on_done(r, np_func_response, p);
        mem_send(s, &n->target[p->dst], r);
        return;
    }
    send_req(n, p->src, p->dst, r, false, np_arrive, p, (uint64_t)(uintptr_t)r);
}

static void path_access(struct sim *s, void *self, struct req *r) { np_send(s, self, r); }

static void src_access(struct sim *s, void *self, struct req *r)
{
    struct net_src *ns = self;
    struct net *n = ns->net;
    if (r->home >= n->nch)
        SIM_BUG(s, "net", "request home %u is not one of chiplets 0..%u", r->home, n->nch - 1);
    np_send(s, &n->pairs[(size_t)ns->src * n->nch + r->home], r);
}

void net_attach(struct net *n, unsigned ch, struct mem_port target)
{
    BUG_ON(ch >= n->nch || !target.access);
    n->target[ch] = target;
}

struct mem_port net_port(struct net *n, unsigned src)
{
    BUG_ON(src >= n->nch);
    return (struct mem_port){src_access, &n->srcs[src]};
}

struct mem_port net_path_port(struct net *n, unsigned src, unsigned dst)
{
    BUG_ON(src >= n->nch || dst >= n->nch);
    return (struct mem_port){path_access, &n->pairs[(size_t)src * n->nch + dst]};
}

/* ---- inspection ---- */

uint64_t net_pending(void *net)
{
    struct net *n = net;
    return n->msgs.in_use;
}

void net_dump(void *net, FILE *out)
{
    struct net *n = net;
    for (unsigned i = 0; i < n->nlinks; i++)
        link_dump(&n->links[i], n->lname[i], out);
}

unsigned net_route_links(const struct net *n, unsigned a, unsigned b, uint32_t *out,
                         unsigned max)
{
    struct net_msg m;
    route(n, a, b, &m);
    unsigned k = 0;
    for (unsigned si = 0; si < m.nseg; si++)
        for (uint32_t h = 0; h < m.seg[si].len; h++)
            if (k < max)
                out[k++] = n->hops[m.seg[si].off + h];
    return k;
}

int net_node_find(const struct net *n, const char *name)
{
    for (unsigned i = 0; i < n->nnodes; i++)
        if (n->nodes[i].name && !strcmp(n->nodes[i].name, name))
            return (int)i;
    return -1;
}
