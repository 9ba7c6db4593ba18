/*
 * sim.c -- event queue (buckets of one time on a timing wheel, or for times
 * beyond it found by hash and ordered by a 4-ary heap), run loop, clocks and
 * the deadlock watchdog. See sim.h for the model.
 */
#include "sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_D 4
#define WHEEL_MASK (SIM_WHEEL_SLOTS - 1)
#define WHEEL_WORDS (SIM_WHEEL_SLOTS / 64)

void sim_init(struct sim *s, uint64_t seed)
{
    *s = (struct sim){0};
    s->report = stderr;
    s->hint_direct = true; /* no key yet: every slot is empty */
    u64map_init(&s->bk_of, 16);
    s->wheel = xcalloc_big(SIM_WHEEL_SLOTS, sizeof *s->wheel);
    s->wheel_used = xcalloc(WHEEL_WORDS, sizeof *s->wheel_used);
    rng_seed(&s->rng, seed);
}

void sim_destroy(struct sim *s)
{
    xfree_big(s->ch);
    free(s->bk);
    free(s->heap);
    xfree_big(s->wheel);
    free(s->wheel_used);
    u64map_free(&s->bk_of);
    free(s->watches);
    if (s->req_pool.nchunks)
        pool_destroy(&s->req_pool);
    *s = (struct sim){0};
}

/* Slow path: double the chunk store (kept 64-byte aligned, so a chunk is two
 * host cache lines) and thread the new chunks onto the free list. */
static void ch_grow(struct sim *s)
{
    size_t old = s->ch_cap, cap = old ? 2 * old : 256;
    struct ev_chunk *ch = xcalloc_big(cap, sizeof *ch);
    if (old)
        memcpy(ch, s->ch, old * sizeof *ch);
    xfree_big(s->ch);
    s->ch = ch;
    s->ch_cap = cap;
    for (size_t i = cap; i-- > old;) {
        s->ch[i].next = s->ch_free;
        s->ch_free = (uint32_t)i + 1;
    }
}

/* An empty chunk, index + 1. */
static inline uint32_t ch_alloc(struct sim *s)
{
    if (!s->ch_free)
        ch_grow(s);
    uint32_t c = s->ch_free;
    s->ch_free = s->ch[c - 1].next;
    s->ch[c - 1].next = 0;
    return c;
}

static inline void ch_release(struct sim *s, uint32_t c)
{
    s->ch[c - 1].next = s->ch_free;
    s->ch_free = c;
}

static void bk_grow(struct sim *s)
{
    size_t old = s->bk_cap;
    s->bk = xgrow(s->bk, sizeof *s->bk, &s->bk_cap, old + 1);
    for (size_t i = s->bk_cap; i-- > old;) {
        s->bk[i].head = s->bk_free;
        s->bk_free = (uint32_t)i + 1;
    }
}

