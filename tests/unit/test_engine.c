/*
 * Engine: event ordering by (time, insertion sequence), also under a storm
 * of events, times beyond the timing wheel and stopped runs, clock edges, pools, the deadlock watchdog, and
 * the base containers the engine relies on (u64map, pagemap, big blocks).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/pagemap.h"
#include "base/u64map.h"
#include "engine/sim.h"

struct log {
    int order[64];
    ps_t when[64];
    int n;
};

static void record(struct sim *s, void *obj, uint64_t arg)
{
    struct log *l = obj;
    l->order[l->n] = (int)arg;
    l->when[l->n++] = s->now;
}

Test(engine, orders_by_time_then_insertion)
{
    struct sim s;
    sim_init(&s, 1);
    struct log l = {0};
    sim_at(&s, 300, record, &l, 0);
    sim_at(&s, 100, record, &l, 1);
    sim_at(&s, 300, record, &l, 2);
    sim_at(&s, 100, record, &l, 3);
    sim_at(&s, 200, record, &l, 4);
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    int want[] = {1, 3, 4, 0, 2};
    ps_t at[] = {100, 100, 200, 300, 300};
    cr_assert_eq(l.n, 5);
    for (int i = 0; i < 5; i++) {
        cr_expect_eq(l.order[i], want[i], "event %d", i);
        cr_expect_eq(l.when[i], at[i]);
    }
    cr_expect_eq(s.events, 5);
    sim_destroy(&s);
}

struct big_log {
    ps_t t[10000];
    uint64_t arg[10000];
    int n;
};

static void record_big(struct sim *s, void *obj, uint64_t arg)
{
    struct big_log *l = obj;
    l->t[l->n] = s->now;
    l->arg[l->n++] = arg;
}

Test(engine, many_events_stay_ordered)
{
    struct sim s;
    sim_init(&s, 1);
    struct rng r;
    rng_seed(&r, 42);
    static struct big_log l;
    /* 10000 events at 50 distinct times: time is monotone and, among equal
     * times, events run in the order they were scheduled (arg ascending). */
    for (int i = 0; i < 10000; i++)
        sim_at(&s, rng_below(&r, 50), record_big, &l, (uint64_t)i);
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    cr_assert_eq(l.n, 10000);
    for (int i = 1; i < l.n; i++) {
        cr_assert_geq(l.t[i], l.t[i - 1]);
        if (l.t[i] == l.t[i - 1])
            cr_assert_gt(l.arg[i], l.arg[i - 1]);
    }
    sim_destroy(&s);
}

static void chain(struct sim *s, void *obj, uint64_t arg)
{
    ps_t *prev = obj;
    cr_assert_geq(s->now, *prev);
    *prev = s->now;
    if (arg)
        sim_after(s, arg % 7, chain, obj, arg - 1);
}

Test(engine, time_never_goes_back)
{
    struct sim s;
    sim_init(&s, 1);
    ps_t prev = 0;
    sim_at(&s, 5, chain, &prev, 1000);
    cr_assert_eq(sim_run(&s, 0), SIM_DONE);
    cr_expect_eq(s.events, 1001);
    sim_destroy(&s);
}

Test(engine, clock_edges_and_cycles)
{
    struct clock c;
    clock_init(&c, "gpu", 1801.0);
    cr_expect_eq(c.period, 555);
    clock_init(&c, "mem", 1000.0);
    cr_expect_eq(c.period, 1000);
    cr_expect_eq(clock_edge(&c, 0), 0);
    cr_expect_eq(clock_edge(&c, 1), 1000);
    cr_expect_eq(clock_edge(&c, 1000), 1000);
    cr_expect_eq(clock_edge(&c, 1001), 2000);

    struct sim s;
    sim_init(&s, 1);
    struct log l = {0};
    s.now = 1500;
    sim_after_cycles(&s, &c, 3, record, &l, 7); /* next edge 2000, +3 cycles */
    sim_run(&s, 0);
    cr_expect_eq(l.when[0], 5000);
    sim_destroy(&s);
}

Test(engine, run_until_stops_early)
{
    struct sim s;
    sim_init(&s, 1);
    struct log l = {0};
    sim_at(&s, 10, record, &l, 0);
    sim_at(&s, 20, record, &l, 1);
    cr_expect_eq(sim_run(&s, 15), SIM_STOPPED);
    cr_expect_eq(l.n, 1);
    cr_expect_eq(sim_run(&s, 0), SIM_DONE);
    cr_expect_eq(l.n, 2);
    sim_destroy(&s);
}

