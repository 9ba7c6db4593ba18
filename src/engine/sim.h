/*
 * sim.h -- the simulation engine: integer-picosecond time, an event queue
 * ordered by (time, insertion sequence), clock domains, and a watchdog.
 *
 * Events are ordered by (time, insertion sequence). They are kept in one FIFO
 * list per distinct time, so events at one time run in the order they were
 * scheduled. The lists of times within SIM_WHEEL_SPAN of now hang from a
 * timing wheel: one slot per 2^SIM_WHEEL_SHIFT ps, each slot the chain of
 * its times in order, and a bitmap of the slots in use, so finding a time's
 * list and the earliest time touch the few host cache lines near `now`.
 * Times farther ahead (rare) wait in a hash map and a 4-ary heap, and move
 * into the wheel as it comes within reach of them. Most events are
 * scheduled for the same time as the one before them, so the list of that
 * time is remembered and the wheel is skipped; a list is made of chunks of
 * consecutive event slots, so running one time's events reads memory in
 * order (the host's caches, not arithmetic, bound the speed). Events, lists,
 * wheel and heap live in arrays that reach their steady size early in a run,
 * so scheduling allocates nothing on the hot path. The same input always
 * produces the same order and bit-identical output.
 *
 * Components tick at their own frequency: a struct clock gives a period in
 * picoseconds, and sim_after_cycles() schedules on that clock's next edge.
 * Periods are rounded to whole picoseconds (1801 MHz -> 555 ps, 0.04% fast).
 *
 * The watchdog: components that can hold work register a probe (how much is
 * pending, and a dump of it). If the queue drains while work is pending, or
 * simulated time advances by watchdog_ps without any sim_progress() call, the
 * run stops with a deadlock report listing what each component is waiting on.
 */
#ifndef CHIPSIM_SIM_H
#define CHIPSIM_SIM_H

#include <stdio.h>

#include "base/base.h"
#include "base/pool.h"
#include "base/u64map.h"

struct sim;
struct stats;

typedef void (*ev_fn)(struct sim *s, void *obj, uint64_t arg);
/* A look-ahead hint (sim_hint()): asks the host for what a handler will read,
 * and nothing else (it must not change any state). */
typedef void (*ev_hint_fn)(const struct sim *s, const void *obj, uint64_t arg);
#define SIM_HINTS 4
#define SIM_HINT_SLOTS 16

struct event {
    ev_fn fn;
    void *obj;
    uint64_t arg;
};

/* Events are stored in chunks of consecutive slots, so the events of one
 * time sit next to each other in memory (two host cache lines per chunk). */
#define SIM_CHUNK_EVENTS 5
struct ev_chunk {
    uint32_t next;            /* next chunk of the same time, index + 1 (0 = none);
                                 the free list when unused */
    uint32_t unused;
    struct event ev[SIM_CHUNK_EVENTS];
};

/* The events of one time, in scheduling order: a list of chunks, all full
 * but the tail. How full the tail is lives here, so adding an event to a
 * time only writes its chunk and never waits to read it. */
struct ev_bucket {
    ps_t t;
    uint32_t head, tail;      /* chunk indices + 1; the free list through head */
    uint32_t pos;             /* events of the head chunk already run */
    uint32_t tail_n;          /* slots of the tail chunk filled */
    uint32_t wnext;           /* next later time of the same wheel slot, index + 1 */
    uint32_t unused;
};

/* The timing wheel: 2^SIM_WHEEL_SHIFT ps per slot, SIM_WHEEL_SLOTS slots. */
#define SIM_WHEEL_SHIFT 6
#define SIM_WHEEL_SLOTS 65536u
#define SIM_WHEEL_SPAN ((ps_t)SIM_WHEEL_SLOTS << SIM_WHEEL_SHIFT)

struct ev_heap_ent {
    ps_t t;
    uint32_t bucket;
};

struct clock {
    const char *name;
    ps_t period;
};

struct watch {
    const char *name;
    uint64_t (*pending)(void *obj);          /* units of work still held */
    void (*dump)(void *obj, FILE *out);      /* what is waiting, for reports */
    void *obj;
};

enum sim_status { SIM_DONE, SIM_DEADLOCK, SIM_STOPPED };

struct sim {
    ps_t now;
    uint64_t seq;             /* events scheduled so far */
    struct ev_chunk *ch;      /* event store (64-byte aligned) */
    size_t ch_cap;
    uint32_t ch_free;         /* index + 1 */
    struct ev_bucket *bk;     /* bucket store, free list through head */
    size_t bk_cap;
    uint32_t bk_free;         /* index + 1 */
    uint32_t *wheel;          /* slot -> its earliest bucket, index + 1 (0 = none) */
    uint64_t *wheel_used;     /* bitmap of the slots with a bucket */
    uint64_t wheel_base;      /* now >> SIM_WHEEL_SHIFT; the wheel holds the times of the
                                 slots wheel_base .. wheel_base + SIM_WHEEL_SLOTS - 1 */
    uint64_t wheel_n;         /* buckets in the wheel */
    struct u64map bk_of;      /* time -> bucket index, for times beyond the wheel */
    ps_t last_t;              /* time of last_b: most events go to the time of the */
    uint32_t last_b;          /* previous one; bucket index + 1 (0 = none) */
    struct ev_heap_ent *heap; /* the distinct times beyond the wheel */
    size_t heap_n, heap_cap;
    uint64_t pending_events;  /* scheduled, not yet run */
    /* Look-ahead hints by handler (sim_hint()): key[i] is a handler's address,
     * in order of registration. They are also found by address in a direct
     * table, slot (key >> hint_shift) % SIM_HINT_SLOTS, with a shift that
     * gives every key its own slot; hint_direct is false when none does (the
     * list is then searched). */
    const void *hint_key[SIM_HINTS];
    ev_hint_fn hint[SIM_HINTS];
    unsigned nhints;
    unsigned hint_shift;
    bool hint_direct;
    const void *hint_slot_key[SIM_HINT_SLOTS];
    ev_hint_fn hint_slot[SIM_HINT_SLOTS];
    uint64_t events;          /* events executed */
    bool stop;
    /* Functional mode (kernel sampling's warming pass, gpu/sample.h): every
     * memory component handles a request at once, at `now`, and completes
     * it before its access() returns; nothing is scheduled. Set only while
     * the memory system holds no request in flight. */
    bool functional;

