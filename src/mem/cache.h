/*
 * cache.h -- the one set-associative cache of chipsim. Every level (L1D per
 * CU, L1I, L2 per chiplet, L3/LLC slices) is an instance with its own
 * parameters; coherence schemes hook in through per-line state/home fields
 * and the direct line operations below.
 *
 * Modelled: line-interleaved banks with a number of request ports per cycle,
 * tag lookup at acceptance, MSHRs with bounded merging and a FIFO of requests
 * waiting for one, per-byte valid and dirty masks (partial "written" lines as
 * in gem5 VIPER's W state), write-back or write-through, three write-allocate
 * policies, LRU/FIFO/random replacement, dirty write-backs on eviction, and
 * whole-cache flush/invalidate walks at a fixed number of sets per cycle per
 * bank with a bounded number of write-backs in flight (spec cpelide.md D9).
 * Per-request flags (req.h): REQ_F_NOALLOC makes a miss bypass the array
 * (reads are relayed without allocating, writes and atomics are forwarded),
 * REQ_F_WT writes a store through even in a write-back cache; coherence
 * schemes set them per request (e.g. for lines homed on another chiplet).
 * The requests a cache sends below for a request (its fetch, its forward)
 * carry that request's scope and strength; flags are decided anew.
 * Abstracted (docs/cache.md): no data values (masks and per-word versions
 * stand in for them), walks do not take request ports, forwarded writes are
 * not limited by MSHRs, latencies are fixed per outcome (hit, miss, fill).
 */
#ifndef CHIPSIM_CACHE_H
#define CHIPSIM_CACHE_H

#include "base/u64map.h"
#include "config/cfg.h"
#include "mem/req.h"

struct stats;

enum cache_repl { CACHE_LRU, CACHE_FIFO, CACHE_RANDOM };
enum cache_write_policy { CACHE_WRITE_BACK, CACHE_WRITE_THROUGH };
enum cache_write_alloc { CACHE_WA_FETCH, CACHE_WA_VALIDATE, CACHE_WA_NONE };

struct cache_params {
    uint64_t size_b;          /* capacity in bytes (key size_kib) */
    uint32_t line_b;          /* 64 or 128 */
    bool sectored;            /* 32 B sectors: misses fetch only the missing sectors */
    bool alloc_on_miss;       /* a miss reserves its line (evicting the victim) when it is
                                 sent, not when the fill returns */
    bool ipoly;               /* banks and sets in a bank chosen by IPOLY hashing, where
                                 their number is 16, 32 or 64 (else linear) */
    uint32_t ways;
    uint32_t banks;           /* line-interleaved: bank = (addr / line_b) % banks */
    uint32_t ports;           /* requests accepted per bank per cycle */
    uint32_t data_banks;      /* 0, or data-array banks per bank, interleaved by 32 B
                                 sectors, each moving one sector per cycle (NVIDIA L1: 4;
                                 an L2 slice's 32 B data port: 1) */
    uint32_t mshrs;           /* per cache, for requests from this chiplet */
    uint32_t mshrs_remote;    /* more, only for requests from other chiplets (0 = one pool) */
    uint32_t mshr_targets;    /* requests per MSHR, the allocating one included */
    uint32_t hit_lat;         /* acceptance -> response on a hit */
    uint32_t miss_lat;        /* acceptance -> request sent to the level below */
    uint32_t resp_lat;        /* fill (or ack of a forwarded request) -> response */
    enum cache_repl repl;
    enum cache_write_policy write_policy;
    enum cache_write_alloc write_alloc;
    uint8_t local_write_policy; /* REQ_F_LOCAL requests: 0 = write_policy, else 1 + the enum */
    uint8_t local_write_alloc;  /* 0 = write_alloc, else 1 + the enum */
    uint32_t walk_sets_per_cycle; /* flush/invalidate walk rate, per bank */
    uint32_t wb_inflight;     /* outstanding flush write-backs per bank */
    uint64_t seed;            /* of the random replacement stream */
    bool versions;            /* keep per-word data versions (coherence checker); not a key */
};

extern const struct cfg_key cache_keys[];

/* Read the keys of a resolved section and check the geometry. */
int cache_params_from_cfg(const struct cfg_sec *sec, struct cache_params *p, struct err *e);