struct waiter {
    uint64_t held;
    int dumped;
};
static uint64_t w_pending(void *o) { return ((struct waiter *)o)->held; }
static void w_dump(void *o, FILE *out)
{
    ((struct waiter *)o)->dumped++;
    fprintf(out, "    waiting for a response that never comes\n");
}

Test(engine, watchdog_reports_drained_queue_with_pending_work)
{
    struct sim s;
    sim_init(&s, 1);
    s.report = tmpfile();
    struct waiter w = {.held = 3};
    sim_watch(&s, "unit0", w_pending, w_dump, &w);
    struct log l = {0};
    sim_at(&s, 10, record, &l, 0);
    cr_expect_eq(sim_run(&s, 0), SIM_DEADLOCK);
    cr_expect_eq(w.dumped, 1);
    rewind(s.report);
    char buf[256] = {0};
    cr_assert(fgets(buf, sizeof buf, s.report));
    cr_expect(strstr(buf, "deadlock at t=10 ps") != NULL, "got: %s", buf);
    cr_assert(fgets(buf, sizeof buf, s.report));
    cr_expect(strstr(buf, "unit0: 3 pending") != NULL, "got: %s", buf);
    fclose(s.report);
    w.held = 0;
    sim_destroy(&s);
}

static void spin(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    sim_after(s, 100, spin, obj, 0); /* runs forever without progress */
}

Test(engine, watchdog_catches_livelock_without_progress)
{
    struct sim s;
    sim_init(&s, 1);
    s.report = tmpfile();
    s.watchdog_ps = 10000;
    struct waiter w = {.held = 1};
    sim_watch(&s, "spinner", w_pending, NULL, &w);
    sim_at(&s, 0, spin, NULL, 0);
    cr_expect_eq(sim_run(&s, 0), SIM_DEADLOCK);
    cr_expect_geq(s.now, 10000);
    cr_expect_leq(s.now, 10100);
    fclose(s.report);
    sim_destroy(&s);
}

Test(engine, pool_reuses_objects_without_growing)
{
    struct pool p;
    pool_init(&p, 48, 4);
    void *a[4];
    for (int i = 0; i < 4; i++)
        a[i] = pool_get(&p);
    cr_expect_eq(p.grows, 0);
    pool_put(&p, a[2]);
    cr_expect_eq(pool_get(&p), a[2]);
    cr_expect_eq(p.grows, 0);
    (void)pool_get(&p);
    cr_expect_eq(p.grows, 1);
    cr_expect_eq(p.peak, 5);
    pool_destroy(&p);
}

Test(engine, rng_is_reproducible)
{
    struct rng a, b;
    rng_seed(&a, 7);
    rng_seed(&b, 7);
    for (int i = 0; i < 100; i++)
        cr_expect_eq(rng_next(&a), rng_next(&b));
    for (int i = 0; i < 1000; i++)
        cr_expect_lt(rng_below(&a, 13), 13);
}

/* popcount64 is plain arithmetic where the host has no POPCNT instruction:
 * it counts as a loop over the bits does. */
Test(engine, popcount_counts_every_bit)
{
    uint64_t edge[] = {0, 1, 1ull << 63, ~0ull, 0x8000000000000001ull, 0x5555555555555555ull};
    struct rng r;
    rng_seed(&r, 3);
    for (int i = 0; i < 10006; i++) {
        uint64_t x = i < 6 ? edge[i] : rng_next(&r) >> (i % 64);
        unsigned n = 0;
        for (int b = 0; b < 64; b++)
            n += (unsigned)(x >> b) & 1;
        cr_assert_eq(popcount64(x), n, "%llx", (unsigned long long)x);
    }
}

/* ---- the event store under load ------------------------------------------ */

/* Events that schedule further events at random delays (0 included, so the
 * running time's list grows while it runs, across chunk boundaries), mixed
 * with runs stopped at arbitrary times: the execution order must be exactly
 * (time, scheduling order). Every event carries its scheduling number. */
struct storm {
    struct rng r;
    uint64_t next_id, left;
    uint64_t n;
    ps_t last_t;
    uint64_t last_id;
    bool bad;
};

