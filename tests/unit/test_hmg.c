/*
 * HMG (multi-chiplet form) on scripted kernel sequences: which invalidations
 * the home's directory sends on stores and on directory evictions, that L2s
 * keep remote data across kernel boundaries, and that the checker agrees.
 * Kernels have one work-group per chiplet (work-group c on chiplet c).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "machine.h"

enum role { NONE, READ, WRITE };

#define LINES 16

/* p[0]: base of X; p[1 + wg]: role of work-group wg; p[6]: lines. */
static void roles_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    enum role r = (enum role)k->p[1 + w->wg];
    unsigned lines = (unsigned)k->p[6];
    if (r == NONE || w->pc >= lines / 4) {
        op->kind = KOP_EXIT;
        return;
    }
    unsigned i = w->pc++;
    op->kind = r == READ ? KOP_LOAD : KOP_STORE;
    op->dst = r == READ ? (uint8_t)(1 + i % 8) : 0;
    op->size = 4;
    op->stride = 4;
    op->base = k->p[0] + i * 256;
}

static void kern(struct machine *m, const struct kernel_buf *x, unsigned lines, enum role r0,
                 enum role r1, enum role r2)
{
    struct kernel *k = &m->k[m->nk++];
    unsigned nwg = m->g.ms.nch;
    wl_kernel_init(k, "hmg", nwg, 1, 64, 1, roles_next);
    wl_kernel_arg(k, x, r0 == WRITE || r1 == WRITE || r2 == WRITE ? KERNEL_RW : KERNEL_R);
    k->p[0] = x->base;
    k->p[1] = r0;
    k->p[2] = r1;
    k->p[3] = r2;
    k->p[6] = lines;
}

#define HMG "[coherence]\nscheme = hmg\n"
#define THREE "[gpu]\nchiplets = 3\n"

Test(hmg, a_store_at_the_home_invalidates_every_sharer)
{
    const char *ini[] = {HMG, HMG "fault = no_inval\n"};
    for (int f = 0; f < 2; f++) {
        struct machine *m = machine_new(ini[f]);
        const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
        kern(m, x, LINES, WRITE, NONE, NONE); /* home: chiplet 0 */
        kern(m, x, LINES, NONE, READ, NONE);  /* chiplet 1 becomes a sharer, caches X */
        kern(m, x, LINES, WRITE, NONE, NONE); /* local store at the home: invalidate 1 */
        kern(m, x, LINES, NONE, READ, NONE);  /* chiplet 1 misses and gets the new X */
        cr_assert_eq(machine_run(m), SIM_DONE);
        /* 16 lines = 4 directory entries of 4 lines, one sharer each */
        cr_expect_eq(machine_stat(m, "coherence.invals_store"), f ? 0 : 4);
        cr_expect_eq(machine_stat(m, "coherence.lines_invalidated"), f ? 0 : LINES);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), f ? LINES : 0, "fault %d: %llu", f,
                     (unsigned long long)machine_stat(m, "checker.stale_reads"));
        /* no bulk L2 operation at any boundary */
        cr_expect_eq(machine_stat(m, "l2.flushes") + machine_stat(m, "l2.invalidates"), 0);
        machine_free(m);
    }
}

Test(hmg, a_remote_store_invalidates_the_other_sharers_only)
{
    struct machine *m = machine_new(HMG THREE);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    kern(m, x, LINES, WRITE, NONE, NONE); /* home: chiplet 0 */
    kern(m, x, LINES, NONE, READ, READ);  /* sharers 1 and 2 */
    kern(m, x, LINES, NONE, WRITE, NONE); /* chiplet 1 stores: chiplet 2 invalidated, 1 kept */
    kern(m, x, LINES, NONE, READ, READ);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "coherence.invals_store"), 4);
    cr_expect_eq(machine_stat(m, "coherence.inval_sharers"), 4);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet1.l2.read_hits"), LINES,
                 "the writer keeps its (written-through) copy");
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    machine_free(m);
}

Test(hmg, the_home_and_the_requester_both_keep_remote_data)
{
    struct machine *m = machine_new(HMG THREE);
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    kern(m, x, LINES, READ, NONE, NONE);  /* home: chiplet 0 (first touch) */
    kern(m, x, LINES, NONE, READ, NONE);  /* chiplet 1: remote misses, home hits */
    kern(m, x, LINES, NONE, READ, READ);  /* chiplet 1 hits locally; chiplet 2 at the home */
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.read_hits"), 2 * LINES);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet1.l2.read_hits"), LINES);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    machine_free(m);
}

