/*
 * Links, credits, link paths and the crossbar of one GPU: exact delivery
 * times in picoseconds, flit counts per traffic, message and location class,
 * contention, back-pressure, a long random stream that must never beat the
 * bandwidth, and config errors. Other topologies: test_net_topo.c.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "net_rig.h"
#include "test_util.h"
#include "net/link.h"
#include "net/net.h"
#include "stats/stats.h"

static const struct link_params P16 = {.lat = 5, .bw_b_per_cycle = 16, .flit_b = 16, .header_b = 8};

/* ---- link ---- */

Test(link, single_message_latency)
{
    struct sim s;
    sim_init(&s, 1);
    struct clock c;
    clock_init(&c, "noc", 1000.0);
    struct link l;
    link_init(&l, &P16, &c, LOC_L1_L2);
    struct rec r = {0};
    /* 64 B at 16 B/cycle = 4 cycles, then 5 cycles of latency */
    cr_expect_eq(link_send(&s, &l, 64, TC_RESP, MC_DATA, rec_ev, &r, 1), 9000);
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    cr_expect_eq(r.n, 1);
    cr_expect_eq(r.t[0], 9000);
    /* an idle link injects on the next edge of its clock */
    s.now = 20500;
    cr_expect_eq(link_send(&s, &l, 64, TC_RESP, MC_DATA, rec_ev, &r, 2), 21000 + 4000 + 5000);
    sim_run(&s, 0);
    cr_expect_eq(r.t[1], 30000);
    cr_expect_eq(l.st.messages, 2);
    cr_expect_eq(l.st.bytes, 128);
    cr_expect_eq(l.st.flits[TC_RESP], 8);
    cr_expect_eq(l.st.busy_cycles, 8);
    cr_expect_eq(l.st.queue_ps, 0);
    link_free(&l);
    sim_destroy(&s);
}

Test(link, serialization_spaces_arrivals_by_b_over_w)
{
    struct sim s;
    sim_init(&s, 1);
    struct clock c;
    clock_init(&c, "noc", 1000.0);
    struct link_params p = {.lat = 2, .bw_b_per_cycle = 8, .flit_b = 16, .header_b = 8};
    struct link l;
    link_init(&l, &p, &c, LOC_L1_L2);
    struct rec r = {0};
    for (int i = 0; i < 10; i++)
        link_send(&s, &l, 72, TC_REQ, MC_DATA, rec_ev, &r, (uint64_t)i);
    sim_run(&s, 0);
    cr_assert_eq(r.n, 10);
    for (int i = 0; i < 10; i++) {
        cr_expect_eq(r.arg[i], (uint64_t)i);
        cr_expect_eq(r.t[i], (ps_t)(i + 1) * 9000 + 2000, "msg %d at %llu", i,
                     (unsigned long long)r.t[i]);
    }
    cr_expect_eq(l.st.busy_cycles, 90);
    cr_expect_eq(l.st.queue_ps, 45 * 9000); /* message i waits i * 9 cycles */
    cr_expect_eq(l.st.flits[TC_REQ], 50);
    sim_destroy(&s);
}

Test(link, queueing_when_busy)
{
    struct sim s;
    sim_init(&s, 1);
    struct clock c;
    clock_init(&c, "noc", 1000.0);
    struct link_params p = {.lat = 1, .bw_b_per_cycle = 16, .flit_b = 16, .header_b = 8};
    struct link l;
    link_init(&l, &p, &c, LOC_L2_L3);
    struct rec r = {0};
    cr_expect_eq(link_send(&s, &l, 64, TC_REQ, MC_DATA, rec_ev, &r, 0), 5000); /* busy until 4000 */
    s.now = 1000;
    cr_expect_eq(link_send(&s, &l, 32, TC_REQ, MC_DATA, rec_ev, &r, 1), 7000); /* departs 4000 */
    cr_expect_eq(l.st.queue_ps, 3000);
    s.now = 6500; /* link free since 6000: departs on the 7000 edge */
    cr_expect_eq(link_send(&s, &l, 16, TC_REQ, MC_DATA, rec_ev, &r, 2), 9000);
    cr_expect_eq(l.st.queue_ps, 3000);
    sim_run(&s, 0);
    cr_expect_eq(r.n, 3);
    cr_expect_eq(r.t[0], 5000);
    cr_expect_eq(r.t[1], 7000);
    cr_expect_eq(r.t[2], 9000);
    sim_destroy(&s);
}

Test(link, fractional_bandwidth_is_exact)
{
    struct sim s;
    sim_init(&s, 1);
    struct clock c;
    clock_init(&c, "gpu", 1801.0); /* 555 ps */
    double bw = link_bw_from_gbps(768, &c);
    cr_expect_eq(bw, 426.24);
    struct link_params p = {.lat = 0, .bw_b_per_cycle = bw, .flit_b = 16, .header_b = 8};
    struct link l;
    link_init(&l, &p, &c, LOC_REMOTE);
    /* 768 GB/s: one byte takes 1000/768 = 125/96 ps */
    cr_expect_eq(l.ps_num, 125);
    cr_expect_eq(l.ps_den, 96);
    struct rec r = {0};
    for (int i = 0; i < 4; i++)
        link_send(&s, &l, 72, TC_RESP, MC_DATA, rec_ev, &r, 0); /* 93.75 ps each */
    link_send(&s, &l, 8, TC_REQ, MC_DATA, rec_ev, &r, 0);      /* 10.41.. ps */
    sim_run(&s, 0);
    ps_t want[] = {94, 188, 282, 375, 386};
    for (int i = 0; i < 5; i++)
        cr_expect_eq(r.t[i], want[i], "msg %d at %llu", i, (unsigned long long)r.t[i]);
    /* the link went idle at 385.42; 1000 more 72 B messages injected now (386)
     * start on the next edge and take exactly 1000 * 93.75 ps */
    cr_expect_eq(s.now, 386);
    for (int i = 0; i < 1000; i++)
        link_send(&s, &l, 72, TC_RESP, MC_DATA, rec_ev, &r, 0);
    sim_run(&s, 0);
    cr_expect_eq(r.t[r.n - 1], 555 + 93750);
    cr_expect_eq(l.st.busy_cycles, (1004 * 72 + 8) * 125 / 96 / 555);
    sim_destroy(&s);
}

