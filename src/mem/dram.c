/*
 * dram.c -- HBM/DRAM timing in closed form (model and defaults: dram.h and
 * docs/dram.md).
 *
 * A request arriving at time t is placed on the next memory-clock edge and
 * passes the pipelined controller (ctrl_lat). Its bank then serves it in
 * arrival order: row hit = tCL, closed row = tRCD + tCL, conflict = tRP (no
 * earlier than tRAS after the last activate) + tRCD + tCL. The data burst
 * takes the earliest free slot of the channel bus at or after data ready,
 * possibly in a gap before bursts reserved by earlier requests to other banks
 * (a real controller fills the bus with whichever bank's data is ready). The
 * column command is taken to issue tCL before the burst, so the bank's next
 * command waits for the end of this column access and one bank's data stays
 * in arrival order. All times are whole memory cycles; the only event is the
 * completion at the end of the burst.
 */
#include "dram.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

const struct cfg_key dram_keys[] = {
    {"channels", CFG_INT, "8", 1, 1024, "independent channels (HBM2 stack: 8 x 128-bit)", NULL},
    {"banks", CFG_INT, "16", 1, 1024, "banks per channel (HBM2 8 Gb die: 16)", NULL},
    {"row_b", CFG_INT, "2048", 1, 1 << 20, "row buffer (page) size per bank, bytes", NULL},
    {"burst_b", CFG_INT, "64", 1, 4096, "bytes per burst: the access granularity", NULL},
    {"bus_b_per_cycle", CFG_INT, "32", 1, 4096,
     "data bytes per memory clock per channel (128-bit DDR = 32)", NULL},
    {"interleave_b", CFG_INT, "256", 1, 1 << 30, "channel interleave granularity, bytes", NULL},
    {"mhz", CFG_FLOAT, "1000", 1, 100000, "memory clock, MHz", NULL},
    {"tcl", CFG_INT, "14", 0, 10000, "CAS latency, memory cycles", NULL},
    {"trcd", CFG_INT, "14", 0, 10000, "activate to column command, memory cycles", NULL},
    {"trp", CFG_INT, "14", 0, 10000, "precharge time, memory cycles", NULL},
    {"tras", CFG_INT, "33", 0, 10000,
     "minimum activate to precharge, memory cycles (0 = not modelled)", NULL},
    {"ctrl_lat", CFG_INT, "20", 0, 100000,
     "controller latency added to every access, memory cycles", NULL},
    {"twl", CFG_INT, "0", 0, 10000,
     "write latency: column command to write data, memory cycles (0: tcl)", NULL},
    {"trrd", CFG_INT, "0", 0, 10000,
     "activate to activate of two banks of a channel, memory cycles (0: not modelled)", NULL},
    {"trc", CFG_INT, "0", 0, 10000,
     "activate to activate of one bank, memory cycles (0: not modelled)", NULL},
    {"bank_groups", CFG_INT, "0", 0, 64,
     "bank groups per channel, bank b in group b mod bank_groups (GPGPU-Sim's low-bit "
     "bank-group indexing; 0: no bank groups)", NULL},
    {"tccdl", CFG_INT, "0", 0, 10000,
     "column to column in one bank group, memory cycles: bursts of one group start at least "
     "this far apart (0: not modelled)", NULL},
    {"addr_map", CFG_STR, "", 0, 0,
     "channel-local address map, most significant bit first, one letter per bit (dots "
     "ignored): R row, B bank, C column, S byte within a burst, as GPGPU-Sim's "
     "-gpgpu_mem_addr_mapping after the channel bits; empty: each row of row_b bytes in one "
     "bank, consecutive rows in consecutive banks", NULL},
    {"page_policy", CFG_ENUM, "open", 0, 0,
     "open: keep the row open after an access; closed: precharge after every access",
     "open|closed"},
    {"bus_window", CFG_INT, "65536", 64, 1 << 24,
     "data-bus cycles ahead of now whose reservations are tracked per channel (multiple of "
     "64); a burst that fits nowhere inside goes after the last reservation", NULL},
    CFG_END,
};

static const char *map_masks(const struct dram_params *p, uint64_t *bank, uint64_t *row);

