/*
 * lds.c -- LDS timing: bank conflicts per lane group and a single port
 * (model: lds.h and docs/dram.md).
 *
 * The conflict degree of a lane group is the largest number of distinct
 * words any one bank must deliver (lanes naming the same word share one
 * read: broadcast). A group of degree k holds the port k cycles instead of
 * one, so an instruction's conflict cost is the sum over its groups of
 * (k - 1). With at most 64 banks of a power-of-two size, the degree is
 * counted in rounds, each serving one word per bank (a bitmap of the banks
 * served and each one's word), so a group of n lanes and degree k costs
 * O(n k) without touching memory beyond the lanes' addresses; otherwise
 * distinct words per bank are found with a per-bank list that is cleared
 * only for the banks a group touched.
 */
#include "lds.h"

#include <inttypes.h>
#include <stdlib.h>

#include "stats/stats.h"

const struct cfg_key lds_keys[] = {
    {"size_kib", CFG_INT, "64", 1, 65536, "LDS capacity per CU, KiB", NULL},
    {"lat", CFG_INT, "65", 0, 100000, "load-to-use latency of a conflict-free access, cycles",
     NULL},
    {"banks", CFG_INT, "32", 1, 1024, "number of banks", NULL},
    {"bank_b", CFG_INT, "4", 1, 256, "bytes per bank word", NULL},
    {"lanes_per_cycle", CFG_INT, "32", 1, LDS_MAX_LANES,
     "lanes whose bank conflicts are resolved together (GCN: a half wavefront)", NULL},
    {"conflicts", CFG_BOOL, "true", 0, 0, "model bank conflicts (false: all conflict-free)",
     NULL},
    CFG_END,
};

static const char *params_problem(const struct lds_params *p, char *why, size_t n)
{
    uint64_t row_b = (uint64_t)p->banks * p->bank_b;
    if ((uint64_t)p->size_kib * 1024 % row_b) {
        snprintf(why, n, "must be a whole number of bank rows (banks x bank_b = %" PRIu64
                 " bytes)", row_b);
        return "size_kib";
    }
    return NULL;
}

int lds_params_from_cfg(const struct cfg_sec *sec, struct lds_params *p, struct err *e)
{
    *p = (struct lds_params){
        .size_kib = (uint32_t)cfg_uint(sec, "size_kib"),
        .lat = (uint32_t)cfg_uint(sec, "lat"),
        .banks = (uint32_t)cfg_uint(sec, "banks"),
        .bank_b = (uint32_t)cfg_uint(sec, "bank_b"),
        .lanes_per_cycle = (uint32_t)cfg_uint(sec, "lanes_per_cycle"),
        .conflicts = cfg_bool(sec, "conflicts"),
    };
    char why[256];
    const char *key = params_problem(p, why, sizeof why);
    return key ? cfg_err(e, sec, key, "%s", why) : 0;
}

void lds_init(struct lds *l, const struct sim *s, const struct clock *clk,
              const struct lds_params *p)
{
    BUG_ON(!p->banks || !p->bank_b || !p->lanes_per_cycle ||
           p->lanes_per_cycle > LDS_MAX_LANES || p->size_kib > 65536);
    char why[256];
    const char *key = params_problem(p, why, sizeof why);
    if (key)
        BUG("lds: %s %s", key, why);
    *l = (struct lds){.p = *p, .s = s, .clk = clk, .size_b = p->size_kib * 1024u,
                      .pow2 = is_pow2(p->bank_b) && is_pow2(p->banks),
                      .bank_shift = (uint8_t)ilog2(p->bank_b), .bank_mask = p->banks - 1};
    l->nwords = xcalloc(p->banks, sizeof *l->nwords);
    l->words = xmalloc((size_t)p->banks * p->lanes_per_cycle * sizeof *l->words);
}

void lds_free(struct lds *l)
{
    free(l->nwords);
    free(l->words);
    *l = (struct lds){0};
}


/* Lane index of the first active lane at or beyond the LDS size, or -1. */
static int first_out_of_range(const struct lds *l, const uint32_t *addr, uint64_t mask)
{
    for (; mask; mask &= mask - 1) {
        int i = __builtin_ctzll(mask);
        if (addr[i] >= l->size_b)
            return i;
    }
    return -1;
}