static void storm_ev(struct sim *s, void *obj, uint64_t id)
{
    struct storm *st = obj;
    if (st->n && (s->now < st->last_t || (s->now == st->last_t && id <= st->last_id)))
        st->bad = true;
    st->last_t = s->now;
    st->last_id = id;
    st->n++;
    unsigned kids = (unsigned)rng_below(&st->r, 3);
    for (unsigned k = 0; k < kids && st->left; k++, st->left--) {
        uint64_t pick = rng_below(&st->r, 8);
        ps_t dt = pick < 3   ? 0
                  : pick < 6 ? rng_below(&st->r, 4) * 555
                  : pick < 7 ? rng_below(&st->r, 100000)
                             : rng_below(&st->r, 4 * SIM_WHEEL_SPAN);
        sim_after(s, dt, storm_ev, st, st->next_id++);
    }
}

Test(engine, storm_of_events_runs_in_time_then_scheduling_order)
{
    struct sim s;
    sim_init(&s, 1);
    static struct storm st;
    st = (struct storm){.left = 200000};
    rng_seed(&st.r, 3);
    for (int i = 0; i < 64; i++)
        sim_at(&s, rng_below(&st.r, 2000), storm_ev, &st, st.next_id++);
    ps_t until = 0;
    enum sim_status rc;
    do {
        until += 1 + rng_below(&st.r, 50000);
        rc = sim_run(&s, until);
    } while (rc == SIM_STOPPED);
    cr_assert_eq(rc, SIM_DONE);
    cr_expect(!st.bad, "an event ran out of (time, scheduling) order");
    cr_expect_eq(st.n, st.next_id);
    cr_expect_eq(s.events, st.next_id);
    sim_destroy(&s);
}

static void far_kid(struct sim *s, void *obj, uint64_t arg)
{
    record(s, obj, arg);
    if (arg == 3) { /* the first of two events at a time that was beyond the wheel */
        sim_at(s, s->now, record, obj, 5);
        sim_after(s, 1, record, obj, 6);
    }
}

/* Times beyond the timing wheel wait in the heap: a run stopped short of
 * them leaves the wheel where it was, so an event scheduled before them
 * still runs first, and once reached they order and gather events as any
 * other time. */
Test(engine, far_times_keep_their_order)
{
    const ps_t span = SIM_WHEEL_SPAN;
    struct sim s;
    sim_init(&s, 1);
    struct log l = {0};
    sim_at(&s, 10, record, &l, 0);
    sim_at(&s, 2 * span, far_kid, &l, 3);
    sim_at(&s, 9 * span, record, &l, 8);
    sim_at(&s, 2 * span, record, &l, 4);
    sim_at(&s, 2 * span + 1, record, &l, 7);
    cr_expect_eq(sim_run(&s, 100), SIM_STOPPED);
    cr_expect_eq(sim_run(&s, span), SIM_STOPPED); /* nothing left before span */
    cr_assert_eq(l.n, 1);
    sim_at(&s, span / 2, record, &l, 1);
    sim_at(&s, 2 * span - 1, record, &l, 2);
    cr_expect_eq(sim_run(&s, 0), SIM_DONE);
    int want[] = {0, 1, 2, 3, 4, 5, 7, 6, 8};
    ps_t at[] = {10, span / 2, 2 * span - 1, 2 * span, 2 * span, 2 * span, 2 * span + 1,
                 2 * span + 1, 9 * span};
    cr_assert_eq(l.n, 9);
    for (int i = 0; i < 9; i++) {
        cr_expect_eq(l.order[i], want[i], "event %d", i);
        cr_expect_eq(l.when[i], at[i], "event %d", i);
    }
    sim_destroy(&s);
}

static void stopper(struct sim *s, void *obj, uint64_t arg)
{
    record(s, obj, arg);
    if (arg == 3)
        sim_stop(s);
}

Test(engine, stop_in_the_middle_of_a_time_resumes_there)
{
    struct sim s;
    sim_init(&s, 1);
    struct log l = {0};
    for (uint64_t i = 0; i < 12; i++) /* more than one chunk of events at t = 7 */
        sim_at(&s, 7, stopper, &l, i);
    sim_at(&s, 9, record, &l, 100);
    cr_expect_eq(sim_run(&s, 0), SIM_STOPPED);
    cr_expect_eq(l.n, 4);
    sim_at(&s, 7, record, &l, 50); /* joins the time still running */
    cr_expect_eq(sim_run(&s, 0), SIM_DONE);
    int want[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 50, 100};
    cr_assert_eq(l.n, 14);
    for (int i = 0; i < 14; i++)
        cr_expect_eq(l.order[i], want[i], "event %d", i);
    sim_destroy(&s);
}

