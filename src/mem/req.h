/*
 * req.h -- a memory request, and the port through which one component hands
 * requests to the next. Requests come from the simulation's pool (sim.h), so
 * creating one on the hot path allocates nothing.
 *
 * Ownership: the component whose access() received a request owns it until
 * it calls req_complete(); that happens at the simulated time the response
 * is ready, and hands the request back along its return stack. A cache that
 * misses creates its own child request for the level below, and completes
 * the parent when the child returns. Components that only carry a request
 * (links, crossbars) push a return entry on the way down (req_on_done) so
 * they see the response on the way back, without allocating anything.
 */
#ifndef CHIPSIM_REQ_H
#define CHIPSIM_REQ_H

#include "engine/sim.h"
#include "mem/scope.h"

enum req_kind {
    REQ_READ,
    REQ_WRITE,
    REQ_ATOMIC,     /* read-modify-write performed at the level that owns the line */
    REQ_WRITEBACK,  /* dirty data leaving a cache (eviction or flush) */
    REQ_KIND_N
};

/* Request flags, set by the requester or by a coherence scheme on the way. */
enum req_flag {
    REQ_F_NOALLOC = 1, /* a cache that misses does not allocate the line for this request */
    REQ_F_WT = 2,      /* a write is written through at every cache it passes */
    REQ_F_REMOTE = 4,  /* the request came from another chiplet */
    REQ_F_SECTORS = 8, /* a sectored cache's fill: asks for (and its response carries) only
                          the 32 B sectors of its mask */
    REQ_F_LOCAL = 16,  /* per-thread local memory: the cache applies its local write policy */
};

/* Word versions carried with data, for the coherence checker: one per
 * 4-byte word of the line the request touches (line-relative index). */
#define REQ_WORDS 32

/* Traffic classes for flit accounting. */
enum traffic_class { TC_REQ, TC_RESP, TC_WB, TC_COH, TC_N };

struct req;
typedef void (*req_done_fn)(struct sim *s, struct req *r, void *obj);

#define REQ_RET_MAX 4
struct req_ret {
    req_done_fn fn;
    void *obj;
};

/* Laid out for the host's caches: everything a component looks at in the
 * first 64 bytes, the return stack in the next 64, the checker's versions
 * last (pool objects are 64-byte aligned, see req_pool_init()). */
struct req {
    addr_t addr;          /* byte address of the first byte accessed */
    uint16_t size;        /* bytes (within one line) */
    uint16_t site;        /* the static site of the access that caused it (kernel_op.site;
                             0: none); child requests of a cache carry their first target's */
    uint8_t kind;         /* enum req_kind */
    uint8_t flags;
    uint16_t src;         /* requesting unit (e.g. global CU id) */
    uint16_t home;        /* home node, when the requester knows it */
    uint16_t hops;
    uint8_t nret;
    uint8_t scope;        /* enum mem_scope (loads, stores, atomics; SCOPE_CTA when weak) */
    uint8_t sem;          /* enum mem_sem: SEM_WEAK for plain accesses */
    uint64_t mask[2];     /* bytes of the line touched (WRITE/WRITEBACK), bit i = byte i */
    ps_t issued;          /* when the requester issued it */
    uint64_t tag;         /* the creator's cookie */
    struct req *next;     /* intrusive link for MSHR target lists and queues */
    struct req_ret ret[REQ_RET_MAX]; /* return stack, top = ret[nret-1] */
    uint32_t ver[REQ_WORDS]; /* per-word data versions (coherence checker), see above */
};
_Static_assert(offsetof(struct req, ret) == 64 && sizeof(struct req) % 64 == 0,
               "struct req: header in one host cache line, return stack in the next");

void req_pool_init(struct sim *s, size_t initial);

static inline struct req *req_alloc(struct sim *s)
{
    struct req *r = pool_get(&s->req_pool);
    *r = (struct req){0};
    r->issued = s->now;
    return r;
}

static inline void req_free(struct sim *s, struct req *r) { pool_put(&s->req_pool, r); }