/* Add word w to bank b's list unless present; returns the list's length. */
static unsigned add_word(struct lds *l, uint32_t b, uint32_t w, uint32_t *touched,
                         unsigned *ntouched)
{
    uint32_t *ws = &l->words[(size_t)b * l->p.lanes_per_cycle];
    unsigned n = l->nwords[b];
    for (unsigned j = 0; j < n; j++)
        if (ws[j] == w)
            return n; /* broadcast */
    if (!n)
        touched[(*ntouched)++] = b;
    ws[n] = w;
    l->nwords[b] = (uint8_t)(n + 1);
    return n + 1;
}

/* Conflict degree of one lane group: lanes base + i for bit i of gmask. */
static unsigned group_degree(struct lds *l, const uint32_t *addr, unsigned base, uint64_t gmask)
{
    if (l->pow2 && l->p.banks <= 64) {
        /* In rounds: each round serves, on every bank, the word of its first
         * lane left and every lane naming that word; the rounds needed are
         * the most distinct words of any bank. A conflict-free group takes
         * one round. */
        uint32_t first[64];
        unsigned deg = 0;
        while (gmask) {
            uint64_t used = 0, left = 0;
            deg++;
            for (uint64_t m = gmask; m; m &= m - 1) {
                unsigned i = (unsigned)__builtin_ctzll(m);
                uint32_t w = addr[base + i] >> l->bank_shift, b = w & l->bank_mask;
                if (!(used >> b & 1)) {
                    used |= 1ull << b;
                    first[b] = w;
                } else if (first[b] != w) {
                    left |= 1ull << i;
                }
            }
            gmask = left;
        }
        return deg;
    }
    uint32_t touched[LDS_MAX_LANES];
    unsigned ntouched = 0, deg = 1;
    for (; gmask; gmask &= gmask - 1) {
        uint32_t a = addr[base + (unsigned)__builtin_ctzll(gmask)];
        uint32_t w = l->pow2 ? a >> l->bank_shift : a / l->p.bank_b;
        unsigned n = add_word(l, l->pow2 ? w & l->bank_mask : w % l->p.banks, w, touched,
                              &ntouched);
        if (n > deg)
            deg = n;
    }
    for (unsigned t = 0; t < ntouched; t++)
        l->nwords[touched[t]] = 0;
    return deg;
}

/* Port cycles of the active groups; *extra gets the conflict part. */
static uint64_t port_cycles(struct lds *l, const uint32_t *addr, uint64_t mask, unsigned nlanes,
                            uint64_t *extra)
{
    unsigned lpc = l->p.lanes_per_cycle;
    uint64_t cycles = 0;
    *extra = 0;
    for (unsigned base = 0; base < nlanes; base += lpc) {
        uint64_t gmask = (mask >> base) & low_bits(lpc);
        if (!gmask)
            continue;
        unsigned deg = l->p.conflicts ? group_degree(l, addr, base, gmask) : 1;
        cycles += deg;
        *extra += deg - 1;
    }
    return cycles;
}

uint32_t lds_access(struct lds *l, const uint32_t *lane_addr, uint64_t active_mask,
                    unsigned nlanes, bool write)
{
    BUG_ON(nlanes > LDS_MAX_LANES);
    uint64_t mask = active_mask & low_bits(nlanes);
    int bad = first_out_of_range(l, lane_addr, mask);
    if (bad >= 0) {
        l->err_lane = (unsigned)bad;
        l->err_addr = lane_addr[bad];
        return LDS_ERR_RANGE;
    }
    uint64_t extra;
    uint64_t busy = port_cycles(l, lane_addr, mask, nlanes, &extra);
    uint64_t now = clock_edge(l->clk, l->s->now) / l->clk->period;
    uint64_t start = max_u64(now, l->next_free);
    l->next_free = start + busy;
    l->st.accesses++;
    l->st.writes += write;
    l->st.bank_conflict_cycles += extra;
    uint64_t ready = start - now + l->p.lat + extra;
    BUG_ON(ready >= LDS_ERR_RANGE);
    return (uint32_t)ready;
}

static const struct stat_desc lds_stat_desc[] = {
    STAT_DESC(struct lds_stats, accesses, "LDS instructions served"),
    STAT_DESC(struct lds_stats, writes, "of which writes"),
    STAT_DESC(struct lds_stats, bank_conflict_cycles, "extra port cycles from bank conflicts"),
    {0},
};

void lds_reg_stats(struct lds *l, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, lds_stat_desc, &l->st);
}
