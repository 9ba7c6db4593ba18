/*
 * test_checker_sync.c -- the checker's release/acquire rule inside a kernel:
 * on 2 GPUs of 2 CUs each, a load after an acquire must see the stores
 * released to it, at the scopes that hold both CUs; and it must not fire
 * where nothing orders the two.
 */
#include <criterion/criterion.h>

#include "coherence/checker.h"

#define LINE 0x10000ull

static struct chk c;
static uint32_t stored[32];

static void setup(void)
{
    chk_init(&c, true, 64);
    chk_sync_init(&c, 4, 2, 1);
    chk_kernel_begin(&c, 0);
}

static void teardown(void) { chk_free(&c); }

/* CU cu stores word 0 of the line: its version in stored[0]. */
static void store(unsigned cu) { chk_store_cu(&c, LINE, (uint64_t[2]){0xf, 0}, stored, cu); }

/* CU cu loads word 0 and gets version `got`: stale? */
static bool load(unsigned cu, uint32_t got)
{
    uint32_t ver[32] = {got};
    return chk_load(&c, LINE, (uint64_t[2]){0xf, 0}, ver, cu);
}

TestSuite(chk_sync, .init = setup, .fini = teardown);

Test(chk_sync, a_load_after_an_acquire_must_see_the_released_store)
{
    store(0);
    chk_release(&c, 0, SCOPE_GPU);
    cr_expect_not(load(1, 0), "before its acquire, CU 1 may still see the old value");
    chk_acquire(&c, 1, SCOPE_GPU);
    cr_expect(load(1, 0), "after the acquire the old value is stale");
    cr_expect_not(load(1, stored[0]), "the released version is fine");
    cr_expect_eq(c.st.stale_reads, 1);
    cr_expect_eq(c.st.sync_stale_reads, 1);
    cr_expect_eq(c.rep[0].want, stored[0]);
    cr_expect_eq(c.rep[0].cu, 1);
}

Test(chk_sync, gpu_scope_does_not_reach_another_gpu)
{
    store(0);
    chk_release(&c, 0, SCOPE_GPU);
    chk_acquire(&c, 2, SCOPE_GPU); /* CU 2 is on GPU 1 */
    cr_expect_not(load(2, 0));
    chk_acquire(&c, 2, SCOPE_SYS); /* still: the release was at GPU scope */
    cr_expect_not(load(2, 0));
    cr_expect_eq(c.st.stale_reads, 0);
}

Test(chk_sync, system_scope_does)
{
    store(0);
    chk_release(&c, 0, SCOPE_SYS);
    chk_acquire(&c, 3, SCOPE_GPU); /* an acquire at GPU scope on another GPU: not ordered */
    cr_expect_not(load(3, 0));
    chk_acquire(&c, 3, SCOPE_SYS);
    cr_expect(load(3, 0));
}

Test(chk_sync, nothing_orders_what_was_not_released_or_acquired_in_turn)
{
    chk_release(&c, 0, SCOPE_GPU); /* a release before the store covers nothing */
    store(0);
    chk_acquire(&c, 1, SCOPE_GPU);
    cr_expect_not(load(1, 0));
    chk_release(&c, 0, SCOPE_CTA); /* a work-group release does not reach another CU */
    chk_acquire(&c, 1, SCOPE_GPU);
    cr_expect_not(load(1, 0));
    chk_acquire(&c, 0, SCOPE_GPU); /* a CU's own store is its own business */
    cr_expect_not(load(0, 0));
    cr_expect_eq(c.st.stale_reads, 0);
}

Test(chk_sync, an_acquire_before_the_release_orders_nothing)
{
    store(0);
    chk_acquire(&c, 1, SCOPE_GPU);
    chk_release(&c, 0, SCOPE_GPU);
    cr_expect_not(load(1, 0));
}

Test(chk_sync, a_new_kernel_starts_afresh)
{
    store(0);
    chk_release(&c, 0, SCOPE_GPU);
    chk_acquire(&c, 1, SCOPE_GPU);
    chk_kernel_begin(&c, 1);
    /* the kernel-boundary rule applies now: the store was before this kernel */
    cr_expect(load(1, 0));
    cr_expect_eq(c.st.sync_stale_reads, 0, "the in-kernel rule no longer holds");
    cr_expect_eq(c.sync.agent[1].acq[SCOPE_GPU], 0);
}

/* Agents are work-groups: on 2 GPUs of 2 CUs with 2 work-group slots each,
 * a release by one work-group does not publish a store of another one that
 * shares its CU (that store may still be on its way), and the agent of a
 * slot is the CU's slot count times the CU plus the slot. */
Test(chk_sync_wg, a_release_covers_its_own_work_group_only)
{
    struct chk k;
    chk_init(&k, true, 64);
    chk_sync_init(&k, 4, 2, 2);
    chk_kernel_begin(&k, 0);
    cr_assert_eq(chk_agent(&k, 1, 1), 3);
    uint32_t v[32] = {0}, got[32] = {0};
    chk_store_cu(&k, LINE, (uint64_t[2]){0xf, 0}, v, chk_agent(&k, 0, 0));
    chk_release(&k, chk_agent(&k, 0, 1), SCOPE_GPU); /* the other slot of CU 0 */
    chk_acquire(&k, chk_agent(&k, 1, 0), SCOPE_GPU);
    cr_expect_not(chk_load(&k, LINE, (uint64_t[2]){0xf, 0}, got, chk_agent(&k, 1, 0)));
    chk_release(&k, chk_agent(&k, 0, 0), SCOPE_GPU); /* the writer's own work-group */
    chk_acquire(&k, chk_agent(&k, 1, 0), SCOPE_GPU);
    cr_expect(chk_load(&k, LINE, (uint64_t[2]){0xf, 0}, got, chk_agent(&k, 1, 0)));
    cr_expect_eq(k.rep[0].cu, 1, "reported by its CU");
    /* work-group 1 of CU 2 is on GPU 1: a GPU-scope release does not reach it */
    chk_acquire(&k, chk_agent(&k, 2, 1), SCOPE_GPU);
    cr_expect_not(chk_load(&k, LINE, (uint64_t[2]){0xf, 0}, got, chk_agent(&k, 2, 1)));
    chk_free(&k);
}