struct cache_stats {
    uint64_t accesses;
    uint64_t data_bank_stalls; /* cycles requests waited for a data bank (conflicts) */
    uint64_t sectors;         /* 32 B sectors the accesses touch */
    uint64_t reads, read_hits, read_misses;
    uint64_t writes, write_hits, write_misses;
    uint64_t atomics;
    uint64_t mshr_merges, mshr_stalls;
    uint64_t evictions, writebacks;
    uint64_t flushes, flush_writebacks;
    uint64_t invalidates, lines_invalidated;
};

/* Where a request's data lives, seen from a cache (an L2: its chiplet). */
enum cache_data_class {
    CACHE_DATA_LOCAL,          /* homed at this chiplet */
    CACHE_DATA_REMOTE_CHIPLET, /* homed on another chiplet of the same GPU */
    CACHE_DATA_REMOTE_GPU,     /* homed on another GPU */
    CACHE_DATA_N
};

/* Spec ladm.md 8: an L2's requests by who asks and where the data's home
 * is (with cache_split_by_home). A GPU home relaying another chiplet's
 * request for data homed elsewhere (HMG's routes) is REMOTE_REMOTE. */
enum cache_traffic {
    CACHE_LOCAL_LOCAL,   /* from this chiplet's CUs, homed here */
    CACHE_LOCAL_REMOTE,  /* from this chiplet's CUs, homed elsewhere */
    CACHE_REMOTE_LOCAL,  /* from another chiplet (REQ_F_REMOTE), homed here */
    CACHE_REMOTE_REMOTE, /* from another chiplet, homed elsewhere */
    CACHE_TRAFFIC_N
};

/* A line's byte mask as two words (the second 0 for 64-byte lines). */
struct cache_mask {
    uint64_t w[2];
};

/* A slot of the table of lines with requests in the waiting FIFO. */
#define CACHE_WAIT_DIRECT 4096
struct cache_wait_slot {
    uint64_t li;  /* line index */
    uint64_t n;   /* its requests waiting; 0 = slot free */
};

/* What the MSHR lookup reads, kept apart from the rest of an MSHR so that
 * walking a hash chain touches a small array. */
struct cache_mshr_key {
    uint64_t li;             /* line index of a busy MSHR */
    uint32_t hnext;          /* next busy MSHR in the same hash bucket, + 1 (0 = none) */
};

/* One host cache line: an MSHR's rarely used versions are kept apart
 * (struct cache.mshr_ver). */
struct cache_mshr {
    addr_t line;             /* line address */
    struct req *head, *tail; /* targets, in arrival order */
    uint32_t ntargets;
    uint16_t home;           /* of the first target (installs the line): saves a miss on it */
    bool busy;
    bool noalloc;            /* allocated by a REQ_F_NOALLOC read: fill bypasses the array */
    bool stale;              /* invalidated while in flight: serve the targets, keep no copy */
    uint64_t wmask[2];       /* bytes its store and atomic targets write: a later access to
                                them waits behind them here, even one that would hit */
    uint32_t saved_words;    /* words of the line evicted dirty while its fill was in flight;
                                their versions (newer than what the fill brings) are in
                                mshr_ver */
};
_Static_assert(sizeof(struct cache_mshr) == 64, "struct cache_mshr: one host cache line");


struct cache_bank {
    ps_t port_t;        /* the cycle whose ports are being handed out */
    uint32_t port_used;
    uint32_t walk_set;  /* flush/invalidate walk position */
    uint32_t walk_way;
    uint32_t wb_out;    /* flush write-backs in flight */
    ps_t last_step;
    bool walking, paused;
};

enum cache_op { CACHE_OP_NONE, CACHE_OP_FLUSH, CACHE_OP_INVALIDATE };

typedef void (*cache_done_fn)(struct sim *s, void *obj);

/* Treat the fields as private; use the functions below. */
/* A FIFO of requests waiting for an MSHR, with the count of each line's
 * requests in it: a direct-mapped table by line index (neighbouring lines in
 * neighbouring slots, so a stream of waiting lines reads memory in order),
 * allocated on the first wait, and a hash map for lines whose slot is taken.
 * A line may be counted in both. */
struct cache_waitq {
    struct req *head, *tail;
    uint32_t n;
    struct cache_wait_slot *direct;
    struct u64map over;
};

struct cache {
    char *name;
    struct sim *s;
    struct cache_params p;
    const struct clock *clk;
    struct mem_port lower;
    uint32_t sets, sets_per_bank;
    unsigned line_shift, bank_shift;
    unsigned set_bits;         /* log2(sets_per_bank) */
    bool ipoly_banks, ipoly_sets; /* index = ipoly: banks / sets in a bank hashed */
    uint64_t full[2];          /* valid mask of a whole line */

