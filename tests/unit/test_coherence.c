/*
 * Coherence at kernel boundaries and the checker, on the tiny machine (two
 * chiplets of two CUs). Kernels have one work-group per chiplet (static
 * partitioning: work-group c runs on chiplet c), one warp each, and act on a
 * 16-line buffer X: read it, write it, or write one half of every line.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "machine.h"

enum role { NONE, READ, WRITE, HALF };

#define LINES 16

/* p[0]: base of X; p[1 + wg]: role of work-group wg. */
static void pc_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    enum role r = (enum role)k->p[1 + w->wg];
    addr_t x = k->p[0];
    unsigned ops = r == HALF ? LINES : LINES / 4;
    if (r == NONE || w->pc >= ops) {
        op->kind = KOP_EXIT;
        return;
    }
    unsigned i = w->pc++;
    op->size = 4;
    op->stride = 4;
    if (r == HALF) {
        /* 8 lanes x 4 B: bytes 0-31 (wg 0) or 32-63 (wg 1) of line i */
        op->kind = KOP_STORE;
        op->base = x + i * 64 + (w->wg ? 32 : 0);
        op->mask = 0xff;
        return;
    }
    op->kind = r == READ ? KOP_LOAD : KOP_STORE;
    op->dst = r == READ ? (uint8_t)(1 + i) : 0;
    op->base = x + i * 256; /* 64 lanes x 4 B = 4 lines */
}

static void add(struct machine *m, const struct kernel_buf *x, enum role wg0, enum role wg1)
{
    struct kernel *k = &m->k[m->nk++];
    wl_kernel_init(k, "pc", 2, 1, 64, 1, pc_next);
    wl_kernel_arg(k, x, wg0 >= WRITE || wg1 >= WRITE ? KERNEL_RW : KERNEL_R);
    k->p[0] = x->base;
    k->p[1] = wg0;
    k->p[2] = wg1;
}

static const struct kernel_buf *buf(struct machine *m)
{
    return wl_alloc(&m->env, "X", LINES * 64);
}

Test(viper, producer_consumer_flushes_and_invalidates_every_l2_at_every_boundary)
{
    struct machine *m = machine_new(NULL);
    const struct kernel_buf *x = buf(m);
    add(m, x, WRITE, NONE); /* chiplet 0 produces X (its home) */
    add(m, x, NONE, READ);  /* chiplet 1 consumes it */
    cr_assert_eq(machine_run(m), SIM_DONE);
    /* release at each kernel end: both L2s flushed; acquire at each launch:
     * both L2s invalidated and every L1 invalidated */
    cr_expect_eq(machine_stat(m, "coherence.l2_flushes"), 4);
    cr_expect_eq(machine_stat(m, "coherence.l2_invalidates"), 4);
    cr_expect_eq(machine_stat(m, "coherence.l1_invalidates"), 2);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.flushes"), 2);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet1.l2.invalidates"), 2);
    /* the producer's 16 dirty lines were written back by the first flush */
    cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.flush_writebacks"), LINES);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet1.l2.flush_writebacks"), 0);
    /* the consumer reads every line from the home chiplet, which misses
     * (its L2 was emptied) and relays the flushed data from its L3 */
    cr_expect_eq(machine_stat(m, "gpu0.chiplet0.remote_requests"), LINES);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.read_hits"), 0);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    cr_expect_eq(machine_stat(m, "checker.checked_loads"), LINES);
    machine_free(m);
}

