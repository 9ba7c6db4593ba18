/*
 * The topologies of net.h: routes and exact delivery times on a ring, on
 * trips between GPUs through both GPUs' fabrics over a switch, point-to-point
 * links and the PCIe-like tree (which switches a trip crosses, by the
 * switches' own counters), separate request and response headers, and
 * back-pressure under heavy random traffic that must never deadlock.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "net_rig.h"
#include "stats/stats.h"

/* 1 GHz; 64 B take 4 cycles on every link. */
static const struct net_hop_params H16 = {.gbps = 16, .lat = 3, .flit_b = 16, .header_b = 8};

static struct net_params ring_params(void)
{
    struct net_params p = {.fabric = NET_RING, .ring = H16};
    return p;
}

/* The names of the links of the route a -> b, joined by spaces. */
static void route_names(struct net *n, unsigned a, unsigned b, char *out, size_t len)
{
    uint32_t l[64];
    unsigned k = net_route_links(n, a, b, l, 64);
    out[0] = 0;
    for (unsigned i = 0; i < k; i++) {
        strncat(out, n->lname[l[i]], len - strlen(out) - 1);
        if (i + 1 < k)
            strncat(out, " ", len - strlen(out) - 1);
    }
}

static void expect_route(struct net *n, unsigned a, unsigned b, const char *want)
{
    char got[1024];
    route_names(n, a, b, got, sizeof got);
    cr_expect_str_eq(got, want, "route %u -> %u", a, b);
}

/* ---- ring ---- */

Test(ring, routes_take_the_shorter_way)
{
    static struct net_rig g;
    struct net_params p = ring_params();
    net_rig_init(&g, 1, 4, &p, 1000.0);
    expect_route(&g.n, 0, 1, "gpu0.ring.stop0.cw");
    expect_route(&g.n, 0, 2, "gpu0.ring.stop0.cw gpu0.ring.stop1.cw"); /* tie: clockwise */
    expect_route(&g.n, 0, 3, "gpu0.ring.stop0.ccw");
    expect_route(&g.n, 3, 1, "gpu0.ring.stop3.cw gpu0.ring.stop0.cw");
    expect_route(&g.n, 2, 1, "gpu0.ring.stop2.ccw");
    expect_route(&g.n, 2, 2, "");
    net_rig_free(&g);
}

Test(ring, one_hop_per_stop_store_and_forward)
{
    static struct net_rig g;
    struct net_params p = ring_params();
    net_rig_init(&g, 1, 4, &p, 1000.0);
    net_send(&g.n, 0, 1, 64, TC_REQ, rec_ev, &g.r, 1);
    net_send(&g.n, 0, 2, 64, TC_REQ, rec_ev, &g.r, 2);
    net_send(&g.n, 0, 3, 64, TC_REQ, rec_ev, &g.r, 3);
    net_send(&g.n, 1, 1, 64, TC_REQ, rec_ev, &g.r, 4);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 4);
    /* a stop to itself crosses nothing: delivered on the next edge */
    cr_expect_eq(g.r.arg[0], 4);
    cr_expect_eq(g.r.t[0], 0);
    /* 0 -> 1 and 0 -> 3: one hop of 4 + 3 cycles, on different links */
    cr_expect_eq(g.r.arg[1], 1);
    cr_expect_eq(g.r.t[1], 7000);
    cr_expect_eq(g.r.arg[2], 3);
    cr_expect_eq(g.r.t[2], 7000);
    /* 0 -> 2: behind 0 -> 1 on stop 0's cw link (departs at 4 cycles), at
     * stop 1 at 11, then 7 more to stop 2 */
    cr_expect_eq(g.r.arg[3], 2);
    cr_expect_eq(g.r.t[3], 18000);
    cr_expect_eq(fwd(&g.n, "gpu0.ring.stop1"), 1);
    cr_expect_eq(fwd(&g.n, "gpu0.ring.stop0"), 0);
    cr_expect_eq(lk(&g.n, "gpu0.ring.stop0.cw")->st.messages, 2);
    /* flits_remote counts each message once, where it entered the ring */
    cr_expect_eq(lk(&g.n, "gpu0.ring.stop1.cw")->st.flits_loc, 0);
    cr_expect_eq(g.n.cls[LC_INTER_CHIPLET].messages, 3);
    cr_expect_eq(g.n.cls[LC_INTER_CHIPLET].flit_hops, 4 * 4);
    net_rig_free(&g);
}