Test(link, flit_counts_and_message_sizes)
{
    struct link_params p = {.lat = 1, .bw_b_per_cycle = 16, .flit_b = 16, .header_b = 8};
    cr_expect_eq(link_flits(&p, 72), 5); /* D7: 64 B data + 8 B header */
    cr_expect_eq(link_flits(&p, 8), 1);  /* D7: control message */
    cr_expect_eq(link_flits(&p, 16), 1);
    cr_expect_eq(link_flits(&p, 17), 2);

    struct req r = {.kind = REQ_READ, .size = 64};
    cr_expect_eq(link_msg_bytes(&p, &r, false), 8);
    cr_expect_eq(link_msg_bytes(&p, &r, true), 72);
    cr_expect_eq(link_msg_tc(&r, false), TC_REQ);
    cr_expect_eq(link_msg_tc(&r, true), TC_RESP);
    r.kind = REQ_WRITE;
    cr_expect_eq(link_msg_bytes(&p, &r, false), 72);
    cr_expect_eq(link_msg_bytes(&p, &r, true), 8);
    cr_expect_eq(link_msg_tc(&r, false), TC_REQ);
    cr_expect_eq(link_msg_tc(&r, true), TC_RESP);
    r.kind = REQ_ATOMIC;
    r.size = 4;
    cr_expect_eq(link_msg_bytes(&p, &r, false), 12);
    cr_expect_eq(link_msg_bytes(&p, &r, true), 12);
    r.kind = REQ_WRITEBACK;
    r.size = 64;
    cr_expect_eq(link_msg_bytes(&p, &r, false), 72); /* no mask: whole line */
    req_mask_range(r.mask, 0, 32);
    cr_expect_eq(link_msg_bytes(&p, &r, false), 72); /* 32 dirty bytes: still the line (D7) */
    r.flags = REQ_F_SECTORS;
    cr_expect_eq(link_msg_bytes(&p, &r, false), 40); /* from a sectored cache: one sector */
    r.flags = 0;
    cr_expect_eq(link_msg_bytes(&p, &r, true), 8);
    cr_expect_eq(link_msg_tc(&r, false), TC_WB);
    cr_expect_eq(link_msg_tc(&r, true), TC_WB);
}

Test(link, flits_split_by_class_and_location)
{
    struct sim s;
    sim_init(&s, 1);
    struct stats st;
    stats_init(&st);
    struct clock c;
    clock_init(&c, "gpu", 1000.0);
    struct link a, b, rm, g;
    link_init(&a, &P16, &c, LOC_L1_L2);
    link_init(&b, &P16, &c, LOC_L2_L3);
    link_init(&rm, &P16, &c, LOC_REMOTE);
    link_init(&g, &P16, &c, LOC_GPU_GPU);
    link_reg_stats(&a, &st, "c0.l1_l2");
    link_reg_stats(&b, &st, "c0.l2_l3");
    link_reg_stats(&rm, &st, "c0.remote");
    link_reg_stats(&g, &st, NULL);
    struct rec r = {0};
    link_send(&s, &a, 8, TC_REQ, MC_DATA, rec_ev, &r, 0);
    link_send(&s, &a, 72, TC_RESP, MC_DATA, rec_ev, &r, 0);
    link_send(&s, &b, 72, TC_WB, MC_DATA, rec_ev, &r, 0);
    link_send(&s, &b, 8, TC_WB, MC_DATA, rec_ev, &r, 0);
    link_send(&s, &b, 8, TC_REQ, MC_DATA, rec_ev, &r, 0);
    link_send(&s, &rm, 8, TC_COH, MC_DATA, rec_ev, &r, 0);
    link_send(&s, &rm, 72, TC_REQ, MC_DATA, rec_ev, &r, 0);
    sim_run(&s, 0);
    cr_expect_eq(stats_get(&st, "c0.l1_l2.flits_req"), 1);
    cr_expect_eq(stats_get(&st, "c0.l1_l2.flits_resp"), 5);
    cr_expect_eq(stats_get(&st, "c0.l2_l3.flits_wb"), 6);
    cr_expect_eq(stats_get(&st, "c0.remote.flits_coh"), 1);
    cr_expect_eq(stats_get(&st, "c0.remote.messages"), 2);
    cr_expect_eq(stats_get(&st, "c0.remote.bytes"), 80);
    cr_expect_eq(stats_sum(&st, "flits_l1_l2"), 6);
    cr_expect_eq(stats_sum(&st, "flits_l2_l3"), 7);
    cr_expect_eq(stats_sum(&st, "flits_remote"), 6);
    cr_expect_eq(stats_sum(&st, "flits_gpu_gpu"), 0);
    cr_expect_eq(stats_sum(&st, "flits_req"), 7);
    cr_expect_eq(stats_sum(&st, "flits_wb"), 6);
    cr_expect_neq(stats_find(&st, "flits_gpu_gpu"), NULL);
    stats_free(&st);
    sim_destroy(&s);
}

