/*
 * cache.c -- the set-associative cache (see cache.h for the model and
 * docs/cache.md for every key, stat and approximation).
 *
 * A request is accepted at its bank on the first cycle edge with a free port
 * (computed in closed form, so port queues need no storage), looked up at that
 * time, and then handled by one action chosen from a transition table indexed
 * by (kind, write policy, hit). Misses hold an MSHR whose single child READ
 * fetches the whole line; everything that arrives for a line with a fill in
 * flight (other than a plain hit) joins that MSHR and is replayed, in arrival
 * order, when the fill is installed, so per-line order is kept without any
 * special cases. Requests that find no MSHR (or no room on one) wait in a
 * FIFO that is replayed whenever an MSHR frees. A sectored cache's child
 * READ asks only for the sectors missing (docs/cache.md 2.2).
 * Keys and statistics are in cache_cfg.c, the flush and invalidate walks in
 * cache_walk.c, the tag array and its helpers in cache_array.h.
 */
#include "cache.h"
#include "cache_array.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* ---- requests -------------------------------------------------------------- */

/* The bytes of its line that r touches. A mask given by the sender is
 * line-relative and must lie inside [addr, addr + size). */
static void req_need(struct sim *s, const struct cache *c, const struct req *r, uint64_t m[2])
{
    unsigned off = (unsigned)(r->addr & (c->p.line_b - 1));
    SIM_ASSERT(s, c->name, r->kind < REQ_KIND_N);
    SIM_ASSERT(s, c->name, off + r->size <= c->p.line_b);
    uint64_t span[2];
    req_mask_range(span, off, r->size);
    if (!mask_any(r->mask)) {
        SIM_ASSERT(s, c->name, r->size > 0);
        mask_copy(m, span);
        return;
    }
    SIM_ASSERT(s, c->name, !r->size || mask_covers(span, r->mask));
    SIM_ASSERT(s, c->name, mask_covers(c->full, r->mask));
    mask_copy(m, r->mask);
}

/* ---- direct line API --------------------------------------------------------- */

int64_t cache_find(const struct cache *c, addr_t addr) { return lookup(c, line_index(c, addr)); }

bool cache_drop(struct cache *c, addr_t addr)
{
    int64_t l = cache_find(c, addr);
    if (l < 0)
        return false;
    drop_line(c, l);
    return true;
}

addr_t cache_line_tag_addr(const struct cache *c, int64_t l)
{
    return cache_rec(c, l)->tag << c->line_shift;
}

uint8_t cache_line_state(const struct cache *c, int64_t l) { return cache_rec(c, l)->state; }

void cache_line_set_state(struct cache *c, int64_t l, uint8_t state)
{
    cache_rec(c, l)->state = state;
}

uint16_t cache_line_home(const struct cache *c, int64_t l) { return cache_rec(c, l)->home; }

void cache_line_set_home(struct cache *c, int64_t l, uint16_t home)
{
    cache_rec(c, l)->home = home;
}

struct cache_mask cache_line_valid(const struct cache *c, int64_t l)
{
    struct cache_mask m;
    rec_mask(c, cache_rec(c, l), REC_VALID, m.w);
    return m;
}

struct cache_mask cache_line_dirty(const struct cache *c, int64_t l)
{
    struct cache_mask m;
    rec_mask(c, cache_rec(c, l), REC_DIRTY, m.w);
    return m;
}

void cache_line_set_masks(struct cache *c, int64_t l, const uint64_t valid[2],
                          const uint64_t dirty[2])
{
    struct cache_line *ln = cache_rec(c, l);
    rec_put(c, ln, REC_VALID, valid);
    rec_or(c, ln, REC_VALID, dirty);
    rec_put(c, ln, REC_DIRTY, dirty);
    sync_dirty(c, l);
}

/* ---- traffic to the level below ------------------------------------------- */

static void send_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct cache *c = obj;
    struct req *ch = (struct req *)(uintptr_t)arg;
    ch->issued = s->now;
    if (c->data_class && ch->kind != REQ_WRITEBACK && ch->home < c->data_class_n &&
        c->data_class[ch->home] != CACHE_DATA_LOCAL)
        c->sent_remote++;
    mem_send(s, &c->lower, ch);
}

/* Sends always go through an event, so a level below that answers at once
 * never re-enters the cache in the middle of an update. */
void cache_send_at(struct sim *s, struct cache *c, struct req *ch, ps_t t)
{
    if (s->functional) { /* every caller has finished its update before it sends */
        send_ev(s, c, (uint64_t)(uintptr_t)ch);
        return;
    }
    sim_at(s, t, send_ev, c, (uint64_t)(uintptr_t)ch);
}

static void respond(struct sim *s, struct req *r, ps_t t)
{
    if (s->functional) {
        req_complete(s, r);
        return;
    }
    sim_at(s, t, req_complete_ev, r, 0);
    sim_progress(s);
}

struct req *cache_wb_child(struct sim *s, const struct cache *c, int64_t l)
{
    struct req *ch = req_alloc(s);
    ch->addr = cache_line_tag_addr(c, l);
    ch->size = c->p.line_b;
    ch->kind = REQ_WRITEBACK;
    ch->flags = c->p.sectored ? REQ_F_SECTORS : 0;
    const struct cache_line *ln = cache_rec(c, l);
    ch->home = ln->home;
    if (c->wver)
        get_line_versions(c, l, ch->ver, c->all_words);
    rec_mask(c, ln, REC_DIRTY, ch->mask);
    return ch;
}

static void evict_wb_done(struct sim *s, struct req *ch, void *obj)
{
    struct cache *c = obj;
    req_free(s, ch);
    c->nwb--;
    sim_progress(s);
}

static int64_t mshr_find(const struct cache *c, uint64_t li);