/* A hint logs which event it was called for and whether it had run yet. */
static int hinted[64], hinted_n, hinted_early;

static void log_hint(const struct sim *s, const void *obj, uint64_t arg)
{
    (void)s;
    const struct log *l = obj;
    for (int i = 0; i < l->n; i++)
        hinted_early += l->order[i] == (int)arg; /* hinted after it ran */
    hinted[hinted_n++] = (int)arg;
}

Test(engine, hint_sees_each_next_event_before_it_runs_and_changes_nothing)
{
    struct sim s;
    sim_init(&s, 1);
    hinted_n = hinted_early = 0;
    sim_hint(&s, (const void *)record, log_hint);
    sim_hint(&s, (const void *)record, log_hint); /* once per handler */
    cr_expect_eq(s.nhints, 1);
    struct log l = {0};
    for (uint64_t i = 0; i < 12; i++) /* three chunks of events at t = 7 */
        sim_at(&s, 7, record, &l, i);
    sim_at(&s, 9, record, &l, 100);
    sim_at(&s, 9, stopper, &l, 101);
    sim_at(&s, 9, record, &l, 102);
    cr_expect_eq(sim_run(&s, 0), SIM_DONE);
    int want[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 100, 101, 102};
    cr_assert_eq(l.n, 15);
    for (int i = 0; i < 15; i++)
        cr_expect_eq(l.order[i], want[i], "event %d", i);
    /* every event of a time but its first, across chunks, each before it
     * ran; not 101 (no hint is registered for its handler) */
    int hw[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 102};
    cr_assert_eq(hinted_n, 12);
    for (int i = 0; i < 12; i++)
        cr_expect_eq(hinted[i], hw[i], "hint %d", i);
    cr_expect_eq(hinted_early, 0);
    sim_destroy(&s);
}

static void hint_a(const struct sim *s, const void *obj, uint64_t arg) { (void)s, (void)obj, (void)arg; }
static void hint_b(const struct sim *s, const void *obj, uint64_t arg) { (void)s, (void)obj, (void)arg; }

/* Keys are found in the direct table by a shift of their address that gives
 * each its own slot, or by searching the list where no shift does: keys
 * 1, 2^20 and 2^40 share a slot at every shift (each shift's four bits hold
 * at most one of their bits). Every registered key finds its own hint, and
 * keys that were not registered find none, on both paths. */
Test(engine, hint_of_finds_each_key_in_the_direct_table_or_the_list)
{
    static const uintptr_t near[] = {0x401000, 0x401040, 0x401080, 0x4010c0};
    static const uintptr_t apart[] = {1, (uintptr_t)1 << 20, (uintptr_t)1 << 40};
    const uintptr_t *sets[] = {near, apart};
    const unsigned nkeys[] = {4, 3};
    for (int t = 0; t < 2; t++) {
        struct sim s;
        sim_init(&s, 1);
        cr_expect_null(sim_hint_of(&s, (const void *)near[0]));
        for (unsigned i = 0; i < nkeys[t]; i++)
            sim_hint(&s, (const void *)sets[t][i], i % 2 ? hint_b : hint_a);
        cr_expect_eq(s.hint_direct, t == 0, "set %d", t);
        for (unsigned i = 0; i < nkeys[t]; i++) {
            ev_hint_fn h = sim_hint_of(&s, (const void *)sets[t][i]);
            cr_expect(h == (i % 2 ? hint_b : hint_a), "set %d key %u", t, i);
            /* a neighbour of each key that shares its slot at some shift */
            cr_expect_null(sim_hint_of(&s, (const void *)(sets[t][i] + 0x1000)), "set %d key %u", t, i);
            cr_expect_null(sim_hint_of(&s, (const void *)(sets[t][i] ^ ((uintptr_t)1 << 50))),
                           "set %d key %u", t, i);
        }
        sim_destroy(&s);
    }
}

/* ---- u64map, pagemap and big blocks ---------------------------------------- */

/* Random puts, gets and deletions (both forms) against a plain array, with
 * keys in the patterns the simulator produces: clock edges, consecutive
 * pages, and scattered values. */
