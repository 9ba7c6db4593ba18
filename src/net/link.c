/*
 * link.c -- a link is a FIFO pipe of fixed bandwidth followed by a fixed
 * latency; a link path is two of them in front of a memory port.
 *
 * The bandwidth is held as an exact rational (picoseconds per byte), and the
 * time the link becomes free keeps its fractional picoseconds, so a long
 * stream of messages moves exactly bw bytes per cycle however the message
 * sizes divide it. Only the delivery time of each message is rounded up to a
 * whole picosecond. Messages injected by a component depart on an edge of the
 * link clock; queued messages follow each other without gaps (the wire
 * streams), which is what keeps the long-run bandwidth exact.
 * Write-back acks are counted as TC_WB, not TC_RESP, so that TC_WB is all the
 * traffic write-backs cause (flushes are a CPElide metric).
 *
 * Credits are counts per virtual channel with FIFO wait lists of intrusive
 * records (the caller's), so a bounded link allocates nothing either; an
 * unbounded link (buf_msgs = 0) never looks at them.
 */
#include "link.h"

#include <math.h>
#include <stdio.h>

#include "stats/stats.h"

const struct cfg_key link_keys[] = {
    {"lat", CFG_INT, "1", 0, 1e6, "wire/router latency after serialisation, cycles", NULL},
    {"bw_b_per_cycle", CFG_FLOAT, "64", 1e-6, 1e6,
     "bandwidth per direction, bytes per cycle of the link clock (multiple of 1e-6)", NULL},
    /* spec cpelide D7 */
    {"flit_b", CFG_INT, "16", 1, 4096, "flit size in bytes", NULL},
    {"header_b", CFG_INT, "8", 1, 4096, "header bytes per request message", NULL},
    {"resp_header_b", CFG_INT, "0", 0, 4096,
     "header bytes per response message (0: the same as header_b)", NULL},
    {"buf_msgs", CFG_INT, "0", 0, 1e6,
     "messages the link holds per virtual channel before its sender waits for a credit "
     "(0: unbounded)", NULL},
    CFG_END,
};

/* Whether x is a whole number of 1/LINK_BW_SCALE units (a parsed decimal
 * such as 426.24 is a few ulps off, hence the tolerance). */
static bool on_scale(double x)
{
    double u = x * LINK_BW_SCALE;
    return fabs(u - nearbyint(u)) <= 1e-3;
}

int link_params_from_cfg(const struct cfg_sec *sec, struct link_params *p, struct err *e)
{
    *p = (struct link_params){
        .lat = (uint32_t)cfg_uint(sec, "lat"),
        .bw_b_per_cycle = cfg_float(sec, "bw_b_per_cycle"),
        .flit_b = (uint32_t)cfg_uint(sec, "flit_b"),
        .header_b = (uint32_t)cfg_uint(sec, "header_b"),
        .resp_header_b = (uint32_t)cfg_uint(sec, "resp_header_b"),
        .buf_msgs = (uint32_t)cfg_uint(sec, "buf_msgs"),
    };
    if (!on_scale(p->bw_b_per_cycle))
        return cfg_err(e, sec, "bw_b_per_cycle",
                       "must be a multiple of 0.000001 bytes per cycle (kept exact)");
    return 0;
}

int link_check_buf(const struct cfg_sec *sec, uint32_t buf_msgs, uint32_t min, struct err *e)
{
    if (buf_msgs && buf_msgs < min)
        return cfg_err(e, sec, "buf_msgs",
                       "must be 0 (unbounded) or at least %u (a ring needs a free slot "
                       "besides the one a message entering it takes)", min);
    return 0;
}