/* The versions MSHR m saved for its fill (with wver). */
static inline uint32_t *mshr_versions(const struct cache *c, int64_t m)
{
    return c->mshr_ver + (size_t)m * c->words;
}

/* A dirty line evicted while its own fill is in flight (a write-validated
 * line fetching its other bytes): the fill was read below before this
 * write-back arrives there, so it would bring old data for the dirty words;
 * the MSHR keeps their versions and the fill takes them. */
static void save_for_fill(struct cache *c, int64_t l)
{
    int64_t m = mshr_find(c, cache_rec(c, l)->tag);
    if (m < 0 || !c->wver)
        return;
    struct cache_mshr *x = &c->mshr[m];
    uint32_t wm = rec_words(c, cache_rec(c, l), REC_DIRTY);
    get_line_versions(c, l, mshr_versions(c, m), wm);
    x->saved_words |= wm;
}

static void evict(struct sim *s, struct cache *c, size_t set, uint32_t way)
{
    int64_t l = (int64_t)(set * c->p.ways + way);
    c->st.evictions++;
    if (way_dirty(c, set, way)) {
        save_for_fill(c, l);
        struct req *ch = cache_wb_child(s, c, l);
        req_on_done(ch, evict_wb_done, c);
        c->st.writebacks++;
        c->nwb++;
        cache_send_at(s, c, ch, s->now);
    }
    drop_line(c, l);
}

/* A line with a fill in flight may have to stay:
 * - a dirty one (a write-validated line fetching its other bytes): its fill
 *   merges under the dirty bytes, and if it were written back now the fill,
 *   already read below, would bring back old data;
 * - with allocation on miss, every one (it is reserved);
 * - in a sectored cache, every one: it fetches sectors that requests which
 *   already hold the others wait for, and evicting it would send them after
 *   what it held again (GPGPU-Sim does not evict a line with a sector
 *   reserved either).
 * The least recently used unpinned way, or -1 if every way is pinned. */
static int64_t unpinned_victim(const struct cache *c, size_t set, uint32_t way)
{
    size_t base = set * c->p.ways;
    bool any = c->p.alloc_on_miss || c->p.sectored;
    if (!way_valid(c, set, way) || !(any || way_dirty(c, set, way)) ||
        mshr_find(c, cache_rec(c, (int64_t)(base + way))->tag) < 0)
        return way;
    int64_t best = -1;
    for (uint32_t w = 0; w < c->p.ways; w++) {
        bool pinned = (any || way_dirty(c, set, w)) &&
                      mshr_find(c, cache_rec(c, (int64_t)(base + w))->tag) >= 0;
        if (!pinned && (best < 0 || c->stamp[base + w] < c->stamp[base + best]))
            best = w;
    }
    return best;
}

/* Install line li (absent) with nothing valid yet and every version 0,
 * evicting a victim. If every way is pinned: the policy's choice when force
 * is set, else nothing (-1). */
static int64_t alloc_line(struct sim *s, struct cache *c, uint64_t li, uint16_t home,
                          bool force)
{
    size_t set = set_of(c, li);
    uint32_t pick = victim_way(c, set);
    int64_t unpinned = unpinned_victim(c, set, pick);
    if (unpinned < 0 && !force)
        return -1;
    uint32_t way = unpinned < 0 ? pick : (uint32_t)unpinned;
    int64_t l = (int64_t)(set * c->p.ways + way);
    if (way_valid(c, set, way))
        evict(s, c, set, way);
    struct cache_line *ln = cache_rec(c, l);
    *ln = (struct cache_line){.tag = li, .home = home};
    rec_clear(c, ln, REC_VALID);
    rec_clear(c, ln, REC_DIRTY);
    c->fp[set * c->fp_row + way] = fingerprint(c, li);
    way_bit(c, set, way, false, true);
    c->stamp[l] = next_stamp(c, set);
    return l;
}

static void fwd_done(struct sim *s, struct req *ch, void *obj)
{
    struct cache *c = obj;
    struct req *parent = (struct req *)(uintptr_t)ch->tag;
    if (c->wver)
        copy_all_versions(c, parent->ver, ch->ver);
    if (c->wver && parent->kind == REQ_READ) {
        /* a read relayed past a line holding some dirty bytes (write-validate)
         * returns those bytes from here, newer than what the level below has */
        int64_t l = lookup(c, line_index(c, parent->addr));
        if (l >= 0)
            get_line_versions(c, l, parent->ver, rec_words(c, cache_rec(c, l), REC_DIRTY));
    }
    req_free(s, ch);
    c->nfwd--;
    respond(s, parent, s->now + clock_cycles(c->clk, c->p.resp_lat));
}

/* Pass r on to the level below; r completes when the copy is acknowledged. */
static void forward(struct sim *s, struct cache *c, struct req *r)
{
    struct req *ch = req_alloc(s);
    ch->addr = r->addr;
    ch->size = r->size;
    ch->site = r->site;
    ch->kind = r->kind;
    ch->flags = 0; /* flags are this cache's decisions; the next level decides anew */
    ch->src = r->src;
    ch->home = r->home;
    ch->scope = r->scope;
    ch->sem = r->sem;
    mask_copy(ch->mask, r->mask);
    if (c->wver)
        copy_all_versions(c, ch->ver, r->ver);
    ch->tag = (uint64_t)(uintptr_t)r;
    req_on_done(ch, fwd_done, c);
    c->nfwd++;
    cache_send_at(s, c, ch, s->now + clock_cycles(c->clk, c->p.miss_lat));
}

/* ---- MSHRs and the waiting FIFO ------------------------------------------- */

static inline uint32_t mshr_hash(const struct cache *c, uint64_t li)
{
    return (uint32_t)hash64(li) & c->mshr_bucket_mask;
}