static void heap_push(struct sim *s, ps_t t, uint32_t b)
{
    if (s->heap_n == s->heap_cap)
        s->heap = xgrow(s->heap, sizeof *s->heap, &s->heap_cap, s->heap_n + 1);
    size_t i = s->heap_n++;
    while (i > 0) {
        size_t parent = (i - 1) / HEAP_D;
        if (s->heap[parent].t <= t)
            break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = (struct ev_heap_ent){t, b};
}

static void heap_pop(struct sim *s)
{
    struct ev_heap_ent last = s->heap[--s->heap_n];
    size_t n = s->heap_n, i = 0;
    for (;;) {
        size_t c = i * HEAP_D + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + HEAP_D < n ? c + HEAP_D : n;
        for (size_t j = c + 1; j < end; j++)
            if (s->heap[j].t < s->heap[best].t)
                best = j;
        if (s->heap[best].t >= last.t)
            break;
        s->heap[i] = s->heap[best];
        i = best;
    }
    if (n)
        s->heap[i] = last;
}

/* A new bucket of time t with one empty chunk, index. */
static uint32_t bucket_new(struct sim *s, ps_t t)
{
    if (!s->bk_free)
        bk_grow(s);
    uint32_t b = s->bk_free - 1;
    s->bk_free = s->bk[b].head;
    uint32_t c = ch_alloc(s);
    s->bk[b] = (struct ev_bucket){.t = t, .head = c, .tail = c};
    return b;
}

/* The first bucket of slot's chain whose time is t or later, index + 1 (0:
 * none); *prev: the one before it (0: it leads the chain). */
static uint32_t wheel_find(const struct sim *s, uint32_t slot, ps_t t, uint32_t *prev)
{
    uint32_t i = s->wheel[slot];
    *prev = 0;
    while (i && s->bk[i - 1].t < t) {
        *prev = i;
        i = s->bk[i - 1].wnext;
    }
    return i;
}

/* Hang bucket b in slot's chain between prev and next (indices + 1, as
 * wheel_find gave them: bucket_new may have moved bk since). */
static void wheel_insert(struct sim *s, uint32_t b, uint32_t slot, uint32_t prev, uint32_t next)
{
    s->bk[b].wnext = next;
    *(prev ? &s->bk[prev - 1].wnext : &s->wheel[slot]) = b + 1;
    s->wheel_used[slot / 64] |= 1ull << (slot % 64);
    s->wheel_n++;
}

/* Hang bucket b in its wheel slot's chain, in order of time. */
static void wheel_link(struct sim *s, uint32_t b)
{
    uint32_t slot = (uint32_t)(s->bk[b].t >> SIM_WHEEL_SHIFT) & WHEEL_MASK, prev;
    uint32_t next = wheel_find(s, slot, s->bk[b].t, &prev);
    wheel_insert(s, b, slot, prev, next);
}

/* The bucket of time t, created (with one empty chunk, and entered in the
 * wheel or the heap) if needed. */
static uint32_t bucket_of(struct sim *s, ps_t t)
{
    if (t == s->last_t && s->last_b)
        return s->last_b - 1;
    uint32_t b;
    if ((t >> SIM_WHEEL_SHIFT) - s->wheel_base < SIM_WHEEL_SLOTS) {
        uint32_t slot = (uint32_t)(t >> SIM_WHEEL_SHIFT) & WHEEL_MASK, prev;
        uint32_t i = wheel_find(s, slot, t, &prev);
        if (i && s->bk[i - 1].t == t) {
            b = i - 1;
        } else {
            b = bucket_new(s, t);
            wheel_insert(s, b, slot, prev, i);
        }
    } else {
        size_t n = s->bk_of.n;
        uint64_t *slot = u64map_put(&s->bk_of, t);
        if (s->bk_of.n == n) {
            b = (uint32_t)*slot;
        } else {
            b = bucket_new(s, t); /* slot stays valid: the map does not move */
            *slot = b;
            heap_push(s, t, b);
        }
    }
    s->last_t = t;
    s->last_b = b + 1;
    return b;
}

/* The earliest bucket, index + 1 (0 = no event left). Moves the wheel on to
 * the earliest time beyond it when it is empty, and the times it then
 * reaches from the heap into it. */
static uint32_t earliest(struct sim *s)
{
    if (!s->wheel_n) {
        if (!s->heap_n)
            return 0;
        s->wheel_base = s->heap[0].t >> SIM_WHEEL_SHIFT;
    }
    while (s->heap_n && (s->heap[0].t >> SIM_WHEEL_SHIFT) - s->wheel_base < SIM_WHEEL_SLOTS) {
        uint32_t b = s->heap[0].bucket;
        heap_pop(s);
        u64map_del(&s->bk_of, s->bk[b].t);
        wheel_link(s, b);
    }
    uint32_t slot = (uint32_t)s->wheel_base & WHEEL_MASK, w = slot / 64;
    uint64_t bits = s->wheel_used[w] & (~0ull << (slot % 64));
    while (!bits) { /* wheel_n > 0: some slot at or after the base is used */
        w = (w + 1) % WHEEL_WORDS;
        bits = s->wheel_used[w];
    }
    return s->wheel[w * 64 + (uint32_t)__builtin_ctzll(bits)];
}

void sim_at_slow(struct sim *s, ps_t t, ev_fn fn, void *obj, uint64_t arg)
{
    if (__builtin_expect(t < s->now, 0))
        SIM_BUG(s, "engine", "event scheduled in the past (t=%llu)", (unsigned long long)t);
    uint32_t bi = bucket_of(s, t);
    if (s->bk[bi].tail_n == SIM_CHUNK_EVENTS) {
        uint32_t nc = ch_alloc(s); /* may move s->ch */
        s->ch[s->bk[bi].tail - 1].next = nc;
        s->bk[bi].tail = nc;
        s->bk[bi].tail_n = 0;
    }
    struct ev_bucket *b = &s->bk[bi];
    s->ch[b->tail - 1].ev[b->tail_n++] = (struct event){fn, obj, arg};
    s->seq++;
    s->pending_events++;
}

/* Fill the direct table with the first shift that gives every key its own
 * slot (hint_direct false if none does). */
static void hint_table(struct sim *s)
{
    unsigned shifts = 64 - __builtin_ctz(SIM_HINT_SLOTS);
    for (unsigned sh = 0; sh <= shifts; sh++) {
        memset(s->hint_slot_key, 0, sizeof s->hint_slot_key);
        unsigned i = 0;
        for (; i < s->nhints; i++) {
            unsigned k = (unsigned)((uintptr_t)s->hint_key[i] >> sh) & (SIM_HINT_SLOTS - 1);
            if (s->hint_slot_key[k])
                break;
            s->hint_slot_key[k] = s->hint_key[i];
            s->hint_slot[k] = s->hint[i];
        }
        if (i == s->nhints) {
            s->hint_shift = sh;
            s->hint_direct = true;
            return;
        }
    }
    memset(s->hint_slot_key, 0, sizeof s->hint_slot_key);
    s->hint_direct = false;
}

void sim_hint(struct sim *s, const void *key, ev_hint_fn hint)
{
    if (sim_hint_of(s, key))
        return;
    if (s->nhints == SIM_HINTS)
        BUG("sim_hint: more than %d handlers with hints", SIM_HINTS);
    s->hint_key[s->nhints] = key;
    s->hint[s->nhints++] = hint;
    hint_table(s);
}

void clock_init(struct clock *c, const char *name, double mhz)
{
    c->name = name;
    c->period = (ps_t)llround(1e6 / mhz);
    if (c->period == 0)
        c->period = 1;
}

void sim_watch(struct sim *s, const char *name, uint64_t (*pending)(void *),
               void (*dump)(void *, FILE *), void *obj)
{
    s->watches = xgrow(s->watches, sizeof *s->watches, &s->watches_cap, s->nwatches + 1);
    s->watches[s->nwatches++] = (struct watch){name, pending, dump, obj};
}

uint64_t sim_pending(const struct sim *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->nwatches; i++)
        n += s->watches[i].pending(s->watches[i].obj);
    return n;
}