/* ---- link path ---- */

struct path_rig {
    struct sim s;
    struct clock c;
    struct link down, up;
    struct fakemem mem;
    struct link_path lp;
    struct mem_port port;
};

static void path_rig_init(struct path_rig *g)
{
    sim_init(&g->s, 1);
    req_pool_init(&g->s, 16);
    clock_init(&g->c, "noc", 1000.0);
    struct link_params dp = {.lat = 2, .bw_b_per_cycle = 8, .flit_b = 16, .header_b = 8};
    struct link_params up = {.lat = 2, .bw_b_per_cycle = 4, .flit_b = 16, .header_b = 8};
    link_init(&g->down, &dp, &g->c, LOC_L1_L2);
    link_init(&g->up, &up, &g->c, LOC_L1_L2);
    g->mem = (struct fakemem){.lat_ps = 10000};
    link_path_init(&g->lp, &g->down, &g->up, (struct mem_port){fakemem_access, &g->mem});
    g->port = link_path_port(&g->lp);
}

Test(link_path, read_round_trip)
{
    static struct path_rig g;
    path_rig_init(&g);
    struct requester q = {0};
    mem_send(&g.s, &g.port, new_req(&g.s, REQ_READ, 64, 0, &q));
    cr_assert_eq(sim_run(&g.s, 0), SIM_DONE);
    /* down: 8 B header at 8 B/cycle = 1 cycle + 2; memory 10 cycles;
     * up: 72 B at 4 B/cycle = 18 cycles + 2 */
    cr_expect_eq(g.mem.arrived, 3000);
    cr_expect_eq(q.done, 1);
    cr_expect_eq(q.done_at, 3000 + 10000 + 20000);
    cr_expect_eq(q.nret_at_done, 0);
    cr_expect_eq(g.down.st.flits[TC_REQ], 1);
    cr_expect_eq(g.up.st.flits[TC_RESP], 5);
    cr_expect_eq(g.s.req_pool.in_use, 0);
    sim_destroy(&g.s);
}

Test(link_path, write_round_trip)
{
    static struct path_rig g;
    path_rig_init(&g);
    struct requester q = {0};
    mem_send(&g.s, &g.port, new_req(&g.s, REQ_WRITE, 64, 0, &q));
    cr_assert_eq(sim_run(&g.s, 0), SIM_DONE);
    /* down: 72 B at 8 B/cycle = 9 cycles + 2; memory 10; up: 8 B ack = 2 cycles + 2 */
    cr_expect_eq(g.mem.arrived, 11000);
    cr_expect_eq(q.done_at, 11000 + 10000 + 4000);
    cr_expect_eq(g.down.st.bytes, 72);
    cr_expect_eq(g.up.st.bytes, 8);
    cr_expect_eq(g.down.st.flits[TC_REQ], 5);
    cr_expect_eq(g.up.st.flits[TC_RESP], 1);
    sim_destroy(&g.s);
}

/* ---- credits ---- */

/* A message of a test sender: waits for a credit of `l`, then is sent. */
struct csend {
    struct link_wait w; /* first */
    struct link *l;
    uint32_t bytes;
    unsigned vc;
    struct rec *r;
    uint64_t id;
    ps_t went;          /* when it got its credit */
};

static void csend_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct csend *m = obj;
    (void)arg;
    rec_ev(s, m->r, m->id);
    link_release(s, m->l, m->vc); /* the consumer takes it: the credit returns */
}

static void csend_go(struct sim *s, struct link_wait *w)
{
    struct csend *m = (struct csend *)w;
    m->went = s->now;
    link_send(s, m->l, m->bytes, TC_REQ, MC_DATA, csend_arrive, m, 0);
}

static void csend(struct sim *s, struct csend *m, unsigned need)
{
    m->w.go = csend_go;
    m->went = ~0ull;
    if (link_acquire(s, m->l, &m->w, m->vc, need))
        csend_go(s, &m->w);
}

/* A 16 B/cycle link of buf messages per virtual channel at 1 GHz. */
static void credit_rig(struct sim *s, struct clock *c, struct link *l, unsigned buf)
{
    sim_init(s, 1);
    clock_init(c, "noc", 1000.0);
    struct link_params p = P16;
    p.buf_msgs = buf;
    link_init(l, &p, c, LOC_REMOTE);
}

Test(credits, blocked_sender_resumes_exactly_when_a_credit_returns)
{
    struct sim s;
    struct clock c;
    struct link l;
    credit_rig(&s, &c, &l, 1);
    struct rec r = {0};
    struct csend a = {.l = &l, .bytes = 64, .r = &r, .id = 0};
    struct csend b = {.l = &l, .bytes = 64, .r = &r, .id = 1};
    csend(&s, &a, 1);
    csend(&s, &b, 1);
    cr_expect_eq(a.went, 0);
    cr_expect_eq(b.went, ~0ull, "the link holds one message: b waits");
    cr_expect_eq(l.used[0], 1);
    cr_expect_eq(l.nwait, 1);
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    /* a: 4 cycles + 5 = 9000; its delivery returns the credit, b departs then */
    cr_assert_eq(r.n, 2);
    cr_expect_eq(r.t[0], 9000);
    cr_expect_eq(b.went, 9000);
    cr_expect_eq(r.t[1], 18000);
    cr_expect_eq(l.st.credit_waits, 1);
    cr_expect_eq(l.st.credit_wait_ps, 9000);
    cr_expect_eq(l.used[0], 0);
    /* unbounded, the two would have been 4 cycles apart */
    sim_destroy(&s);
}