static int64_t mshr_find(const struct cache *c, uint64_t li)
{
    for (uint32_t i = c->mshr_bucket[mshr_hash(c, li)]; i; i = c->mshr_key[i - 1].hnext)
        if (c->mshr_key[i - 1].li == li)
            return i - 1;
    return -1;
}

static void mshr_unhash(struct cache *c, uint32_t m)
{
    uint32_t *p = &c->mshr_bucket[mshr_hash(c, c->mshr_key[m].li)];
    while (*p != m + 1)
        p = &c->mshr_key[*p - 1].hnext;
    *p = c->mshr_key[m].hnext;
}

/* r (needing bytes need) becomes the last target of MSHR m; a store or an
 * atomic records the bytes it writes. */
static void target_append(struct cache *c, struct cache_mshr *m, struct req *r,
                          const uint64_t need[2])
{
    if (r->kind != REQ_READ) {
        c->mshr_writing += !mask_any(m->wmask);
        mask_or(m->wmask, need);
    }
    r->next = NULL;
    if (m->tail)
        m->tail->next = r;
    else
        m->head = r;
    m->tail = r;
    m->ntargets++;
}

static bool mshr_join(struct cache *c, int64_t m, struct req *r, const uint64_t need[2])
{
    if (c->mshr[m].ntargets >= c->p.mshr_targets)
        return false;
    target_append(c, &c->mshr[m], r, need);
    c->st.mshr_merges++;
    return true;
}

static void fill_done(struct sim *s, struct req *ch, void *obj);

/* The pool (and waiting FIFO) of r: 1 for a request from another chiplet
 * when the cache keeps MSHRs for them, else 0. */
static inline unsigned pool_of(const struct cache *c, const struct req *r)
{
    return c->p.mshrs_remote && (r->flags & REQ_F_REMOTE);
}

/* A sectored cache fetches the sectors of need that line l (or -1) does not
 * hold whole: a sector partly written here (write-validate) is read and
 * merged under its dirty bytes. */
static void fetch_sectors(const struct cache *c, int64_t l, const uint64_t need[2],
                          uint64_t out[2])
{
    req_sector_mask(out, need);
    if (l < 0)
        return;
    uint64_t have[2], valid[2];
    rec_mask(c, cache_rec(c, l), REC_VALID, valid);
    req_full_sectors(have, valid);
    out[0] &= ~have[0];
    out[1] &= ~have[1];
}

static bool mshr_alloc(struct sim *s, struct cache *c, uint64_t li, struct req *r,
                       int64_t l, const uint64_t need[2])
{
    unsigned k = pool_of(c, r);
    if (!c->nfree[k])
        return false;
    uint32_t m = c->mshr_free[k][--c->nfree[k]];
    struct cache_mshr *x = &c->mshr[m];
    uint32_t *bucket = &c->mshr_bucket[mshr_hash(c, li)];
    c->mshr_key[m] = (struct cache_mshr_key){li, *bucket};
    *x = (struct cache_mshr){.line = li << c->line_shift, .busy = true, .home = r->home,
                             .noalloc = r->kind == REQ_READ && (r->flags & REQ_F_NOALLOC)};
    *bucket = m + 1;
    target_append(c, x, r, need);
    struct req *ch = req_alloc(s);
    ch->addr = x->line;
    ch->size = c->p.line_b;
    ch->kind = REQ_READ;
    ch->flags = 0; /* flags are this cache's decisions; the next level decides anew */
    if (c->p.sectored) {
        fetch_sectors(c, l, need, ch->mask);
        ch->flags = REQ_F_SECTORS;
    }
    ch->src = r->src;
    ch->home = r->home;
    ch->site = r->site;
    ch->scope = r->scope; /* the first target's: later ones merge into this fetch */
    ch->sem = r->sem;
    ch->tag = m;
    req_on_done(ch, fill_done, c);
    cache_send_at(s, c, ch, s->now + clock_cycles(c->clk, c->p.miss_lat));
    return true;
}

/* One more (delta = 1) or one fewer (-1) request of r's line in q. */
static void wait_count(struct cache *c, struct cache_waitq *q, const struct req *r, int delta)
{
    uint64_t li = line_index(c, r->addr);
    if (!q->direct)
        q->direct = xcalloc(CACHE_WAIT_DIRECT, sizeof *q->direct);
    struct cache_wait_slot *d = &q->direct[li & (CACHE_WAIT_DIRECT - 1)];
    if (delta > 0 && (!d->n || d->li == li)) {
        d->li = li;
        d->n++;
    } else if (delta > 0) {
        ++*u64map_put(&q->over, li);
    } else if (d->n && d->li == li) {
        d->n--;
    } else {
        uint64_t *n = u64map_get(&q->over, li);
        SIM_ASSERT(c->s, c->name, n && *n);
        if (!--*n)
            u64map_del_at(&q->over, n);
    }
}

static void wait_push(struct cache *c, struct req *r)
{
    struct cache_waitq *q = &c->wq[pool_of(c, r)];
    wait_count(c, q, r, 1);
    r->next = NULL;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    q->n++;
    c->st.mshr_stalls++;
}

/* Put the list starting at r (requests of one pool) back in front of its
 * FIFO, order kept. */
static void wait_push_front(struct cache *c, struct req *r, bool count)
{
    struct cache_waitq *q = &c->wq[pool_of(c, r)];
    struct req *last = r;
    uint32_t n = 1;
    wait_count(c, q, r, 1);
    for (; last->next; last = last->next) {
        n++;
        wait_count(c, q, last->next, 1);
    }
    last->next = q->head;
    q->head = r;
    if (!q->tail)
        q->tail = last;
    q->n += n;
    if (count)
        c->st.mshr_stalls += n;
}

/* Only asked while q holds something (so the table exists). */
static bool waiting_for_line(const struct cache_waitq *q, uint64_t li)
{
    const struct cache_wait_slot *d = &q->direct[li & (CACHE_WAIT_DIRECT - 1)];
    if (d->n && d->li == li)
        return true;
    return q->over.n && u64map_get(&q->over, li);
}