    unsigned char *recs;       /* line records (struct cache_line, cache_array.h), sets x ways,
                                  set-major, 1 << rec_shift bytes apart */
    unsigned rec_shift;        /* 5 for 64-byte lines, 6 for 128-byte lines */
    unsigned mask_words;       /* words of each byte mask in a record: line_b / 64 */
    uint32_t *wver;            /* per-word data versions, words per line, of the lines whose
                                  words' versions differ (cache_line.ver_mixed), or NULL */
    uint32_t words;            /* words (4 B) per line */
    uint32_t all_words;        /* word mask of a whole line */
    /* Per set, so that a lookup reads one short row instead of every tag:
     * a byte fingerprint of each way's tag (fp_row bytes per set, a multiple
     * of 16); and bitmaps of the valid ways and of the ways with dirty bytes
     * (bits_row words each, valid first, per set), so that victims, walks
     * and evictions of clean lines need not read the line records. */
    uint8_t *fp;
    uint64_t *waybits;
    uint32_t fp_row, bits_row;
    unsigned index_bits;       /* log2(sets): the tag proper is li >> index_bits */
    unsigned way_shift;        /* log2(ways) when ways is a power of two, else 0 */
    /* LRU: last touch; FIFO: install order. Only the order of the stamps of
     * one set matters, so each set counts its own (set_tick), in 16 bits,
     * and renumbers its stamps when its count would wrap
     * (cache_array_restamp()): a set's stamps fill one host cache line. */
    uint16_t *stamp;
    uint16_t *set_tick;
    struct rng rng;

    struct cache_bank *bank;
    ps_t *dbank_free;          /* per bank x data bank: the first cycle its port is free */
    struct cache_mshr *mshr;   /* 64-byte aligned */
    uint32_t *mshr_ver;        /* per MSHR, words_per_line saved versions (with wver) */
    struct cache_mshr_key *mshr_key; /* per MSHR, for the hash chains */
    /* Free MSHR indices, a stack per pool: [0] 0 .. mshrs - 1 for requests
     * from this chiplet, [1] mshrs .. mshrs + mshrs_remote - 1 for requests
     * from other chiplets (REQ_F_REMOTE, when mshrs_remote > 0). */
    uint32_t *mshr_free[2];
    uint32_t nfree[2];
    uint32_t *mshr_bucket;     /* hash of busy MSHRs by line: first index + 1 (0 = empty) */
    uint32_t mshr_bucket_mask;
    uint32_t mshr_writing;     /* busy MSHRs with store or atomic targets (wmask not empty) */
    /* Requests waiting for an MSHR, one FIFO per pool, so that requests from
     * other chiplets never wait behind local misses (which may themselves
     * wait for other chiplets). */
    struct cache_waitq wq[2];
    uint32_t nfwd, nwb;        /* forwarded requests / eviction write-backs in flight */

    enum cache_op op;          /* whole-cache operation in progress */
    bool clean_only;
    bool foreign_only;         /* an invalidate of the lines homed elsewhere only */
    uint32_t banks_walking;
    cache_done_fn op_fn;
    void *op_obj;

    struct cache_stats st;
    /* Optional: reads and writes, and their hits, by where their data's home
     * is (data_class[r->home], enum cache_data_class); NULL: not split. */
    const uint8_t *data_class;
    uint16_t data_class_n;
    uint64_t by_class[CACHE_DATA_N][2]; /* [class][0: accesses, 1: hits] */
    /* With the split: reads, writes and atomics by enum cache_traffic
     * [0: accesses, 1: hits], and the requests sent below for data homed
     * elsewhere (the misses and write-throughs that leave for its home). */
    uint64_t by_traffic[CACHE_TRAFFIC_N][2];
    uint64_t sent_remote;
};

/* Invalid params are a programming error here (BUG); user input is checked by
 * cache_params_from_cfg(). The cache sends misses, forwards and write-backs
 * to `lower`, which must req_complete() every one of them (writes and
 * write-backs are acked too). Registers a watchdog probe named `name`; the
 * struct must not move after init, and is freed only after the last sim_run(). */
void cache_init(struct cache *c, struct sim *s, const char *name, const struct clock *clk,
                const struct cache_params *p, struct mem_port lower);