Test(credits, virtual_channels_do_not_block_each_other)
{
    struct sim s;
    struct clock c;
    struct link l;
    credit_rig(&s, &c, &l, 1);
    struct rec r = {0};
    struct csend req0 = {.l = &l, .bytes = 64, .r = &r, .id = 0, .vc = link_vc(false, false)};
    struct csend req1 = {.l = &l, .bytes = 64, .r = &r, .id = 1, .vc = link_vc(false, false)};
    struct csend resp = {.l = &l, .bytes = 64, .r = &r, .id = 2, .vc = link_vc(true, false)};
    csend(&s, &req0, 1);
    csend(&s, &req1, 1);
    csend(&s, &resp, 1);
    cr_expect_eq(resp.went, 0, "a response does not wait behind requests");
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    cr_assert_eq(r.n, 3);
    cr_expect_eq(r.arg[0], 0);
    cr_expect_eq(r.t[0], 9000);
    cr_expect_eq(r.arg[1], 2);
    cr_expect_eq(r.t[1], 13000); /* the wire is shared: behind req0 */
    cr_expect_eq(r.arg[2], 1);
    cr_expect_eq(r.t[2], 18000);
    sim_destroy(&s);
}

Test(credits, two_slot_waiters_yield_to_one_slot_waiters)
{
    struct sim s;
    struct clock c;
    struct link l;
    credit_rig(&s, &c, &l, 2);
    struct rec r = {0};
    struct csend m[4];
    for (unsigned i = 0; i < 4; i++)
        m[i] = (struct csend){.l = &l, .bytes = 16, .r = &r, .id = i};
    csend(&s, &m[0], 2); /* enters: two free */
    csend(&s, &m[1], 2); /* one free: waits */
    csend(&s, &m[2], 1); /* one free, and it needs one: goes ahead of m[1] */
    csend(&s, &m[3], 1); /* full */
    cr_expect_eq(m[0].went, 0);
    cr_expect_eq(m[1].went, ~0ull);
    cr_expect_eq(m[2].went, 0);
    cr_expect_eq(m[3].went, ~0ull);
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    /* m0 arrives at 1 + 5 = 6000: one slot frees, m3 (one slot) takes it;
     * m2 arrives at 7000: one free again, but m1 needs two; m3 at 6000 + 6 =
     * 12000: two free, m1 goes */
    cr_expect_eq(m[3].went, 6000);
    cr_expect_eq(m[1].went, 12000);
    cr_expect_eq(r.t[3], 18000);
    sim_destroy(&s);
}

Test(credits, bounded_path_holds_each_message_until_delivered)
{
    struct sim s;
    sim_init(&s, 1);
    req_pool_init(&s, 16);
    struct clock c;
    clock_init(&c, "noc", 1000.0);
    struct link_params dp = {.lat = 2, .bw_b_per_cycle = 8, .flit_b = 16, .header_b = 8,
                             .buf_msgs = 1};
    struct link down, up;
    link_init(&down, &dp, &c, LOC_L1_L2);
    link_init(&up, &dp, &c, LOC_L1_L2);
    struct fakemem mem = {.lat_ps = 10000};
    struct link_path lp;
    link_path_init(&lp, &down, &up, (struct mem_port){fakemem_access, &mem});
    struct mem_port port = link_path_port(&lp);
    struct requester q[3] = {{0}};
    for (int i = 0; i < 3; i++)
        mem_send(&s, &port, new_req(&s, REQ_READ, 64, 0, &q[i]));
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    /* requests: 1 cycle + 2 each, one at a time: arrive 3000, 6000, 9000;
     * responses: 72 B = 9 cycles + 2, one at a time from 13000: 24000,
     * then 35000 (ready at 16000, link free at 24000), 46000 */
    cr_expect_eq(q[0].done_at, 24000);
    cr_expect_eq(q[1].done_at, 35000);
    cr_expect_eq(q[2].done_at, 46000);
    cr_expect_eq(down.st.credit_waits, 2);
    cr_expect_eq(down.st.credit_wait_ps, 3000 + 6000);
    cr_expect_eq(s.req_pool.in_use, 0);
    cr_expect_eq(lp.waits.in_use, 0);
    link_path_free(&lp);
    sim_destroy(&s);
}

/* ---- crossbar (the network of one GPU) ---- */

/* 1 GHz, 16 GB/s per port = 16 B/cycle, 3 cycles through the switch. */
static const struct net_hop_params XH = {.gbps = 16, .lat = 3, .flit_b = 16, .header_b = 8};

static void xbar_rig_init(struct net_rig *g, unsigned n)
{
    struct net_params p = {.fabric = NET_XBAR, .xbar = XH};
    net_rig_init(g, 1, n, &p, 1000.0);
}