/* ---- request handling ------------------------------------------------------ */

/* NEW: just accepted; RETRY: from the waiting FIFO; FILL: a target of an MSHR
 * whose line was just installed (answers after resp_lat, not hit_lat). */
enum mode { M_NEW, M_RETRY, M_FILL };

enum act {
    A_HIT,       /* answer from the line (writes update it) */
    A_FETCH,     /* MSHR + child READ of the whole line */
    A_WMISS,     /* write miss: see wmiss_tab */
    A_ALLOC,     /* allocate now with only the written bytes valid (and dirty) */
    A_FWD,       /* forward below, no allocation */
    A_UPD_FWD,   /* write-through hit: update valid bytes, forward */
    A_ALLOC_FWD, /* write-through validate: allocate the written bytes clean, forward */
    A_DROP_FWD,  /* write-through atomic: drop the line, perform below */
};

/* [kind][write_policy][hit] */
static const uint8_t act_tab[REQ_KIND_N][2][2] = {
    [REQ_READ] = {{A_FETCH, A_HIT}, {A_FETCH, A_HIT}},
    [REQ_WRITE] = {{A_WMISS, A_HIT}, {A_WMISS, A_UPD_FWD}},
    [REQ_ATOMIC] = {{A_FETCH, A_HIT}, {A_DROP_FWD, A_DROP_FWD}},
    [REQ_WRITEBACK] = {{A_ALLOC, A_HIT}, {A_FWD, A_UPD_FWD}},
};

/* [write_policy][write_alloc] */
static const uint8_t wmiss_tab[2][3] = {
    [CACHE_WRITE_BACK] = {A_FETCH, A_ALLOC, A_FWD},
    [CACHE_WRITE_THROUGH] = {A_FETCH, A_ALLOC_FWD, A_FWD},
};

/* A hit for reads and atomics needs the bytes valid; writes only the line. */
static const bool needs_data[REQ_KIND_N] = {[REQ_READ] = true, [REQ_ATOMIC] = true};

static void count(struct cache *c, const struct req *r, bool hit)
{
    struct cache_stats *st = &c->st;
    if (c->data_class && r->kind != REQ_WRITEBACK && r->home < c->data_class_n) {
        bool here = c->data_class[r->home] == CACHE_DATA_LOCAL;
        uint64_t *t = c->by_traffic[(r->flags & REQ_F_REMOTE ? 2 : 0) + !here];
        t[0]++;
        t[1] += hit;
        if (r->kind <= REQ_WRITE) {
            uint64_t *k = c->by_class[c->data_class[r->home]];
            k[0]++;
            k[1] += hit;
        }
    }
    switch (r->kind) {
    case REQ_READ:
        st->reads++;
        if (hit)
            st->read_hits++;
        else
            st->read_misses++;
        break;
    case REQ_WRITE:
        st->writes++;
        if (hit)
            st->write_hits++;
        else
            st->write_misses++;
        break;
    case REQ_ATOMIC:
        st->atomics++;
        break;
    default:
        break;
    }
}

/* The write policy for r here: REQ_F_WT forces write-through. */
static inline enum cache_write_policy wpolicy(const struct cache *c, const struct req *r)
{
    if (r->flags & REQ_F_WT)
        return CACHE_WRITE_THROUGH;
    if ((r->flags & REQ_F_LOCAL) && c->p.local_write_policy)
        return (enum cache_write_policy)(c->p.local_write_policy - 1);
    return c->p.write_policy;
}

static inline enum cache_write_alloc walloc(const struct cache *c, const struct req *r)
{
    if (r->flags & REQ_F_NOALLOC)
        return CACHE_WA_NONE;
    if ((r->flags & REQ_F_LOCAL) && c->p.local_write_alloc)
        return (enum cache_write_alloc)(c->p.local_write_alloc - 1);
    return c->p.write_alloc;
}

static void apply_hit(struct cache *c, int64_t l, struct req *r, const uint64_t need[2],
                      bool fill)
{
    /* A target of a fill answered from the line just installed is part of the
     * miss: with allocation on miss the line's age counts from the miss. */
    if (!(c->p.alloc_on_miss && fill))
        touch(c, l);
    if (r->kind == REQ_READ) {
        if (c->wver)
            get_line_versions(c, l, r->ver, c->all_words);
        return;
    }
    struct cache_line *ln = cache_rec(c, l);
    rec_or(c, ln, REC_VALID, need);
    if (wpolicy(c, r) == CACHE_WRITE_BACK) {
        rec_or(c, ln, REC_DIRTY, need);
        sync_dirty(c, l);
    }
    if (c->wver)
        set_line_versions(c, l, r->ver, req_word_mask(need));
}

static enum act decide(const struct cache *c, const struct req *r, int64_t l,
                       const uint64_t need[2], bool *hit)
{
    uint64_t valid[2];
    if (l >= 0 && needs_data[r->kind])
        rec_mask(c, cache_rec(c, l), REC_VALID, valid);
    *hit = l >= 0 && (!needs_data[r->kind] || mask_covers(valid, need));
    enum cache_write_policy wp = wpolicy(c, r);
    bool noalloc = r->flags & REQ_F_NOALLOC;
    /* A read from another chiplet that misses is passed on without taking an
     * MSHR: local misses may wait for other chiplets, remote ones never do,
     * so the two cannot deadlock over MSHRs (a request / forward split). */
    if (noalloc && !*hit && r->kind == REQ_READ && (r->flags & REQ_F_REMOTE))
        /* a line holding dirty words must merge them into what comes back
         * (and keep them if evicted meanwhile): through an MSHR */
        return l >= 0 && rec_any(c, cache_rec(c, l), REC_DIRTY) ? A_FETCH : A_FWD;
    if (noalloc && !*hit && (r->kind == REQ_ATOMIC || r->kind == REQ_WRITEBACK))
        return l >= 0 && !rec_any(c, cache_rec(c, l), REC_DIRTY) ? A_DROP_FWD : A_FWD;
    enum act a = act_tab[r->kind][wp][*hit];
    return a == A_WMISS ? wmiss_tab[wp][walloc(c, r)] : a;
}

