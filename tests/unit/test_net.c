/*
 * Links, link paths and the crossbar: exact delivery times in picoseconds,
 * flit counts per traffic class and location, contention, a long random
 * stream that must never beat the bandwidth, and config errors.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "net/link.h"
#include "net/xbar.h"
#include "stats/stats.h"

/* ---- helpers ---- */

#define REC_MAX 4096
struct rec {
    ps_t t[REC_MAX];
    uint64_t arg[REC_MAX];
    int n;
};

static void rec_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct rec *r = obj;
    cr_assert_lt(r->n, REC_MAX);
    r->t[r->n] = s->now;
    r->arg[r->n++] = arg;
}

/* A memory that answers every request `lat_ps` after it arrives. */
struct fakemem {
    ps_t lat_ps;
    int n;
    ps_t arrived;
    bool scribble; /* change r->home, which the crossbar must not rely on */
};

static void fakemem_access(struct sim *s, void *self, struct req *r)
{
    struct fakemem *m = self;
    m->n++;
    m->arrived = s->now;
    if (m->scribble)
        r->home = 999;
    sim_after(s, m->lat_ps, req_complete_ev, r, 0);
}

/* The requester's own return entry. */
struct requester {
    ps_t done_at;
    int done;
    uint8_t nret_at_done;
};

static void requester_done(struct sim *s, struct req *r, void *obj)
{
    struct requester *q = obj;
    q->done_at = s->now;
    q->done++;
    q->nret_at_done = r->nret;
    req_free(s, r);
}

static struct req *new_req(struct sim *s, enum req_kind kind, uint32_t size, uint16_t home,
                           struct requester *q)
{
    struct req *r = req_alloc(s);
    r->kind = kind;
    r->size = size;
    r->home = home;
    req_on_done(r, requester_done, q);
    return r;
}

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
    cr_expect_eq(link_send(&s, &l, 64, TC_RESP, rec_ev, &r, 1), 9000);
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    cr_expect_eq(r.n, 1);
    cr_expect_eq(r.t[0], 9000);
    /* an idle link injects on the next edge of its clock */
    s.now = 20500;
    cr_expect_eq(link_send(&s, &l, 64, TC_RESP, rec_ev, &r, 2), 21000 + 4000 + 5000);
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
        link_send(&s, &l, 72, TC_REQ, rec_ev, &r, (uint64_t)i);
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
    cr_expect_eq(link_send(&s, &l, 64, TC_REQ, rec_ev, &r, 0), 5000); /* busy until 4000 */
    s.now = 1000;
    cr_expect_eq(link_send(&s, &l, 32, TC_REQ, rec_ev, &r, 1), 7000); /* departs 4000 */
    cr_expect_eq(l.st.queue_ps, 3000);
    s.now = 6500; /* link free since 6000: departs on the 7000 edge */
    cr_expect_eq(link_send(&s, &l, 16, TC_REQ, rec_ev, &r, 2), 9000);
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
        link_send(&s, &l, 72, TC_RESP, rec_ev, &r, 0); /* 93.75 ps each */
    link_send(&s, &l, 8, TC_REQ, rec_ev, &r, 0);      /* 10.41.. ps */
    sim_run(&s, 0);
    ps_t want[] = {94, 188, 282, 375, 386};
    for (int i = 0; i < 5; i++)
        cr_expect_eq(r.t[i], want[i], "msg %d at %llu", i, (unsigned long long)r.t[i]);
    /* the link went idle at 385.42; 1000 more 72 B messages injected now (386)
     * start on the next edge and take exactly 1000 * 93.75 ps */
    cr_expect_eq(s.now, 386);
    for (int i = 0; i < 1000; i++)
        link_send(&s, &l, 72, TC_RESP, rec_ev, &r, 0);
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
    link_send(&s, &a, 8, TC_REQ, rec_ev, &r, 0);
    link_send(&s, &a, 72, TC_RESP, rec_ev, &r, 0);
    link_send(&s, &b, 72, TC_WB, rec_ev, &r, 0);
    link_send(&s, &b, 8, TC_WB, rec_ev, &r, 0);
    link_send(&s, &b, 8, TC_REQ, rec_ev, &r, 0);
    link_send(&s, &rm, 8, TC_COH, rec_ev, &r, 0);
    link_send(&s, &rm, 72, TC_REQ, rec_ev, &r, 0);
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

/* ---- crossbar ---- */

/* 1 GHz, 16 GB/s per port = 16 B/cycle, 3 cycles through the switch. */
static const struct xbar_params XP = {.port_gbps = 16, .lat = 3, .flit_b = 16, .header_b = 8};

