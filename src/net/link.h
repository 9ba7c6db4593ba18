/*
 * link.h -- one direction of a point-to-point connection, and a pair of them
 * used as a request path in front of a memory component.
 *
 * Modelled: serialisation at a fixed bandwidth (messages queue in FIFO order
 * behind the one on the wire), a fixed wire/router latency after it, flit
 * accounting per traffic class, per message class and per location class
 * (the CPElide traffic metric splits flits into L1-L2, L2-L3 and remote; spec
 * cpelide.md section 9 and D7: 16 B flits, 8 B headers, so a control message
 * is 1 flit and a 64 B data message 5 flits), separate header sizes for
 * requests and responses (spec dualopt.md 2.3), and optional credit-based
 * flow control: a link holds at most `buf_msgs` messages per virtual channel,
 * from the moment it accepts one until the message leaves its far end, and a
 * sender waits for a credit while it is full (docs/net.md).
 * Abstracted: no flit-level pipelining (a message is serialised as a whole
 * and the bandwidth is exact, not rounded to whole flits or cycles), credits
 * return the instant a message leaves, no errors or retries. Bandwidth is
 * kept as an exact rational (docs/net.md).
 */
#ifndef CHIPSIM_LINK_H
#define CHIPSIM_LINK_H

#include "base/pool.h"
#include "config/cfg.h"
#include "mem/req.h"

struct stats;

/* Where a link sits, so reports can sum flits by location. */
enum net_loc { LOC_L1_L2, LOC_L2_L3, LOC_REMOTE, LOC_GPU_GPU, LOC_N };

/* Link classes of the traffic totals: L1-L2 and L2-L3 links are inside a
 * chiplet, the chiplet fabric of a GPU joins chiplets, the GPU network GPUs. */
enum net_lc { LC_INTRA_CHIPLET, LC_INTER_CHIPLET, LC_INTER_GPU, LC_N };

/* Message classes (docs/net.md): a request without data (a read), a message
 * that carries data (read and atomic responses, writes, write-backs, atomic
 * requests), a coherence control message (TC_COH: invalidations), and a
 * response without data (the ack of a write or write-back). */
enum net_mc { MC_REQUEST, MC_DATA, MC_INVAL, MC_ACK, MC_N };

/* Virtual channels: requests and responses, each split into the leg before
 * the destination GPU and the leg inside it (docs/net.md, deadlock freedom). */
#define LINK_VCS 4
static inline unsigned link_vc(bool response, bool inbound)
{
    return (unsigned)response + 2u * inbound;
}

/* Largest message a link accepts; bounds the exact-rate arithmetic. */
#define LINK_MSG_MAX_B (1u << 20)
/* Bandwidths are resolved to this many parts of a byte per cycle. */
#define LINK_BW_SCALE 1000000

struct link_params {
    uint32_t lat;          /* cycles of wire/router latency after serialisation */
    double bw_b_per_cycle; /* bytes per cycle of the link clock, multiple of 1e-6 */
    uint32_t flit_b;       /* flit size, bytes (D7: 16) */
    uint32_t header_b;     /* header bytes per request message (D7: 8) */
    uint32_t resp_header_b; /* header bytes per response message; 0: header_b */
    uint32_t buf_msgs;     /* messages per virtual channel; 0: unbounded (no credits) */
};

extern const struct cfg_key link_keys[];
int link_params_from_cfg(const struct cfg_sec *sec, struct link_params *p, struct err *e);
/* The checks shared by every section with a buf_msgs key. */
int link_check_buf(const struct cfg_sec *sec, uint32_t buf_msgs, uint32_t min, struct err *e);

/* Bytes per cycle of clock c that carry `gbps` GB/s (1 GB = 1e9 B), rounded
 * to the nearest 1e-6 byte (exact for GB/s with up to 3 decimals). */
double link_bw_from_gbps(double gbps, const struct clock *c);

struct link_stats {
    uint64_t messages;
    uint64_t bytes;
    uint64_t flits[TC_N];  /* registered as flits_req, flits_resp, flits_wb, flits_coh */
    uint64_t flits_loc;    /* messages entering their network here; registered as flits_<loc> */
    uint64_t busy_cycles;  /* whole cycles spent serialising (rounded down) */
    uint64_t queue_ps;     /* time messages waited for the link, rounded up per message */
    uint64_t credit_waits; /* messages that waited for a credit (bounded links only) */
    uint64_t credit_wait_ps; /* the time they waited */
};

/* Traffic totals of one link class (registered as system.net.<class>.*):
 * messages entering a network of that class (counted once per network they
 * cross, at their first link there), by message class, and flit-hops (every
 * link crossed). */
struct link_class_stats {
    uint64_t messages, bytes, flits, flit_hops;
    uint64_t mc_messages[MC_N], mc_bytes[MC_N], mc_flits[MC_N];
};

/* A message waiting for a credit of a bounded link. */
struct link_wait {
    struct link_wait *next;
    void (*go)(struct sim *s, struct link_wait *w); /* it has its credit now */
    ps_t since;
};

struct link {
    struct link_params p;
    const struct clock *clk;
    enum net_loc loc;
    bool count_loc;        /* register flits_<loc>: messages can enter their network here */
    struct link_class_stats *cls; /* class totals (NULL: none) */
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
    uint32_t hdr[2];       /* header bytes of a request, of a response */
    /* credits (p.buf_msgs > 0): messages held per VC, and waiters per VC,
     * [0] needing one free slot, [1] needing two (entering a ring) */
    uint32_t used[LINK_VCS];
    struct link_wait *wq[LINK_VCS][2], *wq_tail[LINK_VCS][2];
    uint64_t nwait;
    struct link_stats st;
};