/* Carry out action a for r (line l, or -1) now; false if it has to wait.
 * fill: r is a target of the fill that just installed its line. */
static bool perform(struct sim *s, struct cache *c, struct req *r, enum act a, int64_t l,
                    const uint64_t need[2], ps_t done, bool fill)
{
    uint64_t li = line_index(c, r->addr);
    switch (a) {
    case A_HIT:
        apply_hit(c, l, r, need, fill);
        respond(s, r, done);
        return true;
    case A_FETCH:
        if (s->functional) {
            /* the fill is installed before mshr_alloc returns: reserve first */
            if (c->p.alloc_on_miss && l < 0 && !(r->flags & REQ_F_NOALLOC))
                alloc_line(s, c, li, r->home, true);
            else if (c->p.alloc_on_miss && l >= 0)
                touch(c, l);
            bool sent = mshr_alloc(s, c, li, r, l, need);
            SIM_ASSERT(s, c->name, sent);
            return true;
        }
        if (!mshr_alloc(s, c, li, r, l, need))
            return false;
        if (c->p.alloc_on_miss && l < 0 && !(r->flags & REQ_F_NOALLOC))
            alloc_line(s, c, li, r->home, true); /* reserved: nothing valid until the fill */
        else if (c->p.alloc_on_miss && l >= 0)
            touch(c, l); /* a sector miss on a present line renews its age at the miss */
        return true;
    case A_ALLOC:
        l = alloc_line(s, c, li, r->home, true);
        apply_hit(c, l, r, need, fill);
        respond(s, r, done);
        return true;
    case A_ALLOC_FWD:
        l = alloc_line(s, c, li, r->home, true);
        /* fall through */
    case A_UPD_FWD:
        apply_hit(c, l, r, need, fill);
        forward(s, c, r);
        return true;
    case A_DROP_FWD:
        if (l >= 0)
            drop_line(c, l);
        /* fall through */
    default:
        forward(s, c, r);
        return true;
    }
}

/* Handle r now; false if it has to wait (the caller queues it). hint: a
 * line that may hold r's line, or -1. */
static bool process(struct sim *s, struct cache *c, struct req *r, enum mode mode, int64_t hint)
{
    uint64_t need[2];
    req_need(s, c, r, need);
    uint64_t li = line_index(c, r->addr);
    if (s->functional && mode == M_NEW)
        prefetch_next_lines(c, li);
    /* hint: where the line was just seen (a line is never in two ways) */
    int64_t l = hint >= 0 && line_holds(c, hint, li) ? hint : lookup(c, li);
    bool hit;
    enum act a = decide(c, r, l, need, &hit);
    if (mode == M_NEW) {
        count(c, r, hit);
        const struct cache_waitq *q = &c->wq[pool_of(c, r)];
        if (q->head && waiting_for_line(q, li))
            return false; /* never overtake an older request to the same line */
    }
    /* A miss joins the line's MSHR; so does a hit on bytes that a store or
     * an atomic waiting there writes, which must not be overtaken (an access
     * after an atomic to the same word would see the word before it). */
    if (a != A_HIT || c->mshr_writing) {
        int64_t m = mshr_find(c, li);
        if (m >= 0 && (a != A_HIT || mask_overlaps(c->mshr[m].wmask, need)))
            return mshr_join(c, m, r, need);
    }
    ps_t done = s->now + clock_cycles(c->clk, mode == M_FILL ? c->p.resp_lat : c->p.hit_lat);
    return perform(s, c, r, a, l, need, done, mode == M_FILL);
}

/* The head is unlinked while it is tried and its line stays counted as
 * waiting until it succeeds (only new requests look at the counts), so a
 * head that has to wait again costs no map update. */
static void retry_queue(struct sim *s, struct cache *c, struct cache_waitq *q)
{
    while (q->head) {
        struct req *r = q->head, *next = r->next;
        if (next)
            __builtin_prefetch(next);
        r->next = NULL;
        if (!process(s, c, r, M_RETRY, -1)) {
            r->next = next;
            return;
        }
        q->head = next;
        if (!next)
            q->tail = NULL;
        q->n--;
        wait_count(c, q, r, -1);
    }
}

/* Requests from other chiplets first: they need only the level below. */
static void retry_waiting(struct sim *s, struct cache *c)
{
    if (c->wq[1].head)
        retry_queue(s, c, &c->wq[1]);
    retry_queue(s, c, &c->wq[0]);
}

/* Put the list t back in front of the FIFOs, each request in its pool's,
 * order kept within each. */
static void wait_push_front_split(struct cache *c, struct req *t)
{
    if (!c->p.mshrs_remote) {
        wait_push_front(c, t, true);
        return;
    }
    struct req *list[2] = {NULL, NULL}, **tail[2] = {&list[0], &list[1]};
    while (t) {
        struct req *next = t->next;
        unsigned k = pool_of(c, t);
        t->next = NULL;
        *tail[k] = t;
        tail[k] = &t->next;
        t = next;
    }
    for (unsigned k = 0; k < 2; k++)
        if (list[k])
            wait_push_front(c, list[k], true);
}

/* Replay the targets of a filled MSHR in arrival order; if one has to wait,
 * it and every later one go to the front of the FIFOs, so order is kept. */
