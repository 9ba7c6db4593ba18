/*
 * checker.c -- see checker.h.
 */
#include "checker.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_B 4096u

static const struct stat_desc chk_desc[] = {
    STAT_DESC(__typeof__(((struct chk *)0)->st), stale_reads,
              "load line requests that returned data older than a DRF program may see"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), stale_words, "4-byte words of those loads"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), checked_loads, "load line requests checked"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), stores, "store line requests versioned"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), annotation_violations,
              "accesses outside the kernel's declared structures, modes or ranges"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), sync_stale_reads,
              "of the stale reads: loads after an acquire that missed a store released to them"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), releases, "scoped releases completed"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), acquires, "scoped acquires completed"),
    {0},
};

void chk_init(struct chk *c, bool on, unsigned line_b)
{
    *c = (struct chk){.on = on, .line_b = line_b, .words = line_b / 4, .kernel_again = true};
    pagemap_init(&c->pages);
    u64map_init(&c->kernels_seen, 16);
    c->period = xgrow(NULL, sizeof *c->period, &c->period_cap, 1);
    c->period[c->nperiod++] = (struct chk_period){0, 0};
}

void chk_free(struct chk *c)
{
    if (c->blocks.nchunks)
        pool_destroy(&c->blocks);
    pagemap_free(&c->pages);
    free(c->rows);
    u64map_free(&c->kernels_seen);
    free(c->period);
    free(c->stored.v);
    chk_sync_free(c);
}

void chk_reg_stats(struct chk *c, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, chk_desc, &c->st);
}

void chk_kernel_begin(struct chk *c, unsigned kernel)
{
    c->kernel = kernel + 1;
    size_t seen = c->kernels_seen.n;
    u64map_put(&c->kernels_seen, c->kernel);
    c->kernel_again = c->kernel == 0 || c->kernels_seen.n == seen;
    c->period = xgrow(c->period, sizeof *c->period, &c->period_cap, c->nperiod + 1);
    c->period[c->nperiod++] = (struct chk_period){c->seq, c->kernel};
    chk_sync_kernel_begin(c);
}

/* Kernel (+1) of the store that handed out version v: that of the last
 * period started before it (0 for v = 0, never written). */