Test(ring, the_port_hangs_off_stop_zero)
{
    static struct net_rig g;
    struct net_params p = ring_params();
    p.gpunet = NET_P2P;
    p.p2p = H16;
    net_rig_init(&g, 2, 4, &p, 1000.0);
    /* chiplet 2 of GPU 0 to chiplet 1 of GPU 1 (global 5) */
    expect_route(&g.n, 2, 5,
                 "gpu0.ring.stop2.cw gpu0.ring.stop3.cw gpu0.ring.port.up "
                 "system.gpu_p2p.gpu0.to_gpu1 gpu1.ring.port.down gpu1.ring.stop0.cw");
    expect_route(&g.n, 5, 2,
                 "gpu1.ring.stop1.ccw gpu1.ring.port.up system.gpu_p2p.gpu1.to_gpu0 "
                 "gpu0.ring.port.down gpu0.ring.stop0.cw gpu0.ring.stop1.cw");
    net_send(&g.n, 2, 5, 64, TC_REQ, rec_ev, &g.r, 0);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 1);
    cr_expect_eq(g.r.t[0], 6 * 7000);
    cr_expect_eq(fwd(&g.n, "gpu0.port"), 1);
    cr_expect_eq(fwd(&g.n, "gpu1.port"), 1);
    cr_expect_eq(fwd(&g.n, "gpu0.ring.stop3"), 1);
    cr_expect_eq(fwd(&g.n, "gpu0.ring.stop0"), 1);
    cr_expect_eq(fwd(&g.n, "gpu1.ring.stop0"), 1);
    net_rig_free(&g);
}

/* ---- trips between GPUs ---- */

Test(gpus, a_trip_crosses_both_fabrics_and_the_switch)
{
    static struct net_rig g;
    struct net_params p = {.fabric = NET_XBAR, .gpunet = NET_SWITCH, .xbar = H16,
                           .gswitch = H16};
    p.gswitch.lat = 5;
    net_rig_init(&g, 2, 2, &p, 1000.0);
    struct stats st;
    stats_init(&st);
    net_reg_stats(&g.n, &st);
    expect_route(&g.n, 1, 2,
                 "gpu0.xbar.port1.in gpu0.xbar.gpu_port.out system.gpu_link.port0.in "
                 "system.gpu_link.port1.out gpu1.xbar.gpu_port.in gpu1.xbar.port0.out");
    expect_route(&g.n, 1, 0, "gpu0.xbar.port1.in gpu0.xbar.port0.out");
    net_send(&g.n, 1, 2, 64, TC_COH, rec_ev, &g.r, 0);
    sim_run(&g.s, 0);
    /* (4 + 3) + 4, (4 + 5) + 4, (4 + 3) + 4 cycles */
    cr_assert_eq(g.r.n, 1);
    cr_expect_eq(g.r.t[0], 35000);
    cr_expect_eq(fwd(&g.n, "gpu0.xbar"), 1);
    cr_expect_eq(fwd(&g.n, "gpu0.port"), 1);
    cr_expect_eq(fwd(&g.n, "system.gpu_link"), 1);
    cr_expect_eq(fwd(&g.n, "gpu1.port"), 1);
    cr_expect_eq(fwd(&g.n, "gpu1.xbar"), 1);
    /* it entered three networks: each GPU's fabric and the GPU network */
    cr_expect_eq(stats_sum(&st, "flits_remote"), 8);
    cr_expect_eq(stats_sum(&st, "flits_gpu_gpu"), 4);
    cr_expect_eq(stats_get(&st, "system.net.inter_chiplet.inval.messages"), 2);
    cr_expect_eq(stats_get(&st, "system.net.inter_gpu.inval.flits"), 4);
    cr_expect_eq(stats_get(&st, "system.net.inter_gpu.flit_hops"), 8);
    stats_free(&st);
    net_rig_free(&g);
}

Test(gpus, point_to_point_links_are_one_hop)
{
    static struct net_rig g;
    struct net_params p = {.fabric = NET_XBAR, .gpunet = NET_P2P, .xbar = H16, .p2p = H16};
    net_rig_init(&g, 3, 1, &p, 1000.0);
    expect_route(&g.n, 0, 2,
                 "gpu0.xbar.port0.in gpu0.xbar.gpu_port.out system.gpu_p2p.gpu0.to_gpu2 "
                 "gpu2.xbar.gpu_port.in gpu2.xbar.port0.out");
    net_send(&g.n, 0, 2, 64, TC_REQ, rec_ev, &g.r, 0);
    net_send(&g.n, 1, 2, 64, TC_REQ, rec_ev, &g.r, 1);
    sim_run(&g.s, 0);
    /* 11 + 7 + 11 cycles; the other GPU's message meets it only at GPU 2's
     * fabric (its port ingress) */
    cr_assert_eq(g.r.n, 2);
    cr_expect_eq(g.r.t[0], 29000);
    cr_expect_eq(g.r.t[1], 33000);
    net_rig_free(&g);
}

