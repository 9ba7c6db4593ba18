/*
 * CPElide on scripted kernel sequences (tiny machine: 2 chiplets; every
 * kernel has one work-group per chiplet, work-group c on chiplet c). The
 * artifact's D4 switches are on, so L2s keep remote data and the table's
 * decisions matter for correctness; the checker verifies them.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

enum role { NONE, READ, WRITE };

#define LINES 16
#define D4 "[coherence]\nscheme = cpelide\nremote_read_alloc = requester_yes\n" \
           "remote_store = write_back\n"

/* p[0], p[1]: buffer bases; p[2 + 2*wg + b]: role of work-group wg on buffer b. */
static enum role role_of(const struct kernel *k, uint32_t wg, unsigned b)
{
    return (enum role)k->p[2 + 2 * wg + b];
}

static void two_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    for (;;) {
        unsigned b = w->pc / (LINES / 4), i = w->pc % (LINES / 4);
        if (b >= k->nargs || b >= 2) {
            op->kind = KOP_EXIT;
            return;
        }
        w->pc++;
        enum role r = role_of(k, w->wg, b);
        if (r == NONE)
            continue;
        op->kind = r == READ ? KOP_LOAD : KOP_STORE;
        op->dst = r == READ ? (uint8_t)(1 + w->pc % 8) : 0;
        op->size = 4;
        op->stride = 4;
        op->base = k->p[b] + i * 256;
        return;
    }
}

static unsigned two_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                           struct addr_range *out, unsigned max)
{
    (void)max;
    addr_t b = k->p[arg];
    out[0] = role_of(k, wg, arg) == NONE ? (struct addr_range){b, b}
                                         : (struct addr_range){b, b + LINES * 64};
    return 1;
}

/* A kernel over x (roles r0 on chiplet 0, r1 on chiplet 1) and optionally y. */
static void kern(struct machine *m, const struct kernel_buf *x, enum role x0, enum role x1,
                 const struct kernel_buf *y, enum role y0, enum role y1)
{
    struct kernel *k = &m->k[m->nk++];
    wl_kernel_init(k, "cpe", 2, 1, 64, 1, two_next);
    k->ranges = two_ranges;
    wl_kernel_arg(k, x, x0 == WRITE || x1 == WRITE ? KERNEL_RW : KERNEL_R);
    k->p[0] = x->base;
    k->p[2] = x0;
    k->p[4] = x1;
    if (y) {
        wl_kernel_arg(k, y, y0 == WRITE || y1 == WRITE ? KERNEL_RW : KERNEL_R);
        k->p[1] = y->base;
        k->p[3] = y0;
        k->p[5] = y1;
    }
}

/* A kernel over [base + lo_wg, base + hi_wg) per work-group, role per
 * work-group: p[0] base, p[1 + 3 wg] role, p[2 + 3 wg] lo, p[3 + 3 wg] hi. */
static void span_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    enum role r = (enum role)k->p[1 + 3 * w->wg];
    addr_t lo = k->p[2 + 3 * w->wg] + w->pc * 256, hi = k->p[3 + 3 * w->wg];
    if (r == NONE || lo >= hi) {
        op->kind = KOP_EXIT;
        return;
    }
    w->pc++;
    op->kind = r == READ ? KOP_LOAD : KOP_STORE;
    op->dst = r == READ ? (uint8_t)(1 + w->pc % 8) : 0;
    op->size = 4;
    op->stride = 4;
    op->base = k->p[0] + lo;
    op->mask = hi - lo >= 256 ? ~0ull : (1ull << (hi - lo) / 4) - 1;
}

static unsigned span_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                            struct addr_range *out, unsigned max)
{
    (void)arg;
    (void)max;
    addr_t b = k->p[0];
    bool none = (enum role)k->p[1 + 3 * wg] == NONE;
    out[0] = (struct addr_range){b + (none ? 0 : k->p[2 + 3 * wg]),
                                   b + (none ? 0 : k->p[3 + 3 * wg])};
    return 1;
}

/* Work-group c on chiplet c: role rc on bytes [loc, hic) of x. */
static void span(struct machine *m, const struct kernel_buf *x, enum role r0, addr_t lo0,
                 addr_t hi0, enum role r1, addr_t lo1, addr_t hi1)
{
    struct kernel *k = &m->k[m->nk++];
    wl_kernel_init(k, "span", 2, 1, 64, 1, span_next);
    k->ranges = span_ranges;
    wl_kernel_arg(k, x, r0 == WRITE || r1 == WRITE ? KERNEL_RW : KERNEL_R);
    uint64_t v[8] = {x->base, r0, lo0, hi0, r1, lo1, hi1, 0};
    memcpy(k->p, v, sizeof v);
}