/* The first violated cross-key constraint: its key, with the reason in why. */
static const char *params_problem(const struct dram_params *p, char *why, size_t n)
{
    if (p->burst_b % p->bus_b_per_cycle) {
        snprintf(why, n, "must be a multiple of bus_b_per_cycle (%" PRIu32 ") so that a burst "
                 "fills whole bus cycles", p->bus_b_per_cycle);
        return "burst_b";
    }
    if (p->row_b % p->burst_b) {
        snprintf(why, n, "must be a multiple of burst_b (%" PRIu32 ")", p->burst_b);
        return "row_b";
    }
    if (p->interleave_b % p->burst_b) {
        snprintf(why, n, "must be a multiple of burst_b (%" PRIu32 ") so that an aligned burst "
                 "never spans two channels", p->burst_b);
        return "interleave_b";
    }
    if (p->bus_window % 64) {
        snprintf(why, n, "must be a multiple of 64 (bits of a ring word)");
        return "bus_window";
    }
    uint64_t mb, mr;
    const char *mp = map_masks(p, &mb, &mr);
    if (mp) {
        snprintf(why, n, "%s", mp);
        return "addr_map";
    }
    if (p->bank_groups && p->banks % p->bank_groups) {
        snprintf(why, n, "must divide banks (%" PRIu32 ")", p->banks);
        return "bank_groups";
    }
    if (p->tras && p->tras < p->trcd) {
        snprintf(why, n, "must be 0 (not modelled) or at least trcd (%" PRIu32 ")", p->trcd);
        return "tras";
    }
    return NULL;
}

int dram_params_from_cfg(const struct cfg_sec *sec, struct dram_params *p, struct err *e)
{
    *p = (struct dram_params){
        .channels = (uint32_t)cfg_uint(sec, "channels"),
        .banks = (uint32_t)cfg_uint(sec, "banks"),
        .row_b = (uint32_t)cfg_uint(sec, "row_b"),
        .burst_b = (uint32_t)cfg_uint(sec, "burst_b"),
        .bus_b_per_cycle = (uint32_t)cfg_uint(sec, "bus_b_per_cycle"),
        .interleave_b = (uint32_t)cfg_uint(sec, "interleave_b"),
        .mhz = cfg_float(sec, "mhz"),
        .tcl = (uint32_t)cfg_uint(sec, "tcl"),
        .trcd = (uint32_t)cfg_uint(sec, "trcd"),
        .trp = (uint32_t)cfg_uint(sec, "trp"),
        .tras = (uint32_t)cfg_uint(sec, "tras"),
        .ctrl_lat = (uint32_t)cfg_uint(sec, "ctrl_lat"),
        .twl = (uint32_t)cfg_uint(sec, "twl"),
        .trrd = (uint32_t)cfg_uint(sec, "trrd"),
        .trc = (uint32_t)cfg_uint(sec, "trc"),
        .bank_groups = (uint32_t)cfg_uint(sec, "bank_groups"),
        .tccdl = (uint32_t)cfg_uint(sec, "tccdl"),
        .page_policy = (enum dram_page_policy)cfg_enum(sec, "page_policy"),
        .bus_window = (uint32_t)cfg_uint(sec, "bus_window"),
    };
    snprintf(p->addr_map, sizeof p->addr_map, "%s", cfg_str(sec, "addr_map"));
    if (strlen(cfg_str(sec, "addr_map")) >= sizeof p->addr_map)
        return cfg_err(e, sec, "addr_map", "longer than %zu characters",
                       sizeof p->addr_map - 1);
    char why[256];
    const char *key = params_problem(p, why, sizeof why);
    return key ? cfg_err(e, sec, key, "%s", why) : 0;
}

