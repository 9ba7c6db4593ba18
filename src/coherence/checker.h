/*
 * checker.h -- the coherence checker (spec cpelide.md 4.14): versions stand
 * in for data. Every store performed by a CU creates a new version of the
 * words it writes; caches, requests and memory carry the version of each
 * word they hold. The checker keeps, per word, the version a data-race-free
 * program must observe: the last one written before the current kernel
 * began. A load that returns an older version of any word it reads is a
 * stale read. Writes by others during the current kernel are races in a DRF
 * program and are not counted, so different chiplets writing different
 * words of one line raise no alarm. Granularity: 4-byte words.
 *
 * Synchronization inside a kernel (checker_sync.c; spec hmg.md 2): a load
 * by a CU that acquired at scope S must see each store that another CU made
 * before a release at scope S' that completed before that acquire, when
 * min(S, S') covers both CUs (the system, or their GPU). The check is made
 * on a word's last store: a store released to the loader that a later
 * store has overwritten is not checked.
 */
#ifndef CHIPSIM_CHECKER_H
#define CHIPSIM_CHECKER_H

#include "base/pool.h"
#include "base/pagemap.h"
#include "mem/req.h"
#include "mem/scope.h"
#include "stats/stats.h"

#define CHK_REPORTS 8

/* Per word. The kernel of the last store is not kept: versions grow with
 * time, so it is the kernel during which version `cur` was handed out (see
 * struct chk_period), which saves a third of the checker's memory.
 *
 * A line whose words all hold the same pair (a line stored whole, or never
 * written) keeps that one pair in its record; only a line whose words
 * differ keeps them in a row of words, its record then holding CHK_MIXED in
 * `cur` and the row's index in `prev`. */
struct chk_word {
    uint32_t cur;    /* version of the last store (0: never written) */
    uint32_t prev;   /* version before the first store of that store's kernel */
};

#define CHK_MIXED UINT32_MAX /* in a line record's cur: its words differ (never a version) */

/* From the kernel_begin that started it: stores of this period get versions
 * above `first`. */
struct chk_period {
    uint32_t first;  /* seq at the start */
    uint32_t kernel; /* kernel + 1 (0 before the first kernel) */
};

struct chk_report {
    addr_t addr;
    uint32_t kernel, got, want;
    uint16_t cu;
};

struct chk_annot_report {
    addr_t addr;
    uint32_t kernel, wg;
    const char *why;
    char kname[48];
};

/* One release of an agent (a work-group slot) in the current kernel: the stores before it are the
 * versions up to `seq`; it completed at checker epoch `epoch`. */
struct chk_rel {
    uint32_t seq, epoch;
    uint8_t scope;
};

struct chk_cu_sync {
    struct chk_rel *rel;        /* in order */
    size_t nrel, cap;
    uint32_t acq[SCOPE_N];      /* epoch of its last acquire at each scope (0: none) */
};

struct chk {
    bool on;
    bool annotations;      /* also check accesses against the kernels' annotations */
    unsigned line_b, words;
    uint32_t seq;          /* last version handed out */
    uint32_t kernel;       /* current kernel + 1 */
    struct chk_period *period; /* every period so far, the current one last */
    size_t nperiod, period_cap;
    bool kernel_again;     /* the current kernel number also names an earlier period
                              (or is 0, the number of words never written) */
    struct u64map kernels_seen; /* kernel numbers (+1) of every period so far */
    struct pagemap pages;  /* page -> its line records (pointer into blocks) */
    struct pool blocks;    /* the line records of one page per object */
    struct chk_word *rows; /* [nrows x words]: the words of the lines whose words differ */
    size_t nrows, rows_cap;
    uint32_t free_row;     /* a row no line holds (+1; 0: none), the next in its cur */
    bool track_lines;      /* record the lines stored in the current period */
    struct {
        addr_t *v;         /* line addresses, each once per period */
        size_t n, cap;
    } stored;
    struct {
        unsigned ncu, cus_per_gpu;  /* 0 CUs: synchronization is not checked */
        unsigned wgs;               /* agents per CU: its work-group slots (chk_agent) */
        struct chk_cu_sync *agent;  /* [ncu * wgs] */
        uint16_t *writer;           /* [version]: agent + 1 of the store that made it, 0 unknown */
        size_t nwriter;
        uint32_t epoch;             /* releases and acquires completed so far */
    } sync;
    struct chk_report rep[CHK_REPORTS];
    struct chk_annot_report arep[CHK_REPORTS];
    struct {
        uint64_t stale_reads, stale_words, checked_loads, stores, annotation_violations;
        uint64_t sync_stale_reads, releases, acquires;
    } st;
};