Test(viper, operations_in_order_kernel_by_kernel)
{
    const char *ini[] = {"", "[coherence]\nrelease_at = launch\n"};
    for (int v = 0; v < 2; v++) {
        struct machine *m = machine_new(ini[v]);
        struct coh_log log = {0};
        m->g.ms.cm.log = &log;
        const struct kernel_buf *x = buf(m);
        add(m, x, WRITE, NONE);
        add(m, x, NONE, READ);
        cr_assert_eq(machine_run(m), SIM_DONE);
        /* D11 default: K0 launch: inv 0,1; K0 end: flush 0,1; K1 launch: inv
         * 0,1; K1 end: flush 0,1. Artifact order: every launch flushes, then
         * invalidates, each chiplet; nothing at kernel ends. */
        static const struct { unsigned k, c; enum coh_cache_op op; } want[2][8] = {
            {{0, 0, COH_INVALIDATE_CLEAN}, {0, 1, COH_INVALIDATE_CLEAN}, {0, 0, COH_FLUSH},
             {0, 1, COH_FLUSH}, {1, 0, COH_INVALIDATE_CLEAN}, {1, 1, COH_INVALIDATE_CLEAN},
             {1, 0, COH_FLUSH}, {1, 1, COH_FLUSH}},
            {{0, 0, COH_FLUSH}, {0, 1, COH_FLUSH}, {0, 0, COH_INVALIDATE_CLEAN},
             {0, 1, COH_INVALIDATE_CLEAN}, {1, 0, COH_FLUSH}, {1, 1, COH_FLUSH},
             /* chiplet 1 has nothing to write back: its invalidate starts first */
             {1, 1, COH_INVALIDATE_CLEAN}, {1, 0, COH_INVALIDATE_CLEAN}},
        };
        cr_assert_eq(log.n, 8, "variant %d: %zu operations", v, log.n);
        for (size_t i = 0; i < 8; i++) {
            cr_expect_eq(log.v[i].kernel, want[v][i].k, "variant %d op %zu", v, i);
            cr_expect_eq(log.v[i].chiplet, want[v][i].c, "variant %d op %zu", v, i);
            cr_expect_eq(log.v[i].op, want[v][i].op, "variant %d op %zu", v, i);
            if (i)
                cr_expect_geq(log.v[i].t, log.v[i - 1].t);
        }
        free(log.v);
        m->g.ms.cm.log = NULL;
        machine_free(m);
    }
}

Test(ideal, no_l2_operations_and_the_home_l2_serves_the_consumer)
{
    struct machine *m = machine_new("[coherence]\nscheme = ideal\n");
    const struct kernel_buf *x = buf(m);
    add(m, x, WRITE, NONE);
    add(m, x, NONE, READ);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "l2.flushes"), 0);
    cr_expect_eq(machine_stat(m, "l2.invalidates"), 0);
    cr_expect_eq(machine_stat(m, "coherence.l1_invalidates"), 2);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.read_hits"), LINES, "inter-kernel reuse");
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    machine_free(m);
}

static void half_lines(const char *ini)
{
    struct machine *m = machine_new(ini);
    const struct kernel_buf *x = buf(m);
    add(m, x, WRITE, NONE); /* home: chiplet 0 */
    add(m, x, NONE, READ);  /* chiplet 1 may cache X (artifact D4) */
    add(m, x, HALF, HALF);  /* both write different bytes of every line */
    add(m, x, READ, READ);
    add(m, x, HALF, HALF);
    add(m, x, READ, READ);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0, "false alarm under %s", ini);
    cr_expect_eq(machine_stat(m, "checker.checked_loads"), 5 * LINES);
    machine_free(m);
}

Test(checker, no_false_alarm_when_chiplets_write_different_bytes_of_a_line)
{
    half_lines("");
    half_lines("[coherence]\nremote_read_alloc = requester_yes\nremote_store = write_back\n");
    half_lines("[coherence]\nrelease_at = launch\n");
    half_lines("[coherence]\nscheme = ideal\n");
}

Test(checker, fires_when_the_l1_invalidate_is_dropped)
{
    const char *ini[] = {"", "[coherence]\nfault = skip_l1_inv\n"};
    for (int f = 0; f < 2; f++) {
        struct machine *m = machine_new(ini[f]);
        const struct kernel_buf *x = buf(m);
        add(m, x, WRITE, NONE); /* home: chiplet 0 */
        add(m, x, NONE, READ);  /* chiplet 1's first CU caches X in its L1 */
        add(m, x, WRITE, NONE); /* chiplet 0 writes X again */
        add(m, x, NONE, READ);  /* same CU: its L1 still holds the old X */
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), f ? LINES : 0, "fault %d: %llu stale", f, (unsigned long long)machine_stat(m, "checker.stale_reads"));
        machine_free(m);
    }
}