/* Push a return entry: fn(s, r, obj) runs when the request completes below. */
static inline void req_on_done(struct req *r, req_done_fn fn, void *obj)
{
    if (__builtin_expect(r->nret == REQ_RET_MAX, 0))
        BUG("request return stack overflow");
    r->ret[r->nret++] = (struct req_ret){fn, obj};
}

/* Pop the top return entry and call it. */
static inline void req_complete(struct sim *s, struct req *r)
{
    if (__builtin_expect(r->nret == 0, 0))
        BUG("request completed with an empty return stack");
    struct req_ret rr = r->ret[--r->nret];
    rr.fn(s, r, rr.obj);
}

/* Event adapter: req_complete() the request passed as obj, at the event's time. */
void req_complete_ev(struct sim *s, void *req, uint64_t unused);

/* Anything that accepts requests: a cache, a link, a DRAM channel. */
struct mem_port {
    void (*access)(struct sim *s, void *self, struct req *r);
    void *self;
};

static inline void mem_send(struct sim *s, const struct mem_port *p, struct req *r)
{
    p->access(s, p->self, r);
}

/* Bits [lo, hi) of a 64-bit word, for 0 <= lo <= hi <= 64. */
static inline uint64_t req_bit_range(unsigned lo, unsigned hi)
{
    if (lo >= hi)
        return 0;
    uint64_t ones = hi - lo == 64 ? ~0ull : (1ull << (hi - lo)) - 1;
    return ones << lo;
}

/* Mask of bytes [off, off+len) within a line of up to 128 bytes. */
static inline void req_mask_range(uint64_t mask[2], unsigned off, unsigned len)
{
    unsigned end = off + len > 128 ? 128 : off + len;
    mask[0] = req_bit_range(off < 64 ? off : 64, end < 64 ? end : 64);
    mask[1] = req_bit_range(off > 64 ? off - 64 : 0, end > 64 ? end - 64 : 0);
}
static inline unsigned req_mask_bytes(const uint64_t mask[2])
{
    return popcount64(mask[0]) + popcount64(mask[1]);
}
/* Bit w set for each 4-byte word w with a byte in mask m (lines of up to 32
 * words): gather one bit per nibble. */
static inline uint32_t req_word_mask(const uint64_t m[2])
{
    uint32_t out = 0;
    for (unsigned h = 0; h < 2; h++) {
        uint64_t x = m[h] | m[h] >> 1;
        x = (x | x >> 2) & 0x1111111111111111ull;
        x = (x | x >> 3) & 0x0303030303030303ull;
        x = (x | x >> 6) & 0x000f000f000f000full;
        x = (x | x >> 12) & 0x000000ff000000ffull;
        x = (x | x >> 24) & 0xffffull;
        out |= (uint32_t)x << (16 * h);
    }
    return out;
}
/* Each 32 B sector of m with any byte set, made whole. */
static inline void req_sector_mask(uint64_t out[2], const uint64_t m[2])
{
    for (unsigned w = 0; w < 2; w++) {
        uint64_t x = 0;
        for (unsigned k = 0; k < 2; k++)
            if ((m[w] >> (32 * k)) & 0xffffffffull)
                x |= 0xffffffffull << (32 * k);
        out[w] = x;
    }
}
/* The sectors of which every byte is set in m. */
static inline void req_full_sectors(uint64_t out[2], const uint64_t m[2])
{
    for (unsigned w = 0; w < 2; w++) {
        uint64_t x = 0;
        for (unsigned k = 0; k < 2; k++)
            if (((m[w] >> (32 * k)) & 0xffffffffull) == 0xffffffffull)
                x |= 0xffffffffull << (32 * k);
        out[w] = x;
    }
}
/* 32-byte sectors with at least one byte in the mask (NVIDIA's unit of cache
 * and DRAM accounting); a request without a mask (size_b bytes from its
 * address) counts ceil(size_b / 32). */
static inline unsigned req_sectors(const struct req *r)
{
    if (!(r->mask[0] | r->mask[1]))
        return (r->size + 31) / 32;
    unsigned n = 0;
    for (unsigned w = 0; w < 2; w++)
        n += !!(r->mask[w] & 0xffffffffull) + !!(r->mask[w] >> 32);
    return n;
}

#endif
