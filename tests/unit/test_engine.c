/*
 * Engine: event ordering by (time, insertion sequence), clock edges,
 * pools, and the deadlock watchdog.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

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