double link_bw_from_gbps(double gbps, const struct clock *c)
{
    /* GB/s = bytes per ns, so bytes per cycle = gbps * period_ps / 1000. */
    return nearbyint(gbps * (double)c->period * (LINK_BW_SCALE / 1000)) / LINK_BW_SCALE;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ps per byte = period / bw = period * SCALE / (bw * SCALE), reduced. */
static void set_rate(struct link *l)
{
    double den_d = nearbyint(l->p.bw_b_per_cycle * LINK_BW_SCALE);
    if (!(den_d >= 1 && den_d <= 1e15))
        BUG("link bandwidth %g bytes/cycle out of range", l->p.bw_b_per_cycle);
    uint64_t den = (uint64_t)den_d;
    uint64_t num = l->clk->period * LINK_BW_SCALE;
    uint64_t g = gcd_u64(num, den);
    l->ps_num = num / g;
    l->ps_den = den / g;
    uint64_t worst;
    if (__builtin_mul_overflow(l->ps_num, (uint64_t)LINK_MSG_MAX_B, &worst) ||
        worst > UINT64_MAX - l->ps_den)
        BUG("link rate %llu/%llu ps per byte overflows", (unsigned long long)l->ps_num,
            (unsigned long long)l->ps_den);
}

void link_init(struct link *l, const struct link_params *p, const struct clock *c,
               enum net_loc loc)
{
    BUG_ON(p->flit_b == 0 || (unsigned)loc >= LOC_N || c->period == 0);
    *l = (struct link){.p = *p, .clk = c, .loc = loc, .count_loc = true};
    l->lat_ps = clock_cycles(c, p->lat);
    set_rate(l);
    l->den_shift = is_pow2(l->ps_den) ? ilog2(l->ps_den) : 64;
    l->flit_shift = is_pow2(p->flit_b) ? ilog2(p->flit_b) : 64;
    l->hdr[0] = p->header_b;
    l->hdr[1] = p->resp_header_b ? p->resp_header_b : p->header_b;
}

void link_free(struct link *l) { (void)l; }

const char *link_loc_name(enum net_loc loc)
{
    static const char *const names[LOC_N] = {"l1_l2", "l2_l3", "remote", "gpu_gpu"};
    BUG_ON((unsigned)loc >= LOC_N);
    return names[loc];
}

const char *link_lc_name(enum net_lc lc)
{
    static const char *const names[LC_N] = {"intra_chiplet", "inter_chiplet", "inter_gpu"};
    BUG_ON((unsigned)lc >= LC_N);
    return names[lc];
}

const char *link_mc_name(enum net_mc mc)
{
    static const char *const names[MC_N] = {"request", "data", "inval", "ack"};
    BUG_ON((unsigned)mc >= MC_N);
    return names[mc];
}

static const struct stat_desc link_stat_desc[] = {
    STAT_DESC(struct link_stats, messages, "messages sent"),
    STAT_DESC(struct link_stats, bytes, "bytes sent, headers included"),
    {"flits_req", offsetof(struct link_stats, flits[TC_REQ]), "flits of requests"},
    {"flits_resp", offsetof(struct link_stats, flits[TC_RESP]), "flits of responses"},
    {"flits_wb", offsetof(struct link_stats, flits[TC_WB]), "flits of write-backs and their acks"},
    {"flits_coh", offsetof(struct link_stats, flits[TC_COH]), "flits of coherence messages"},
    STAT_DESC(struct link_stats, busy_cycles, "cycles spent serialising messages"),
    STAT_DESC(struct link_stats, queue_ps, "picoseconds messages waited for the link"),
    {0},
};

static const struct stat_desc credit_stat_desc[] = {
    STAT_DESC(struct link_stats, credit_waits, "messages that waited for a credit of the link"),
    STAT_DESC(struct link_stats, credit_wait_ps, "picoseconds messages waited for a credit"),
    {0},
};

void link_reg_stats(struct link *l, struct stats *st, const char *prefix)
{
    static const char *const loc_help[LOC_N] = {
        "flits on L1-L2 links", "flits on L2-L3 links", "flits on inter-chiplet links",
        "flits on inter-GPU links"};
    stats_reg_block(st, prefix, link_stat_desc, &l->st);
    if (link_bounded(l))
        stats_reg_block(st, prefix, credit_stat_desc, &l->st);
    if (l->count_loc) {
        char name[32];
        snprintf(name, sizeof name, "flits_%s", link_loc_name(l->loc));
        stats_reg(st, prefix, name, &l->st.flits_loc, loc_help[l->loc]);
    }
}

void link_reg_class_stats(struct link_class_stats *c, struct stats *st, const char *prefix)
{
    static const struct stat_desc desc[] = {
        STAT_DESC(struct link_class_stats, messages,
                  "messages entering a network of this class (once per network crossed)"),
        STAT_DESC(struct link_class_stats, bytes, "their bytes, headers included"),
        STAT_DESC(struct link_class_stats, flits, "their flits"),
        STAT_DESC(struct link_class_stats, flit_hops, "flits times links crossed"),
        {0},
    };
    stats_reg_block(st, prefix, desc, c);
    for (unsigned m = 0; m < MC_N; m++) {
        char pre[160];
        snprintf(pre, sizeof pre, "%s.%s", prefix, link_mc_name((enum net_mc)m));
        stats_reg(st, pre, "messages", &c->mc_messages[m], "messages of this message class");
        stats_reg(st, pre, "bytes", &c->mc_bytes[m], "their bytes, headers included");
        stats_reg(st, pre, "flits", &c->mc_flits[m], "their flits");
    }
}

/* Per request kind and direction (request, response): does the message
 * carry data, its traffic class and its message class. */
static const struct {
    bool data;
    uint8_t tc, mc;
} msg_tab[REQ_KIND_N][2] = {
    [REQ_READ] = {{false, TC_REQ, MC_REQUEST}, {true, TC_RESP, MC_DATA}},
    [REQ_WRITE] = {{true, TC_REQ, MC_DATA}, {false, TC_RESP, MC_ACK}},
    [REQ_ATOMIC] = {{true, TC_REQ, MC_DATA}, {true, TC_RESP, MC_DATA}},
    [REQ_WRITEBACK] = {{true, TC_WB, MC_DATA}, {false, TC_WB, MC_ACK}},
};

struct link_msg link_msg_of(const struct req *r, bool response)
{
    BUG_ON(r->kind >= REQ_KIND_N);
    struct link_msg m = {0, msg_tab[r->kind][response].tc, msg_tab[r->kind][response].mc};
    /* A data message carries the whole line whatever bytes its mask covers
     * (spec cpelide D7: 64 B + 8 B header), write-throughs and write-backs
     * alike; a sectored cache's carries the sectors of its mask. */
    if (msg_tab[r->kind][response].data)
        m.payload = r->flags & REQ_F_SECTORS ? 32 * req_sectors(r) : r->size;
    return m;
}

uint32_t link_msg_payload(const struct req *r, bool response)
{
    return link_msg_of(r, response).payload;
}

uint32_t link_msg_bytes(const struct link_params *p, const struct req *r, bool response)
{
    uint32_t h = response && p->resp_header_b ? p->resp_header_b : p->header_b;
    return h + link_msg_of(r, response).payload;
}

enum traffic_class link_msg_tc(const struct req *r, bool response)
{
    BUG_ON(r->kind >= REQ_KIND_N);
    return (enum traffic_class)msg_tab[r->kind][response].tc;
}

enum net_mc link_msg_mc(const struct req *r, bool response)
{
    BUG_ON(r->kind >= REQ_KIND_N);
    return (enum net_mc)msg_tab[r->kind][response].mc;
}

/* (*ps + *rem/den) += q + r/den, for r < den; returns the whole picoseconds added. */
static inline uint64_t advance(ps_t *ps, uint64_t *rem, uint64_t q, uint64_t r, uint64_t den)
{
    uint64_t total = *rem + r, carry = total >= den;
    *rem = total - (carry ? den : 0);
    *ps += q + carry;
    return q + carry;
}

static inline void count_class(struct link_class_stats *c, uint32_t bytes, uint32_t flits,
                               enum net_mc mc, bool first)
{
    c->flit_hops += flits;
    if (!first)
        return;
    c->messages++;
    c->bytes += bytes;
    c->flits += flits;
    c->mc_messages[mc]++;
    c->mc_bytes[mc] += bytes;
    c->mc_flits[mc] += flits;
}

static void count(struct link *l, uint32_t bytes, enum traffic_class tc, enum net_mc mc,
                  bool first, uint64_t busy_add)
{
    uint32_t flits = l->flit_shift < 64 ? (bytes + l->p.flit_b - 1) >> l->flit_shift
                                        : link_flits(&l->p, bytes);
    l->st.messages++;
    l->st.bytes += bytes;
    l->st.flits[tc] += flits;
    if (first)
        l->st.flits_loc += flits;
    if (l->cls)
        count_class(l->cls, bytes, flits, mc, first);
    /* busy_cycles = busy_ps / period, carried forward (a message rarely
     * spans more than a few cycles, so subtracting beats dividing) */
    ps_t period = l->clk->period;
    l->busy_part += busy_add;
    if (l->busy_part >= 4 * period) {
        l->st.busy_cycles += l->busy_part / period;
        l->busy_part %= period;
    }
    while (l->busy_part >= period) {
        l->st.busy_cycles++;
        l->busy_part -= period;
    }
}

void link_tally(struct link *l, uint32_t bytes, enum traffic_class tc, enum net_mc mc,
                bool first)
{
    count(l, bytes, tc, mc, first, 0);
}

ps_t link_reserve(struct link *l, ps_t ready, uint32_t bytes, enum traffic_class tc,
                  enum net_mc mc, bool first)
{
    BUG_ON(bytes == 0 || bytes > LINK_MSG_MAX_B || (unsigned)tc >= TC_N ||
           (unsigned)mc >= MC_N);
    if (ready > l->free_ps || (ready == l->free_ps && !l->free_rem)) {
        l->free_ps = ready;
        l->free_rem = 0;
    } else {
        l->st.queue_ps += l->free_ps - ready + (l->free_rem != 0);
    }
    uint64_t occ = (uint64_t)bytes * l->ps_num, q, r;
    if (l->den_shift < 64) {
        q = occ >> l->den_shift;
        r = occ & (l->ps_den - 1);
    } else {
        q = occ / l->ps_den;
        r = occ % l->ps_den;
    }
    advance(&l->free_ps, &l->free_rem, q, r, l->ps_den);
    count(l, bytes, tc, mc, first, advance(&l->busy_ps, &l->busy_rem, q, r, l->ps_den));
    return l->free_ps + (l->free_rem != 0) + l->lat_ps;
}

/* ---- credits ---- */

static bool fits(const struct link *l, unsigned vc, unsigned need)
{
    return l->used[vc] + need <= l->p.buf_msgs;
}

bool link_acquire_slow(struct sim *s, struct link *l, struct link_wait *w, unsigned vc,
                       unsigned need)
{
    SIM_ASSERT(s, "link", vc < LINK_VCS && (need == 1 || need == 2) &&
                              need <= l->p.buf_msgs);
    unsigned k = need - 1;
    /* FIFO per VC and need; one-slot waiters (messages already on a ring)
     * go before two-slot ones */
    bool ahead = l->wq[vc][k] || (k == 1 && l->wq[vc][0]);
    if (!ahead && fits(l, vc, need)) {
        l->used[vc]++;
        return true;
    }
    w->next = NULL;
    w->since = s->now;
    if (l->wq[vc][k])
        l->wq_tail[vc][k]->next = w;
    else
        l->wq[vc][k] = w;
    l->wq_tail[vc][k] = w;
    l->nwait++;
    l->st.credit_waits++;
    return false;
}

/* The first waiter of VC vc that fits now, popped, or NULL. */
static struct link_wait *pop_fitting(struct link *l, unsigned vc)
{
    for (unsigned k = 0; k < 2; k++) {
        struct link_wait *w = l->wq[vc][k];
        if (!w)
            continue;
        if (!fits(l, vc, k + 1))
            return NULL; /* the head of this class comes first */
        l->wq[vc][k] = w->next;
        l->nwait--;
        return w;
    }
    return NULL;
}

void link_release_slow(struct sim *s, struct link *l, unsigned vc)
{
    SIM_ASSERT(s, "link", vc < LINK_VCS && l->used[vc] > 0);
    l->used[vc]--;
    /* go() may release other links, and through them this one again; each
     * pass re-reads the state */
    struct link_wait *w;
    while ((w = pop_fitting(l, vc))) {
        l->used[vc]++;
        l->st.credit_wait_ps += s->now - w->since;
        w->go(s, w);
    }
}

void link_dump(const struct link *l, const char *name, FILE *out)
{
    static const char *const vcs[LINK_VCS] = {"req.out", "resp.out", "req.in", "resp.in"};
    for (unsigned vc = 0; vc < LINK_VCS; vc++) {
        unsigned waiting = 0;
        ps_t oldest = 0;
        for (unsigned k = 0; k < 2; k++)
            for (const struct link_wait *w = l->wq[vc][k]; w; w = w->next) {
                if (!waiting++ || w->since < oldest)
                    oldest = w->since;
            }
        if (!l->used[vc] && !waiting)
            continue;
        fprintf(out, "    %s: vc %s %u/%u held, %u waiting", name, vcs[vc], l->used[vc],
                l->p.buf_msgs, waiting);
        if (waiting)
            fprintf(out, " (oldest since t=%llu ps)", (unsigned long long)oldest);
        fputc('\n', out);
    }
}

/* ---- link path ---- */

/* A message of a bounded path waiting for its link's credit. */
struct path_wait {
    struct link_wait w; /* first */
    struct link_path *lp;
    struct req *r;
    bool up;
};

static void path_response(struct sim *s, struct req *r, void *obj);

/* Arrival at the target: over a bounded `down` the target takes the
 * request, which frees its slot. */
static void path_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct link_path *lp = obj;
    struct req *r = (struct req *)(uintptr_t)arg;
    link_release(s, lp->down, link_vc(false, false));
    req_on_done(r, path_response, lp);
    mem_send(s, &lp->target, r);
}