static void run_targets(struct sim *s, struct cache *c, struct req *t, int64_t l)
{
    while (t) {
        struct req *next = t->next;
        t->next = NULL;
        if (!process(s, c, t, M_FILL, l)) {
            t->next = next;
            wait_push_front_split(c, t);
            return;
        }
        t = next;
    }
}

/* The fill fills only bytes that are not dirty: a line allocated by a
 * validate write keeps its written bytes (and their version). */
/* A fill that only non-allocating requests wait for, of a line not present:
 * relay it. */
static bool fill_bypasses(const struct cache_mshr *x, int64_t l)
{
    if (!x->noalloc || l >= 0)
        return false;
    for (const struct req *t = x->head; t; t = t->next)
        if (!(t->flags & REQ_F_NOALLOC))
            return false;
    return true;
}

/* Whether the relayed fill ch brought every byte read t needs (a sectored
 * fill carries only the sectors its first target asked for). */
static bool relayed_covers(const struct cache *c, const struct req *t, const struct req *ch)
{
    if (!(ch->flags & REQ_F_SECTORS))
        return true;
    uint64_t need[2];
    req_need(c->s, c, t, need);
    return mask_covers(ch->mask, need);
}

/* Reads get the relayed data; the other non-allocating requests that joined
 * (stores, atomics to a line homed elsewhere) go their own way now, in order:
 * the line stays absent, so they are forwarded. */
static void relay_fill(struct sim *s, struct cache *c, struct req *t, const struct req *ch)
{
    ps_t done = s->now + clock_cycles(c->clk, c->p.resp_lat);
    struct req *rest = NULL, **tail = &rest;
    while (t) {
        struct req *next = t->next;
        t->next = NULL;
        if (t->kind == REQ_READ && relayed_covers(c, t, ch)) {
            if (c->wver)
                copy_all_versions(c, t->ver, ch->ver);
            respond(s, t, done);
        } else { /* a sectored fill lacking some of its sectors: it fetches them itself */
            *tail = t;
            tail = &t->next;
        }
        t = next;
    }
    if (rest)
        run_targets(s, c, rest, -1);
}

/* Words with dirty bytes keep their own version (approximate for words
 * only partly dirty: the written version stands for the whole word). */
static void install_fill(struct cache *c, int64_t l, const struct req *ch, bool fresh)
{
    const uint64_t *got = ch->flags & REQ_F_SECTORS ? ch->mask : c->full;
    /* a line just allocated has nothing dirty or valid: its masks, still on
     * their way from the host's memory, are not read back */
    if (c->wver)
        set_line_versions(c, l, ch->ver,
                          ~(fresh ? 0 : rec_words(c, cache_rec(c, l), REC_DIRTY)) &
                              req_word_mask(got) & c->all_words);
    if (fresh)
        rec_put(c, cache_rec(c, l), REC_VALID, got);
    else
        rec_or(c, cache_rec(c, l), REC_VALID, got);
}

/* Ask the host for the rows of li's set and, to choose a victim, its stamps. */
static void prefetch_fill_set(const struct cache *c, uint64_t li)
{
    prefetch_set(c, li);
    if (c->p.repl != CACHE_RANDOM) {
        const uint16_t *st = c->stamp + set_of(c, li) * c->p.ways;
        __builtin_prefetch(st);
        __builtin_prefetch(st + c->p.ways - 1);
    }
}

/* A fill touches the line's set, the MSHR's first target and then the head
 * of the waiting FIFO: ask for all of them at once so that the host's misses
 * overlap. */
static void fill_prefetch(const struct cache *c, const struct req *ch, const struct cache_mshr *x)
{
    prefetch_fill_set(c, line_index(c, ch->addr));
    __builtin_prefetch(x->head);
    __builtin_prefetch(c->wq[0].head);
}

static bool inval_present(struct cache *c, uint64_t li);

static void fill_done(struct sim *s, struct req *ch, void *obj)
{
    struct cache *c = obj;
    uint32_t m = (uint32_t)ch->tag;
    struct cache_mshr *x = &c->mshr[m];
    fill_prefetch(c, ch, x);
    if (x->saved_words)
        copy_word_versions(c, ch->ver, mshr_versions(c, m), x->saved_words);
    struct req *targets = x->head;
    uint64_t li = line_index(c, x->line);
    int64_t l = lookup(c, li);
    bool bypass = fill_bypasses(x, l), fresh = l < 0;
    if (!bypass) {
        if (l < 0) {
            /* install_fill sets every version. A sectored cache whose set
             * has every way pinned relays the fill instead, as if no target
             * allocated: the reads it covers are answered, the others fetch
             * again (docs/cache.md 2.2). */
            l = alloc_line(s, c, li, x->home, !c->p.sectored);
            bypass = l < 0;
        } else if (!c->p.alloc_on_miss) { /* else its age counts from the miss */
            touch(c, l);
        }
    }
    if (!bypass)
        install_fill(c, l, ch, fresh);
    bool stale = x->stale;
    c->mshr_writing -= mask_any(x->wmask);
    mshr_unhash(c, m);
    *x = (struct cache_mshr){0};
    unsigned k = m >= c->p.mshrs;
    c->mshr_free[k][c->nfree[k]++] = m;
    if (bypass)
        relay_fill(s, c, targets, ch);
    else
        run_targets(s, c, targets, l);
    /* only the copy: a fetch the targets have just issued for sectors this
     * fill lacked left after the invalidation, so it is not stale */
    if (stale)
        inval_present(c, li);
    req_free(s, ch);
    retry_waiting(s, c);
}

uint32_t cache_line_version(const struct cache *c, int64_t l, unsigned w)
{
    const struct cache_line *ln = cache_rec(c, l);
    return ln->ver_mixed ? line_ver_row(c, l)[w] : ln->ver;
}

void cache_line_get_versions(const struct cache *c, int64_t l, uint32_t *dst, uint32_t wm)
{
    get_line_versions(c, l, dst, wm);
}