void link_init(struct link *l, const struct link_params *p, const struct clock *c,
               enum net_loc loc);
void link_free(struct link *l);
void link_reg_stats(struct link *l, struct stats *st, const char *prefix);
const char *link_loc_name(enum net_loc loc); /* "l1_l2", "l2_l3", "remote", "gpu_gpu" */
const char *link_lc_name(enum net_lc lc);    /* "intra_chiplet", ... */
const char *link_mc_name(enum net_mc mc);    /* "request", "data", "inval", "ack" */
/* Register a class total as <prefix>.{messages,bytes,flits,flit_hops} and
 * <prefix>.<message class>.{messages,bytes,flits}. */
void link_reg_class_stats(struct link_class_stats *c, struct stats *st, const char *prefix);

static inline uint32_t link_flits(const struct link_params *p, uint32_t bytes)
{
    return (uint32_t)div_ceil(bytes, p->flit_b);
}

/* What a message of r's request or response is: its data bytes, traffic
 * class and message class (one table lookup). */
struct link_msg {
    uint32_t payload;
    uint8_t tc, mc;
};
struct link_msg link_msg_of(const struct req *r, bool response);
static inline uint32_t link_msg_wire(const struct link *l, struct link_msg m, bool response)
{
    return l->hdr[response] + m.payload;
}

/* Data bytes a message of r carries (0: header only): none for a READ request
 * and for the ack of a WRITE/WRITEBACK; the data otherwise (WRITEBACK data =
 * the whole line, or the sectors of a sectored cache). */
uint32_t link_msg_payload(const struct req *r, bool response);
/* Bytes on the wire for r: the request or response header + the payload. */
uint32_t link_msg_bytes(const struct link_params *p, const struct req *r, bool response);
/* Traffic class of r's request or response (write-back data and acks: TC_WB). */
enum traffic_class link_msg_tc(const struct req *r, bool response);
/* Message class of r's request or response. */
enum net_mc link_msg_mc(const struct req *r, bool response);

/* Count a message as link_reserve() does, without occupying the link
 * (functional mode, engine/sim.h). */
void link_tally(struct link *l, uint32_t bytes, enum traffic_class tc, enum net_mc mc,
                bool first);

/* Occupy the link for a message ready at time `ready` (>= the caller's now);
 * counts it (and, if `first`, as a message entering its network here) and
 * returns its delivery time. No event is scheduled. Credits are separate. */
ps_t link_reserve(struct link *l, ps_t ready, uint32_t bytes, enum traffic_class tc,
                  enum net_mc mc, bool first);

/* Send a message injected now: it departs at max(next edge of the link clock,
 * link free), and fn(s, obj, arg) runs on delivery. Returns the delivery time.
 * Takes no credit. */
static inline ps_t link_send(struct sim *s, struct link *l, uint32_t bytes,
                             enum traffic_class tc, enum net_mc mc, ev_fn fn, void *obj,
                             uint64_t arg)
{
    ps_t t = link_reserve(l, clock_edge(l->clk, s->now), bytes, tc, mc, true);
    sim_at(s, t, fn, obj, arg);
    return t;
}

/* ---- credits ----
 * A bounded link (p.buf_msgs > 0) holds at most buf_msgs messages per VC.
 * link_acquire() takes a slot for a message of VC vc that needs `need` free
 * slots (2 for a message entering a ring: bubble flow control; else 1) and
 * returns true; or, when the link is full or earlier waiters of the VC come
 * first, queues w and returns false: w->go() then runs at the moment a
 * slot is taken for it (in the call of link_release that freed it). Waiters
 * needing one slot go before those needing two. link_release() frees the
 * slot of a message that left the link's far end. Unbounded links always
 * accept and ignore releases. */
bool link_acquire_slow(struct sim *s, struct link *l, struct link_wait *w, unsigned vc,
                       unsigned need);
void link_release_slow(struct sim *s, struct link *l, unsigned vc);
static inline bool link_bounded(const struct link *l) { return l->p.buf_msgs != 0; }
static inline bool link_acquire(struct sim *s, struct link *l, struct link_wait *w, unsigned vc,
                                unsigned need)
{
    return !link_bounded(l) || link_acquire_slow(s, l, w, vc, need);
}
static inline void link_release(struct sim *s, struct link *l, unsigned vc)
{
    if (link_bounded(l))
        link_release_slow(s, l, vc);
}
/* Occupancy and waiters, one line per VC in use ("vc req.out 3/4 held, 2 waiting"). */
void link_dump(const struct link *l, const char *name, FILE *out);

/* A request path: requests travel `down` to the target, responses come back
 * `up`. The links are the caller's (several paths may share one). With
 * bounded links each message holds its link's credit until delivered. */
struct link_path {
    struct link *down, *up;
    struct mem_port target;
    struct pool waits;     /* records of messages waiting for a credit */
    bool bounded;
};

void link_path_init(struct link_path *lp, struct link *down, struct link *up,
                    struct mem_port target);
void link_path_free(struct link_path *lp);
/* The port requesters send to; the request completes back at the requester
 * when the response message has been delivered over `up`. */
struct mem_port link_path_port(struct link_path *lp);

#endif
