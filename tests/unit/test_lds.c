/*
 * LDS model: exact cycle counts for conflict-free, broadcast and conflicting
 * accesses, lane grouping, the single port, range errors, stats and
 * lds_params_from_cfg. Default geometry: 64 KiB, 65 cycles, 32 banks of
 * 4 bytes, 32 lanes per cycle, conflicts on; clock 1000 MHz unless noted.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "test_util.h"
#include "mem/lds.h"
#include "stats/stats.h"

struct fix {
    struct sim s;
    struct clock clk;
    struct lds l;
    uint32_t a[64];
};

static struct lds_params p_def(void)
{
    return (struct lds_params){.size_kib = 64, .lat = 65, .banks = 32, .bank_b = 4,
                               .lanes_per_cycle = 32, .conflicts = true};
}

static void fix_init(struct fix *f, const struct lds_params *p, double mhz)
{
    memset(f, 0, sizeof *f);
    sim_init(&f->s, 1);
    clock_init(&f->clk, "gpu", mhz);
    lds_init(&f->l, &f->s, &f->clk, p);
}

static void fix_free(struct fix *f)
{
    lds_free(&f->l);
    sim_destroy(&f->s);
}

/* Lane i gets byte address base + stride * i. */
static void strided(struct fix *f, uint32_t base, uint32_t stride)
{
    for (uint32_t i = 0; i < 64; i++)
        f->a[i] = base + stride * i;
}

static uint32_t acc(struct fix *f, uint64_t mask) { return lds_access(&f->l, f->a, mask, 64, false); }

Test(lds, conflict_free_wavefront_takes_the_latency)
{
    struct lds_params p = p_def();
    struct fix f;
    fix_init(&f, &p, 1000);
    strided(&f, 0, 4); /* each half covers the 32 banks once */
    cr_expect_eq(acc(&f, ~0ull), 65);
    cr_expect_eq(f.l.next_free, 2); /* two half-wavefronts */
    cr_expect_eq(f.l.st.bank_conflict_cycles, 0);
    cr_expect_eq(f.l.st.accesses, 1);
    fix_free(&f);
}

Test(lds, same_word_is_broadcast)
{
    struct lds_params p = p_def();
    struct fix f;
    fix_init(&f, &p, 1000);
    strided(&f, 40, 0); /* every lane reads word 10 */
    cr_expect_eq(acc(&f, ~0ull), 65);
    for (int i = 0; i < 32; i++) /* half the lanes read word 0, half word 32: both bank 0 */
        f.a[i] = i < 16 ? 0 : 128;
    cr_expect_eq(lds_access(&f.l, f.a, ~0ull, 32, false), 65 + 2 + 1); /* port wait 2 */
    cr_expect_eq(f.l.st.bank_conflict_cycles, 1);
    fix_free(&f);
}

Test(lds, strided_conflicts_add_cycles)
{
    struct lds_params p = p_def();
    struct fix f;
    fix_init(&f, &p, 1000);
    strided(&f, 0, 8); /* two distinct words per even bank in each half */
    cr_expect_eq(acc(&f, ~0ull), 65 + 1 + 1);
    cr_expect_eq(f.l.next_free, 4);
    cr_expect_eq(f.l.st.bank_conflict_cycles, 2);
    fix_free(&f);

    fix_init(&f, &p, 1000);
    strided(&f, 0, 128); /* every lane in bank 0: 32-way per half */
    cr_expect_eq(acc(&f, ~0ull), 65 + 31 + 31);
    cr_expect_eq(f.l.next_free, 64);
    cr_expect_eq(f.l.st.bank_conflict_cycles, 62);
    fix_free(&f);
}

Test(lds, conflicts_off_is_always_conflict_free)
{
    struct lds_params p = p_def();
    p.conflicts = false;
    struct fix f;
    fix_init(&f, &p, 1000);
    strided(&f, 0, 128);
    cr_expect_eq(acc(&f, ~0ull), 65);
    cr_expect_eq(f.l.next_free, 2);
    cr_expect_eq(f.l.st.bank_conflict_cycles, 0);
    fix_free(&f);
}

Test(lds, lanes_per_cycle_sets_the_conflict_window)
{
    struct lds_params p = p_def();
    struct fix f;
    p.lanes_per_cycle = 64; /* stride 2 words: 4 distinct words per even bank */
    fix_init(&f, &p, 1000);
    strided(&f, 0, 8);
    cr_expect_eq(acc(&f, ~0ull), 65 + 3);
    cr_expect_eq(f.l.next_free, 4);
    fix_free(&f);

    p.lanes_per_cycle = 16; /* 16 lanes at stride 2 words hit 16 distinct banks */
    fix_init(&f, &p, 1000);
    strided(&f, 0, 8);
    cr_expect_eq(acc(&f, ~0ull), 65);
    cr_expect_eq(f.l.next_free, 4); /* four groups */
    fix_free(&f);
}