struct xbar_rig {
    struct sim s;
    struct clock c;
    struct xbar x;
    struct rec r;
};

static void xbar_rig_init(struct xbar_rig *g, unsigned n)
{
    sim_init(&g->s, 1);
    req_pool_init(&g->s, 16);
    clock_init(&g->c, "gpu", 1000.0);
    xbar_init(&g->x, &XP, &g->c, n, LOC_REMOTE);
    g->r.n = 0;
}

static void xbar_rig_free(struct xbar_rig *g)
{
    xbar_free(&g->x);
    sim_destroy(&g->s);
}

Test(xbar, single_message_latency)
{
    static struct xbar_rig g;
    xbar_rig_init(&g, 4);
    cr_expect_eq(g.x.in[0].ps_num * 16, g.x.in[0].ps_den * 1000); /* 1/16 ns per byte */
    xbar_send(&g.s, &g.x, 0, 2, 64, TC_RESP, rec_ev, &g.r, 7);
    sim_run(&g.s, 0);
    /* ingress 4 cycles, switch 3, egress 4 */
    cr_assert_eq(g.r.n, 1);
    cr_expect_eq(g.r.t[0], 11000);
    cr_expect_eq(g.r.arg[0], 7);
    xbar_rig_free(&g);
}

Test(xbar, two_sources_contend_on_one_egress)
{
    static struct xbar_rig g;
    xbar_rig_init(&g, 4);
    xbar_send(&g.s, &g.x, 0, 2, 64, TC_RESP, rec_ev, &g.r, 0);
    xbar_send(&g.s, &g.x, 1, 2, 64, TC_RESP, rec_ev, &g.r, 1);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 2);
    cr_expect_eq(g.r.t[0], 11000);
    cr_expect_eq(g.r.t[1], 15000); /* waits 4 cycles for port 2's egress */
    cr_expect_eq(g.x.out[2].st.queue_ps, 4000);
    cr_expect_eq(g.x.in[0].st.queue_ps + g.x.in[1].st.queue_ps, 0);
    xbar_rig_free(&g);
}

Test(xbar, disjoint_pairs_do_not_contend)
{
    static struct xbar_rig g;
    xbar_rig_init(&g, 4);
    xbar_send(&g.s, &g.x, 0, 2, 64, TC_RESP, rec_ev, &g.r, 0);
    xbar_send(&g.s, &g.x, 1, 3, 64, TC_RESP, rec_ev, &g.r, 1);
    xbar_send(&g.s, &g.x, 3, 1, 64, TC_RESP, rec_ev, &g.r, 2);
    xbar_send(&g.s, &g.x, 2, 0, 64, TC_RESP, rec_ev, &g.r, 3);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 4);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(g.r.t[i], 11000);
    xbar_rig_free(&g);
}

Test(xbar, one_source_serialises_on_its_ingress)
{
    static struct xbar_rig g;
    xbar_rig_init(&g, 4);
    xbar_send(&g.s, &g.x, 0, 2, 64, TC_RESP, rec_ev, &g.r, 0);
    xbar_send(&g.s, &g.x, 0, 3, 64, TC_RESP, rec_ev, &g.r, 1);
    sim_run(&g.s, 0);
    cr_assert_eq(g.r.n, 2);
    cr_expect_eq(g.r.t[0], 11000);
    cr_expect_eq(g.r.t[1], 15000);
    xbar_rig_free(&g);
}

