/*
 * Scheduling and placement on the whole tiny machine (one GPU, two chiplets
 * of two CUs): which CU each work-group runs on under each CU order and the
 * per-CU partition, and the costs of first-touch faults and page moves,
 * measured as exact differences of run time. The timing tests run every
 * clock at 1000 MHz, so a cost of whole microseconds shifts every later
 * event by exactly that much.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "machine.h"

#define PAGE 4096ull

/* ---- kernels ------------------------------------------------------------------ */

/* Work-group wg stores one word to page wg of the buffer at p[0]. */
static void own_page_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    if (w->pc++) {
        op->kind = KOP_EXIT;
        return;
    }
    op->kind = KOP_STORE;
    op->size = 4;
    op->mask = 1;
    op->base = k->p[0] + w->wg * PAGE;
}

static void add_own_page(struct machine *m, uint32_t nwg, const struct kernel_buf *x)
{
    struct kernel *k = &m->k[m->nk++];
    wl_kernel_init(k, "own_page", nwg, 1, 64, 1, own_page_next);
    k->p[0] = x->base;
}

/* One warp loads the lines at p[0] + p[2 + i] for i < p[1]; load i reads
 * register i (the previous load's) when bit i of p[7] is set. */
static void loads_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    unsigned i = w->pc++;
    if (i >= k->p[1]) {
        op->kind = KOP_EXIT;
        return;
    }
    op->kind = KOP_LOAD;
    op->size = 4;
    op->mask = 1;
    op->dst = (uint8_t)(i + 1);
    if (k->p[7] >> i & 1)
        op->src[0] = (uint8_t)i;
    op->base = k->p[0] + k->p[2 + i];
}

static void add_loads(struct machine *m, addr_t base, const uint64_t *off, unsigned n,
                      uint64_t deps)
{
    struct kernel *k = &m->k[m->nk++];
    wl_kernel_init(k, "loads", 1, 1, 64, 1, loads_next);
    k->p[0] = base;
    k->p[1] = n;
    for (unsigned i = 0; i < n; i++)
        k->p[2 + i] = off[i];
    k->p[7] = deps;
}

static uint64_t cu_wgs(struct machine *m, unsigned ch, unsigned cu)
{
    char name[64];
    snprintf(name, sizeof name, "gpu0.chiplet%u.cu%u.core.wgs", ch, cu);
    return machine_stat(m, name);
}

/* ---- CU-level dispatch --------------------------------------------------------- */

/* 10 work-groups of one warp, every one fitting at once: the chiplet of each
 * is its page's first-touch home; the CUs' counts follow the CU order. */
static void run_own_pages(const char *ini, const unsigned *chiplet, const unsigned *per_cu)
{
    struct machine *m = machine_new(ini);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", 10 * PAGE);
    add_own_page(m, 10, x);
    cr_assert_eq(machine_run(m), SIM_DONE);
    for (unsigned i = 0; i < 10; i++)
        cr_expect_eq(place_lookup(&m->g.ms.place, x->base + i * PAGE), (int)chiplet[i],
                     "%s: work-group %u", ini, i);
    for (unsigned c = 0; c < 4; c++)
        cr_expect_eq(cu_wgs(m, c / 2, c % 2), per_cu[c], "%s: chiplet %u CU %u", ini, c / 2,
                     c % 2);
    machine_free(m);
}

#define A(...) ((const unsigned[]){__VA_ARGS__})

Test(sched_run, static_round_robin_cus_take_turns)
{
    /* chiplet 0 runs 0-4: CU 0 takes 0, 2, 4 and CU 1 takes 1, 3 */
    run_own_pages("", A(0, 0, 0, 0, 0, 1, 1, 1, 1, 1), A(3, 2, 3, 2));
}

Test(sched_run, greedy_fills_the_first_cu)
{
    run_own_pages("[sched]\ncu_order = greedy\n", A(0, 0, 0, 0, 0, 1, 1, 1, 1, 1),
                  A(5, 0, 5, 0));
}

Test(sched_run, batched_and_partition_on_the_machine)
{
    /* batches of 3: 0-2 and 6-8 on chiplet 0, 3-5 and 9 on chiplet 1 */
    run_own_pages("[sched]\npolicy = batched\nbatch = 3\n", A(0, 0, 0, 1, 1, 1, 0, 0, 0, 1),
                  A(3, 3, 2, 2));
    /* chunks of ceil(10/4) = 3 per CU: 3, 3, 3, 1 */
    run_own_pages("[sched]\npolicy = partition\n", A(0, 0, 0, 0, 0, 0, 1, 1, 1, 1),
                  A(3, 3, 3, 1));
}