struct op {
    unsigned k, c;
    enum coh_cache_op op;
};

static void expect_log(const struct coh_log *log, const struct op *want, size_t n)
{
    cr_expect_eq(log->n, n, "%zu operations, expected %zu", log->n, n);
    for (size_t i = 0; i < n && i < log->n; i++) {
        cr_expect_eq(log->v[i].kernel, want[i].k, "op %zu kernel %u", i, log->v[i].kernel);
        cr_expect_eq(log->v[i].chiplet, want[i].c, "op %zu chiplet %u", i, log->v[i].chiplet);
        cr_expect_eq(log->v[i].op, want[i].op, "op %zu kind %d", i, (int)log->v[i].op);
    }
    for (size_t i = n; i < log->n; i++)
        cr_log_error("extra op %zu: kernel %u chiplet %u kind %d", i, log->v[i].kernel,
                     log->v[i].chiplet, (int)log->v[i].op);
}

static struct machine *start(const char *ini, struct coh_log *log)
{
    struct machine *m = machine_new(ini);
    m->g.ms.cm.log = log;
    return m;
}

static void run(struct machine *m)
{
    cr_assert_eq(machine_run(m), SIM_DONE);
}

static void finish(struct machine *m, struct coh_log *log, uint64_t stale)
{
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), stale, "stale reads: %llu",
                 (unsigned long long)machine_stat(m, "checker.stale_reads"));
    m->g.ms.cm.log = NULL;
    free(log->v);
    machine_free(m);
}

Test(cpelide, producer_consumer_flushes_only_the_producer)
{
    struct coh_log log = {0};
    struct machine *m = start(D4, &log);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    kern(m, x, WRITE, NONE, NULL, 0, 0); /* chiplet 0 writes X: Dirty on 0 */
    kern(m, x, NONE, READ, NULL, 0, 0);  /* chiplet 1 reads it: release chiplet 0 only */
    kern(m, x, NONE, READ, NULL, 0, 0);  /* again: nothing to do */
    run(m);
    static const struct op want[] = {{1, 0, COH_FLUSH}};
    expect_log(&log, want, 1);
    cr_expect_eq(machine_stat(m, "coherence.l2_flushes"), 1);
    cr_expect_eq(machine_stat(m, "coherence.flushes_elided"), 5);
    cr_expect_eq(machine_stat(m, "coherence.invalidates_elided"), 6);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.flush_writebacks"), LINES);
    finish(m, &log, 0);
}

Test(cpelide, stale_reader_is_invalidated_before_it_reads_again)
{
    struct coh_log log = {0};
    struct machine *m = start(D4, &log);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    kern(m, x, WRITE, NONE, NULL, 0, 0); /* K0: 0 writes (home 0) */
    kern(m, x, NONE, READ, NULL, 0, 0);  /* K1: flush 0; 1 keeps copies */
    kern(m, x, WRITE, NONE, NULL, 0, 0); /* K2: 0 writes again; 1 is now Stale */
    kern(m, x, NONE, READ, NULL, 0, 0);  /* K3: invalidate 1, flush 0 */
    run(m);
    static const struct op want[] = {
        {1, 0, COH_FLUSH}, {3, 0, COH_FLUSH}, {3, 1, COH_INVALIDATE_CLEAN}};
    expect_log(&log, want, 3);
    finish(m, &log, 0);
}

Test(cpelide, the_multi_range_write_hazard_needs_xstale)
{
    /* Chiplet 1 holds clean copies of X (K1). K2 writes X on chiplet 0 with
     * chiplet 1 in the kernel too (as a writer of Y), so the 2-bit state of
     * chiplet 1 for X is Dirty, not Stale (spec 4.14); only xstale makes
     * K3 invalidate chiplet 1 before it reads X again. */
    const char *ini[] = {D4, D4 "fault = no_xstale\n"};
    for (int f = 0; f < 2; f++) {
        struct coh_log log = {0};
        struct machine *m = start(ini[f], &log);
        const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
        const struct kernel_buf *y = wl_alloc(&m->env, "Y", LINES * 64);
        kern(m, x, WRITE, NONE, y, NONE, NONE);
        kern(m, x, NONE, READ, y, NONE, NONE);
        kern(m, x, WRITE, NONE, y, NONE, WRITE);
        kern(m, x, NONE, READ, y, NONE, NONE);
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), f ? LINES : 0, "fault %d: %llu",
                     f, (unsigned long long)machine_stat(m, "checker.stale_reads"));
        cr_expect_eq(machine_stat(m, "coherence.xstale_invalidates"), f ? 0 : 1);
        m->g.ms.cm.log = NULL;
        free(log.v);
        machine_free(m);
    }
}