Test(lds, only_active_lanes_and_groups_count)
{
    struct lds_params p = p_def();
    struct fix f;
    fix_init(&f, &p, 1000);
    strided(&f, 0, 128);
    cr_expect_eq(acc(&f, 0x3ull << 32), 65 + 1); /* lanes 32, 33: bank 0, two words */
    cr_expect_eq(f.l.next_free, 2);              /* one group, degree 2 */
    cr_expect_eq(acc(&f, 0), 2 + 65);            /* no lane: port untouched */
    cr_expect_eq(f.l.next_free, 2);
    /* lanes >= nlanes are ignored even when their mask bit is set */
    cr_expect_eq(lds_access(&f.l, f.a, 0x1ull | 1ull << 40, 32, false), 2 + 65);
    cr_expect_eq(f.l.next_free, 3);
    fix_free(&f);
}

Test(lds, the_port_serialises_same_cycle_accesses)
{
    struct lds_params p = p_def();
    struct fix f;
    fix_init(&f, &p, 1000);
    strided(&f, 0, 4);
    cr_expect_eq(acc(&f, ~0ull), 65);
    cr_expect_eq(acc(&f, ~0ull), 67);
    cr_expect_eq(acc(&f, ~0ull), 69);
    f.s.now = 3000; /* cycle 3: port free at 6 */
    cr_expect_eq(acc(&f, ~0ull), 3 + 65);
    f.s.now = 100000; /* idle again */
    cr_expect_eq(acc(&f, ~0ull), 65);
    cr_expect_eq(f.l.next_free, 102);
    fix_free(&f);
}

Test(lds, cycles_count_from_the_next_clock_edge)
{
    struct lds_params p = p_def();
    struct fix f;
    fix_init(&f, &p, 1801); /* 555 ps */
    strided(&f, 0, 4);
    f.s.now = 600; /* next edge 1110 = cycle 2 */
    cr_expect_eq(acc(&f, ~0ull), 65);
    cr_expect_eq(f.l.next_free, 4);
    f.s.now = 1665; /* on the edge of cycle 3: port free at 4 */
    cr_expect_eq(acc(&f, 1), 1 + 65);
    fix_free(&f);
}

Test(lds, out_of_range_is_reported_and_changes_nothing)
{
    struct lds_params p = p_def();
    struct fix f;
    fix_init(&f, &p, 1000);
    strided(&f, 0, 4);
    f.a[5] = 65536;
    f.a[7] = 70000;
    cr_expect_eq(acc(&f, ~0ull), LDS_ERR_RANGE);
    cr_expect_eq(f.l.err_lane, 5);
    cr_expect_eq(f.l.err_addr, 65536);
    cr_expect_eq(f.l.st.accesses, 0);
    cr_expect_eq(f.l.next_free, 0);
    cr_expect_eq(acc(&f, ~0ull & ~(1ull << 5 | 1ull << 7)), 65); /* inactive: fine */
    f.a[5] = 65535;
    f.a[7] = 0;
    /* the last byte is in range; its word shares bank 31 with lane 31's */
    cr_expect_eq(lds_access(&f.l, f.a, ~0ull, 64, true), 2 + 65 + 1);
    cr_expect_eq(f.l.st.accesses, 2);
    cr_expect_eq(f.l.st.writes, 1);
    fix_free(&f);
}