/* The bank and row bit masks of an address map; NULL, or the problem. */
static const char *map_masks(const struct dram_params *p, uint64_t *bank, uint64_t *row)
{
    unsigned bits = 0, nb = 0, ns = 0;
    *bank = *row = 0;
    for (const char *c = p->addr_map; *c; c++)
        bits += *c != '.';
    if (bits > 63)
        return "more than 63 bits";
    for (const char *c = p->addr_map; *c; c++) {
        if (*c == '.')
            continue;
        uint64_t bit = 1ull << --bits;
        switch (*c) {
        case 'R': *row |= bit; break;
        case 'B': *bank |= bit; nb++; break;
        case 'S': ns++; /* fall through */
        case 'C': break;
        default: return "letters must be R, B, C, S or '.'";
        }
    }
    if (*p->addr_map && (1ull << nb) != p->banks)
        return "its B bits must number log2(banks)";
    if (*p->addr_map && (1ull << ns) != p->burst_b)
        return "its S bits must number log2(burst_b)";
    return NULL;
}

/* The bits of x selected by mask, packed from bit 0 up. */
static uint64_t gather(uint64_t x, uint64_t mask)
{
    uint64_t out = 0;
    unsigned k = 0;
    for (; mask; mask &= mask - 1, k++)
        out |= (x >> __builtin_ctzll(mask) & 1) << k;
    return out;
}

struct dram_loc dram_map(const struct dram_params *p, addr_t addr)
{
    uint64_t chunk = addr / p->interleave_b;
    uint64_t local = chunk / p->channels * p->interleave_b + addr % p->interleave_b;
    if (p->map_bank)
        return (struct dram_loc){
            .channel = (uint32_t)(chunk % p->channels),
            .bank = (uint32_t)gather(local, p->map_bank),
            .col_b = (uint32_t)(local & ~(p->map_bank | p->map_row)),
            .row = gather(local, p->map_row),
        };
    uint64_t row_idx = local / p->row_b;
    return (struct dram_loc){
        .channel = (uint32_t)(chunk % p->channels),
        .bank = (uint32_t)(row_idx % p->banks),
        .col_b = (uint32_t)(local % p->row_b),
        .row = row_idx / p->banks,
    };
}

/* Bring the bank's row `row` open for a column command issued no earlier than
 * `start`; returns the cycle of that column command and counts the case. */
static uint64_t open_row(struct dram *d, struct dram_bank *b, uint64_t *last_act, uint64_t row,
                         uint64_t start)
{
    const struct dram_params *p = &d->p;
    if (b->open_row == row) {
        d->st.row_hits++;
        return start;
    }
    uint64_t act = start;
    if (b->open_row == DRAM_ROW_NONE) {
        d->st.row_misses++;
    } else {
        d->st.row_conflicts++;
        act = max_u64(start, b->act + p->tras) + p->trp;
    }
    if (p->trc && b->open_row != DRAM_ROW_NONE)
        act = max_u64(act, b->act + p->trc);
    /* activates are taken in arrival order per channel for tRRD */
    if (p->trrd && *last_act)
        act = max_u64(act, *last_act + p->trrd);
    *last_act = max_u64(*last_act, act);
    b->open_row = row;
    b->act = act;
    return act + p->trcd;
}

/* Closed-page policy: precharge as soon as the column access and tRAS allow. */
static void close_row(const struct dram_params *p, struct dram_bank *b)
{
    uint64_t pre = max_u64(b->ready, b->act + p->tras);
    b->ready = pre + p->trp;
    b->open_row = DRAM_ROW_NONE;
}

/* Bytes moved on the bus: a sectored cache's fill or write-back moves only
 * the 32 B sectors of its mask. */
static uint32_t dram_bytes(const struct req *r)
{
    return r->flags & REQ_F_SECTORS ? 32 * req_sectors(r) : r->size;
}

static void count(struct dram *d, const struct req *r, uint64_t bus_cyc)
{
    bool write = r->kind == REQ_WRITE || r->kind == REQ_WRITEBACK;
    if (write) {
        d->st.writes++;
        d->st.bytes_written += dram_bytes(r);
        d->st.write_sectors += req_sectors(r);
    } else {
        d->st.reads++;
        d->st.bytes_read += dram_bytes(r);
        d->st.read_sectors += req_sectors(r);
    }
    d->st.busy_cycles += bus_cyc;
}

static void dram_done(struct sim *s, void *obj, uint64_t arg)
{
    struct dram *d = obj;
    d->pending--;
    sim_progress(s);
    req_complete(s, (struct req *)(uintptr_t)arg);
}