Test(cpelide, dropping_releases_makes_the_checker_fire)
{
    struct coh_log log = {0};
    struct machine *m = start(D4 "fault = no_flush\n", &log);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    kern(m, x, NONE, WRITE, NULL, 0, 0); /* chiplet 1 writes X (home 1) */
    kern(m, x, READ, NONE, NULL, 0, 0);  /* chiplet 0 reads; home's dirty data not flushed */
    kern(m, x, WRITE, NONE, NULL, 0, 0); /* chiplet 0 writes X: kept dirty in its L2 (D4) */
    kern(m, x, NONE, READ, NULL, 0, 0);  /* chiplet 1 reads its own stale copy */
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_gt(machine_stat(m, "checker.stale_reads"), 0);
    m->g.ms.cm.log = NULL;
    free(log.v);
    machine_free(m);
}

Test(cpelide, invalidate_precedes_flush_on_one_chiplet)
{
    /* chiplet 1 holds Y dirty and X stale: K3 must invalidate it (for X)
     * and flush it (chiplet 0 reads Y), in that order */
    struct coh_log log = {0};
    struct machine *m = start(D4, &log);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    const struct kernel_buf *y = wl_alloc(&m->env, "Y", LINES * 64);
    kern(m, x, WRITE, NONE, NULL, 0, 0);  /* K0: X Dirty on 0 */
    kern(m, x, NONE, READ, NULL, 0, 0);   /* K1: flush 0; X Valid on 1 */
    kern(m, x, WRITE, NONE, NULL, 0, 0);  /* K2: X Dirty on 0; Stale on... (1 in S: xstale) */
    kern(m, y, NONE, WRITE, NULL, 0, 0);  /* K3: Y Dirty on 1 */
    kern(m, x, NONE, READ, y, READ, NONE);/* K4: inv 1 (X), flush 0 (X) and 1 (Y) */
    run(m);
    static const struct op want[] = {{1, 0, COH_FLUSH},
                                     {4, 0, COH_FLUSH},
                                     {4, 1, COH_INVALIDATE_CLEAN},
                                     {4, 1, COH_FLUSH}};
    expect_log(&log, want, 4);
    finish(m, &log, 0);
}

Test(cpelide, unannotated_kernel_falls_back_to_the_baseline_twice)
{
    struct coh_log log = {0};
    struct machine *m = start(D4, &log);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    kern(m, x, WRITE, NONE, NULL, 0, 0);
    kern(m, x, NONE, READ, NULL, 0, 0);
    m->k[1].nargs = 0; /* K1 unannotated */
    m->k[1].ranges = NULL;
    kern(m, x, NONE, READ, NULL, 0, 0);
    run(m);
    /* K1 and K2: every chiplet flushed then invalidated */
    static const struct op want[] = {
        {1, 0, COH_FLUSH}, {1, 1, COH_FLUSH}, {1, 1, COH_INVALIDATE_CLEAN}, {1, 0, COH_INVALIDATE_CLEAN},
        {2, 0, COH_FLUSH}, {2, 1, COH_FLUSH}, {2, 0, COH_INVALIDATE_CLEAN}, {2, 1, COH_INVALIDATE_CLEAN}};
    expect_log(&log, want, 8);
    cr_expect_eq(machine_stat(m, "coherence.full_syncs"), 2);
    finish(m, &log, 0);
}

Test(cpelide, a_full_table_evicts_with_flush_and_invalidate)
{
    struct coh_log log = {0};
    struct machine *m = start(D4 "table_rows = 1\nrows_per_kernel = 1\n", &log);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    const struct kernel_buf *y = wl_alloc(&m->env, "Y", LINES * 64);
    kern(m, x, WRITE, NONE, NULL, 0, 0); /* X Dirty on 0 and 1 (both run the kernel) */
    kern(m, y, NONE, WRITE, NULL, 0, 0); /* no room: X evicted: both flushed and invalidated */
    kern(m, x, NONE, READ, NULL, 0, 0);  /* Y evicted likewise */
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(log.n, 8, "%zu", log.n);
    cr_expect_eq(machine_stat(m, "coherence.l2_flushes"), 4);
    cr_expect_eq(machine_stat(m, "coherence.l2_invalidates"), 4);
    cr_expect_eq(machine_stat(m, "coherence.evictions"), 2);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    m->g.ms.cm.log = NULL;
    free(log.v);
    machine_free(m);
}

