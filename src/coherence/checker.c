/*
 * checker.c -- see checker.h.
 */
#include "checker.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define PAGE_B 4096u
#define PAGE_WORDS (PAGE_B / 4)

static const struct stat_desc chk_desc[] = {
    STAT_DESC(__typeof__(((struct chk *)0)->st), stale_reads,
              "load line requests that returned data older than a DRF program may see"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), stale_words, "4-byte words of those loads"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), checked_loads, "load line requests checked"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), stores, "store line requests versioned"),
    STAT_DESC(__typeof__(((struct chk *)0)->st), annotation_violations,
              "accesses outside the kernel's declared structures, modes or ranges"),
    {0},
};

void chk_init(struct chk *c, bool on, unsigned line_b)
{
    *c = (struct chk){.on = on, .line_b = line_b, .words = line_b / 4};
    u64map_init(&c->pages, 256);
}

void chk_free(struct chk *c)
{
    for (size_t i = 0; i < c->nblocks; i++)
        free(c->blocks[i]);
    free(c->blocks);
    u64map_free(&c->pages);
}

void chk_reg_stats(struct chk *c, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, chk_desc, &c->st);
}

void chk_kernel_begin(struct chk *c, unsigned kernel) { c->kernel = kernel + 1; }

/* The words of a line; NULL if never written (all versions 0) and !create. */
static struct chk_word *line_words(struct chk *c, addr_t line, bool create)
{
    uint64_t page = line / PAGE_B;
    uint64_t *idx = create ? NULL : u64map_get(&c->pages, page);
    if (create) {
        size_t n = c->pages.n;
        idx = u64map_put(&c->pages, page);
        if (c->pages.n != n) {
            c->blocks = xgrow(c->blocks, sizeof *c->blocks, &c->cap, c->nblocks + 1);
            c->blocks[c->nblocks] = xcalloc(PAGE_WORDS, sizeof **c->blocks);
            *idx = c->nblocks++;
        }
    }
    return idx ? c->blocks[*idx] + (line % PAGE_B) / 4 : NULL;
}

static inline bool touched(const uint64_t m[2], unsigned w)
{
    return (m[w >> 4] >> ((w & 15) * 4)) & 0xf;
}

void chk_store(struct chk *c, addr_t line, const uint64_t mask[2], uint32_t *ver)
{
    if (!c->on)
        return;
    if (c->seq == UINT32_MAX)
        BUG("checker: more than 2^32 stores; versions would wrap");
    uint32_t v = ++c->seq;
    struct chk_word *w = line_words(c, line, true);
    for (unsigned i = 0; i < c->words; i++) {
        if (!touched(mask, i))
            continue;
        if (w[i].kernel != c->kernel) {
            w[i].prev = w[i].cur;
            w[i].kernel = c->kernel;
        }
        w[i].cur = v;
        ver[i] = v;
    }
    c->st.stores++;
}

bool chk_load(struct chk *c, addr_t line, const uint64_t mask[2], const uint32_t *ver,
              unsigned cu)
{
    if (!c->on)
        return false;
    c->st.checked_loads++;
    const struct chk_word *w = line_words(c, line, false);
    if (!w)
        return false;
    unsigned bad = 0;
    for (unsigned i = 0; i < c->words; i++) {
        if (!touched(mask, i))
            continue;
        uint32_t want = w[i].kernel == c->kernel ? w[i].prev : w[i].cur;
        if (ver[i] >= want)
            continue;
        if (!bad && c->st.stale_reads < CHK_REPORTS)
            c->rep[c->st.stale_reads] =
                (struct chk_report){line + 4 * i, c->kernel - 1, ver[i], want, (uint16_t)cu};
        bad++;
    }
    if (!bad)
        return false;
    c->st.stale_reads++;
    c->st.stale_words += bad;
    return true;
}

void chk_annotation(struct chk *c, const char *kname, uint32_t wg, addr_t addr, const char *why)
{
    uint64_t i = c->st.annotation_violations++;
    if (i >= CHK_REPORTS)
        return;
    struct chk_annot_report *r = &c->arep[i];
    *r = (struct chk_annot_report){addr, c->kernel - 1, wg, why, ""};
    snprintf(r->kname, sizeof r->kname, "%s", kname);
}

void chk_print_reports(const struct chk *c, FILE *out)
{
    uint64_t na = c->st.annotation_violations < CHK_REPORTS ? c->st.annotation_violations
                                                            : CHK_REPORTS;
    for (uint64_t i = 0; i < na; i++)
        fprintf(out, "chipsim: annotation violation: kernel %u (%s), work-group %u, address 0x%"
                PRIx64 ": %s\n", c->arep[i].kernel, c->arep[i].kname, c->arep[i].wg,
                c->arep[i].addr, c->arep[i].why);
    uint64_t n = c->st.stale_reads < CHK_REPORTS ? c->st.stale_reads : CHK_REPORTS;
    for (uint64_t i = 0; i < n; i++)
        fprintf(out,
                "chipsim: stale read: kernel %u, cu %u, address 0x%" PRIx64
                ": got version %u, a DRF program must see %u or newer\n",
                c->rep[i].kernel, c->rep[i].cu, c->rep[i].addr, c->rep[i].got, c->rep[i].want);
}