/* ---- fault and migration costs -------------------------------------------------- */

static const char *const clocks = "[gpu]\nclock_mhz = 1000\n[dram]\nmhz = 1000\n"
                                  "[cp]\ncp_mhz = 1000\n";

struct fault_run {
    ps_t end;                 /* end of the last kernel's release */
    uint64_t touched, faults, waits;
};

static struct fault_run loads_run(unsigned fault_us, const uint64_t *off, unsigned n,
                                  uint64_t deps)
{
    char ini[256];
    snprintf(ini, sizeof ini, "%s[place]\nfault_us = %u\n", clocks, fault_us);
    struct machine *m = machine_new(ini);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", 8 * PAGE);
    add_loads(m, x->base, off, n, deps);
    cr_assert_eq(machine_run(m), SIM_DONE);
    struct fault_run r = {m->g.cp.last_end, machine_stat(m, "system.place.first_touches"),
                          machine_stat(m, "system.place.faults"),
                          machine_stat(m, "system.place.fault_waits")};
    machine_free(m);
    return r;
}

/* The loads touch `pages` pages; `serial` faults lie one after another on
 * the run's critical path; `waits` requests leave an L1 during a fault. */
static void expect_fault_cost(const uint64_t *off, unsigned n, uint64_t deps, unsigned pages,
                              unsigned serial, unsigned waits)
{
    struct fault_run r0 = loads_run(0, off, n, deps), r3 = loads_run(3, off, n, deps);
    cr_expect_eq(r0.touched, pages);
    cr_expect_eq(r0.faults, 0, "no fault cost, no faults");
    cr_expect_eq(r0.waits, 0);
    cr_expect_eq(r3.touched, pages);
    cr_expect_eq(r3.faults, pages, "every first-touched page faults");
    cr_expect_eq(r3.waits, waits);
    cr_expect_eq(r3.end - r0.end, serial * 3000000ull, "%u faults one after another: %llu ps more",
                 serial, (unsigned long long)(r3.end - r0.end));
}

Test(sched_run, one_first_touch_costs_exactly_the_fault)
{
    expect_fault_cost((const uint64_t[]){0}, 1, 0, 1, 1, 1);
}

Test(sched_run, dependent_faults_add_up_and_independent_ones_overlap)
{
    const uint64_t two_pages[] = {0, PAGE + 64};
    expect_fault_cost(two_pages, 2, 0x2, 2, 2, 2); /* the second waits for the first */
    expect_fault_cost(two_pages, 2, 0, 2, 1, 2);   /* both in flight together */
    /* two lines of one page: one fault; the second line waits for it too */
    const uint64_t one_page[] = {0, 64};
    expect_fault_cost(one_page, 2, 0, 1, 1, 2);
    /* after the fault, the page's other lines go straight through */
    expect_fault_cost(one_page, 2, 0x2, 1, 1, 1);
}

Test(sched_run, faults_count_the_distinct_pages_touched)
{
    struct machine *m = machine_new("[place]\nfault_us = 1\n");
    const struct kernel_buf *x = wl_alloc(&m->env, "X", 10 * PAGE);
    add_own_page(m, 7, x);   /* pages 0-6 */
    add_own_page(m, 10, x);  /* pages 0-9: three new */
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "system.place.faults"), 10);
    cr_expect_eq(machine_stat(m, "system.place.first_touches"), 10);
    cr_expect_eq(machine_stat(m, "system.place.fault_waits"), 10);
    machine_free(m);
}

/* Kernel 0 stores to pages 0-3 of X without declaring it (page i by
 * work-group i: first touch); kernel 1 declares X, and `chunk` wants pages
 * 0-1 on chiplet 0 and 2-3 on chiplet 1. Under `static` kernel 0 already put
 * them there; under `round_robin` pages 1 and 2 are on the other chiplet
 * and move. */