Test(hmg, the_home_allocates_lines_for_remote_readers)
{
    /* X is homed on chiplet 0 but pushed out of its L2 by Y (twice the L2);
     * chiplet 1's remote reads then miss at the home, which allocates X for
     * them (D13) so that chiplet 2's reads hit there; with hmg_home_alloc =
     * false the home relays them from its L3 and chiplet 2 misses too. */
    const char *ini[] = {HMG THREE, HMG "hmg_home_alloc = false\n" THREE};
    for (int f = 0; f < 2; f++) {
        struct machine *m = machine_new(ini[f]);
        const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
        const struct kernel_buf *y = wl_alloc(&m->env, "Y", 2048 * 64);
        kern(m, x, LINES, READ, NONE, NONE);
        kern(m, y, 2048, READ, NONE, NONE);
        kern(m, x, LINES, NONE, READ, NONE);
        kern(m, x, LINES, NONE, NONE, READ);
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.read_hits"), f ? 0 : LINES, "%s",
                     ini[f]);
        cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.read_misses"),
                     LINES + 2048 + (f ? 2 : 1) * LINES, "%s", ini[f]);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
        machine_free(m);
    }
}

Test(hmg, home_allocation_needs_mshrs_kept_for_remote_requests)
{
    struct err e;
    cr_expect_null(machine_try(HMG "[l2]\nmshrs_remote = 0\n", &e));
    cr_expect_str_eq(e.msg, "default: [coherence] hmg_home_alloc = true: needs MSHRs kept for remote "
                            "requests ([l2] mshrs_remote > 0), or local and remote misses "
                            "could deadlock over the L2's MSHRs");
    struct machine *m = machine_new(HMG "hmg_home_alloc = false\n[l2]\nmshrs_remote = 0\n");
    machine_free(m);
}

Test(hmg, a_directory_eviction_invalidates_the_victims_sharers)
{
    /* one set of 2 entries: the third region read remotely evicts the first */
    struct machine *m = machine_new(HMG "dir_entries = 2\ndir_ways = 2\n");
    const struct kernel_buf *x = wl_alloc(&m->env, "X", 12 * 64);
    kern(m, x, 12, WRITE, NONE, NONE); /* home 0; no sharers yet */
    kern(m, x, 12, NONE, READ, NONE);  /* 3 regions: the third evicts the first */
    kern(m, x, 12, NONE, READ, NONE);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_geq(machine_stat(m, "coherence.dir_evictions"), 1);
    cr_expect_eq(machine_stat(m, "coherence.invals_evict"),
                 machine_stat(m, "coherence.dir_evictions"));
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    machine_free(m);
}

Test(hmg, write_back_variant_flushes_at_releases)
{
    struct machine *m = machine_new(HMG "hmg_write_back = true\n");
    const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
    kern(m, x, LINES, WRITE, NONE, NONE);
    kern(m, x, LINES, NONE, READ, NONE);
    kern(m, x, LINES, NONE, WRITE, NONE); /* dirty in chiplet 1, written back to the home */
    kern(m, x, LINES, READ, NONE, NONE);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(machine_stat(m, "l2.flushes"), 4 * 2);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet1.l2.flush_writebacks"), LINES);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    machine_free(m);
}

/* dir_lookup_cycles: a store's invalidations leave the home only after the
 * directory lookup, and the release at the kernel's end waits for their
 * delivery: with a lookup far longer than the kernel, the releases take it
 * (less the part of it that overlaps the stores' kernel), and no more. */
Test(hmg, invalidations_leave_after_the_directory_lookup)
{
    const unsigned lookup = 20000;
    uint64_t rel[2], run = 0, period = 0;
    for (int i = 0; i < 2; i++) {
        char ini[128];
        snprintf(ini, sizeof ini, HMG "dir_lookup_cycles = %u\n", i ? lookup : 0);
        struct machine *m = machine_new(ini);
        const struct kernel_buf *x = wl_alloc(&m->env, "X", LINES * 64);
        kern(m, x, LINES, WRITE, NONE, NONE);
        kern(m, x, LINES, NONE, READ, NONE);
        kern(m, x, LINES, WRITE, NONE, NONE); /* invalidates chiplet 1's copies */
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect_eq(machine_stat(m, "coherence.invals_store"), 4);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
        rel[i] = machine_stat(m, "cp.release_ps");
        run = machine_stat(m, "cp.run_ps");
        period = m->g.ms.gpu_clk.period;
        machine_free(m);
    }
    uint64_t added = rel[1] - rel[0], want = lookup * period;
    cr_expect_leq(added, want, "%llu ps", (unsigned long long)added);
    cr_expect_geq(added, want - run, "%llu ps", (unsigned long long)added);
}
