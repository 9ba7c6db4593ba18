/*
 * dram.c -- HBM/DRAM timing in closed form (model and defaults: dram.h and
 * docs/dram.md).
 *
 * A request arriving at time t is placed on the next memory-clock edge and
 * passes the pipelined controller (ctrl_lat). Its bank then serves it in
 * arrival order: row hit = tCL, closed row = tRCD + tCL, conflict = tRP (no
 * earlier than tRAS after the last activate) + tRCD + tCL. The data burst
 * takes the channel bus at max(data ready, bus free); the column command is
 * taken to issue tCL before the burst, so the bank's next command waits for
 * the end of this column access. All times are whole memory cycles; the only
 * event is the completion at the end of the burst.
 */
#include "dram.h"

#include <inttypes.h>
#include <stdlib.h>

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
    {"page_policy", CFG_ENUM, "open", 0, 0,
     "open: keep the row open after an access; closed: precharge after every access",
     "open|closed"},
    CFG_END,
};

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
        .page_policy = (enum dram_page_policy)cfg_enum(sec, "page_policy"),
    };
    char why[256];
    const char *key = params_problem(p, why, sizeof why);
    return key ? cfg_err(e, sec, key, "%s", why) : 0;
}

struct dram_loc dram_map(const struct dram_params *p, addr_t addr)
{
    uint64_t chunk = addr / p->interleave_b;
    uint64_t local = chunk / p->channels * p->interleave_b + addr % p->interleave_b;
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
static uint64_t open_row(struct dram *d, struct dram_bank *b, uint64_t row, uint64_t start)
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

static void count(struct dram *d, const struct req *r, uint64_t bus_cyc)
{
    bool write = r->kind == REQ_WRITE || r->kind == REQ_WRITEBACK;
    if (write) {
        d->st.writes++;
        d->st.bytes_written += r->size;
    } else {
        d->st.reads++;
        d->st.bytes_read += r->size;
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

static void dram_access(struct sim *s, void *self, struct req *r)
{
    struct dram *d = self;
    const struct dram_params *p = &d->p;
    SIM_ASSERT(s, d->name, r->size > 0);
    struct dram_loc loc = dram_map(p, r->addr);
    struct dram_bank *b = &d->bank[(size_t)loc.channel * p->banks + loc.bank];
    uint64_t *bus = &d->bus_free[loc.channel];

    uint64_t arrive = clock_edge(d->clk, s->now) / d->clk->period + p->ctrl_lat;
    uint64_t col = open_row(d, b, loc.row, max_u64(arrive, b->ready));
    uint64_t nbus = bus_cycles(p, r->size);
    uint64_t burst = max_u64(col + p->tcl, *bus);
    *bus = burst + nbus;
    b->ready = burst - p->tcl + nbus;
    if (p->page_policy == DRAM_PAGE_CLOSED)
        close_row(p, b);

    count(d, r, nbus);
    d->pending++;
    sim_at(s, clock_cycles(d->clk, *bus), dram_done, d, (uint64_t)(uintptr_t)r);
}

struct mem_port dram_port(struct dram *d) { return (struct mem_port){dram_access, d}; }

static uint64_t dram_pending(void *obj) { return ((struct dram *)obj)->pending; }

static void dram_dump(void *obj, FILE *out)
{
    const struct dram *d = obj;
    fprintf(out, "    %" PRIu64 " requests in flight; data bus free at cycle:", d->pending);
    for (uint32_t c = 0; c < d->p.channels; c++)
        fprintf(out, " %" PRIu64, d->bus_free[c]);
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
    clock_init(&d->own_clk, d->name, p->mhz);
    d->clk = clk ? clk : &d->own_clk;
    size_t nbanks = (size_t)p->channels * p->banks;
    d->bank = xmalloc(nbanks * sizeof *d->bank);
    for (size_t i = 0; i < nbanks; i++)
        d->bank[i] = (struct dram_bank){.open_row = DRAM_ROW_NONE};
    d->bus_free = xcalloc(p->channels, sizeof *d->bus_free);
    sim_watch(s, d->name, dram_pending, dram_dump, d);
}

void dram_free(struct dram *d)
{
    free(d->bank);
    free(d->bus_free);
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
    STAT_DESC(struct dram_stats, busy_cycles, "data-bus busy memory cycles, summed over channels"),
    {0},
};

void dram_reg_stats(struct dram *d, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, dram_stat_desc, &d->st);
}
