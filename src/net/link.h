/*
 * link.h -- one direction of a point-to-point connection, and a pair of them
 * used as a request path in front of a memory component.
 *
 * Modelled: serialisation at a fixed bandwidth (messages queue in FIFO order
 * behind the one on the wire), a fixed wire/router latency after it, flit
 * accounting per traffic class and per location class (the CPElide traffic
 * metric splits flits into L1-L2, L2-L3 and remote; spec cpelide.md section 9
 * and D7: 16 B flits, 8 B headers, so a control message is 1 flit and a 64 B
 * data message 5 flits).
 * Abstracted: no credits, buffers or back-pressure (a link queue is
 * unbounded), no flit-level pipelining (a message is serialised as a whole
 * and the bandwidth is exact, not rounded to whole flits or cycles), no
 * errors or retries. Bandwidth is kept as an exact rational (docs/net.md).
 */
#ifndef CHIPSIM_LINK_H
#define CHIPSIM_LINK_H

#include "config/cfg.h"
#include "mem/req.h"

struct stats;

/* Where a link sits, so reports can sum flits by location. */
enum net_loc { LOC_L1_L2, LOC_L2_L3, LOC_REMOTE, LOC_GPU_GPU, LOC_N };

/* Largest message a link accepts; bounds the exact-rate arithmetic. */
#define LINK_MSG_MAX_B (1u << 20)
/* Bandwidths are resolved to this many parts of a byte per cycle. */
#define LINK_BW_SCALE 1000000

struct link_params {
    uint32_t lat;          /* cycles of wire/router latency after serialisation */
    double bw_b_per_cycle; /* bytes per cycle of the link clock, multiple of 1e-6 */
    uint32_t flit_b;       /* flit size, bytes (D7: 16) */
    uint32_t header_b;     /* header bytes per message (D7: 8) */
};

extern const struct cfg_key link_keys[];
int link_params_from_cfg(const struct cfg_sec *sec, struct link_params *p, struct err *e);

/* Bytes per cycle of clock c that carry `gbps` GB/s (1 GB = 1e9 B), rounded
 * to the nearest 1e-6 byte (exact for GB/s with up to 3 decimals). */
double link_bw_from_gbps(double gbps, const struct clock *c);

struct link_stats {
    uint64_t messages;
    uint64_t bytes;
    uint64_t flits[TC_N];  /* registered as flits_req, flits_resp, flits_wb, flits_coh */
    uint64_t flits_loc;    /* all classes; registered as flits_<location> */
    uint64_t busy_cycles;  /* whole cycles spent serialising (rounded down) */
    uint64_t queue_ps;     /* time messages waited for the link, rounded up per message */
};

struct link {
    struct link_params p;
    const struct clock *clk;
    enum net_loc loc;
    bool count_loc;        /* register flits_<loc>; false where a hop would count twice */
    uint64_t ps_num, ps_den; /* one byte takes ps_num / ps_den picoseconds */
    ps_t lat_ps;
    ps_t free_ps;          /* the link is free at free_ps + free_rem / ps_den */
    uint64_t free_rem;
    ps_t busy_ps;          /* exact serialisation time so far, same representation */
    uint64_t busy_rem;
    ps_t busy_part;        /* busy_ps - st.busy_cycles * period: busy_cycles is kept by
                              carrying, not by dividing on every message */
    unsigned den_shift;    /* log2(ps_den) when it is a power of two, else 64 */
    unsigned flit_shift;   /* log2(flit_b) when it is a power of two, else 64 */
    struct link_stats st;
};

void link_init(struct link *l, const struct link_params *p, const struct clock *c,
               enum net_loc loc);
void link_free(struct link *l);
void link_reg_stats(struct link *l, struct stats *st, const char *prefix);
const char *link_loc_name(enum net_loc loc); /* "l1_l2", "l2_l3", "remote", "gpu_gpu" */

static inline uint32_t link_flits(const struct link_params *p, uint32_t bytes)
{
    return (uint32_t)div_ceil(bytes, p->flit_b);
}

/* Bytes on the wire for r: header only for a READ request and for the ack of a
 * WRITE/WRITEBACK; header + data otherwise (WRITEBACK data = dirty mask bytes). */
uint32_t link_msg_bytes(const struct link_params *p, const struct req *r, bool response);
/* Traffic class of r's request or response (write-back data and acks: TC_WB). */
enum traffic_class link_msg_tc(const struct req *r, bool response);

/* Occupy the link for a message ready at time `ready` (>= the caller's now);
 * counts it and returns its delivery time. No event is scheduled. */
ps_t link_reserve(struct link *l, ps_t ready, uint32_t bytes, enum traffic_class tc);

/* Send a message injected now: it departs at max(next edge of the link clock,
 * link free), and fn(s, obj, arg) runs on delivery. Returns the delivery time. */
static inline ps_t link_send(struct sim *s, struct link *l, uint32_t bytes,
                             enum traffic_class tc, ev_fn fn, void *obj, uint64_t arg)
{
    ps_t t = link_reserve(l, clock_edge(l->clk, s->now), bytes, tc);
    sim_at(s, t, fn, obj, arg);
    return t;
}

/* A request path: requests travel `down` to the target, responses come back
 * `up`. The links are the caller's (several paths may share one). */
struct link_path {
    struct link *down, *up;
    struct mem_port target;
};

void link_path_init(struct link_path *lp, struct link *down, struct link *up,
                    struct mem_port target);
/* The port requesters send to; the request completes back at the requester
 * when the response message has been delivered over `up`. */
struct mem_port link_path_port(struct link_path *lp);

#endif