Test(checker, fires_when_an_l2_invalidate_is_dropped)
{
    const char *ini[] = {"[coherence]\nremote_read_alloc = requester_yes\n",
                         "[coherence]\nremote_read_alloc = requester_yes\nfault = skip_l2_inv\n"};
    for (int f = 0; f < 2; f++) {
        struct machine *m = machine_new(ini[f]);
        const struct kernel_buf *x = buf(m);
        add(m, x, WRITE, NONE);
        add(m, x, NONE, READ);  /* chiplet 1's L2 keeps copies (artifact D4) */
        add(m, x, WRITE, NONE);
        add(m, x, NONE, READ);  /* L1 invalidated, but the L2 copies are old */
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), f ? LINES : 0, "fault %d: %llu stale", f, (unsigned long long)machine_stat(m, "checker.stale_reads"));
        machine_free(m);
    }
}

Test(checker, annotation_mode_catches_undeclared_writes_and_ranges)
{
    struct machine *m = machine_new("[check]\nannotations = true\n");
    const struct kernel_buf *x = buf(m);
    const struct kernel_buf *y = wl_alloc(&m->env, "Y", 64);
    add(m, x, WRITE, NONE);
    m->k[0].args[0].mode = KERNEL_R;   /* declared read-only, but written: 16 lines */
    add(m, x, NONE, READ);
    m->k[1].args[0].buf = y;           /* X is not declared at all: 16 lines */
    add(m, x, READ, NONE);             /* correct */
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "checker.annotation_violations"), 2 * LINES);
    cr_expect_str_eq(m->g.chk.arep[0].why, "write to a structure declared read-only");
    cr_expect_eq(m->g.chk.arep[0].kernel, 0);
    machine_free(m);
}

/* Work-group 0 declares only the first half of X. */
static unsigned half_range(const struct kernel *k, uint32_t wg, unsigned arg,
                           struct addr_range *out, unsigned max)
{
    (void)arg;
    (void)max;
    out[0] = (struct addr_range){k->p[0] + (wg ? LINES * 32 : 0), k->p[0] + LINES * 32 * (wg + 1)};
    return 1;
}

Test(checker, annotation_mode_checks_work_group_ranges)
{
    struct machine *m = machine_new("[check]\nannotations = true\n");
    const struct kernel_buf *x = buf(m);
    add(m, x, WRITE, NONE); /* work-group 0 writes all 16 lines, declared 8 */
    m->k[0].ranges = half_range;
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "checker.annotation_violations"), LINES / 2);
    cr_expect_str_eq(m->g.chk.arep[0].why, "outside the work-group's declared ranges");
    cr_expect_eq(m->g.chk.arep[0].addr, x->base + LINES * 32);
    machine_free(m);
}

/* Table I's L3 is one 16 MB cache per GPU whatever the chiplet count
 * (l3_sizing = gpu_total): the tiny machine's 64 KiB of 8-way, 64 B lines
 * over 2, 4 and 6 slices. 6 does not divide it: each slice keeps 16 sets
 * (the largest power of two of 8-way sets in its 170 lines) and 10 ways. */
Test(memsys, the_l3_is_split_over_the_chiplets)
{
    static const struct {
        unsigned chiplets, sets, ways;
    } want[] = {{2, 64, 8}, {4, 32, 8}, {6, 16, 10}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char ini[96];
        snprintf(ini, sizeof ini, "[gpu]\nl3_sizing = gpu_total\nchiplets = %u\n",
                 want[i].chiplets);
        struct machine *m = machine_new(ini);
        for (unsigned c = 0; c < want[i].chiplets; c++) {
            cr_expect_eq(m->g.ms.l3[c].sets, want[i].sets, "%u chiplets", want[i].chiplets);
            cr_expect_eq(m->g.ms.l3[c].p.ways, want[i].ways, "%u chiplets", want[i].chiplets);
        }
        machine_free(m);
    }
    struct err e;
    cr_expect_null(machine_try("[gpu]\nl3_sizing = gpu_total\nchiplets = 64\n[l3]\nbanks = 4\n",
                               &e));
    cr_expect(strstr(e.msg, "[l3] size_kib"), "%s", e.msg);
}
