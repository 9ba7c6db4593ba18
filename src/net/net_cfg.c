/*
 * net_cfg.c -- the keys of the networks' sections and their parameters
 * (net.h): [xbar] (the chiplet crossbar of a GPU), [ring] (the chiplet ring),
 * [gpu_link] (the switch between GPUs), [gpu_p2p] (all-to-all links between
 * GPUs), [gpu_tree] (the PCIe-like tree between GPUs). Which fabric and which
 * GPU network a machine has is chosen in [gpu] (chiplet_net, gpu_net).
 * Every section has the same flit, header and credit keys with the same
 * defaults, so changing the topology changes nothing else.
 */
#include "net.h"

#include <math.h>

#define COMMON_KEYS                                                                            \
    {"flit_b", CFG_INT, "16", 1, 4096, "flit size in bytes", NULL},                            \
    {"header_b", CFG_INT, "8", 1, 4096, "header bytes per request message", NULL},             \
    {"resp_header_b", CFG_INT, "0", 0, 4096,                                                   \
     "header bytes per response message (0: the same as header_b)", NULL},                     \
    {"buf_msgs", CFG_INT, "0", 0, 1e6,                                                         \
     "messages each link holds per virtual channel before its sender waits for a credit "      \
     "(0: unbounded)", NULL}

/* spec cpelide Table I, D6, D7 ([xbar]); [gpu_link] uses the same keys */
const struct cfg_key net_xbar_keys[] = {
    {"port_gbps", CFG_FLOAT, "768", 0.001, 1e6,
     "bandwidth per port per direction, GB/s (a multiple of 0.001)", NULL},
    {"lat", CFG_INT, "60", 0, 1e6, "switch traversal latency, cycles", NULL},
    COMMON_KEYS,
    CFG_END,
};
const struct cfg_key net_switch_keys[] = {
    {"port_gbps", CFG_FLOAT, "768", 0.001, 1e6,
     "bandwidth of each GPU's port per direction, GB/s (a multiple of 0.001)", NULL},
    {"lat", CFG_INT, "60", 0, 1e6, "switch traversal latency, cycles", NULL},
    COMMON_KEYS,
    CFG_END,
};

/* LADM Table 3.3 and open decision L2 (ladm.md 9.1, 14) */
const struct cfg_key net_ring_keys[] = {
    {"link_gbps", CFG_FLOAT, "90", 0.001, 1e6,
     "bandwidth of each ring link per direction, GB/s (a multiple of 0.001); the GPU's port "
     "hangs off chiplet 0's stop by one more link of the same bandwidth", NULL},
    {"hop_lat", CFG_INT, "32", 0, 1e6, "latency of one ring hop (and of the port link), cycles",
     NULL},
    COMMON_KEYS,
    CFG_END,
};

const struct cfg_key net_p2p_keys[] = {
    {"link_gbps", CFG_FLOAT, "300", 0.001, 1e6,
     "bandwidth of the link between each pair of GPUs per direction, GB/s (a multiple of 0.001)",
     NULL},
    {"lat", CFG_INT, "500", 0, 1e6, "link latency, cycles", NULL},
    COMMON_KEYS,
    CFG_END,
};

/* MGPUSim's PCIe tree (dualopt.md 8.3, open decision O1) */
const struct cfg_key net_tree_keys[] = {
    {"link_gbps", CFG_FLOAT, "64", 0.001, 1e6,
     "bandwidth of every tree link per direction, GB/s (a multiple of 0.001)", NULL},
    {"switch_lat", CFG_INT, "140", 0, 1e6,
     "latency of each switch a message enters (one switch per pair of GPUs under a root "
     "complex), cycles", NULL},
    {"link_lat", CFG_INT, "0", 0, 1e6, "wire latency of each tree link, cycles", NULL},
    COMMON_KEYS,
    CFG_END,
};

static const char *const xbar_defaults[] = {"lat=40", NULL};
static const char *const gpulink_defaults[] = {"port_gbps=300", "lat=500", NULL};

void net_define_sections(struct cfg *c)
{
    cfg_define(c, "xbar", "inter-chiplet crossbar of one GPU ([gpu] chiplet_net = xbar)",
               net_xbar_keys, xbar_defaults);
    cfg_define(c, "ring", "bidirectional ring between the chiplets of one GPU "
               "([gpu] chiplet_net = ring)", net_ring_keys, NULL);
    cfg_define(c, "gpu_link", "switch between GPUs, one port per GPU ([gpu] gpu_net = switch)",
               net_switch_keys, gpulink_defaults);
    cfg_define(c, "gpu_p2p", "a link between every pair of GPUs ([gpu] gpu_net = p2p)",
               net_p2p_keys, NULL);
    cfg_define(c, "gpu_tree", "PCIe-like tree between GPUs: a switch per pair of GPUs under a "
               "root complex ([gpu] gpu_net = tree)", net_tree_keys, NULL);
}

/* How each shape names its bandwidth and latencies. */
struct shape_keys {
    const char *bw, *lat, *sw_lat;
};
static const struct shape_keys xbar_names = {"port_gbps", "lat", NULL};
static const struct shape_keys ring_names = {"link_gbps", "hop_lat", NULL};
static const struct shape_keys p2p_names = {"link_gbps", "lat", NULL};
static const struct shape_keys tree_names = {"link_gbps", "link_lat", "switch_lat"};

static int hop_from_cfg(const struct cfg_sec *sec, const struct shape_keys *k,
                        struct net_hop_params *h, struct err *e)
{
    *h = (struct net_hop_params){
        .gbps = cfg_float(sec, k->bw),
        .lat = (uint32_t)cfg_uint(sec, k->lat),
        .sw_lat = k->sw_lat ? (uint32_t)cfg_uint(sec, k->sw_lat) : 0,
        .flit_b = (uint32_t)cfg_uint(sec, "flit_b"),
        .header_b = (uint32_t)cfg_uint(sec, "header_b"),
        .resp_header_b = (uint32_t)cfg_uint(sec, "resp_header_b"),
        .buf_msgs = (uint32_t)cfg_uint(sec, "buf_msgs"),
    };
    double milli = h->gbps * 1000;
    if (fabs(milli - nearbyint(milli)) > 1e-4)
        return cfg_err(e, sec, k->bw,
                       "must be a multiple of 0.001 GB/s (so bytes per cycle stay exact)");
    return 0;
}

int net_params_from_cfg(const struct cfg *c, const struct topo *t, struct net_params *p,
                        struct err *e)
{
    *p = (struct net_params){.fabric = (enum net_fabric)t->chiplet_net,
                             .gpunet = (enum net_gpunet)t->gpu_net};
    const struct cfg_sec *ring = cfg_sec(c, "ring");
    if (hop_from_cfg(cfg_sec(c, "xbar"), &xbar_names, &p->xbar, e) ||
        hop_from_cfg(ring, &ring_names, &p->ring, e) ||
        hop_from_cfg(cfg_sec(c, "gpu_link"), &xbar_names, &p->gswitch, e) ||
        hop_from_cfg(cfg_sec(c, "gpu_p2p"), &p2p_names, &p->p2p, e) ||
        hop_from_cfg(cfg_sec(c, "gpu_tree"), &tree_names, &p->tree, e))
        return -1;
    /* bubble flow control: a message entering the ring needs two free slots */
    if (p->fabric == NET_RING && link_check_buf(ring, p->ring.buf_msgs, 2, e))
        return -1;
    return 0;
}