Test(lds, stats_are_registered_under_the_prefix)
{
    struct lds_params p = p_def();
    struct fix f;
    fix_init(&f, &p, 1000);
    struct stats st;
    stats_init(&st);
    lds_reg_stats(&f.l, &st, "gpu0.cu3.lds");
    strided(&f, 0, 8);
    acc(&f, ~0ull);
    lds_access(&f.l, f.a, ~0ull, 64, true);
    cr_expect_eq(stats_get(&st, "gpu0.cu3.lds.accesses"), 2);
    cr_expect_eq(stats_get(&st, "gpu0.cu3.lds.writes"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.cu3.lds.bank_conflict_cycles"), 4);
    stats_free(&st);
    fix_free(&f);
}

static int from_cfg(const char *ini, struct lds_params *p, struct err *e)
{
    struct cfg c;
    int rc = tcfg_load(&c, "lds", lds_keys, NULL, ini, e);
    if (!rc)
        rc = lds_params_from_cfg(cfg_sec(&c, "lds"), p, e);
    cfg_free(&c);
    return rc;
}

Test(lds, params_from_cfg)
{
    struct lds_params p;
    struct err e = {{0}};
    cr_assert_eq(from_cfg("", &p, &e), 0, "%s", e.msg);
    cr_expect(p.size_kib == 64 && p.lat == 65 && p.banks == 32 && p.bank_b == 4 &&
              p.lanes_per_cycle == 32 && p.conflicts);
    cr_assert_eq(from_cfg("[lds]\nconflicts = false\nlat = 2\n", &p, &e), 0, "%s", e.msg);
    cr_expect(!p.conflicts && p.lat == 2);

    cr_expect_eq(from_cfg("[lds]\nsize_kib = 1\nbank_b = 64\n", &p, &e), -1);
    cr_expect_str_eq(e.msg, "t.ini:2: [lds] size_kib = 1: must be a whole number of bank rows "
                     "(banks x bank_b = 2048 bytes)");
    cr_expect_eq(from_cfg("[lds]\nlanes_per_cycle = 65\n", &p, &e), -1);
    cr_expect_str_eq(e.msg, "t.ini:2: [lds] lanes_per_cycle = 65: out of range [1, 64]");
}

/* Banks and words that are not powers of two take the divisions: 24 banks of
 * 12 B, lanes 288 B apart (a whole row: 24 x 12) all land in bank 0 as distinct
 * words, a 32-lane group conflicting 32 ways; 12 B apart, each its own bank, the
 * group's 32 lanes wrapping onto banks 0-7 twice. */
Test(lds, banks_and_words_not_powers_of_two)
{
    struct lds_params p = p_def();
    p.banks = 24;
    p.bank_b = 12;
    p.size_kib = 9; /* a whole number of 288 B rows */
    struct fix f;
    fix_init(&f, &p, 1000);
    strided(&f, 0, 288);
    acc(&f, 0xffffffffull);
    cr_expect_eq(f.l.st.bank_conflict_cycles, 31);
    fix_free(&f);
    fix_init(&f, &p, 1000);
    strided(&f, 0, 12);
    acc(&f, 0xffffffffull);
    cr_expect_eq(f.l.st.bank_conflict_cycles, 1);
    fix_free(&f);
}

/* The degree of a lane group by brute force: the most distinct words of any
 * bank among the active lanes. */
static unsigned brute_degree(const struct lds_params *p, const uint32_t *a, uint64_t gmask)
{
    unsigned deg = 1;
    for (unsigned i = 0; i < 64; i++) {
        if (!(gmask >> i & 1))
            continue;
        unsigned n = 0, b = a[i] / p->bank_b % p->banks;
        for (unsigned j = 0; j < 64; j++) {
            if (!(gmask >> j & 1) || a[j] / p->bank_b % p->banks != b)
                continue;
            bool seen = false; /* j's word named by an earlier lane of the bank */
            for (unsigned k = 0; k < j; k++)
                seen |= (gmask >> k & 1) && a[k] / p->bank_b == a[j] / p->bank_b;
            n += !seen;
        }
        deg = n > deg ? n : deg;
    }
    return deg;
}

/* Random lane addresses over few or many words and rows, partial masks,
 * both group sizes: the conflict cycles are the brute-force degrees' sum. */
Test(lds, conflict_degree_matches_a_brute_force_count)
{
    struct rng r;
    rng_seed(&r, 7);
    for (unsigned lpc = 16; lpc <= 32; lpc += 16) {
        struct lds_params p = p_def();
        p.lanes_per_cycle = lpc;
        for (unsigned trial = 0; trial < 2000; trial++) {
            struct fix f;
            fix_init(&f, &p, 1000);
            unsigned words = 1 + (unsigned)rng_below(&r, trial % 3 ? 48 : 4096);
            uint32_t row = (uint32_t)rng_below(&r, 4) * 128;
            for (unsigned i = 0; i < 64; i++)
                f.a[i] = row + 4 * (uint32_t)rng_below(&r, words) + (uint32_t)rng_below(&r, 4);
            uint64_t mask = trial % 4 ? ~0ull : rng_next(&r);
            uint64_t want = 0;
            for (unsigned g = 0; g < 64; g += lpc) {
                uint64_t gm = mask & (low_bits(lpc) << g);
                if (gm)
                    want += brute_degree(&p, f.a, gm) - 1;
            }
            acc(&f, mask);
            cr_assert_eq(f.l.st.bank_conflict_cycles, want, "trial %u, %u lanes per cycle", trial,
                         lpc);
            fix_free(&f);
        }
    }
}