static void deadlock_report(struct sim *s, const char *why)
{
    FILE *o = s->report;
    fprintf(o, "chipsim: deadlock at t=%llu ps: %s\n", (unsigned long long)s->now, why);
    for (size_t i = 0; i < s->nwatches; i++) {
        struct watch *w = &s->watches[i];
        uint64_t n = w->pending(w->obj);
        if (!n)
            continue;
        fprintf(o, "  %s: %llu pending\n", w->name, (unsigned long long)n);
        if (w->dump)
            w->dump(w->obj, o);
    }
    fflush(o);
}

/* Ask the host for an event's object and (where it looks like a pointer,
 * often a request) its argument: a prefetch never faults. */
static inline void prefetch_event(const struct event *e)
{
    __builtin_prefetch(e->obj);
    __builtin_prefetch((const char *)e->obj + 64);
    if (e->arg >= 1u << 16)
        __builtin_prefetch((const void *)(uintptr_t)e->arg);
}

/* Events in chunk c of bucket b: all its slots, but for the tail. */
static inline uint32_t chunk_fill(const struct ev_bucket *b, uint32_t c)
{
    return c == b->tail ? b->tail_n : SIM_CHUNK_EVENTS;
}

/* The event of bucket bk k + 1 places after the one that runs now (from
 * chunk c, n events in it), or NULL. */
static inline const struct event *peek_event(const struct sim *s, const struct ev_bucket *bk,
                                             const struct ev_chunk *c, uint32_t n, uint32_t k)
{
    uint32_t p = bk->pos + k;
    if (p < n)
        return &c->ev[p];
    p -= n;
    return c->next && p < chunk_fill(bk, c->next) ? &s->ch[c->next - 1].ev[p] : NULL;
}

/* Run every event of the earliest time, including those scheduled for
 * that same time while it runs (handlers may grow the stores, so nothing
 * is held by pointer across a call). */
