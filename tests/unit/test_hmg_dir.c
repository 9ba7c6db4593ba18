/*
 * The directory transitions of NHCC and HMG (spec hmg.md 4.2, thesis Table
 * 5.1), row by row: an entry tracking sharers 1 and 3, events from sender 2
 * (not a sharer) and sender 3 (a sharer).
 */
#include <criterion/criterion.h>

#include "coherence/hmg_dir.h"

#define S1 (1ull << 1)
#define S2 (1ull << 2)
#define S3 (1ull << 3)

static void step_is(enum hmg_dstate st, uint64_t sharers, enum hmg_devent ev, unsigned s,
                    enum hmg_dstate next, uint64_t after, uint64_t inv)
{
    struct hmg_dstep o = hmg_dir_step(st, sharers, ev, s);
    cr_assert_eq(o.next, next, "state %d event %d: next %d", st, ev, o.next);
    cr_assert_eq(o.sharers, after, "state %d event %d: sharers %#llx", st, ev,
                 (unsigned long long)o.sharers);
    cr_assert_eq(o.inv, inv, "state %d event %d: invalidated %#llx", st, ev,
                 (unsigned long long)o.inv);
}

Test(hmg_dir, state_i_local_accesses_do_nothing)
{
    step_is(HMG_I, 0, HMG_LOCAL_LD, 0, HMG_I, 0, 0);
    step_is(HMG_I, 0, HMG_LOCAL_ST, 0, HMG_I, 0, 0);
    cr_assert_eq(hmg_dtable[HMG_I][HMG_LOCAL_LD].act, 0);
    cr_assert_eq(hmg_dtable[HMG_I][HMG_LOCAL_ST].act, 0);
}

Test(hmg_dir, state_i_remote_accesses_add_the_sender_and_go_to_v)
{
    step_is(HMG_I, 0, HMG_REMOTE_LD, 2, HMG_V, S2, 0);
    step_is(HMG_I, 0, HMG_REMOTE_ST, 2, HMG_V, S2, 0);
}

Test(hmg_dir, state_i_has_no_entry_to_replace_and_ignores_invalidations)
{
    cr_assert(hmg_dtable[HMG_I][HMG_REPLACE].act & HMG_A_NA);
    step_is(HMG_I, 0, HMG_INV, 0, HMG_I, 0, 0);
}

Test(hmg_dir, state_v_local_load_changes_nothing)
{
    step_is(HMG_V, S1 | S3, HMG_LOCAL_LD, 0, HMG_V, S1 | S3, 0);
}

Test(hmg_dir, state_v_local_store_invalidates_every_sharer_and_goes_to_i)
{
    step_is(HMG_V, S1 | S3, HMG_LOCAL_ST, 0, HMG_I, 0, S1 | S3);
}

Test(hmg_dir, state_v_remote_load_adds_the_sender)
{
    step_is(HMG_V, S1 | S3, HMG_REMOTE_LD, 2, HMG_V, S1 | S2 | S3, 0);
    step_is(HMG_V, S1 | S3, HMG_REMOTE_LD, 3, HMG_V, S1 | S3, 0);
}

Test(hmg_dir, state_v_remote_store_keeps_the_sender_and_invalidates_the_others)
{
    step_is(HMG_V, S1 | S3, HMG_REMOTE_ST, 2, HMG_V, S2, S1 | S3);
    step_is(HMG_V, S1 | S3, HMG_REMOTE_ST, 3, HMG_V, S3, S1);
}

Test(hmg_dir, state_v_replacement_invalidates_every_sharer_and_goes_to_i)
{
    step_is(HMG_V, S1 | S3, HMG_REPLACE, 0, HMG_I, 0, S1 | S3);
}

Test(hmg_dir, state_v_invalidation_is_forwarded_to_every_sharer_and_goes_to_i)
{
    step_is(HMG_V, S1 | S3, HMG_INV, 0, HMG_I, 0, S1 | S3);
    cr_assert(hmg_dtable[HMG_V][HMG_INV].act & HMG_A_FWD);
}
