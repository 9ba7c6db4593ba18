/*
 * test_scoped.c -- scoped acquire and release through the coherence
 * contract, on configs/tiny.ini (2 chiplets of 2 CUs). Requests are made
 * as a CU makes them (stores versioned by the checker, loads checked by
 * it): an acquire at GPU scope must make a CU's later loads see a store
 * released before it, under the default hooks and under viper with both
 * readings of D4; and a test-only fault that drops the acquire's
 * invalidations must make the checker fire.
 */
#include <criterion/criterion.h>

#include "machine.h"

#define LINE 0x100000000ull /* homed on chiplet 1 below */

static bool done;
static uint32_t got[REQ_WORDS];

static void req_done(struct sim *s, struct req *r, void *obj)
{
    (void)obj;
    memcpy(got, r->ver, sizeof got);
    done = true;
    req_free(s, r);
}

static void op_done(struct sim *s, void *arg)
{
    (void)s;
    ++*(unsigned *)arg;
}

/* CU cu reads (or writes) word 0 of LINE, weakly, and runs to the end;
 * for a read, true if the checker found it stale. */
static bool access_word(struct machine *m, unsigned cu, enum req_kind kind)
{
    struct req *r = req_alloc(&m->s);
    r->addr = LINE;
    r->size = 4;
    r->kind = (uint8_t)kind;
    r->home = 1;
    r->src = (uint16_t)cu;
    req_mask_range(r->mask, 0, 4);
    if (kind == REQ_WRITE)
        chk_store_cu(&m->g.chk, LINE, r->mask, r->ver, cu);
    req_on_done(r, req_done, NULL);
    done = false;
    memsys_l1_access(&m->g.ms, cu, r);
    cr_assert_eq(sim_run(&m->s, 0), SIM_DONE);
    cr_assert(done);
    if (kind != REQ_READ)
        return false;
    uint64_t mask[2];
    req_mask_range(mask, 0, 4);
    return chk_load(&m->g.chk, LINE, mask, got, cu);
}

static void release(struct machine *m, unsigned cu)
{
    unsigned n = 0;
    memsys_release(&m->g.ms, cu, SCOPE_GPU, op_done, &n);
    cr_assert_eq(sim_run(&m->s, 0), SIM_DONE);
    cr_assert_eq(n, 1);
    chk_release(&m->g.chk, cu, SCOPE_GPU);
}

static void acquire(struct machine *m, unsigned cu)
{
    unsigned n = 0;
    memsys_acquire(&m->g.ms, cu, SCOPE_GPU, op_done, &n);
    memsys_acquire(&m->g.ms, cu, SCOPE_GPU, op_done, &n); /* two warps at once */
    cr_assert_eq(sim_run(&m->s, 0), SIM_DONE);
    cr_assert_eq(n, 2, "both acquires finish");
    chk_acquire(&m->g.chk, cu, SCOPE_GPU);
}

/* CU 0 (chiplet 0) reads the line, CU 2 (chiplet 1, its home) writes it and
 * releases, CU 0 acquires and reads again: stale or not? */
static bool producer_consumer(const char *ini)
{
    struct machine *m = machine_new(ini);
    chk_kernel_begin(&m->g.chk, 0);
    cr_expect_not(access_word(m, 0, REQ_READ));
    access_word(m, 2, REQ_WRITE);
    release(m, 2);
    acquire(m, 0);
    bool stale = access_word(m, 0, REQ_READ);
    cr_expect_eq(m->g.chk.st.sync_stale_reads, stale);
    machine_free(m);
    return stale;
}

Test(scoped, the_default_acquire_invalidates_the_l1)
{
    /* hmg has no acquire of its own: its directory keeps the L2s, the default
     * acquire the L1 */
    cr_expect_not(producer_consumer("[coherence]\nscheme = hmg\n"));
}

Test(scoped, the_oracle_drops_stale_copies_at_an_acquire)
{
    cr_expect_not(producer_consumer("[coherence]\nscheme = ideal\n"));
    cr_expect(producer_consumer("[coherence]\nscheme = ideal\nfault = no_drop\n"));
}

Test(scoped, viper_under_both_readings_of_d4)
{
    cr_expect_not(producer_consumer("[coherence]\nscheme = viper\n"));
    cr_expect_not(producer_consumer("[coherence]\nscheme = viper\nremote_read_alloc = "
                                    "requester_yes\nremote_store = write_back\n"));
    cr_expect_not(producer_consumer("[coherence]\nscheme = cpelide\nremote_read_alloc = "
                                    "requester_yes\nremote_store = write_back\n"));
}

Test(scoped, dropping_the_acquires_invalidation_makes_the_checker_fire)
{
    cr_expect(producer_consumer("[coherence]\nscheme = viper\nfault = skip_acquire_inv\n"));
    cr_expect(producer_consumer("[coherence]\nscheme = viper\nfault = skip_acquire_inv\n"
                                "remote_read_alloc = requester_yes\n"));
}

Test(scoped, a_release_flushes_remote_stores_kept_locally)
{
    /* CU 0 writes the line homed on chiplet 1; with write_back it stays dirty in
     * chiplet 0's L2 until CU 0 releases; CU 2 then acquires and reads it */
    struct machine *m = machine_new("[coherence]\nscheme = viper\nremote_store = write_back\n");
    chk_kernel_begin(&m->g.chk, 0);
    access_word(m, 0, REQ_WRITE);
    uint64_t wb = machine_stat(m, "gpu0.chiplet0.l2.flushes");
    release(m, 0);
    cr_expect_eq(machine_stat(m, "gpu0.chiplet0.l2.flushes"), wb + 1);
    acquire(m, 2);
    cr_expect_not(access_word(m, 2, REQ_READ));
    machine_free(m);
}