/* MGPUSim's tree (dualopt.md 8.3) on 4 GPUs of one chiplet: 64 GB/s links
 * (64 B per 1 GHz cycle), 140 cycles per switch, 12 B request and 4 B
 * response headers; a fast fabric of 1 cycle per traversal. */
static struct net_params tree_params(void)
{
    struct net_params p = {.fabric = NET_XBAR, .gpunet = NET_TREE,
                           .xbar = {.gbps = 64, .lat = 1, .flit_b = 16, .header_b = 12,
                                    .resp_header_b = 4},
                           .tree = {.gbps = 64, .lat = 0, .sw_lat = 140, .flit_b = 16,
                                    .header_b = 12, .resp_header_b = 4}};
    return p;
}

Test(tree, gpu1_to_gpu3_crosses_its_switch_the_root_and_the_other_switch)
{
    static struct net_rig g;
    struct net_params p = tree_params();
    net_rig_init(&g, 4, 1, &p, 1000.0);
    expect_route(&g.n, 1, 3,
                 "gpu1.xbar.port0.in gpu1.xbar.gpu_port.out system.gpu_tree.gpu1.up "
                 "system.gpu_tree.sw0.up system.gpu_tree.sw1.down system.gpu_tree.gpu3.down "
                 "gpu3.xbar.gpu_port.in gpu3.xbar.port0.out");
    expect_route(&g.n, 0, 1,
                 "gpu0.xbar.port0.in gpu0.xbar.gpu_port.out system.gpu_tree.gpu0.up "
                 "system.gpu_tree.gpu1.down gpu1.xbar.gpu_port.in gpu1.xbar.port0.out");
    net_send(&g.n, 1, 3, 64, TC_REQ, rec_ev, &g.r, 0);
    sim_run(&g.s, 0);
    cr_expect_eq(fwd(&g.n, "system.gpu_tree.sw0"), 1);
    cr_expect_eq(fwd(&g.n, "system.gpu_tree.root"), 1);
    cr_expect_eq(fwd(&g.n, "system.gpu_tree.sw1"), 1);
    /* fabric 1 + 1 + 1, four tree links of 1 cycle, three switches of 140,
     * fabric 1 + 1 + 1 */
    cr_assert_eq(g.r.n, 1);
    cr_expect_eq(g.r.t[0], (3 + 4 + 3 * 140 + 3) * 1000);

    /* within a pair: one switch */
    net_send(&g.n, 0, 1, 64, TC_REQ, rec_ev, &g.r, 1);
    sim_run(&g.s, 0);
    cr_expect_eq(fwd(&g.n, "system.gpu_tree.sw0"), 2);
    cr_expect_eq(fwd(&g.n, "system.gpu_tree.root"), 1);
    cr_expect_eq(fwd(&g.n, "system.gpu_tree.sw1"), 1);
    net_rig_free(&g);
}

Test(tree, a_read_from_gpu1_to_gpu3_and_back_with_mgpusim_headers)
{
    static struct net_rig g;
    struct net_params p = tree_params();
    net_rig_init(&g, 4, 1, &p, 1000.0);
    struct fakemem mem[4];
    for (unsigned i = 0; i < 4; i++) {
        mem[i] = (struct fakemem){.lat_ps = 10000};
        net_attach(&g.n, i, (struct mem_port){fakemem_access, &mem[i]});
    }
    struct mem_port port = net_port(&g.n, 1);
    struct requester q = {0};
    mem_send(&g.s, &port, new_req(&g.s, REQ_READ, 64, 3, &q));
    sim_run(&g.s, 0);
    cr_expect_eq(q.done, 1);
    cr_expect_eq(mem[3].n, 1);
    /* request 12 B and response 4 + 64 B, each crossing sw0, root and sw1 */
    const char *sw[] = {"system.gpu_tree.sw0", "system.gpu_tree.root", "system.gpu_tree.sw1"};
    for (int i = 0; i < 3; i++)
        cr_expect_eq(fwd(&g.n, sw[i]), 2, "%s", sw[i]);
    cr_expect_eq(lk(&g.n, "system.gpu_tree.gpu1.up")->st.bytes, 12);
    cr_expect_eq(lk(&g.n, "system.gpu_tree.gpu1.down")->st.bytes, 68);
    cr_expect_eq(lk(&g.n, "system.gpu_tree.gpu3.down")->st.bytes, 12);
    cr_expect_eq(lk(&g.n, "system.gpu_tree.gpu3.up")->st.bytes, 68);
    cr_expect_eq(lk(&g.n, "system.gpu_tree.gpu3.up")->st.flits[TC_RESP], 5);
    cr_expect_eq(g.s.req_pool.in_use, 0);
    net_rig_free(&g);
}