/* Bus cycles of one request: whole bursts, each filling whole bus cycles. */
static uint64_t bus_cycles(const struct dram_params *p, uint32_t size)
{
    return div_ceil(size, p->burst_b) * (p->burst_b / p->bus_b_per_cycle);
}

/* First cycle of the window past its end: slots must end by it. */
static uint64_t bus_limit(const struct dram *d, const struct dram_bus *bus)
{
    return (bus->base_w + d->bus_words) * 64;
}

/* Ring word k (cycles 64k .. 64k + 63) as it enters the window: cycles
 * before the tail were reserved while they lay past the window. */
static uint64_t bus_entering(const struct dram_bus *bus, uint64_t k)
{
    uint64_t c0 = k * 64;
    if (bus->tail <= c0)
        return 0;
    return bus->tail >= c0 + 64 ? ~0ull : (1ull << (bus->tail - c0)) - 1;
}

/* Slide the window to start at the word of cycle `now`: no request can use
 * an earlier cycle, so the ring words of the past are reused for the future. */
static void bus_advance(const struct dram *d, struct dram_bus *bus, uint64_t now)
{
    uint64_t nw = d->bus_words, to = now / 64;
    if (to <= bus->base_w)
        return;
    for (uint64_t k = max_u64(bus->base_w, to > nw ? to - nw : 0); k < to; k++)
        bus->bits[k % nw] = bus_entering(bus, k + nw);
    bus->base_w = to;
}

/* First cycle in [c, lim) whose reserved bit equals `busy`, else lim. */
static uint64_t bus_find(const struct dram *d, const struct dram_bus *bus, uint64_t c,
                         uint64_t lim, bool busy)
{
    while (c < lim) {
        uint64_t w = bus->bits[(c / 64) % d->bus_words];
        uint64_t word0 = c - c % 64;
        w = (busy ? w : ~w) & (~0ull << (c % 64));
        if (w)
            return min_u64(word0 + (uint64_t)__builtin_ctzll(w), lim);
        c = word0 + 64;
    }
    return lim;
}

/* Reserve cycles [c, end), clipped to the window (the tail covers the rest). */
static void bus_mark(const struct dram *d, struct dram_bus *bus, uint64_t c, uint64_t end)
{
    end = min_u64(end, bus_limit(d, bus));
    while (c < end) {
        uint64_t n = min_u64(end, c - c % 64 + 64) - c;
        uint64_t ones = n == 64 ? ~0ull : (1ull << n) - 1;
        bus->bits[(c / 64) % d->bus_words] |= ones << (c % 64);
        c += n;
    }
}

/* The earliest n-cycle slot at or after `ready` that overlaps no reservation
 * of the bus and, with bank groups, whose column window (max(n, tccdl) cycles
 * from its start) overlaps no other window of its group; if none fits inside
 * the window, the slot after the last reservations (the in-order fallback).
 * Reserves it and returns its first cycle. */
static uint64_t bus_reserve(struct dram *d, struct dram_bus *bus, struct dram_bus *grp,
                            uint64_t ready, uint64_t n)
{
    uint64_t g = grp ? max_u64(n, d->p.tccdl) : 0;
    uint64_t lim = bus_limit(d, bus), c = ready;
    for (;;) {
        c = bus_find(d, bus, c, lim, false);
        if (grp)
            c = bus_find(d, grp, c, lim, false);
        if (c + max_u64(n, g) > lim) {
            c = max_u64(ready, max_u64(bus->tail, grp ? grp->tail : 0));
            d->st.bus_overflows++;
            break;
        }
        uint64_t busy = bus_find(d, bus, c, c + n, true);
        if (busy < c + n) {
            c = busy;
            continue;
        }
        busy = grp ? bus_find(d, grp, c, c + g, true) : c + g;
        if (busy == c + g)
            break;
        c = busy;
    }
    if (c + n < bus->tail)
        d->st.bus_reordered++;
    bus_mark(d, bus, c, c + n);
    bus->tail = max_u64(bus->tail, c + n);
    if (grp) {
        bus_mark(d, grp, c, c + g);
        grp->tail = max_u64(grp->tail, c + g);
    }
    return c;
}