    uint64_t progress;        /* bumped by components when work completes */
    ps_t watchdog_ps;         /* 0 disables the no-progress check */
    struct watch *watches;
    size_t nwatches, watches_cap;
    FILE *report;             /* where deadlock reports go (stderr by default) */
    /* Optional: called every SIM_TICK_BUCKETS distinct times run (a progress
     * line); it must not touch the simulation. */
    void (*tick)(void *obj);
    void *tick_obj;

    struct pool req_pool;     /* struct req objects, see mem/req.h */
    struct stats *stats;      /* owned by the caller; may be NULL */
    struct rng rng;
};

#define SIM_TICK_BUCKETS 65536

void sim_init(struct sim *s, uint64_t seed);
void sim_destroy(struct sim *s);

/* Schedule fn(s, obj, arg) at absolute time t (>= now). */
void sim_at_slow(struct sim *s, ps_t t, ev_fn fn, void *obj, uint64_t arg);
static inline void sim_at(struct sim *s, ps_t t, ev_fn fn, void *obj, uint64_t arg)
{
    /* Fast path: same time as the previous event (a live bucket, so t >= now)
     * and room in its last chunk. */
    if (__builtin_expect(t == s->last_t && s->last_b, 1)) {
        struct ev_bucket *b = &s->bk[s->last_b - 1];
        if (__builtin_expect(b->tail_n < SIM_CHUNK_EVENTS, 1)) {
            s->ch[b->tail - 1].ev[b->tail_n++] = (struct event){fn, obj, arg};
            s->seq++;
            s->pending_events++;
            return;
        }
    }
    sim_at_slow(s, t, fn, obj, arg);
}
static inline void sim_after(struct sim *s, ps_t dt, ev_fn fn, void *obj, uint64_t arg)
{
    sim_at(s, s->now + dt, fn, obj, arg);
}

/* Register hint for handler key (an ev_fn, or a handler a component calls
 * from its own events, such as a request's completion), once per key; at most
 * SIM_HINTS keys. While one event runs, the run loop calls the hint of the
 * next event's handler (whose object it asked the host for one event
 * earlier), so that the host's misses on what that handler will read overlap
 * with the work of this one. Hints change nothing simulated. */
void sim_hint(struct sim *s, const void *key, ev_hint_fn hint);
/* The hint registered for key, or NULL: the run loop asks once per event. */
static inline ev_hint_fn sim_hint_of(const struct sim *s, const void *key)
{
    if (__builtin_expect(s->hint_direct, 1)) {
        unsigned i = (unsigned)((uintptr_t)key >> s->hint_shift) & (SIM_HINT_SLOTS - 1);
        return s->hint_slot_key[i] == key ? s->hint_slot[i] : NULL;
    }
    for (unsigned i = 0; i < s->nhints; i++)
        if (s->hint_key[i] == key)
            return s->hint[i];
    return NULL;
}

void clock_init(struct clock *c, const char *name, double mhz);
/* First edge of clock c at or after time t. */
static inline ps_t clock_edge(const struct clock *c, ps_t t)
{
    return (t + c->period - 1) / c->period * c->period;
}
static inline ps_t clock_cycles(const struct clock *c, uint64_t n) { return n * c->period; }
/* Current time in whole cycles of c (rounded down). */
static inline uint64_t clock_now_cycles(const struct clock *c, ps_t t) { return t / c->period; }
/* Schedule n cycles after the next edge of c. */
static inline void sim_after_cycles(struct sim *s, const struct clock *c, uint64_t n,
                                    ev_fn fn, void *obj, uint64_t arg)
{
    sim_at(s, clock_edge(c, s->now) + n * c->period, fn, obj, arg);
}

void sim_watch(struct sim *s, const char *name, uint64_t (*pending)(void *),
               void (*dump)(void *, FILE *), void *obj);
static inline void sim_progress(struct sim *s) { s->progress++; }
uint64_t sim_pending(const struct sim *s);

/* Run until the queue is empty, sim_stop() is called, or time passes `until`
 * (0 = no limit). Returns SIM_DEADLOCK after writing a report. */
enum sim_status sim_run(struct sim *s, ps_t until);
static inline void sim_stop(struct sim *s) { s->stop = true; }

/* Broken invariant inside a component: print time and component, abort. */
_Noreturn void sim_bug(const struct sim *s, const char *who, const char *file, int line,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define SIM_BUG(s, who, ...) sim_bug((s), (who), __FILE__, __LINE__, __VA_ARGS__)
#define SIM_ASSERT(s, who, cond) \
    do { if (__builtin_expect(!(cond), 0)) SIM_BUG((s), (who), "assertion failed: %s", #cond); } while (0)

#endif