Test(xbar, request_path_goes_out_and_back)
{
    static struct xbar_rig g;
    xbar_rig_init(&g, 4);
    struct stats st;
    stats_init(&st);
    xbar_reg_stats(&g.x, &st, "xbar");
    struct fakemem mem[4];
    for (unsigned i = 0; i < 4; i++) {
        mem[i] = (struct fakemem){.lat_ps = 10000, .scribble = true};
        xbar_attach(&g.x, i, (struct mem_port){fakemem_access, &mem[i]});
    }
    /* chiplet 0 reads from chiplet 2 (routed by r->home) */
    struct mem_port p0 = xbar_port(&g.x, 0);
    struct requester q = {0};
    mem_send(&g.s, &p0, new_req(&g.s, REQ_READ, 64, 2, &q));
    sim_run(&g.s, 0);
    /* request 8 B: 0.5 + 3 + 0.5 cycles; memory 10; response 72 B: 4.5 + 3 + 4.5 */
    cr_expect_eq(mem[2].n, 1);
    cr_expect_eq(mem[2].arrived, 4000);
    cr_expect_eq(q.done_at, 4000 + 10000 + 12000);
    cr_expect_eq(q.nret_at_done, 0);
    cr_expect_eq(stats_get(&st, "xbar.port0.in.flits_req"), 1);
    cr_expect_eq(stats_get(&st, "xbar.port2.out.flits_req"), 1);
    cr_expect_eq(stats_get(&st, "xbar.port2.in.flits_resp"), 5);
    cr_expect_eq(stats_get(&st, "xbar.port0.out.flits_resp"), 5);
    cr_expect_eq(stats_sum(&st, "flits_remote"), 6); /* each message once */
    cr_expect_eq(stats_find(&st, "xbar.port0.out.flits_remote"), NULL);

    /* chiplet 1 writes to chiplet 3 over a fixed-destination path */
    struct mem_port p13 = xbar_path_port(&g.x, 1, 3);
    struct requester w = {0};
    ps_t t0 = g.s.now;
    mem_send(&g.s, &p13, new_req(&g.s, REQ_WRITE, 64, 0, &w));
    sim_run(&g.s, 0);
    cr_expect_eq(mem[3].n, 1);
    cr_expect_eq(mem[3].arrived - t0, 12000);
    cr_expect_eq(w.done_at - t0, 12000 + 10000 + 4000);
    cr_expect_eq(stats_get(&st, "xbar.port1.in.flits_req"), 5);
    cr_expect_eq(stats_get(&st, "xbar.port3.in.flits_resp"), 1);

    /* homes numbered globally (second GPU of 4 chiplets each): home 6 is port 2 */
    g.x.home_base = 4;
    struct requester h = {0};
    mem_send(&g.s, &p0, new_req(&g.s, REQ_READ, 64, 6, &h));
    sim_run(&g.s, 0);
    cr_expect_eq(mem[2].n, 2);
    cr_expect_eq(h.done, 1);
    cr_expect_eq(g.s.req_pool.in_use, 0);
    stats_free(&st);
    xbar_rig_free(&g);
}

/* ---- long random streams ---- */

struct stream {
    struct link *l;
    struct xbar *x;
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
        link_send(s, st->l, st->bytes[i], TC_RESP, rec_ev, &st->r, i);
    else
        xbar_send(s, st->x, st->src[i], st->dst[i], st->bytes[i], TC_RESP, rec_ev, &st->r, i);
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
    static struct xbar_rig g;
    g.s = (struct sim){0};
    sim_init(&g.s, 1);
    clock_init(&g.c, "gpu", 1801.0);
    struct xbar_params p = {.port_gbps = 768, .lat = 60, .flit_b = 16, .header_b = 8};
    xbar_init(&g.x, &p, &g.c, 4, LOC_REMOTE);
    static struct stream st;
    memset(&st, 0, sizeof st);
    st.x = &g.x;
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
        cr_expect_eq(g.x.out[d].st.bytes, bytes);
    }
    cr_expect_eq(g.x.msgs.in_use, 0);
    xbar_rig_free(&g);
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

Test(net_cfg, xbar_defaults_and_errors)
{
    struct cfg c;
    struct err e;
    cr_assert_eq(tcfg_load(&c, "xbar", xbar_keys, NULL, "", &e), 0, "%s", e.msg);
    struct xbar_params p;
    cr_assert_eq(xbar_params_from_cfg(cfg_sec(&c, "xbar"), &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.port_gbps, 768);
    cr_expect_eq(p.lat, 60);
    cr_expect_eq(p.flit_b, 16);
    cr_expect_eq(p.header_b, 8);
    cfg_free(&c);

    cr_assert_eq(tcfg_load(&c, "xbar", xbar_keys, NULL, "[xbar]\nport_gbps = 768.0005\n", &e), 0,
                 "%s", e.msg);
    cr_expect_eq(xbar_params_from_cfg(cfg_sec(&c, "xbar"), &p, &e), -1);
    cr_expect(strstr(e.msg, "t.ini:2: [xbar] port_gbps = 768.0005: must be a multiple of "
                            "0.001 GB/s") != NULL, "%s", e.msg);
    cfg_free(&c);

    cr_expect_eq(tcfg_load(&c, "xbar", xbar_keys, NULL, "[xbar]\nheader_b = 0\n", &e), -1);
    cr_expect(strstr(e.msg, "t.ini:2: [xbar] header_b = 0: out of range") != NULL, "%s",
              e.msg);
    cfg_free(&c);
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