/* With bank groups each burst of a request is a column command of its own:
 * one after the other, each at least tccdl after the previous one of its
 * group. Returns the first burst's cycle and the end of the last in *end. */
static uint64_t group_bursts(struct dram *d, struct dram_bus *bus, struct dram_bus *grp,
                             uint64_t ready, uint64_t nbus, uint64_t *end)
{
    uint64_t per = d->p.burst_b / d->p.bus_b_per_cycle, first = 0, c = ready;
    for (uint64_t k = 0; k < nbus / per; k++) {
        c = bus_reserve(d, bus, grp, c, per);
        first = k ? first : c;
        *end = c + per;
        c += max_u64(per, d->p.tccdl);
    }
    return first;
}

/* Memory order for versions is arrival order: a read sees every write that
 * arrived before it. An atomic that reaches the DRAM (written through every
 * cache above, as under HMG-WT without an L3) is performed here: it writes
 * its words and returns the line as it leaves it. */
static void shadow_versions(struct dram *d, struct req *r)
{
    addr_t line = r->addr & ~(addr_t)(d->line_b - 1);
    unsigned words = d->line_b / 4;
    if (r->kind == REQ_READ) {
        shadow_read(d->shadow, line, words, r->ver);
        return;
    }
    uint64_t m[2] = {r->mask[0], r->mask[1]};
    if (!(m[0] | m[1]))
        req_mask_range(m, (unsigned)(r->addr - line), r->size);
    shadow_write(d->shadow, line, words, m, r->ver);
    if (r->kind == REQ_ATOMIC)
        shadow_read(d->shadow, line, words, r->ver);
}

void dram_set_shadow(struct dram *d, struct shadow *sh, unsigned line_b)
{
    d->shadow = sh;
    d->line_b = line_b;
}

static void dram_access(struct sim *s, void *self, struct req *r)
{
    struct dram *d = self;
    const struct dram_params *p = &d->p;
    SIM_ASSERT(s, d->name, r->size > 0);
    if (s->functional) { /* counted and versioned, but no bank, row or bus is touched */
        count(d, r, bus_cycles(p, dram_bytes(r)));
        if (d->shadow)
            shadow_versions(d, r);
        req_complete(s, r);
        return;
    }
    struct dram_loc loc = dram_map(p, r->addr);
    struct dram_bank *b = &d->bank[(size_t)loc.channel * p->banks + loc.bank];
    struct dram_bus *bus = &d->bus[loc.channel];

    struct dram_bus *grp = d->grp ? &d->grp[(size_t)loc.channel * p->bank_groups +
                                            loc.bank % p->bank_groups] : NULL;
    bool write = r->kind == REQ_WRITE || r->kind == REQ_WRITEBACK;
    uint32_t lat = write && p->twl ? p->twl : p->tcl;

    uint64_t now = clock_edge(d->clk, s->now) / d->clk->period;
    bus_advance(d, bus, now);
    if (grp)
        bus_advance(d, grp, now);
    uint64_t col = open_row(d, b, &d->last_act[loc.channel], loc.row,
                            max_u64(now + p->ctrl_lat, b->ready));
    uint64_t nbus = bus_cycles(p, dram_bytes(r));
    uint64_t burst, end = 0;
    if (grp) {
        burst = group_bursts(d, bus, grp, col + lat, nbus, &end);
        b->ready = end - lat;
    } else {
        burst = bus_reserve(d, bus, NULL, col + lat, nbus);
        end = burst + nbus;
        b->ready = burst - lat + nbus;
    }
    if (p->page_policy == DRAM_PAGE_CLOSED)
        close_row(p, b);

    count(d, r, nbus);
    if (d->shadow)
        shadow_versions(d, r);
    d->pending++;
    sim_at(s, clock_cycles(d->clk, end), dram_done, d, (uint64_t)(uintptr_t)r);
}

struct mem_port dram_port(struct dram *d) { return (struct mem_port){dram_access, d}; }

static uint64_t dram_pending(void *obj) { return ((struct dram *)obj)->pending; }