Test(cpelide, an_evicted_row_is_flushed_then_invalidated)
{
    /* Spec D14: a victim row's Dirty chiplets are flushed and then
     * invalidated, so no copy outlives its row. K2 evicts Z while chiplet 0
     * holds it dirty (K1). Invalidated before the flush (the fault, and the
     * order this scheme once had), chiplet 0 keeps the flushed Z lines as
     * clean copies that no row tracks; chiplet 1 rewrites Z in K3, and K4
     * reads chiplet 0's old copies: 16 stale lines. */
    const char *ini[] = {D4 "table_rows = 2\nrows_per_kernel = 2\n",
                         D4 "table_rows = 2\nrows_per_kernel = 2\nfault = evict_invalidate_first\n"};
    for (int f = 0; f < 2; f++) {
        struct coh_log log = {0};
        struct machine *m = start(ini[f], &log);
        const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
        const struct kernel_buf *y = wl_alloc(&m->env, "Y", LINES * 64);
        const struct kernel_buf *z = wl_alloc(&m->env, "Z", LINES * 64);
        kern(m, z, READ, READ, x, WRITE, NONE);  /* K0: rows Z (Valid), X (Dirty) */
        kern(m, z, WRITE, NONE, y, NONE, NONE);  /* K1: X evicted; Z Dirty on 0 */
        kern(m, x, NONE, WRITE, NULL, 0, 0);     /* K2: Z evicted (Y is LRU too: first row) */
        kern(m, z, NONE, WRITE, x, READ, NONE);  /* K3: Y was dropped (Not Present); flush 1 */
        kern(m, z, READ, READ, NULL, 0, 0);      /* K4: flush 1 */
        run(m);
        static const struct op want[] = {
            {1, 0, COH_FLUSH}, {1, 1, COH_FLUSH}, {1, 1, COH_INVALIDATE_CLEAN},
            {1, 0, COH_INVALIDATE_CLEAN}, {2, 0, COH_FLUSH}, {2, 1, COH_FLUSH},
            {2, 1, COH_INVALIDATE_CLEAN}, {2, 0, COH_INVALIDATE_CLEAN}, {3, 1, COH_FLUSH},
            {4, 1, COH_FLUSH}};
        if (!f)
            expect_log(&log, want, sizeof want / sizeof *want);
        cr_expect_eq(machine_stat(m, "coherence.evictions"), 2);
        finish(m, &log, f ? LINES : 0);
    }
}

Test(cpelide, ranges_that_share_a_line_overlap)
{
    /* Chiplet 0 owns X up to the middle of line 16, chiplet 1 the rest: the
     * two share line 16 though not a byte of it. K0 brings line 16 whole
     * into chiplet 1's L2; K1 writes its first half on chiplet 0. Compared
     * byte by byte, chiplet 1's ranges miss chiplet 0's write and K2 reads
     * the old line: one stale line. Compared by lines, chiplet 1 is xstale
     * and K2 invalidates it. */
    struct coh_log log = {0};
    struct machine *m = start(D4, &log);
    const addr_t mid = 16 * 64 + 32, end = 2 * LINES * 64;
    const struct kernel_buf *x = wl_alloc(&m->env, "X", end);
    span(m, x, NONE, 0, 0, READ, mid, end);   /* K0 */
    span(m, x, WRITE, 0, mid, NONE, 0, 0);    /* K1 */
    span(m, x, NONE, 0, 0, READ, 0, end);     /* K2: flush 0, invalidate 1 */
    run(m);
    static const struct op want[] = {{2, 0, COH_FLUSH}, {2, 1, COH_INVALIDATE_CLEAN}};
    expect_log(&log, want, 2);
    cr_expect_eq(machine_stat(m, "coherence.xstale_invalidates"), 1);
    finish(m, &log, 0);
}

Test(cpelide, kernels_with_many_structures_are_coarsened)
{
    struct coh_log log = {0};
    struct machine *m = start(D4, &log);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    kern(m, x, WRITE, NONE, NULL, 0, 0);
    for (int i = 0; i < 9; i++) /* 10 structures > 8 per kernel */
        wl_kernel_arg(&m->k[0], wl_alloc(&m->env, "pad", 64), KERNEL_R);
    kern(m, x, NONE, READ, NULL, 0, 0);
    run(m);
    cr_expect_eq(machine_stat(m, "coherence.coarsenings"), 1);
    cr_expect_leq(machine_stat(m, "coherence.rows_max"), 8);
    finish(m, &log, 0);
}