Test(xbar, single_message_latency)
{
    static struct net_rig g;
    xbar_rig_init(&g, 4);
    struct link *in0 = lk(&g.n, "gpu0.xbar.port0.in");
    cr_expect_eq(in0->ps_num * 16, in0->ps_den * 1000); /* 1/16 ns per byte */
    net_send(&g.n, 0, 2, 64, TC_RESP, rec_ev, &g.r, 7);
    sim_run(&g.s, 0);
    /* ingress 4 cycles, switch 3, egress 4 */
    cr_assert_eq(g.r.n, 1);
    cr_expect_eq(g.r.t[0], 11000);
    cr_expect_eq(g.r.arg[0], 7);
    cr_expect_eq(g.n.nodes[net_node_find(&g.n, "gpu0.xbar")].forwarded, 1);
    net_rig_free(&g);
}

Test(xbar, two_sources_contend_on_one_egress)
{
    static struct net_rig g;
    xbar_rig_init(&g, 4);
    net_send(&g.n, 0, 2, 64, TC_RESP, rec_ev, &g.r, 0);
    net_send(&g.n, 1, 2, 64, TC_RESP, rec_ev, &g.r, 1);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 2);
    cr_expect_eq(g.r.t[0], 11000);
    cr_expect_eq(g.r.t[1], 15000); /* waits 4 cycles for port 2's egress */
    cr_expect_eq(lk(&g.n, "gpu0.xbar.port2.out")->st.queue_ps, 4000);
    cr_expect_eq(lk(&g.n, "gpu0.xbar.port0.in")->st.queue_ps +
                     lk(&g.n, "gpu0.xbar.port1.in")->st.queue_ps, 0);
    net_rig_free(&g);
}

Test(xbar, disjoint_pairs_do_not_contend)
{
    static struct net_rig g;
    xbar_rig_init(&g, 4);
    net_send(&g.n, 0, 2, 64, TC_RESP, rec_ev, &g.r, 0);
    net_send(&g.n, 1, 3, 64, TC_RESP, rec_ev, &g.r, 1);
    net_send(&g.n, 3, 1, 64, TC_RESP, rec_ev, &g.r, 2);
    net_send(&g.n, 2, 0, 64, TC_RESP, rec_ev, &g.r, 3);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 4);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(g.r.t[i], 11000);
    net_rig_free(&g);
}

Test(xbar, one_source_serialises_on_its_ingress)
{
    static struct net_rig g;
    xbar_rig_init(&g, 4);
    net_send(&g.n, 0, 2, 64, TC_RESP, rec_ev, &g.r, 0);
    net_send(&g.n, 0, 3, 64, TC_RESP, rec_ev, &g.r, 1);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 2);
    cr_expect_eq(g.r.t[0], 11000);
    cr_expect_eq(g.r.t[1], 15000);
    net_rig_free(&g);
}

Test(xbar, request_path_goes_out_and_back)
{
    static struct net_rig g;
    xbar_rig_init(&g, 4);
    struct stats st;
    stats_init(&st);
    net_reg_stats(&g.n, &st);
    struct fakemem mem[4];
    for (unsigned i = 0; i < 4; i++) {
        mem[i] = (struct fakemem){.lat_ps = 10000, .scribble = true};
        net_attach(&g.n, i, (struct mem_port){fakemem_access, &mem[i]});
    }
    /* chiplet 0 reads from chiplet 2 (routed by r->home) */
    struct mem_port p0 = net_port(&g.n, 0);
    struct requester q = {0};
    mem_send(&g.s, &p0, new_req(&g.s, REQ_READ, 64, 2, &q));
    sim_run(&g.s, 0);
    /* request 8 B: 0.5 + 3 + 0.5 cycles; memory 10; response 72 B: 4.5 + 3 + 4.5 */
    cr_expect_eq(mem[2].n, 1);
    cr_expect_eq(mem[2].arrived, 4000);
    cr_expect_eq(q.done_at, 4000 + 10000 + 12000);
    cr_expect_eq(q.nret_at_done, 0);
    cr_expect_eq(stats_get(&st, "gpu0.xbar.port0.in.flits_req"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.xbar.port2.out.flits_req"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.xbar.port2.in.flits_resp"), 5);
    cr_expect_eq(stats_get(&st, "gpu0.xbar.port0.out.flits_resp"), 5);
    cr_expect_eq(stats_sum(&st, "flits_remote"), 6); /* each message once */
    cr_expect_eq(stats_find(&st, "gpu0.xbar.port0.out.flits_remote"), NULL);
    cr_expect_eq(stats_get(&st, "system.net.inter_chiplet.messages"), 2);
    cr_expect_eq(stats_get(&st, "system.net.inter_chiplet.flits"), 6);
    cr_expect_eq(stats_get(&st, "system.net.inter_chiplet.flit_hops"), 12);
    cr_expect_eq(stats_get(&st, "system.net.inter_chiplet.request.flits"), 1);
    cr_expect_eq(stats_get(&st, "system.net.inter_chiplet.data.bytes"), 72);

    /* chiplet 1 writes to chiplet 3 over a fixed-destination path */
    struct mem_port p13 = net_path_port(&g.n, 1, 3);
    struct requester w = {0};
    ps_t t0 = g.s.now;
    mem_send(&g.s, &p13, new_req(&g.s, REQ_WRITE, 64, 0, &w));
    sim_run(&g.s, 0);
    cr_expect_eq(mem[3].n, 1);
    cr_expect_eq(mem[3].arrived - t0, 12000);
    cr_expect_eq(w.done_at - t0, 12000 + 10000 + 4000);
    cr_expect_eq(stats_get(&st, "gpu0.xbar.port1.in.flits_req"), 5);
    cr_expect_eq(stats_get(&st, "gpu0.xbar.port3.in.flits_resp"), 1);
    cr_expect_eq(stats_get(&st, "system.net.inter_chiplet.data.messages"), 2);
    cr_expect_eq(stats_get(&st, "system.net.inter_chiplet.ack.messages"), 1);
    cr_expect_eq(g.s.req_pool.in_use, 0);
    cr_expect_eq(net_pending(&g.n), 0);
    stats_free(&st);
    net_rig_free(&g);
}

