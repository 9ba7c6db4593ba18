/*
 * net.h -- the network between chiplets and between GPUs: one chiplet fabric
 * per GPU (a crossbar, as today's default, or a bidirectional ring) and one
 * network between the GPUs' ports (a switch, all-to-all point-to-point
 * links, or a PCIe-like tree of switches; spec dualopt.md 8.3, ladm.md 9.1,
 * hmg.md 7.2). A message between chiplets of one GPU crosses that GPU's
 * fabric; between GPUs it crosses the source GPU's fabric to its port, the
 * GPU network, and the destination GPU's fabric from its port.
 *
 * Modelled: every hop is a link (net/link.h): exact serialisation, latency,
 * store-and-forward at every node, optional credits per virtual channel with
 * back-pressure hop by hop (a message keeps its link's credit until the next
 * link accepts it), bubble flow control on rings, per-node forwarding
 * counters. Routing is fixed per (source, destination) (docs/net.md).
 * Abstracted: no arbitration priorities between ports (first come, first
 * served per link), no head-of-line blocking inside a node, injection
 * queues at the senders are unbounded (requesters are bounded by their
 * MSHRs), the consumer at the destination always takes a message.
 */
#ifndef CHIPSIM_NET_H
#define CHIPSIM_NET_H

#include "base/pool.h"
#include "net/link.h"
#include "net/topo.h"

struct stats;

/* The chiplet fabric of a GPU, and the network between GPUs ([gpu] keys). */
enum net_fabric { NET_XBAR, NET_RING };
enum net_gpunet { NET_SWITCH, NET_P2P, NET_TREE };

/* One network's link parameters: bandwidth per link per direction, latency
 * of a hop (a crossbar or switch traversal, a ring hop, a point-to-point
 * link; the tree adds sw_lat per switch entered to lat), flits, headers,
 * credits. */
struct net_hop_params {
    double gbps;
    uint32_t lat, sw_lat;
    uint32_t flit_b, header_b, resp_header_b, buf_msgs;
};

struct net_params {
    enum net_fabric fabric;
    enum net_gpunet gpunet;
    struct net_hop_params xbar, ring, gswitch, p2p, tree;
};

extern const struct cfg_key net_xbar_keys[], net_ring_keys[], net_switch_keys[],
    net_p2p_keys[], net_tree_keys[];
/* Define [xbar], [ring], [gpu_link], [gpu_p2p] and [gpu_tree]. */
void net_define_sections(struct cfg *c);
int net_params_from_cfg(const struct cfg *c, const struct topo *t, struct net_params *p,
                        struct err *e);

/* A route: links net->hops[off .. off + len). */
struct net_route {
    uint32_t off;
    uint32_t len;
};

struct net_node {
    char *name;          /* stat prefix; NULL: no counter (an endpoint) */
    uint64_t forwarded;  /* messages that arrived here and went on */
};

struct net;
struct net_pair {
    struct net *net;
    uint16_t src, dst;
};
struct net_src {
    struct net *net;
    uint16_t src;
};

struct net {
    struct sim *s;
    const struct clock *clk;
    struct net_params p;
    unsigned gpus, chiplets, nch;
    unsigned ends;             /* endpoints per fabric: the chiplets, and the port if gpus > 1 */
    struct link *links;        /* every link of every network */
    char **lname;              /* stat prefix per link */
    uint32_t *lto;             /* node at each link's far end */
    uint8_t *lring;            /* link is a ring link (bubble flow control) */
    unsigned nlinks, links_cap;
    struct net_node *nodes;
    unsigned nnodes;
    size_t nodes_cap;
    uint32_t *hops;            /* route storage */
    size_t nhops, hops_cap;
    struct net_route *fab;     /* [gpus][ends][ends] */
    struct net_route *inter;   /* [gpus][gpus] */
    uint16_t *ch_gpu, *ch_local; /* [nch] */
    struct pool msgs;
    struct net_pair *pairs;    /* [nch * nch] */
    struct net_src *srcs;      /* [nch] */
    struct mem_port *target;   /* [nch]: what serves requests arriving at each chiplet */
    struct link_class_stats cls[LC_N];
};

/* Build the networks of t's GPUs and chiplets on clock c. */
void net_init(struct net *n, struct sim *s, const struct clock *c, const struct topo *t,
              const struct net_params *p);
void net_free(struct net *n);
/* Links under their names (gpu0.xbar.port1.in, gpu0.ring.stop2.cw,
 * system.gpu_link.port0.in, system.gpu_tree.sw0.up, ...), node counters
 * (<node>.forwarded) and the class totals system.net.<class>.*. */
void net_reg_stats(struct net *n, struct stats *st);
/* The totals a caller's own links of class lc count into. */
static inline struct link_class_stats *net_class(struct net *n, enum net_lc lc)
{
    return &n->cls[lc];
}

/* A message of `bytes` (on every link) from chiplet `from` to chiplet `to`
 * (global indices), injected now; fn(s, obj, arg) runs on its delivery.
 * Travels on the request virtual channel. */
void net_send(struct net *n, unsigned from, unsigned to, uint32_t bytes, enum traffic_class tc,
              ev_fn fn, void *obj, uint64_t arg);

/* Request paths. net_attach() names what serves requests arriving at chiplet
 * ch; a request sent into net_port(n, a) travels a -> r->home, is served
 * there, and its response travels back before it completes at the sender
 * (whatever the target did to the request's fields). net_path_port(n, a, b)
 * is the same with a fixed destination b. Message sizes follow each link's
 * headers (link_msg_bytes). */
void net_attach(struct net *n, unsigned ch, struct mem_port target);
struct mem_port net_port(struct net *n, unsigned src);
struct mem_port net_path_port(struct net *n, unsigned src, unsigned dst);

/* Messages in flight, and the links holding or awaiting them (watchdog). */
uint64_t net_pending(void *net);
void net_dump(void *net, FILE *out);

/* The route of a message from chiplet a to chiplet b, up to max link
 * indices into out; returns its length (for tests and reports). */
unsigned net_route_links(const struct net *n, unsigned a, unsigned b, uint32_t *out,
                         unsigned max);
/* Index of the node named `name` (e.g. "system.gpu_tree.root"), or -1. */
int net_node_find(const struct net *n, const char *name);

#endif
