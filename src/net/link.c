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
    {"header_b", CFG_INT, "8", 1, 4096, "header bytes per message", NULL},
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
    };
    if (!on_scale(p->bw_b_per_cycle))
        return cfg_err(e, sec, "bw_b_per_cycle",
                       "must be a multiple of 0.000001 bytes per cycle (kept exact)");
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
}

void link_free(struct link *l) { (void)l; }

const char *link_loc_name(enum net_loc loc)
{
    static const char *const names[LOC_N] = {"l1_l2", "l2_l3", "remote", "gpu_gpu"};
    BUG_ON((unsigned)loc >= LOC_N);
    return names[loc];
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

void link_reg_stats(struct link *l, struct stats *st, const char *prefix)
{
    static const char *const loc_help[LOC_N] = {
        "flits on L1-L2 links", "flits on L2-L3 links", "flits on inter-chiplet links",
        "flits on inter-GPU links"};
    stats_reg_block(st, prefix, link_stat_desc, &l->st);
    if (l->count_loc) {
        char name[32];
        snprintf(name, sizeof name, "flits_%s", link_loc_name(l->loc));
        stats_reg(st, prefix, name, &l->st.flits_loc, loc_help[l->loc]);
    }
}

/* Per request kind: does the request / the response carry data, and their
 * traffic classes. */
static const struct {
    bool req_data, resp_data;
    uint8_t req_tc, resp_tc;
} msg_tab[REQ_KIND_N] = {
    [REQ_READ] = {false, true, TC_REQ, TC_RESP},
    [REQ_WRITE] = {true, false, TC_REQ, TC_RESP},
    [REQ_ATOMIC] = {true, true, TC_REQ, TC_RESP},
    [REQ_WRITEBACK] = {true, false, TC_WB, TC_WB},
};

uint32_t link_msg_bytes(const struct link_params *p, const struct req *r, bool response)
{
    BUG_ON(r->kind >= REQ_KIND_N);
    bool data = response ? msg_tab[r->kind].resp_data : msg_tab[r->kind].req_data;
    if (!data)
        return p->header_b;
    /* A data message carries the whole line whatever bytes its mask covers
     * (spec cpelide D7: 64 B + 8 B header), write-throughs and write-backs
     * alike; a sectored cache's carries the sectors of its mask. */
    uint32_t d = r->flags & REQ_F_SECTORS ? 32 * req_sectors(r) : r->size;
    return p->header_b + d;
}

enum traffic_class link_msg_tc(const struct req *r, bool response)
{
    BUG_ON(r->kind >= REQ_KIND_N);
    return (enum traffic_class)(response ? msg_tab[r->kind].resp_tc : msg_tab[r->kind].req_tc);
}

/* (*ps + *rem/den) += q + r/den, for r < den; returns the whole picoseconds added. */
static inline uint64_t advance(ps_t *ps, uint64_t *rem, uint64_t q, uint64_t r, uint64_t den)
{
    uint64_t total = *rem + r, carry = total >= den;
    *rem = total - (carry ? den : 0);
    *ps += q + carry;
    return q + carry;
}

static void count(struct link *l, uint32_t bytes, enum traffic_class tc, uint64_t busy_add)
{
    uint32_t flits = l->flit_shift < 64 ? (bytes + l->p.flit_b - 1) >> l->flit_shift
                                        : link_flits(&l->p, bytes);
    l->st.messages++;
    l->st.bytes += bytes;
    l->st.flits[tc] += flits;
    l->st.flits_loc += flits;
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

ps_t link_reserve(struct link *l, ps_t ready, uint32_t bytes, enum traffic_class tc)
{
    BUG_ON(bytes == 0 || bytes > LINK_MSG_MAX_B || (unsigned)tc >= TC_N);
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
    count(l, bytes, tc, advance(&l->busy_ps, &l->busy_rem, q, r, l->ps_den));
    return l->free_ps + (l->free_rem != 0) + l->lat_ps;
}

/* ---- link path ---- */

static void path_response(struct sim *s, struct req *r, void *obj)
{
    struct link_path *lp = obj;
    link_send(s, lp->up, link_msg_bytes(&lp->up->p, r, true), link_msg_tc(r, true),
              req_complete_ev, r, 0);
}

static void path_arrive(struct sim *s, void *obj, uint64_t arg)
{
    struct link_path *lp = obj;
    struct req *r = (struct req *)(uintptr_t)arg;
    req_on_done(r, path_response, lp);
    mem_send(s, &lp->target, r);
}

static void path_access(struct sim *s, void *self, struct req *r)
{
    struct link_path *lp = self;
    link_send(s, lp->down, link_msg_bytes(&lp->down->p, r, false), link_msg_tc(r, false),
              path_arrive, lp, (uint64_t)(uintptr_t)r);
}

void link_path_init(struct link_path *lp, struct link *down, struct link *up,
                    struct mem_port target)
{
    BUG_ON(!down || !up || !target.access);
    *lp = (struct link_path){down, up, target};
}

struct mem_port link_path_port(struct link_path *lp)
{
    return (struct mem_port){path_access, lp};
}