void cache_free(struct cache *c);
void cache_reg_stats(struct cache *c, struct stats *st, const char *prefix);
/* Count accesses and hits by the class of their home: cls[h] for home h < n
 * (the table must outlive the cache). Registers the counters
 * <prefix>.{local,remote_chiplet,remote_gpu}_{accesses,hits}, the traffic
 * classes <prefix>.{local_local,local_remote,remote_local,remote_remote}_
 * {accesses,hits} and <prefix>.sent_remote at cache_reg_stats(). */
void cache_split_by_home(struct cache *c, const uint8_t *cls, unsigned n);

/* The request side. A request must lie within one line. */
void cache_access(struct sim *s, void *self, struct req *r);
struct mem_port cache_port(struct cache *c);

/* Whole-cache operations (kernel-boundary coherence). One at a time per
 * cache: chain them through fn. fn(s, obj) runs once the walk is over and,
 * for a flush, the last write-back has been acknowledged.
 * Flush: every dirty line is written back (its dirty bytes) and stays valid
 * and clean. Invalidate: clean_only = false drops every line, dirty data
 * included (flush first if it matters); clean_only = true drops lines without
 * dirty bytes and keeps only the dirty bytes of the others valid (VIPER:
 * V -> I, M -> W, W stays). Requests in flight are not waited for. */
void cache_flush(struct sim *s, struct cache *c, cache_done_fn fn, void *obj);
void cache_invalidate(struct sim *s, struct cache *c, bool clean_only, cache_done_fn fn,
                      void *obj);
/* The clean_only invalidate of the lines whose home is another chiplet
 * (cache_split_by_home's classes; none without them): software coherence's
 * bulk invalidation. Lines homed here stay. */
void cache_invalidate_foreign(struct sim *s, struct cache *c, cache_done_fn fn, void *obj);
/* The same at once, with no walk (a flash clear; the caller charges its
 * time). A walk under way goes on as it was. */
void cache_flash_invalidate_foreign(struct cache *c);

/* Direct line API for coherence schemes. A line handle is an index >= 0,
 * valid until the line is replaced or dropped. */
static inline addr_t cache_line_addr(const struct cache *c, addr_t addr)
{
    return addr & ~(addr_t)(c->p.line_b - 1);
}
int64_t cache_find(const struct cache *c, addr_t addr); /* -1 if absent */
bool cache_drop(struct cache *c, addr_t addr);          /* false if absent; dirty data is lost */
/* A coherence invalidation of one line: its clean copy is dropped (dirty
 * bytes stay, only they valid), and a fill in flight for it, which may carry
 * data older than the write that caused the invalidation, serves its
 * requests but leaves no clean copy behind. Returns true if a copy was dropped. */
bool cache_inval_line(struct cache *c, addr_t addr);

/* Install the line holding addr whole and clean, with data versions ver
 * (words_per_line of them; NULL: 0), as a copy engine writing memory
 * through would leave it: a victim is evicted as for a miss (written back if
 * dirty). False, and nothing done, if the line is present or has a miss in
 * flight. */
bool cache_install_clean(struct sim *s, struct cache *c, addr_t addr, uint16_t home,
                         const uint32_t *ver);
addr_t cache_line_tag_addr(const struct cache *c, int64_t l);
uint8_t cache_line_state(const struct cache *c, int64_t l);
void cache_line_set_state(struct cache *c, int64_t l, uint8_t state);
uint16_t cache_line_home(const struct cache *c, int64_t l);
void cache_line_set_home(struct cache *c, int64_t l, uint16_t home);
/* Per-word data versions of line l (only with params.versions). Most lines
 * carry one version in every word (a store writes whole lines with one
 * version; a new line starts at 0): the line's record holds it, and its row
 * of wver is neither read nor written (nor, while no line of a page of it
 * mixes versions, given memory by the host). The version of word w: */
uint32_t cache_line_version(const struct cache *c, int64_t l, unsigned w);
/* The versions of the words in word mask wm of line l, into dst. */
void cache_line_get_versions(const struct cache *c, int64_t l, uint32_t *dst, uint32_t wm);
/* Set the versions of the words in word mask wm of line l from src. */
void cache_line_set_versions(struct cache *c, int64_t l, const uint32_t *src, uint32_t wm);
/* The valid and the dirty bytes of line l. */
struct cache_mask cache_line_valid(const struct cache *c, int64_t l);
struct cache_mask cache_line_dirty(const struct cache *c, int64_t l);
/* Dirty bytes must be valid: the cache ORs dirty into valid. */
void cache_line_set_masks(struct cache *c, int64_t l, const uint64_t valid[2],
                          const uint64_t dirty[2]);

#endif