/* Delivery of a response over a bounded `up`: the requester takes it. */
static void path_done(struct sim *s, void *obj, uint64_t arg)
{
    struct link_path *lp = obj;
    link_release_slow(s, lp->up, link_vc(true, false));
    req_complete(s, (struct req *)(uintptr_t)arg);
}

static inline void path_down(struct sim *s, struct link_path *lp, struct req *r)
{
    struct link_msg m = link_msg_of(r, false);
    link_send(s, lp->down, link_msg_wire(lp->down, m, false), (enum traffic_class)m.tc,
              (enum net_mc)m.mc, path_arrive, lp, (uint64_t)(uintptr_t)r);
}

static inline void path_up(struct sim *s, struct link_path *lp, struct req *r)
{
    struct link_msg m = link_msg_of(r, true);
    bool b = link_bounded(lp->up);
    link_send(s, lp->up, link_msg_wire(lp->up, m, true), (enum traffic_class)m.tc,
              (enum net_mc)m.mc, b ? path_done : req_complete_ev, b ? (void *)lp : (void *)r,
              (uint64_t)(uintptr_t)r);
}

static void path_wait_go(struct sim *s, struct link_wait *w)
{
    struct path_wait *pw = (struct path_wait *)w;
    struct link_path *lp = pw->lp;
    struct req *r = pw->r;
    bool up = pw->up;
    pool_put(&lp->waits, pw);
    if (up)
        path_up(s, lp, r);
    else
        path_down(s, lp, r);
}