void chk_init(struct chk *c, bool on, unsigned line_b);
void chk_free(struct chk *c);
void chk_reg_stats(struct chk *c, struct stats *st, const char *prefix);
void chk_kernel_begin(struct chk *c, unsigned kernel);
/* A store of the bytes in mask (line-relative) of the line at line_addr:
 * stamps a new version into ver[] for the words written. */
void chk_store(struct chk *c, addr_t line_addr, const uint64_t mask[2], uint32_t *ver);
/* A load's data arrived with versions ver[] at agent (chk_agent; the CU
 * when synchronization is not checked); true (and counted) if stale. */
bool chk_load(struct chk *c, addr_t line_addr, const uint64_t mask[2], const uint32_t *ver,
              unsigned agent);
/* Synchronization inside kernels (checker_sync.c): ncu CUs, cus_per_gpu of
 * them per GPU, each running up to wgs_per_cu work-groups. A release or an
 * acquire is a work-group's: its warps meet at barriers, so a release by
 * one covers the stores the others made before the barrier it follows
 * (cumulativity), and never those of another work-group sharing the CU. */
void chk_sync_init(struct chk *c, unsigned ncu, unsigned cus_per_gpu, unsigned wgs_per_cu);
/* The agent that stores, releases, acquires and loads for work-group slot
 * wg of CU cu (a CU's slots share one agent where ncu x wgs_per_cu would
 * not fit the writer table: stricter, never laxer). */
static inline unsigned chk_agent(const struct chk *c, unsigned cu, unsigned wg)
{
    return cu * c->sync.wgs + (c->sync.wgs > 1 ? wg : 0);
}
/* chk_store, made by agent a. */
void chk_store_cu(struct chk *c, addr_t line_addr, const uint64_t mask[2], uint32_t *ver,
                  unsigned a);
/* A release or an acquire by agent a at `scope` has completed. */
void chk_release(struct chk *c, unsigned a, enum mem_scope scope);
void chk_acquire(struct chk *c, unsigned a, enum mem_scope scope);
/* Within chk_load: the words of a load by agent a that miss a store
 * released to it (bit i: word i; word i's pair at w[i x stride]); internal to
 * the checker. */
uint32_t chk_sync_stale(struct chk *c, const struct chk_word *w, unsigned stride, uint32_t wm,
                        const uint32_t *ver, unsigned a, uint32_t *want);
void chk_sync_kernel_begin(struct chk *c);
void chk_sync_free(struct chk *c);

/* For oracles. The oldest version of each word of the line (line_b / 4 of
 * them) that a load of the next kernel may return: 0 for words never written. */
void chk_line_floor(const struct chk *c, addr_t line_addr, uint32_t *want);
/* The last version handed out before the current kernel began: a version
 * above it was stored during this kernel. */
static inline uint32_t chk_kernel_first(const struct chk *c)
{
    return c->period[c->nperiod - 1].first;
}
/* The version of the last store of each word of the line (0: never written). */
void chk_line_cur(const struct chk *c, addr_t line_addr, uint32_t *cur);
/* Record, from now on, the lines stored in each period (c->stored: the
 * caller takes them and resets stored.n). */
void chk_track_lines(struct chk *c);
/* An access that breaks the kernel's annotations (checked by the CU). */
void chk_annotation(struct chk *c, const char *kname, uint32_t wg, addr_t addr, const char *why);
/* Print the first stale reads and annotation violations. */
void chk_print_reports(const struct chk *c, FILE *out);

#endif