static void run_bucket(struct sim *s, uint32_t b)
{
    s->now = s->bk[b].t;
    s->wheel_base = s->now >> SIM_WHEEL_SHIFT;
    s->last_t = s->now;
    s->last_b = b + 1;
    /* the next time's list, while this one runs: the next in b's slot, or
     * the first of a later slot of the same word of the bitmap */
    uint32_t nb = s->bk[b].wnext;
    if (!nb) {
        uint32_t slot = (uint32_t)s->wheel_base & WHEEL_MASK;
        uint64_t later = s->wheel_used[slot / 64] & (~1ull << (slot % 64));
        if (later)
            nb = s->wheel[(slot & ~63u) + (uint32_t)__builtin_ctzll(later)];
    }
    if (nb)
        __builtin_prefetch(&s->ch[s->bk[nb - 1].head - 1]);
    for (;;) {
        struct ev_bucket *bk = &s->bk[b];
        struct ev_chunk *c = &s->ch[bk->head - 1];
        uint32_t n = chunk_fill(bk, bk->head);
        if (bk->pos == n) {
            if (bk->head == bk->tail)
                break;
            uint32_t done = bk->head;
            bk->head = c->next;
            bk->pos = 0;
            ch_release(s, done);
            continue;
        }
        if (s->stop)
            return; /* stopped in the middle: the rest runs on the next sim_run() */
        if (bk->pos == 0 && c->next) /* the chunk after this one, while its events run */
            __builtin_prefetch(&s->ch[c->next - 1]);
        struct event ev = c->ev[bk->pos++];
        /* The object of the event after next (often a request back from
         * below, long out of the host's caches) is fetched while this one
         * runs, and the next event's hint, whose object was fetched one
         * event ago, asks for what its handler will read. */
        const struct event *next = peek_event(s, bk, c, n, 0);
        if (next) {
            const struct event *after = peek_event(s, bk, c, n, 1);
            if (after)
                prefetch_event(after);
            if (bk->pos == 1)
                prefetch_event(next); /* no event before this one asked for it */
            ev_hint_fn h = sim_hint_of(s, (const void *)next->fn);
            if (h)
                h(s, next->obj, next->arg);
        }
        s->pending_events--;
        s->events++;
        ev.fn(s, ev.obj, ev.arg);
    }
    uint32_t slot = (uint32_t)s->wheel_base & WHEEL_MASK; /* b leads its slot's chain */
    s->wheel[slot] = s->bk[b].wnext;
    if (!s->wheel[slot])
        s->wheel_used[slot / 64] &= ~(1ull << (slot % 64));
    s->wheel_n--;
    if (s->last_b == b + 1)
        s->last_b = 0;
    ch_release(s, s->bk[b].head);
    s->bk[b].head = s->bk_free;
    s->bk_free = b + 1;
}

enum sim_status sim_run(struct sim *s, ps_t until)
{
    uint64_t last_progress = s->progress;
    ps_t next_check = s->watchdog_ps ? s->now + s->watchdog_ps : 0;
    s->stop = false;
    uint32_t buckets = 0;
    for (;;) {
        /* past `until` with only far times left: stop before the wheel moves on */
        if (until && !s->wheel_n && s->heap_n && s->heap[0].t > until)
            return SIM_STOPPED;
        uint32_t b = s->stop ? 0 : earliest(s);
        if (!b)
            break;
        if (until && s->bk[b - 1].t > until)
            return SIM_STOPPED;
        run_bucket(s, b - 1);
        if (s->tick && ++buckets % SIM_TICK_BUCKETS == 0)
            s->tick(s->tick_obj);
        if (next_check && s->now >= next_check) {
            if (s->progress == last_progress && sim_pending(s)) {
                deadlock_report(s, "no progress within the watchdog interval");
                return SIM_DEADLOCK;
            }
            last_progress = s->progress;
            next_check = s->now + s->watchdog_ps;
        }
    }
    if (s->stop)
        return SIM_STOPPED;
    if (sim_pending(s)) {
        deadlock_report(s, "event queue empty with work pending");
        return SIM_DEADLOCK;
    }
    return SIM_DONE;
}

void sim_bug(const struct sim *s, const char *who, const char *file, int line,
             const char *fmt, ...)
{
    char where[512];
    snprintf(where, sizeof where, "in %s at t=%llu ps (%s:%d)", who, (unsigned long long)s->now,
             file, line);
    va_list ap;
    va_start(ap, fmt);
    base_vdie(where, fmt, ap);
}