Test(xbar, full_egress_holds_the_ingress_credit)
{
    static struct net_rig g;
    struct net_params p = {.fabric = NET_XBAR, .xbar = XH};
    p.xbar.buf_msgs = 1;
    net_rig_init(&g, 1, 4, &p, 1000.0);
    net_send(&g.n, 0, 2, 64, TC_RESP, rec_ev, &g.r, 0);
    net_send(&g.n, 1, 2, 64, TC_RESP, rec_ev, &g.r, 1);
    net_send(&g.n, 1, 3, 64, TC_RESP, rec_ev, &g.r, 2);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 3);
    /* m0: 0 -> 2 arrives 11000. m1 (1 -> 2) reaches the switch at 7000, but
     * port 2's egress holds m0 until 11000: m1 keeps port 1's ingress credit
     * until then, so m2 (1 -> 3) cannot enter port 1 before 11000 */
    cr_expect_eq(g.r.arg[0], 0);
    cr_expect_eq(g.r.t[0], 11000);
    cr_expect_eq(g.r.arg[1], 1);
    cr_expect_eq(g.r.t[1], 15000);
    cr_expect_eq(g.r.arg[2], 2);
    cr_expect_eq(g.r.t[2], 11000 + 11000);
    struct link *out2 = lk(&g.n, "gpu0.xbar.port2.out"), *in1 = lk(&g.n, "gpu0.xbar.port1.in");
    cr_expect_eq(out2->st.credit_waits, 1);
    cr_expect_eq(out2->st.credit_wait_ps, 4000);
    cr_expect_eq(in1->st.credit_waits, 1);
    cr_expect_eq(in1->st.credit_wait_ps, 11000);
    cr_expect_eq(net_pending(&g.n), 0);
    net_rig_free(&g);
}

Test(xbar, watchdog_dump_shows_occupancy_and_waiters)
{
    static struct net_rig g;
    struct net_params p = {.fabric = NET_XBAR, .xbar = XH};
    p.xbar.buf_msgs = 1;
    net_rig_init(&g, 1, 4, &p, 1000.0);
    net_send(&g.n, 0, 2, 64, TC_RESP, rec_ev, &g.r, 0);
    net_send(&g.n, 1, 2, 64, TC_RESP, rec_ev, &g.r, 1);
    net_send(&g.n, 1, 3, 64, TC_RESP, rec_ev, &g.r, 2);
    cr_assert_eq(sim_run(&g.s, 8000), SIM_STOPPED);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    net_dump(&g.n, f);
    fclose(f);
    cr_expect_eq(net_pending(&g.n), 3);
    cr_expect(strstr(buf, "gpu0.xbar.port1.in: vc req.out 1/1 held, 1 waiting (oldest since "
                          "t=0 ps)\n"), "%s", buf);
    cr_expect(strstr(buf, "gpu0.xbar.port2.out: vc req.out 1/1 held, 1 waiting (oldest since "
                          "t=7000 ps)\n"), "%s", buf);
    cr_expect(strstr(buf, "gpu0.xbar.port0.in") == NULL, "%s", buf);
    free(buf);
    sim_run(&g.s, 0);
    net_rig_free(&g);
}

/* ---- long random streams ---- */

struct stream {
    struct link *l;
    struct net *x;
    uint32_t bytes[REC_MAX];
    uint16_t src[REC_MAX], dst[REC_MAX];
    ps_t issued[REC_MAX];
    struct rec r;
};

static void stream_issue(struct sim *s, void *obj, uint64_t i)
{
    struct stream *st = obj;
    st->issued[i] = s->now;
    if (st->l)
        link_send(s, st->l, st->bytes[i], TC_RESP, MC_DATA, rec_ev, &st->r, i);
    else
        net_send(st->x, st->src[i], st->dst[i], st->bytes[i], TC_RESP, rec_ev, &st->r, i);
}

/* Deliveries d[0..n) in order on one wire of num/den ps per byte: no window
 * of them carries more than the bandwidth allows (1 ps for rounding). */
static void check_windows(const ps_t *t, const uint32_t *bytes, int n, uint64_t num,
                          uint64_t den)
{
    for (int i = 0; i < n; i++) {
        uint64_t b = 0;
        for (int j = i + 1; j < n; j++) {
            b += bytes[j];
            cr_assert_lt(b * num, (t[j] - t[i] + 1) * den,
                         "%llu bytes between deliveries %d and %d, %llu ps apart",
                         (unsigned long long)b, i, j, (unsigned long long)(t[j] - t[i]));
        }
    }
}

