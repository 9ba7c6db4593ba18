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
    s->heap_cap = 4096;
    s->heap = xmalloc(s->heap_cap * sizeof *s->heap);
    rng_seed(&s->rng, seed);
}

void sim_destroy(struct sim *s)
{
    free(s->heap);
    free(s->watches);
    if (s->req_pool.nchunks)
        pool_destroy(&s->req_pool);
    *s = (struct sim){0};
}

static inline bool ev_before(const struct event *a, const struct event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void sim_at(struct sim *s, ps_t t, ev_fn fn, void *obj, uint64_t arg)
{
    if (__builtin_expect(t < s->now, 0))
        SIM_BUG(s, "engine", "event scheduled in the past (t=%llu)", (unsigned long long)t);
    if (s->heap_n == s->heap_cap)
        s->heap = xgrow(s->heap, sizeof *s->heap, &s->heap_cap, s->heap_n + 1);
    struct event ev = {t, s->seq++, fn, obj, arg};
    size_t i = s->heap_n++;
    while (i > 0) {
        size_t parent = (i - 1) / HEAP_D;
        if (!ev_before(&ev, &s->heap[parent]))
            break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = ev;
}

static struct event heap_pop(struct sim *s)
{
    struct event top = s->heap[0];
    struct event last = s->heap[--s->heap_n];
    size_t n = s->heap_n, i = 0;
    for (;;) {
        size_t c = i * HEAP_D + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + HEAP_D < n ? c + HEAP_D : n;
        for (size_t j = c + 1; j < end; j++)
            if (ev_before(&s->heap[j], &s->heap[best]))
                best = j;
        if (!ev_before(&s->heap[best], &last))
            break;
        s->heap[i] = s->heap[best];
        i = best;
    }
    if (n)
        s->heap[i] = last;
    return top;
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

enum sim_status sim_run(struct sim *s, ps_t until)
{
    uint64_t last_progress = s->progress;
    ps_t next_check = s->watchdog_ps ? s->now + s->watchdog_ps : 0;
    s->stop = false;
    while (s->heap_n && !s->stop) {
        if (until && s->heap[0].t > until)
            return SIM_STOPPED;
        struct event ev = heap_pop(s);
        s->now = ev.t;
        s->events++;
        ev.fn(s, ev.obj, ev.arg);
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