/* A bounded path: send r over one of its links once it has a credit. */
static void path_offer(struct sim *s, struct link_path *lp, struct req *r, bool up)
{
    struct link *l = up ? lp->up : lp->down;
    struct path_wait *pw = pool_get(&lp->waits);
    *pw = (struct path_wait){.w.go = path_wait_go, .lp = lp, .r = r, .up = up};
    if (link_acquire(s, l, &pw->w, link_vc(up, false), 1))
        path_wait_go(s, &pw->w);
}

static void path_response(struct sim *s, struct req *r, void *obj)
{
    struct link_path *lp = obj;
    if (__builtin_expect(lp->bounded, 0))
        path_offer(s, lp, r, true);
    else
        path_up(s, lp, r);
}

/* Functional mode (engine/sim.h): the messages are counted, and take no
 * time and no credit. */
static void path_tally(struct link *l, const struct req *r, bool response)
{
    struct link_msg m = link_msg_of(r, response);
    link_tally(l, link_msg_wire(l, m, response), (enum traffic_class)m.tc, (enum net_mc)m.mc,
               true);
}

static void path_func_response(struct sim *s, struct req *r, void *obj)
{
    path_tally(((struct link_path *)obj)->up, r, true);
    req_complete(s, r);
}

static void path_access(struct sim *s, void *self, struct req *r)
{
    struct link_path *lp = self;
    if (s->functional) {
        path_tally(lp->down, r, false);
        req_on_done(r, path_func_response, lp);
        mem_send(s, &lp->target, r);
        return;
    }
    if (__builtin_expect(lp->bounded, 0))
        path_offer(s, lp, r, false);
    else
        path_down(s, lp, r);
}

void link_path_init(struct link_path *lp, struct link *down, struct link *up,
                    struct mem_port target)
{
    BUG_ON(!down || !up || !target.access);
    *lp = (struct link_path){.down = down, .up = up, .target = target};
    lp->bounded = link_bounded(down) || link_bounded(up);
    if (lp->bounded)
        pool_init(&lp->waits, sizeof(struct path_wait), 16);
}

void link_path_free(struct link_path *lp)
{
    if (lp->bounded)
        pool_destroy(&lp->waits);
}

struct mem_port link_path_port(struct link_path *lp)
{
    return (struct mem_port){path_access, lp};
}