Test(link, bandwidth_never_exceeded_on_random_stream)
{
    struct sim s;
    sim_init(&s, 1);
    struct clock c;
    clock_init(&c, "gpu", 1801.0);
    struct link_params p = {.lat = 7, .bw_b_per_cycle = link_bw_from_gbps(768, &c),
                            .flit_b = 16, .header_b = 8};
    struct link l;
    link_init(&l, &p, &c, LOC_REMOTE);
    static struct stream st;
    memset(&st, 0, sizeof st);
    st.l = &l;
    struct rng g;
    rng_seed(&g, 99);
    int n = 3000;
    ps_t t = 0;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        st.bytes[i] = 1 + (uint32_t)rng_below(&g, 200);
        total += st.bytes[i];
        t += rng_below(&g, 300);
        sim_at(&s, t, stream_issue, &st, (uint64_t)i);
    }
    sim_run(&s, 0);
    cr_assert_eq(st.r.n, n);
    static ps_t when[REC_MAX];
    static uint32_t sz[REC_MAX];
    for (int i = 0; i < n; i++) {
        int k = (int)st.r.arg[i];
        cr_assert_eq(k, i, "FIFO order");
        when[i] = st.r.t[i];
        sz[i] = st.bytes[k];
        /* never earlier than injection on an edge + own serialisation + lat */
        ps_t min = clock_edge(&c, st.issued[k]) + div_ceil(sz[i] * 125, 96) + 7 * 555;
        cr_assert_geq(when[i], min);
    }
    check_windows(when, sz, n, 125, 96);
    cr_expect_eq(l.st.bytes, total);
    cr_expect_eq(l.st.busy_cycles, total * 125 / 96 / 555);
    sim_destroy(&s);
}

Test(xbar, egress_bandwidth_never_exceeded_on_random_stream)
{
    static struct net_rig g;
    struct net_params p = {.fabric = NET_XBAR,
                           .xbar = {.gbps = 768, .lat = 60, .flit_b = 16, .header_b = 8}};
    net_rig_init(&g, 1, 4, &p, 1801.0);
    static struct stream st;
    memset(&st, 0, sizeof st);
    st.x = &g.n;
    struct rng r;
    rng_seed(&r, 7);
    int n = 3000;
    ps_t t = 0;
    for (int i = 0; i < n; i++) {
        st.bytes[i] = rng_below(&r, 2) ? 72 : 8;
        st.src[i] = (uint16_t)rng_below(&r, 4);
        st.dst[i] = (uint16_t)rng_below(&r, 4);
        t += rng_below(&r, 100);
        sim_at(&g.s, t, stream_issue, &st, (uint64_t)i);
    }
    sim_run(&g.s, 0);
    cr_assert_eq(st.r.n, n);
    static ps_t when[REC_MAX];
    static uint32_t sz[REC_MAX];
    for (unsigned d = 0; d < 4; d++) {
        int m = 0;
        uint64_t bytes = 0;
        for (int i = 0; i < n; i++) {
            int k = (int)st.r.arg[i];
            if (st.dst[k] != d)
                continue;
            when[m] = st.r.t[i];
            sz[m++] = st.bytes[k];
            bytes += st.bytes[k];
            ps_t min = clock_edge(&g.c, st.issued[k]) + div_ceil(st.bytes[k] * 250, 96) + 60 * 555;
            cr_assert_geq(st.r.t[i], min);
        }
        check_windows(when, sz, m, 125, 96);
        char name[64];
        snprintf(name, sizeof name, "gpu0.xbar.port%u.out", d);
        cr_expect_eq(lk(&g.n, name)->st.bytes, bytes);
    }
    cr_expect_eq(g.n.msgs.in_use, 0);
    net_rig_free(&g);
}

/* ---- configuration ---- */

