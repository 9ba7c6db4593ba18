/*
 * sim.c -- event queue (4-ary heap keyed by (time, seq)), run loop, clocks
 * and the deadlock watchdog. See sim.h for the model.
 */
#include "sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_D 4

void sim_init(struct sim *s, uint64_t seed)
{
    *s = (struct sim){0};
    s->report = stderr;
    u64map_init(&s->bk_of, 1024);
    rng_seed(&s->rng, seed);
}

void sim_destroy(struct sim *s)
{
    free(s->ev);
    free(s->bk);
    free(s->heap);
    u64map_free(&s->bk_of);
    free(s->watches);
    if (s->req_pool.nchunks)
        pool_destroy(&s->req_pool);
    *s = (struct sim){0};
}

/* Slow path: double the event store and thread the new slots onto the free list. */
static void ev_grow(struct sim *s)
{
    size_t old = s->ev_cap;
    s->ev = xgrow(s->ev, sizeof *s->ev, &s->ev_cap, old + 1);
    for (size_t i = s->ev_cap; i-- > old;) {
        s->ev[i].next = s->ev_free;
        s->ev_free = (uint32_t)i + 1;
    }
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

/* The bucket of time t, created (and entered in the heap) if needed. */
static uint32_t bucket_of(struct sim *s, ps_t t)
{
    size_t n = s->bk_of.n;
    uint64_t *slot = u64map_put(&s->bk_of, t);
    if (s->bk_of.n == n)
        return (uint32_t)*slot;
    if (!s->bk_free)
        bk_grow(s);
    uint32_t b = s->bk_free - 1;
    s->bk_free = s->bk[b].head;
    s->bk[b] = (struct ev_bucket){t, 0, 0};
    *slot = b;
    heap_push(s, t, b);
    return b;
}

void sim_at(struct sim *s, ps_t t, ev_fn fn, void *obj, uint64_t arg)
{
    if (__builtin_expect(t < s->now, 0))
        SIM_BUG(s, "engine", "event scheduled in the past (t=%llu)", (unsigned long long)t);
    if (!s->ev_free)
        ev_grow(s);
    uint32_t e = s->ev_free - 1;
    s->ev_free = s->ev[e].next;
    s->ev[e] = (struct event){fn, obj, arg, 0};
    uint32_t bi = bucket_of(s, t); /* may move s->bk */
    struct ev_bucket *b = &s->bk[bi];
    if (b->tail)
        s->ev[b->tail - 1].next = e + 1;
    else
        b->head = e + 1;
    b->tail = e + 1;
    s->seq++;
    s->pending_events++;
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

/* Run every event of the earliest time, including those scheduled for
 * that same time while it runs. */
static void run_bucket(struct sim *s)
{
    uint32_t b = s->heap[0].bucket;
    s->now = s->heap[0].t;
    while (s->bk[b].head && !s->stop) {
        uint32_t e = s->bk[b].head - 1;
        struct event ev = s->ev[e];
        s->bk[b].head = ev.next;
        if (!ev.next)
            s->bk[b].tail = 0;
        s->ev[e].next = s->ev_free;
        s->ev_free = e + 1;
        s->pending_events--;
        s->events++;
        ev.fn(s, ev.obj, ev.arg);
    }
    if (s->bk[b].head)
        return; /* stopped in the middle: the rest runs on the next sim_run() */
    heap_pop(s);
    u64map_del(&s->bk_of, s->now);
    s->bk[b].head = s->bk_free;
    s->bk_free = b + 1;
}

enum sim_status sim_run(struct sim *s, ps_t until)
{
    uint64_t last_progress = s->progress;
    ps_t next_check = s->watchdog_ps ? s->now + s->watchdog_ps : 0;
    s->stop = false;
    while (s->heap_n && !s->stop) {
        if (until && s->heap[0].t > until)
            return SIM_STOPPED;
        run_bucket(s);
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