void cache_line_set_versions(struct cache *c, int64_t l, const uint32_t *src, uint32_t wm)
{
    set_line_versions(c, l, src, wm);
}

bool cache_install_clean(struct sim *s, struct cache *c, addr_t addr, uint16_t home,
                         const uint32_t *ver)
{
    uint64_t li = line_index(c, addr);
    if (lookup(c, li) >= 0 || mshr_find(c, li) >= 0)
        return false;
    int64_t l = alloc_line(s, c, li, home, true);
    if (c->wver && ver)
        set_line_versions(c, l, ver, c->all_words);
    rec_put(c, cache_rec(c, l), REC_VALID, c->full);
    return true;
}

bool cache_inval_line(struct cache *c, addr_t addr)
{
    uint64_t li = line_index(c, addr);
    int64_t m = mshr_find(c, li);
    if (m >= 0)
        c->mshr[m].stale = true;
    return inval_present(c, li);
}

/* Drop the clean copy of line li, if present (dirty bytes stay, valid). */
static bool inval_present(struct cache *c, uint64_t li)
{
    int64_t l = lookup(c, li);
    if (l < 0)
        return false;
    uint64_t d[2];
    rec_mask(c, cache_rec(c, l), REC_DIRTY, d);
    if (d[0] | d[1]) {
        cache_line_set_masks(c, l, d, d);
        return false;
    }
    drop_line(c, l);
    return true;
}

/* Hints (sim_hint()): what accept_ev and fill_done will read first. */
static void accept_hint(const struct sim *s, const void *obj, uint64_t arg)
{
    (void)s;
    const struct cache *c = obj;
    const struct req *r = (const struct req *)(uintptr_t)arg;
    prefetch_line(c, line_index(c, r->addr));
    if (c->wver) /* a hit writes the versions it returns */
        __builtin_prefetch(r->ver, 1);
}

static void fill_hint(const struct sim *s, const void *obj, uint64_t arg)
{
    (void)s;
    const struct cache *c = obj;
    const struct req *ch = (const struct req *)(uintptr_t)arg;
    uint32_t m = (uint32_t)ch->tag;
    uint64_t li = line_index(c, ch->addr);
    __builtin_prefetch(&c->mshr[m]);
    /* the MSHR leaves its hash chain: its key and the chain's bucket */
    __builtin_prefetch(&c->mshr_key[m]);
    __builtin_prefetch(&c->mshr_bucket[mshr_hash(c, li)]);
    prefetch_fill_set(c, li);
}

static void accept_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct cache *c = obj;
    struct req *r = (struct req *)(uintptr_t)arg;
    c->st.accesses++;
    c->st.sectors += req_sectors(r);
    if (!process(s, c, r, M_NEW, -1))
        wait_push(c, r);
}

/* The first cycle from t at which every data bank holding one of r's
 * sectors is free; the banks are then held one cycle per sector. */
static ps_t data_bank_slot(struct cache *c, const struct req *r, ps_t t)
{
    uint64_t need[2];
    req_need(c->s, c, r, need);
    unsigned off = (unsigned)((r->addr & ~(addr_t)(c->p.line_b - 1)) / 32);
    unsigned per[64] = {0}, nb = c->p.data_banks;
    ps_t *bank = c->dbank_free + (size_t)bank_of(c, line_index(c, r->addr)) * nb;
    ps_t start = t;
    for (unsigned sct = 0; sct < c->p.line_b / 32; sct++)
        if ((need[sct / 2] >> (32 * (sct % 2))) & 0xffffffffull) {
            unsigned b = (off + sct) % nb;
            start = max_u64(start, bank[b]);
            per[b]++;
        }
    for (unsigned b = 0; b < nb; b++)
        if (per[b])
            bank[b] = start + per[b] * c->clk->period;
    c->st.data_bank_stalls += (start - t) / c->clk->period;
    return start;
}

/* Ports are handed out cycle by cycle in arrival order, so the acceptance
 * time is known at once and the port queue needs no storage. */
void cache_access(struct sim *s, void *self, struct req *r)
{
    struct cache *c = self;
    if (s->functional) { /* at once: no port, no latency, and no MSHR left busy */
        c->st.accesses++;
        c->st.sectors += req_sectors(r);
        bool done = process(s, c, r, M_NEW, -1);
        SIM_ASSERT(s, c->name, done);
        return;
    }
    uint64_t li = line_index(c, r->addr);
    prefetch_set(c, li);
    __builtin_prefetch(&c->mshr_bucket[mshr_hash(c, li)]);
    struct cache_bank *b = &c->bank[bank_of(c, li)];
    ps_t edge = clock_edge(c->clk, s->now);
    if (edge > b->port_t) {
        b->port_t = edge;
        b->port_used = 0;
    }
    if (b->port_used == c->p.ports) {
        b->port_t += c->clk->period;
        b->port_used = 0;
    }
    b->port_used++;
    ps_t t = c->p.data_banks ? data_bank_slot(c, r, b->port_t) : b->port_t;
    sim_at(s, t, accept_ev, c, (uint64_t)(uintptr_t)r);
}

struct mem_port cache_port(struct cache *c) { return (struct mem_port){cache_access, c}; }

/* ---- watchdog, set-up ------------------------------------------------------ */

static uint64_t watch_pending(void *obj)
{
    const struct cache *c = obj;
    return (uint64_t)(c->p.mshrs + c->p.mshrs_remote - c->nfree[0] - c->nfree[1]) +
           c->wq[0].n + c->wq[1].n + c->nfwd + c->nwb +
           (c->op != CACHE_OP_NONE);
}

static const char *const kind_name[REQ_KIND_N] = {"READ", "WRITE", "ATOMIC", "WRITEBACK"};