/* ---- back-pressure under load ---- */

struct storm {
    struct net_rig g;
    struct fakemem mem[64];
    struct requester q[2048];
    struct mem_port port[64];
    unsigned nch;
};

static void storm_issue(struct sim *s, void *obj, uint64_t arg)
{
    struct storm *st = obj;
    unsigned src = (unsigned)(arg >> 32), i = (unsigned)(arg & 0xffff);
    unsigned home = (unsigned)(arg >> 16 & 0xffff);
    enum req_kind k = i % 3 == 0 ? REQ_WRITE : REQ_READ;
    mem_send(s, &st->port[src], new_req(s, k, 64, (uint16_t)home, &st->q[i]));
}

/* n requests between random chiplets, all issued within a short window:
 * every one must complete, and every credit must be back. */
static void storm_run(struct storm *st, unsigned gpus, unsigned chiplets, struct net_params *p,
                      unsigned n, bool expect_waits)
{
    net_rig_init(&st->g, gpus, chiplets, p, 1000.0);
    st->nch = gpus * chiplets;
    memset(st->q, 0, sizeof st->q);
    for (unsigned i = 0; i < st->nch; i++) {
        st->mem[i] = (struct fakemem){.lat_ps = 2000};
        net_attach(&st->g.n, i, (struct mem_port){fakemem_access, &st->mem[i]});
        st->port[i] = net_port(&st->g.n, i);
    }
    struct rng r;
    rng_seed(&r, 5);
    for (unsigned i = 0; i < n; i++) {
        uint64_t src = rng_below(&r, st->nch), home = rng_below(&r, st->nch);
        sim_at(&st->g.s, rng_below(&r, 50) * 1000, storm_issue, st, src << 32 | home << 16 | i);
    }
    cr_assert_eq(sim_run(&st->g.s, 0), SIM_DONE);
    for (unsigned i = 0; i < n; i++)
        cr_assert_eq(st->q[i].done, 1, "request %u", i);
    cr_expect_eq(net_pending(&st->g.n), 0);
    cr_expect_eq(st->g.s.req_pool.in_use, 0);
    uint64_t waits = 0;
    for (unsigned i = 0; i < st->g.n.nlinks; i++) {
        waits += st->g.n.links[i].st.credit_waits;
        for (unsigned vc = 0; vc < LINK_VCS; vc++)
            cr_expect_eq(st->g.n.links[i].used[vc], 0);
    }
    cr_expect_eq(waits > 0, expect_waits, "%llu credit waits", (unsigned long long)waits);
    net_rig_free(&st->g);
}

Test(backpressure, ring_with_two_slot_buffers_never_deadlocks)
{
    static struct storm st;
    struct net_params p = ring_params();
    p.ring.buf_msgs = 2;
    storm_run(&st, 1, 8, &p, 2000, true);
}

Test(backpressure, rings_and_tree_with_small_buffers_never_deadlock)
{
    static struct storm st;
    struct net_params p = ring_params();
    p.gpunet = NET_TREE;
    p.tree = H16;
    p.tree.sw_lat = 20;
    p.ring.buf_msgs = 2;
    p.tree.buf_msgs = 1;
    storm_run(&st, 4, 4, &p, 2000, true);
}

Test(backpressure, crossbars_and_switch_with_one_slot_buffers_never_deadlock)
{
    static struct storm st;
    struct net_params p = {.fabric = NET_XBAR, .gpunet = NET_SWITCH, .xbar = H16,
                           .gswitch = H16};
    p.xbar.buf_msgs = 1;
    p.gswitch.buf_msgs = 1;
    storm_run(&st, 4, 4, &p, 2000, true);
}

Test(backpressure, buffers_no_message_fills_change_nothing)
{
    static struct storm a, b;
    struct net_params p = ring_params();
    p.gpunet = NET_P2P;
    p.p2p = H16;
    storm_run(&a, 2, 4, &p, 1000, false);
    p.ring.buf_msgs = 4000;
    p.p2p.buf_msgs = 4000;
    storm_run(&b, 2, 4, &p, 1000, false);
    for (unsigned i = 0; i < 1000; i++)
        cr_assert_eq(a.q[i].done_at, b.q[i].done_at, "request %u", i);
}