Test(engine, u64map_matches_a_plain_table)
{
    enum { N = 4096 };
    static uint64_t key[N], val[N];
    static bool in[N];
    struct rng r;
    rng_seed(&r, 11);
    for (int i = 0; i < N; i++)
        key[i] = i < N / 3 ? (uint64_t)i * 555 : i < 2 * N / 3 ? 0x100000 + (uint64_t)i : rng_next(&r) >> 1;
    struct u64map m;
    u64map_init(&m, 4);
    size_t n = 0;
    for (int step = 0; step < 200000; step++) {
        int i = (int)rng_below(&r, N);
        switch (rng_below(&r, 4)) {
        case 0:
        case 1:
            *u64map_put(&m, key[i]) += 1;
            n += !in[i];
            in[i] = true;
            val[i]++;
            break;
        case 2: {
            uint64_t *v = u64map_get(&m, key[i]);
            if (v && rng_below(&r, 2))
                u64map_del_at(&m, v);
            else
                u64map_del(&m, key[i]);
            n -= in[i];
            in[i] = false;
            val[i] = 0;
            break;
        }
        default: {
            uint64_t *v = u64map_get(&m, key[i]);
            cr_assert_eq(v != NULL, in[i], "step %d key %llx", step, (unsigned long long)key[i]);
            if (v)
                cr_assert_eq(*v, val[i]);
        }
        }
        cr_assert_eq(m.n, n);
    }
    for (int i = 0; i < N; i++) {
        uint64_t *v = u64map_get(&m, key[i]);
        cr_assert_eq(v != NULL, in[i]);
        if (v)
            cr_expect_eq(*v, val[i]);
    }
    u64map_free(&m);
}

/* Page numbers in runs (a buffer's pages), at leaf edges, and scattered over
 * the 64-bit space (a trace's addresses), put and looked up in random
 * order against a plain table; a pointer from put stays valid as leaves are
 * added. */
Test(engine, pagemap_matches_a_plain_table)
{
    enum { N = 4096 };
    static uint64_t key[N], val[N];
    static bool in[N];
    struct rng r;
    rng_seed(&r, 12);
    for (int i = 0; i < N; i++)
        key[i] = i < N / 2   ? 0x100000 + (uint64_t)i
                 : i < 3 * N / 4 ? (uint64_t)(i - N / 2) * PAGEMAP_LEAF + (i % 2 ? PAGEMAP_LEAF - 1 : 0)
                                 : rng_next(&r) >> 12;
    struct pagemap m;
    pagemap_init(&m);
    bool added;
    uint64_t *first = pagemap_put(&m, key[0], &added);
    cr_assert(added);
    *first = 7;
    in[0] = true;
    val[0] = 7;
    size_t n = 1;
    for (int step = 0; step < 100000; step++) {
        int i = (int)rng_below(&r, N);
        if (rng_below(&r, 2)) {
            uint64_t *v = pagemap_put(&m, key[i], &added);
            cr_assert_eq(added, !in[i], "step %d page %llx", step, (unsigned long long)key[i]);
            cr_assert_eq(*v, val[i]);
            *v = val[i] = (uint64_t)step + 1;
            n += !in[i];
            in[i] = true;
        } else {
            const uint64_t *v = pagemap_get(&m, key[i]);
            cr_assert_eq(v != NULL, in[i], "step %d page %llx", step, (unsigned long long)key[i]);
            if (v)
                cr_assert_eq(*v, val[i]);
        }
        cr_assert_eq(m.n, n);
    }
    cr_expect_eq(*first, val[0]);
    cr_expect_null(pagemap_get(&m, 0x100000 + N)); /* in a leaf, never put */
    cr_expect_null(pagemap_get(&m, 1ull << 50));   /* no leaf */
    pagemap_free(&m);
}

Test(engine, big_blocks_are_zeroed_and_aligned)
{
    size_t sizes[] = {1, 100, 4096, (size_t)1 << 20, ((size_t)5 << 20) + 3};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *p = xcalloc_big(sizes[i], 1);
        cr_expect_eq((uintptr_t)p % 64, 0);
        for (size_t j = 0; j < sizes[i]; j += 997)
            cr_expect_eq(p[j], 0);
        cr_expect_eq(p[sizes[i] - 1], 0);
        memset(p, 0xab, sizes[i]);
        xfree_big(p);
    }
}
