/*
 * test_checker.c -- the checker's versions (coherence/checker.h) against a
 * plain model that keeps every word's pair: random stores of whole lines and
 * of word sets over kernels, on 64-byte and 128-byte lines. Every load's
 * verdict, each line's last versions and floors, the lines recorded per
 * period and the version stamped into the store's data must be the model's;
 * and a line keeps a row of words exactly while its words' pairs differ.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "base/base.h"
#include "coherence/checker.h"

#define NLINES 6   /* over two pages */
#define NOPS 20000
#define MAXV (NOPS + 2)

struct model {
    unsigned words, line_b;
    uint32_t cur[NLINES][32], prev[NLINES][32];
    uint32_t seq, first;       /* versions handed out; the last before this kernel */
    uint32_t floor[MAXV];      /* per version: the first of its kernel */
    bool stored[NLINES];       /* stored in this kernel */
};

static addr_t line_addr(const struct model *m, unsigned l)
{
    return 0x40000 + (addr_t)(l / 3) * 4096 + (addr_t)(l % 3) * m->line_b * 5;
}

static uint32_t want(const struct model *m, unsigned l, unsigned i)
{
    uint32_t v = m->cur[l][i] > m->first ? m->prev[l][i] : m->cur[l][i];
    return v ? m->floor[v] : 0;
}

/* Byte mask of a word set. */
static void byte_mask(uint32_t wm, uint64_t mask[2])
{
    mask[0] = mask[1] = 0;
    for (unsigned i = 0; i < 32; i++)
        if (wm >> i & 1)
            mask[i / 16] |= 0xfull << (4 * (i % 16));
}

static bool words_differ(const struct model *m, unsigned l)
{
    for (unsigned i = 1; i < m->words; i++)
        if (m->cur[l][i] != m->cur[l][0] || m->prev[l][i] != m->prev[l][0])
            return true;
    return false;
}

static size_t rows_held(const struct chk *c)
{
    size_t free_rows = 0;
    for (uint32_t r = c->free_row; r; r = c->rows[(size_t)(r - 1) * c->words].cur)
        free_rows++;
    return c->nrows - free_rows;
}

static void check_periods_lines(struct chk *c, struct model *m)
{
    size_t want_n = 0;
    for (unsigned l = 0; l < NLINES; l++)
        want_n += m->stored[l];
    cr_assert_eq(c->stored.n, want_n, "lines recorded in the period");
    for (size_t k = 0; k < c->stored.n; k++) {
        unsigned l = 0;
        while (l < NLINES && line_addr(m, l) != c->stored.v[k])
            l++;
        cr_assert(l < NLINES && m->stored[l], "line %#llx recorded but not stored",
                  (unsigned long long)c->stored.v[k]);
    }
}

static void run_model(unsigned line_b, uint64_t seed)
{
    static struct model m;
    m = (struct model){.words = line_b / 4, .line_b = line_b};
    struct chk c;
    chk_init(&c, true, line_b);
    chk_track_lines(&c);
    chk_kernel_begin(&c, 0);
    struct rng rng;
    rng_seed(&rng, seed);
    uint32_t all = UINT32_MAX >> (32 - m.words), kernel = 0;
    uint64_t stale = 0;
    for (unsigned op = 0; op < NOPS; op++) {
        uint64_t r = rng_next(&rng);
        unsigned l = (unsigned)(r >> 8) % NLINES;
        uint32_t set = (uint32_t)rng_next(&rng) & all;
        if (r % 100 < 4) { /* a new kernel */
            check_periods_lines(&c, &m);
            c.stored.n = 0;
            memset(m.stored, 0, sizeof m.stored);
            chk_kernel_begin(&c, ++kernel);
            m.first = m.seq;
        } else if (r % 100 < 50) { /* a store: the whole line, or a set of words */
            uint32_t wm = r % 3 == 0 ? set : all;
            if (!wm)
                wm = 1;
            uint64_t mask[2];
            byte_mask(wm, mask);
            uint32_t ver[32] = {0};
            chk_store(&c, line_addr(&m, l), mask, ver);
            uint32_t v = ++m.seq;
            m.floor[v] = m.first + 1;
            m.stored[l] = true;
            for (unsigned i = 0; i < m.words; i++) {
                cr_assert_eq(ver[i], wm >> i & 1 ? v : 0, "op %u: version of word %u", op, i);
                if (!(wm >> i & 1))
                    continue;
                if (m.cur[l][i] <= m.first)
                    m.prev[l][i] = m.cur[l][i];
                m.cur[l][i] = v;
            }
        } else { /* a load of a set of words: each the oldest allowed, or one older */
            uint32_t wm = set ? set : all, ver[32] = {0};
            bool bad = false;
            for (unsigned i = 0; i < m.words; i++) {
                uint32_t w = want(&m, l, i);
                ver[i] = w && (rng_next(&rng) & 7) == 0 ? w - 1 : w + (uint32_t)(r >> 40) % 3;
                bad |= (wm >> i & 1) && ver[i] < w;
            }
            uint64_t mask[2];
            byte_mask(wm, mask);
            cr_assert_eq(chk_load(&c, line_addr(&m, l), mask, ver, 0), bad, "op %u: verdict",
                         op);
            stale += bad;
            cr_assert_eq(c.st.stale_reads, stale);
        }
        uint32_t got[32], fl[32];
        chk_line_cur(&c, line_addr(&m, l), got);
        chk_line_floor(&c, line_addr(&m, l), fl);
        for (unsigned i = 0; i < m.words; i++) {
            cr_assert_eq(got[i], m.cur[l][i], "op %u: line %u word %u", op, l, i);
            cr_assert_eq(fl[i], m.cur[l][i] ? m.floor[m.cur[l][i]] : 0, "op %u: floor", op);
        }
        size_t differ = 0;
        for (unsigned k = 0; k < NLINES; k++)
            differ += words_differ(&m, k);
        cr_assert_eq(rows_held(&c), differ, "op %u: rows held by lines whose words differ", op);
    }
    cr_expect_gt(stale, 100, "the loads include stale ones");
    cr_expect_gt(c.nrows, 0, "some lines had words that differ");
    chk_free(&c);
}

Test(checker_words, versions_match_a_per_word_model_on_64_byte_lines) { run_model(64, 1); }

Test(checker_words, versions_match_a_per_word_model_on_128_byte_lines) { run_model(128, 2); }