static ps_t moves_time(const char *sched, unsigned migrate_us, uint64_t *moves, uint64_t *mps)
{
    char ini[256];
    snprintf(ini, sizeof ini, "%s[place]\npolicy = chunk\nmigrate_us = %u\n[sched]\n%s\n", clocks,
             migrate_us, sched);
    struct machine *m = machine_new(ini);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", 4 * PAGE);
    add_own_page(m, 4, x);
    add_own_page(m, 4, x);
    wl_kernel_arg(&m->k[1], x, KERNEL_RW);
    cr_assert_eq(machine_run(m), SIM_DONE);
    *moves = machine_stat(m, "system.place.migrations");
    *mps = machine_stat(m, "cp.migrate_ps");
    cr_expect_eq(machine_stat(m, "system.place.policy_pages"), 4);
    for (unsigned i = 0; i < 4; i++)
        cr_expect_eq(place_lookup(&m->g.ms.place, x->base + i * PAGE), (int)(i / 2));
    ps_t t = m->g.cp.last_end;
    machine_free(m);
    return t;
}

Test(sched_run, a_launch_waits_for_its_page_moves)
{
    uint64_t moves, mps;
    ps_t s0 = moves_time("policy = static", 0, &moves, &mps);
    ps_t s2 = moves_time("policy = static", 2, &moves, &mps);
    cr_expect_eq(moves, 0, "first touch already put the pages where chunk wants them");
    cr_expect_eq(mps, 0);
    cr_expect_eq(s2, s0);
    ps_t r0 = moves_time("policy = round_robin", 0, &moves, &mps);
    cr_expect_eq(moves, 2);
    cr_expect_eq(mps, 0, "free moves");
    ps_t r2 = moves_time("policy = round_robin", 2, &moves, &mps);
    cr_expect_eq(moves, 2);
    cr_expect_eq(mps, 4000000, "two moves of 2 us");
    cr_expect_eq(r2 - r0, 4000000ull);
}

/* Work-group 0 loads from the buffer at p[0]; work-group 1 computes for
 * p[1] instructions (one event at its end, no progress meanwhile). */
static void fault_and_compute_next(const struct kernel *k, struct kernel_warp *w,
                                   struct kernel_op *op)
{
    unsigned i = w->pc++;
    if (i == 0 && w->wg == 0) {
        op->kind = KOP_LOAD;
        op->size = 4;
        op->mask = 1;
        op->dst = 1;
        op->base = k->p[0];
    } else if (i == 0) {
        op->kind = KOP_ALU;
        op->n = (uint32_t)k->p[1];
    } else {
        op->kind = KOP_EXIT;
    }
}

Test(sched_run, a_fault_longer_than_the_watchdog_interval_is_no_deadlock)
{
    /* the watchdog looks at events: the compute ends about 150 us in, then
     * the fault at 250 us must still find progress since */
    struct machine *m = machine_new("[place]\nfault_us = 250\n[gpu]\nclock_mhz = 1000\n");
    cr_assert_eq(m->s.watchdog_ps, 100000000, "the test machine's watchdog: 100 us");
    const struct kernel_buf *x = wl_alloc(&m->env, "X", PAGE);
    struct kernel *k = &m->k[m->nk++];
    wl_kernel_init(k, "fault_and_compute", 2, 1, 64, 1, fault_and_compute_next);
    k->p[0] = x->base;
    k->p[1] = 150000 / 4; /* 4 cycles each at 1 GHz */
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "system.place.faults"), 1);
    cr_expect_geq(m->g.cp.last_end - m->g.cp.first_launch, 250000000ull);
    machine_free(m);
}

Test(sched_run, bad_placement_units_are_configuration_errors)
{
    static const struct { const char *ini, *msg; } bad[] = {
        {"[place]\npage_b = 12288\n", "test.ini:2: [place] page_b = 12288: not a power of two"},
        {"[place]\ninterleave_b = 3000\n",
         "test.ini:2: [place] interleave_b = 3000: below page_b: must be a power of two of at "
         "least 64"},
        {"[place]\ninterleave_b = 6144\n",
         "test.ini:2: [place] interleave_b = 6144: not a multiple of page_b (4096)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct err e;
        struct machine *m = machine_try(bad[i].ini, &e);
        cr_expect_null(m, "%s", bad[i].ini);
        if (m)
            machine_free(m);
        else
            cr_expect_str_eq(e.msg, bad[i].msg);
    }
    struct err e;
    struct machine *m = machine_try("[place]\npolicy = interleave\ninterleave_b = 12288\n", &e);
    cr_assert_not_null(m, "three pages: a multiple of page_b");
    machine_free(m);
}