/* Index of the period whose stores include version v (the last i with first < v). */
static size_t period_of(const struct chk *c, uint32_t v)
{
    size_t lo = 0, hi = c->nperiod;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->period[mid].first < v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t kernel_of(const struct chk *c, uint32_t v)
{
    size_t i = period_of(c, v);
    return v && c->period[i].first < v ? c->period[i].kernel : 0;
}

/* The words of one line mostly hold versions of one period, so the period
 * last searched is kept: the versions in (lo, hi] are its own. */
struct floor_memo {
    uint32_t lo, hi, floor;
};

/* The oldest version a reader may see when v was the last version stored
 * before its kernel: any store of v's kernel. Several threads storing to one
 * word in one kernel (a benign race, or different bytes of the word) may
 * leave any of their versions in memory. */
static inline uint32_t floor_memo_of(const struct chk *c, struct floor_memo *m, uint32_t v)
{
    if (v && (v <= m->lo || v > m->hi)) {
        size_t i = period_of(c, v);
        m->lo = c->period[i].first;
        m->hi = i + 1 < c->nperiod ? c->period[i + 1].first : UINT32_MAX;
        m->floor = m->lo + 1;
    }
    return v ? m->floor : 0;
}

/* Was the last store of a word with version cur made in the current kernel? */
static inline bool stored_this_kernel(const struct chk *c, uint32_t cur)
{
    if (cur > chk_kernel_first(c))
        return true;
    return c->kernel_again && kernel_of(c, cur) == c->kernel;
}

/* A zeroed block of one page's line records. Blocks are never given back, so
 * each comes fresh from a zeroed chunk but for the pool's free-list link. */
static struct chk_word *new_block(struct chk *c)
{
    if (!c->blocks.nchunks)
        pool_init(&c->blocks, PAGE_B / c->line_b * sizeof(struct chk_word), 4096);
    struct chk_word *b = pool_get(&c->blocks);
    memset(b, 0, sizeof(struct pool_free));
    return b;
}

static inline struct chk_word *page_line(const struct chk *c, uint64_t blk, addr_t line)
{
    return (struct chk_word *)(uintptr_t)blk + (line % PAGE_B) / c->line_b;
}

/* The record of a line; NULL if never written (all versions 0). */
static const struct chk_word *find_line(const struct chk *c, addr_t line)
{
    const uint64_t *blk = pagemap_get(&c->pages, line / PAGE_B);
    return blk ? page_line(c, *blk, line) : NULL;
}

/* The record of a line, made if the line was never written. */
static struct chk_word *line_rec(struct chk *c, addr_t line)
{
    bool added;
    uint64_t *blk = pagemap_put(&c->pages, line / PAGE_B, &added);
    if (added)
        *blk = (uint64_t)(uintptr_t)new_block(c);
    return page_line(c, *blk, line);
}

static inline struct chk_word *row_of(const struct chk *c, uint32_t row)
{
    return c->rows + (size_t)row * c->words;
}

/* The words of a line from its record: word i's pair at w[i x *stride]. */
static inline const struct chk_word *line_view(const struct chk *c, const struct chk_word *rec,
                                               unsigned *stride)
{
    *stride = rec->cur == CHK_MIXED;
    return *stride ? row_of(c, rec->prev) : rec;
}

/* The line's words begin to differ: its pair goes to every word of a row. */
static struct chk_word *split(struct chk *c, struct chk_word *rec)
{
    uint32_t r;
    if (c->free_row) {
        r = c->free_row - 1;
        c->free_row = row_of(c, r)->cur;
    } else {
        c->rows = xgrow(c->rows, c->words * sizeof *c->rows, &c->rows_cap, c->nrows + 1);
        r = (uint32_t)c->nrows++;
    }
    struct chk_word *w = row_of(c, r);
    for (unsigned i = 0; i < c->words; i++)
        w[i] = *rec;
    *rec = (struct chk_word){CHK_MIXED, r};
    return w;
}

/* After a store to every word: the line's pair again if its words agree. */
static void join(struct chk *c, struct chk_word *rec, const struct chk_word *w)
{
    for (unsigned i = 1; i < c->words; i++)
        if (w[i].prev != w[0].prev)
            return;
    uint32_t r = rec->prev;
    *rec = w[0];
    row_of(c, r)->cur = c->free_row;
    c->free_row = r + 1;
}

/* Record line once per period: none of its words stored in this period yet. */
static void note_line(struct chk *c, addr_t line, const struct chk_word *rec)
{
    uint32_t first = chk_kernel_first(c);
    unsigned st;
    const struct chk_word *w = line_view(c, rec, &st);
    for (unsigned i = 0; i < c->words; i++)
        if (w[i * st].cur > first)
            return;
    c->stored.v = xgrow(c->stored.v, sizeof *c->stored.v, &c->stored.cap, c->stored.n + 1);
    c->stored.v[c->stored.n++] = line;
}

void chk_track_lines(struct chk *c) { c->track_lines = true; }

/* The words of any line, as line_view(): a line never written holds (0, 0). */
static const struct chk_word *any_line_view(const struct chk *c, addr_t line, unsigned *stride)
{
    static const struct chk_word zero = {0, 0};
    const struct chk_word *rec = find_line(c, line);
    *stride = 0;
    return rec ? line_view(c, rec, stride) : &zero;
}

void chk_line_floor(const struct chk *c, addr_t line, uint32_t *want)
{
    unsigned st;
    const struct chk_word *w = any_line_view(c, line, &st);
    struct floor_memo m = {0};
    for (unsigned i = 0; i < c->words; i++)
        want[i] = floor_memo_of(c, &m, w[i * st].cur);
}

void chk_line_cur(const struct chk *c, addr_t line, uint32_t *cur)
{
    unsigned st;
    const struct chk_word *w = any_line_view(c, line, &st);
    for (unsigned i = 0; i < c->words; i++)
        cur[i] = w[i * st].cur;
}

void chk_store(struct chk *c, addr_t line, const uint64_t mask[2], uint32_t *ver)
{
    if (!c->on)
        return;
    if (c->seq == CHK_MIXED - 1)
        BUG("checker: more than 2^32 - 2 stores; versions would wrap");
    uint32_t v = ++c->seq;
    struct chk_word *rec = line_rec(c, line);
    if (c->track_lines)
        note_line(c, line, rec);
    uint32_t wm = req_word_mask(mask), all = UINT32_MAX >> (32 - c->words);
    c->st.stores++;
    if (rec->cur != CHK_MIXED && wm == all) { /* the line stays one pair */
        if (!stored_this_kernel(c, rec->cur))
            rec->prev = rec->cur;
        rec->cur = v;
        for (unsigned i = 0; i < c->words; i++)
            ver[i] = v;
        return;
    }
    struct chk_word *w = rec->cur == CHK_MIXED ? row_of(c, rec->prev) : split(c, rec);
    for (unsigned i = 0; i < c->words; i++) {
        if (!(wm >> i & 1))
            continue;
        if (!stored_this_kernel(c, w[i].cur))
            w[i].prev = w[i].cur;
        w[i].cur = v;
        ver[i] = v;
    }
    if (wm == all)
        join(c, rec, w);
}

/* A stale read by agent a (chk_agent), reported with a's CU. */
static void report(struct chk *c, addr_t addr, uint32_t got, uint32_t want, unsigned a)
{
    unsigned cu = a / (c->sync.wgs ? c->sync.wgs : 1);
    if (c->st.stale_reads < CHK_REPORTS)
        c->rep[c->st.stale_reads] = (struct chk_report){addr, c->kernel - 1, got, want,
                                                        (uint16_t)cu};
}

bool chk_load(struct chk *c, addr_t line, const uint64_t mask[2], const uint32_t *ver,
              unsigned agent)
{
    if (!c->on)
        return false;
    c->st.checked_loads++;
    const struct chk_word *rec = find_line(c, line);
    if (!rec)
        return false;
    unsigned bad = 0, st;
    const struct chk_word *w = line_view(c, rec, &st);
    uint32_t wm = req_word_mask(mask);
    struct floor_memo m = {0};
    for (unsigned i = 0; i < c->words; i++) {
        if (!(wm >> i & 1))
            continue;
        const struct chk_word *x = &w[i * st];
        uint32_t want = floor_memo_of(c, &m, stored_this_kernel(c, x->cur) ? x->prev : x->cur);
        if (ver[i] >= want)
            continue;
        if (!bad)
            report(c, line + 4 * i, ver[i], want, agent);
        bad++;
    }
    uint32_t want = 0, sync = c->sync.ncu ? chk_sync_stale(c, w, st, wm, ver, agent, &want) : 0;
    if (!bad && sync) {
        unsigned i = (unsigned)__builtin_ctz(sync);
        report(c, line + 4 * i, ver[i], want, agent);
        bad = popcount64(sync);
    }
    c->st.sync_stale_reads += sync != 0;
    if (!bad)
        return false;
    c->st.stale_reads++;
    c->st.stale_words += bad;
    return true;
}

void chk_annotation(struct chk *c, const char *kname, uint32_t wg, addr_t addr, const char *why)
{
    uint64_t i = c->st.annotation_violations++;
    if (i >= CHK_REPORTS)
        return;
    struct chk_annot_report *r = &c->arep[i];
    *r = (struct chk_annot_report){addr, c->kernel - 1, wg, why, ""};
    snprintf(r->kname, sizeof r->kname, "%s", kname);
}

void chk_print_reports(const struct chk *c, FILE *out)
{
    uint64_t na = c->st.annotation_violations < CHK_REPORTS ? c->st.annotation_violations
                                                            : CHK_REPORTS;
    for (uint64_t i = 0; i < na; i++)
        fprintf(out, "chipsim: annotation violation: kernel %u (%s), work-group %u, address 0x%"
                PRIx64 ": %s\n", c->arep[i].kernel, c->arep[i].kname, c->arep[i].wg,
                c->arep[i].addr, c->arep[i].why);
    uint64_t n = c->st.stale_reads < CHK_REPORTS ? c->st.stale_reads : CHK_REPORTS;
    for (uint64_t i = 0; i < n; i++)
        fprintf(out,
                "chipsim: stale read: kernel %u, cu %u, address 0x%" PRIx64
                ": got version %u, a DRF program must see %u or newer\n",
                c->rep[i].kernel, c->rep[i].cu, c->rep[i].addr, c->rep[i].got, c->rep[i].want);
}