Test(net_cfg, link_defaults_and_overrides)
{
    struct cfg c;
    cfg_init(&c);
    static const char *const l2l3[] = {"lat=20", NULL};
    cfg_define(&c, "noc_l1_l2", "CU L1 <-> L2", link_keys, NULL);
    cfg_define(&c, "noc_l2_l3", "L2 <-> L3", link_keys, l2l3);
    struct err e;
    cr_assert_eq(cfg_load_string(&c, "test.ini", "[noc_l2_l3]\nbw_b_per_cycle = 32.5\nflit_b = 32\n", &e), 0, "%s",
                 e.msg);
    cr_assert_eq(cfg_resolve(&c, &e), 0, "%s", e.msg);
    struct link_params p;
    cr_assert_eq(link_params_from_cfg(cfg_sec(&c, "noc_l1_l2"), &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.lat, 1);
    cr_expect_eq(p.bw_b_per_cycle, 64);
    cr_expect_eq(p.flit_b, 16);
    cr_expect_eq(p.header_b, 8);
    cr_expect_eq(p.resp_header_b, 0);
    cr_expect_eq(p.buf_msgs, 0);
    cr_assert_eq(link_params_from_cfg(cfg_sec(&c, "noc_l2_l3"), &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.lat, 20);
    cr_expect_eq(p.bw_b_per_cycle, 32.5);
    cr_expect_eq(p.flit_b, 32);
    cfg_free(&c);
}

static void expect_link_err(const char *text, const char *want)
{
    struct cfg c;
    struct err e = {{0}};
    struct link_params p;
    int rc = tcfg_load(&c, "noc", link_keys, NULL, text, &e);
    if (rc == 0)
        rc = link_params_from_cfg(cfg_sec(&c, "noc"), &p, &e);
    cr_expect_eq(rc, -1, "accepted: %s", text);
    cr_expect(strstr(e.msg, want) != NULL, "got '%s', want '%s'", e.msg, want);
    cfg_free(&c);
}

Test(net_cfg, link_errors)
{
    expect_link_err("[noc]\nflit_b = 0\n", "t.ini:2: [noc] flit_b = 0: out of range");
    expect_link_err("[noc]\nlat = -1\n", "t.ini:2: [noc] lat = -1: out of range");
    expect_link_err("[noc]\nbw_b_per_cycle = 0\n", "[noc] bw_b_per_cycle = 0: out of range");
    expect_link_err("[noc]\nbw_b_per_cycle = fast\n", "not a number");
    expect_link_err("[noc]\n\nbw_b_per_cycle = 1.0000001\n",
                    "t.ini:3: [noc] bw_b_per_cycle = 1.0000001: must be a multiple of "
                    "0.000001 bytes per cycle");
    expect_link_err("[noc]\nflitb = 16\n", "unknown key (did you mean 'flit_b'?)");
}

/* [gpu] and the network sections loaded from `ini` and resolved. */
static int net_cfg_load(struct cfg *c, const char *ini, struct net_params *p, struct err *e)
{
    cfg_init(c);
    cfg_define(c, "gpu", "topology", topo_keys, NULL);
    net_define_sections(c);
    struct topo t;
    if (cfg_load_string(c, "t.ini", ini, e) || cfg_resolve(c, e) ||
        topo_from_cfg(cfg_sec(c, "gpu"), &t, e))
        return -1;
    return net_params_from_cfg(c, &t, p, e);
}

Test(net_cfg, defaults)
{
    struct cfg c;
    struct err e;
    struct net_params p;
    cr_assert_eq(net_cfg_load(&c, "", &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.fabric, NET_XBAR);
    cr_expect_eq(p.gpunet, NET_SWITCH);
    /* [xbar]: Table I / D6 / D7, as before */
    cr_expect_eq(p.xbar.gbps, 768);
    cr_expect_eq(p.xbar.lat, 40);
    cr_expect_eq(p.xbar.flit_b, 16);
    cr_expect_eq(p.xbar.header_b, 8);
    cr_expect_eq(p.xbar.resp_header_b, 0);
    cr_expect_eq(p.xbar.buf_msgs, 0);
    cr_expect_eq(p.gswitch.gbps, 300);
    cr_expect_eq(p.gswitch.lat, 500);
    /* [ring]: LADM Table 3.3 read as 90 GB/s per link per direction, L2's 32 cycles */
    cr_expect_eq(p.ring.gbps, 90);
    cr_expect_eq(p.ring.lat, 32);
    cr_expect_eq(p.p2p.gbps, 300);
    cr_expect_eq(p.p2p.lat, 500);
    /* [gpu_tree]: MGPUSim's 140 cycles per switch, 64 GB/s (O1) */
    cr_expect_eq(p.tree.gbps, 64);
    cr_expect_eq(p.tree.sw_lat, 140);
    cr_expect_eq(p.tree.lat, 0);
    cr_expect_eq(p.tree.header_b, 8);
    cr_expect_eq(p.tree.buf_msgs, 0);
    cfg_free(&c);

    cr_assert_eq(net_cfg_load(&c, "[gpu]\nchiplet_net = ring\ngpu_net = tree\n[gpu_tree]\n"
                                  "header_b = 12\nresp_header_b = 4\nbuf_msgs = 64\n",
                              &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.fabric, NET_RING);
    cr_expect_eq(p.gpunet, NET_TREE);
    cr_expect_eq(p.tree.header_b, 12);
    cr_expect_eq(p.tree.resp_header_b, 4);
    cr_expect_eq(p.tree.buf_msgs, 64);
    cfg_free(&c);
}

static void expect_net_err(const char *ini, const char *want)
{
    struct cfg c;
    struct err e = {{0}};
    struct net_params p;
    cr_expect_eq(net_cfg_load(&c, ini, &p, &e), -1, "accepted: %s", ini);
    cr_expect(strstr(e.msg, want) != NULL, "got '%s', want '%s'", e.msg, want);
    cfg_free(&c);
}

Test(net_cfg, errors)
{
    expect_net_err("[xbar]\nport_gbps = 768.0005\n",
                   "t.ini:2: [xbar] port_gbps = 768.0005: must be a multiple of 0.001 GB/s");
    expect_net_err("[xbar]\nheader_b = 0\n", "t.ini:2: [xbar] header_b = 0: out of range");
    expect_net_err("[gpu_tree]\nlink_gbps = 64.0001\n",
                   "t.ini:2: [gpu_tree] link_gbps = 64.0001: must be a multiple of 0.001 GB/s");
    expect_net_err("[gpu]\ngpu_net = mesh\n", "t.ini:2: [gpu] gpu_net = mesh:");
    expect_net_err("[gpu]\nchiplet_net = ring\n[ring]\nbuf_msgs = 1\n",
                   "t.ini:4: [ring] buf_msgs = 1: must be 0 (unbounded) or at least 2");
    expect_net_err("[ring]\nhop_lt = 3\n", "unknown key (did you mean 'hop_lat'?)");
}

Test(net_cfg, gbps_conversion)
{
    struct clock c;
    clock_init(&c, "gpu", 1801.0);
    cr_expect_eq(link_bw_from_gbps(768, &c), 426.24);
    clock_init(&c, "ghz", 1000.0);
    cr_expect_eq(link_bw_from_gbps(64, &c), 64);
    cr_expect_eq(link_bw_from_gbps(0.5, &c), 0.5);
    clock_init(&c, "cp", 1500.0); /* 667 ps */
    cr_expect_eq(link_bw_from_gbps(100.125, &c), 66.783375);
}