static void watch_dump(void *obj, FILE *out)
{
    const struct cache *c = obj;
    for (uint32_t i = 0; i < c->p.mshrs + c->p.mshrs_remote; i++)
        if (c->mshr[i].busy)
            fprintf(out, "    mshr %u: line 0x%" PRIx64 ", %u targets\n", i, c->mshr[i].line,
                    c->mshr[i].ntargets);
    for (unsigned k = 0; k < 2; k++)
        for (const struct req *w = c->wq[k].head; w; w = w->next)
            fprintf(out, "    waiting for %s mshr: %s 0x%" PRIx64 "\n",
                    k ? "a remote" : "an", w->kind < REQ_KIND_N ? kind_name[w->kind] : "?",
                    w->addr);
    if (c->nfwd || c->nwb)
        fprintf(out, "    %u forwarded requests and %u write-backs unacknowledged\n", c->nfwd,
                c->nwb);
    if (c->op != CACHE_OP_NONE)
        fprintf(out, "    %s in progress: %u banks walking\n",
                c->op == CACHE_OP_FLUSH ? "flush" : "invalidate", c->banks_walking);
}

void cache_init(struct cache *c, struct sim *s, const char *name, const struct clock *clk,
                const struct cache_params *p, struct mem_port lower)
{
    char buf[200];
    const char *key = NULL;
    const char *why = cache_params_problem(p, &key, buf, sizeof buf);
    if (why)
        BUG("cache %s: %s: %s", name, key, why);
    *c = (struct cache){.name = xstrdup(name), .s = s, .p = *p, .clk = clk, .lower = lower};
    c->sets = (uint32_t)(p->size_b / p->line_b / p->ways);
    c->sets_per_bank = c->sets / p->banks;
    c->line_shift = ilog2(p->line_b);
    c->bank_shift = ilog2(p->banks);
    c->set_bits = ilog2(c->sets_per_bank);
    c->ipoly_banks = p->ipoly && c->bank_shift >= 4 && c->bank_shift <= 6;
    c->ipoly_sets = p->ipoly && c->set_bits >= 4 && c->set_bits <= 6;
    req_mask_range(c->full, 0, p->line_b);
    size_t lines = (size_t)c->sets * p->ways;
    c->mask_words = p->line_b / 64;
    c->rec_shift = p->line_b == 64 ? 5 : 6;
    _Static_assert(sizeof(struct cache_line) + 2 * sizeof(uint64_t) <= 32 &&
                       sizeof(struct cache_line) + 4 * sizeof(uint64_t) <= 64,
                   "line records of 32 and 64 bytes");
    c->recs = xcalloc_big(lines << c->rec_shift, 1); /* the valid bits decide, not the tags */
    c->index_bits = ilog2(c->sets);
    c->fp_row = (p->ways + 15) / 16 * 16;
    c->fp = xcalloc_big((size_t)c->sets * c->fp_row, 1);
    c->bits_row = (p->ways + 63) / 64;
    c->waybits = xcalloc_big((size_t)c->sets * 2 * c->bits_row, sizeof *c->waybits);
    c->way_shift = is_pow2(p->ways) ? ilog2(p->ways) : 0;
    c->stamp = xcalloc_big(lines, sizeof *c->stamp);
    c->set_tick = xcalloc_big(c->sets, sizeof *c->set_tick);
    c->words = p->line_b / 4;
    c->all_words = (uint32_t)((1ull << c->words) - 1);
    if (p->versions)
        c->wver = xcalloc_big(lines * c->words, sizeof *c->wver);
    rng_seed(&c->rng, p->seed);
    c->bank = xcalloc(p->banks, sizeof *c->bank);
    c->dbank_free = xcalloc((size_t)p->banks * p->data_banks + 1, sizeof *c->dbank_free);
    uint32_t nm = p->mshrs + p->mshrs_remote;
    c->mshr = xcalloc_aligned(nm, sizeof *c->mshr);
    if (c->wver)
        c->mshr_ver = xcalloc(nm, c->words * sizeof *c->mshr_ver);
    c->mshr_key = xcalloc(nm, sizeof *c->mshr_key);
    c->mshr_free[0] = xmalloc(nm * sizeof *c->mshr_free[0]);
    c->mshr_free[1] = c->mshr_free[0] + p->mshrs;
    for (uint32_t i = 0; i < p->mshrs; i++)
        c->mshr_free[0][i] = p->mshrs - 1 - i; /* MSHR 0 is handed out first */
    for (uint32_t i = 0; i < p->mshrs_remote; i++)
        c->mshr_free[1][i] = nm - 1 - i;
    c->nfree[0] = p->mshrs;
    c->nfree[1] = p->mshrs_remote;
    uint32_t nb = 1;
    while (nb < 2 * nm)
        nb *= 2;
    c->mshr_bucket = xcalloc(nb, sizeof *c->mshr_bucket);
    c->mshr_bucket_mask = nb - 1;
    u64map_init(&c->wq[0].over, 64);
    u64map_init(&c->wq[1].over, 64);
    req_pool_init(s, 1024);
    sim_hint(s, (const void *)accept_ev, accept_hint);
    sim_hint(s, (const void *)fill_done, fill_hint);
    sim_watch(s, c->name, watch_pending, watch_dump, c);
}

void cache_free(struct cache *c)
{
    free(c->name);
    xfree_big(c->recs);
    xfree_big(c->fp);
    xfree_big(c->waybits);
    xfree_big(c->stamp);
    xfree_big(c->set_tick);
    xfree_big(c->wver);
    free(c->bank);
    free(c->dbank_free);
    free(c->mshr);
    free(c->mshr_ver);
    free(c->mshr_key);
    free(c->mshr_free[0]);
    free(c->mshr_bucket);
    for (unsigned k = 0; k < 2; k++) {
        free(c->wq[k].direct);
        u64map_free(&c->wq[k].over);
    }
    *c = (struct cache){0};
}