static void dram_dump(void *obj, FILE *out)
{
    const struct dram *d = obj;
    fprintf(out, "    %" PRIu64 " requests in flight; last bus reservation ends at cycle:",
            d->pending);
    for (uint32_t c = 0; c < d->p.channels; c++)
        fprintf(out, " %" PRIu64, d->bus[c].tail);
    fputc('\n', out);
}

void dram_init(struct dram *d, struct sim *s, const char *name, const struct clock *clk,
               const struct dram_params *p)
{
    BUG_ON(!p->channels || !p->banks || !p->row_b || !p->burst_b || !p->interleave_b ||
           !p->bus_b_per_cycle || !(p->mhz > 0));
    char why[256];
    const char *key = params_problem(p, why, sizeof why);
    if (key)
        BUG("dram %s: %s %s", name, key, why);
    *d = (struct dram){.p = *p, .name = xstrdup(name)};
    map_masks(&d->p, &d->p.map_bank, &d->p.map_row);
    if (!d->p.bus_window)
        d->p.bus_window = DRAM_BUS_WINDOW;
    clock_init(&d->own_clk, d->name, p->mhz);
    d->clk = clk ? clk : &d->own_clk;
    size_t nbanks = (size_t)p->channels * p->banks;
    d->bank = xmalloc(nbanks * sizeof *d->bank);
    for (size_t i = 0; i < nbanks; i++)
        d->bank[i] = (struct dram_bank){.open_row = DRAM_ROW_NONE};
    d->bus_words = d->p.bus_window / 64;
    d->bus_bits = xcalloc((size_t)p->channels * d->bus_words, sizeof *d->bus_bits);
    d->bus = xcalloc(p->channels, sizeof *d->bus);
    d->last_act = xcalloc(p->channels, sizeof *d->last_act);
    for (uint32_t c = 0; c < p->channels; c++)
        d->bus[c].bits = d->bus_bits + (size_t)c * d->bus_words;
    if (p->bank_groups && p->tccdl) {
        size_t ng = (size_t)p->channels * p->bank_groups;
        d->grp_bits = xcalloc(ng * d->bus_words, sizeof *d->grp_bits);
        d->grp = xcalloc(ng, sizeof *d->grp);
        for (size_t k = 0; k < ng; k++)
            d->grp[k].bits = d->grp_bits + k * d->bus_words;
    }
    sim_watch(s, d->name, dram_pending, dram_dump, d);
}

void dram_free(struct dram *d)
{
    free(d->bank);
    free(d->bus);
    free(d->last_act);
    free(d->bus_bits);
    free(d->grp);
    free(d->grp_bits);
    free(d->name);
    *d = (struct dram){0};
}

static const struct stat_desc dram_stat_desc[] = {
    STAT_DESC(struct dram_stats, reads, "read requests (READ and ATOMIC)"),
    STAT_DESC(struct dram_stats, writes, "write requests (WRITE and WRITEBACK)"),
    STAT_DESC(struct dram_stats, row_hits, "accesses that found their row open"),
    STAT_DESC(struct dram_stats, row_misses, "accesses to a precharged bank (activate only)"),
    STAT_DESC(struct dram_stats, row_conflicts, "accesses that closed another open row"),
    STAT_DESC(struct dram_stats, bytes_read, "bytes requested by reads"),
    STAT_DESC(struct dram_stats, bytes_written, "bytes requested by writes"),
    STAT_DESC(struct dram_stats, read_sectors, "32 B sectors read (of the requests' byte masks)"),
    STAT_DESC(struct dram_stats, write_sectors, "32 B sectors written (of the byte masks)"),
    STAT_DESC(struct dram_stats, busy_cycles, "data-bus busy memory cycles, summed over channels"),
    STAT_DESC(struct dram_stats, bus_reordered,
              "bursts that took a bus gap before an earlier request's burst"),
    STAT_DESC(struct dram_stats, bus_overflows,
              "bursts placed after the last reservation: no slot fitted in bus_window"),
    {0},
};

void dram_reg_stats(struct dram *d, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, dram_stat_desc, &d->st);
}
