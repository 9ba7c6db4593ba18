/*
 * DRAM/HBM model: exact completion times (picoseconds) for row hits, closed
 * rows, conflicts, tRAS, closed-page policy, bus serialisation and channel
 * parallelism, out-of-order bus slots across banks (gap filling, FCFS within
 * a bank, the bus-window fallback); the address map; delivered bandwidth and
 * the peak bound on a long random stream; the watchdog probe, stats, and
 * dram_params_from_cfg errors.
 *
 * Small test geometry (p_small): 2 channels x 4 banks, 1 KiB rows, 64 B
 * bursts on a 32 B/cycle bus (2 cycles per burst), 256 B interleave, 1000 MHz
 * (1 cycle = 1000 ps), tCL = tRCD = tRP = 14, tRAS = 33, ctrl_lat = 20.
 * Unloaded: closed row 20+14+14+2 = 50 cycles, hit 20+14+2 = 36.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "mem/dram.h"
#include "stats/stats.h"

#define MAXREQ 100000

struct harness {
    struct sim s;
    struct dram d;
    ps_t done[MAXREQ];
    int ndone;
    int order[MAXREQ]; /* tags in completion order */
};

static struct dram_params p_small(void)
{
    return (struct dram_params){
        .channels = 2, .banks = 4, .row_b = 1024, .burst_b = 64, .bus_b_per_cycle = 32,
        .interleave_b = 256, .mhz = 1000, .tcl = 14, .trcd = 14, .trp = 14, .tras = 33,
        .ctrl_lat = 20, .page_policy = DRAM_PAGE_OPEN,
    };
}

static struct harness *h_new(const struct dram_params *p)
{
    struct harness *h = calloc(1, sizeof *h);
    sim_init(&h->s, 1);
    req_pool_init(&h->s, 64);
    dram_init(&h->d, &h->s, "hbm0", NULL, p);
    return h;
}

static void h_free(struct harness *h)
{
    dram_free(&h->d);
    sim_destroy(&h->s);
    free(h);
}

/* Inverse of the documented address map, built independently of dram_map(). */
static addr_t addr_of(const struct dram_params *p, uint32_t ch, uint32_t bank, uint64_t row,
                      uint32_t col)
{
    uint64_t local = (row * p->banks + bank) * p->row_b + col;
    uint64_t chunk = local / p->interleave_b;
    return (chunk * p->channels + ch) * p->interleave_b + local % p->interleave_b;
}

static void on_done(struct sim *s, struct req *r, void *obj)
{
    struct harness *h = obj;
    h->done[r->tag] = s->now;
    h->order[h->ndone++] = (int)r->tag;
    req_free(s, r);
}

static void send_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct harness *h = obj;
    struct mem_port port = dram_port(&h->d);
    mem_send(s, &port, (struct req *)(uintptr_t)arg);
}

/* Issue a request of `size` bytes at absolute time t; its completion time
 * lands in h->done[tag]. */
static void send_at(struct harness *h, ps_t t, addr_t a, enum req_kind k, uint32_t size,
                    uint64_t tag)
{
    struct req *r = req_alloc(&h->s);
    r->addr = a;
    r->size = size;
    r->kind = (uint8_t)k;
    r->tag = tag;
    req_on_done(r, on_done, h);
    sim_at(&h->s, t, send_ev, h, (uint64_t)(uintptr_t)r);
}

static void run(struct harness *h) { cr_assert_eq(sim_run(&h->s, 0), SIM_DONE); }

Test(dram, closed_hit_and_conflict_latencies)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0);        /* closed row */
    send_at(h, 100000, addr_of(&p, 0, 0, 0, 64), REQ_READ, 64, 1);  /* row hit */
    send_at(h, 200000, addr_of(&p, 0, 0, 1, 0), REQ_READ, 64, 2);   /* conflict */
    run(h);
    cr_expect_eq(h->done[0], 50000);          /* 20 + tRCD 14 + tCL 14 + 2 */
    cr_expect_eq(h->done[1], 100000 + 36000); /* 20 + tCL 14 + 2 */
    cr_expect_eq(h->done[2], 200000 + 64000); /* 20 + tRP 14 + tRCD 14 + tCL 14 + 2 */
    cr_expect_eq(h->d.st.row_misses, 1);
    cr_expect_eq(h->d.st.row_hits, 1);
    cr_expect_eq(h->d.st.row_conflicts, 1);
    cr_expect_eq(h->d.st.reads, 3);
    cr_expect_eq(h->d.st.bytes_read, 192);
    cr_expect_eq(h->d.st.busy_cycles, 6);
    h_free(h);
}

Test(dram, arrival_waits_for_the_memory_clock_edge)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    send_at(h, 1500, 0, REQ_READ, 64, 0); /* next edge is 2000 ps */
    run(h);
    cr_expect_eq(h->done[0], 2000 + 50000);
    h_free(h);
}

Test(dram, tras_delays_an_early_precharge)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0);
    send_at(h, 0, addr_of(&p, 0, 0, 1, 0), REQ_READ, 64, 1);
    run(h);
    /* A: act 20, column 34, burst 48-50. B: bank ready at 36 but the row
     * was activated at 20, so precharge at 20 + tRAS 33 = 53, act 67,
     * column 81, burst 95-97. */
    cr_expect_eq(h->done[0], 50000);
    cr_expect_eq(h->done[1], 97000);
    h_free(h);

    p.tras = 0; /* now precharge at 36, act 50, column 64, burst 78-80 */
    h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0);
    send_at(h, 0, addr_of(&p, 0, 0, 1, 0), REQ_READ, 64, 1);
    run(h);
    cr_expect_eq(h->done[1], 80000);
    h_free(h);
}

Test(dram, back_to_back_row_hits_are_bus_limited)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0); /* opens row 0 */
    enum { N = 12 };
    for (unsigned i = 0; i < N; i++) /* 12 x 64 B < 1 KiB row: all hits */
        send_at(h, 100000, addr_of(&p, 0, 0, 0, 64 * i), REQ_READ, 64, 1 + i);
    run(h);
    for (unsigned i = 0; i < N; i++)
        cr_expect_eq(h->done[1 + i], 136000 + 2000 * i, "request %u", i);
    cr_expect_eq(h->d.st.row_hits, N);
    cr_expect_eq(h->d.st.busy_cycles, 2 * (N + 1));
    h_free(h);
}

Test(dram, two_channels_serve_in_parallel)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0);
    send_at(h, 0, addr_of(&p, 1, 0, 0, 0), REQ_READ, 64, 1);
    run(h);
    cr_expect_eq(h->done[0], 50000);
    cr_expect_eq(h->done[1], 50000);
    h_free(h);
}

Test(dram, banks_overlap_but_share_the_channel_bus)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    for (unsigned b = 0; b < 4; b++)
        send_at(h, 0, addr_of(&p, 0, b, 0, 0), REQ_READ, 64, b);
    run(h);
    for (unsigned b = 0; b < 4; b++)
        cr_expect_eq(h->done[b], 50000 + 2000 * b, "bank %u", b);
    h_free(h);
}

Test(dram, bank_conflicts_serialise)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    for (unsigned row = 0; row < 3; row++)
        send_at(h, 0, addr_of(&p, 0, 0, row, 0), REQ_READ, 64, row);
    run(h);
    /* row 1: act 67 (see tras test), burst 95-97, bank ready 83;
     * row 2: precharge at max(83, 67 + 33) = 100, act 114, column 128, burst 142-144. */
    cr_expect_eq(h->done[0], 50000);
    cr_expect_eq(h->done[1], 97000);
    cr_expect_eq(h->done[2], 144000);
    cr_expect_eq(h->d.st.row_conflicts, 2);
    h_free(h);
}

Test(dram, closed_page_precharges_after_every_access)
{
    struct dram_params p = p_small();
    p.page_policy = DRAM_PAGE_CLOSED;
    struct harness *h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 64), REQ_READ, 64, 1);      /* same row: no hit */
    send_at(h, 300000, addr_of(&p, 0, 0, 0, 128), REQ_READ, 64, 2); /* idle bank */
    run(h);
    /* A precharges at max(36, 20 + 33) = 53, ready 67; B: act 67, column 81,
     * burst 95-97. C finds the bank precharged: the unloaded closed-row time. */
    cr_expect_eq(h->done[0], 50000);
    cr_expect_eq(h->done[1], 97000);
    cr_expect_eq(h->done[2], 300000 + 50000);
    cr_expect_eq(h->d.st.row_misses, 3);
    cr_expect_eq(h->d.st.row_hits, 0);
    cr_expect_eq(h->d.st.row_conflicts, 0);
    h_free(h);
}

/* Opens row 0 of banks 0 and 1 of channel 0 at t = 0 (bursts 48-50, 50-52)
 * so that row-1 requests to them are conflicts. */
static void open_banks_0_1(struct harness *h, const struct dram_params *p)
{
    send_at(h, 0, addr_of(p, 0, 0, 0, 0), REQ_READ, 64, 100);
    send_at(h, 0, addr_of(p, 0, 1, 0, 0), REQ_READ, 64, 101);
}

Test(dram, row_hit_to_another_bank_overtakes_a_conflict)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    open_banks_0_1(h, &p);
    send_at(h, 100000, addr_of(&p, 0, 0, 1, 0), REQ_READ, 64, 0); /* bank 0: conflict */
    send_at(h, 100000, addr_of(&p, 0, 1, 0, 64), REQ_READ, 64, 1); /* bank 1: row hit */
    run(h);
    /* Both arrive at 120. Conflict: precharge 120, act 134, column 148, data
     * 162, burst 162-164. Hit: column 120, data 134, burst 134-136 -- in the
     * gap before the conflict's burst (in-order data return gave 164-166). */
    cr_expect_eq(h->done[0], 164000);
    cr_expect_eq(h->done[1], 136000);
    cr_expect_eq(h->order[2], 1);
    cr_expect_eq(h->order[3], 0);
    cr_expect_eq(h->d.st.bus_reordered, 1);
    cr_expect_eq(h->d.st.bus_overflows, 0);
    cr_expect_eq(h->d.st.busy_cycles, 8);
    h_free(h);
}

Test(dram, a_burst_takes_the_earliest_gap_it_fits_in)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    open_banks_0_1(h, &p);
    send_at(h, 100000, addr_of(&p, 0, 0, 1, 0), REQ_READ, 64, 0); /* burst 162-164 */
    send_at(h, 100000, addr_of(&p, 0, 1, 1, 0), REQ_READ, 64, 1); /* data 162, burst 164-166 */
    /* Closed rows arriving at 132: data ready at 160. */
    send_at(h, 112000, addr_of(&p, 0, 2, 0, 0), REQ_READ, 128, 2); /* 4 cycles: 160-162 too small */
    send_at(h, 112000, addr_of(&p, 0, 3, 0, 0), REQ_READ, 64, 3);  /* 2 cycles: fits 160-162 */
    run(h);
    cr_expect_eq(h->done[0], 164000);
    cr_expect_eq(h->done[1], 166000);
    cr_expect_eq(h->done[2], 170000); /* after the last reservation, 166-170 */
    cr_expect_eq(h->done[3], 162000); /* in-order return would give 172000 */
    static const int want[] = {100, 101, 3, 0, 1, 2};
    for (int k = 0; k < 6; k++)
        cr_expect_eq(h->order[k], want[k], "completion %d", k);
    cr_expect_eq(h->d.st.bus_reordered, 1);
    h_free(h);
}

Test(dram, one_bank_still_serves_in_arrival_order)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0);          /* opens row 0 */
    send_at(h, 100000, addr_of(&p, 0, 0, 1, 0), REQ_READ, 64, 1);     /* conflict */
    send_at(h, 100000, addr_of(&p, 0, 0, 1, 64), REQ_READ, 64, 2);    /* hit on row 1 */
    send_at(h, 100000, addr_of(&p, 0, 0, 0, 64), REQ_READ, 64, 3);    /* row 0 again */
    send_at(h, 100000, addr_of(&p, 0, 1, 0, 0), REQ_READ, 64, 4);     /* other bank */
    run(h);
    /* 1: act 134, data 162, burst 162-164, bank ready 150. 2: hit, column
     * 150, data 164, burst 164-166, bank ready 152. 3 would be a row hit
     * under FR-FCFS, but waits its turn and conflicts: precharge at
     * max(152, 134 + tRAS 33) = 167, act 181, column 195, burst 209-211.
     * The other bank's closed row (data 148) goes first. */
    cr_expect_eq(h->done[1], 164000);
    cr_expect_eq(h->done[2], 166000);
    cr_expect_eq(h->done[3], 211000);
    cr_expect_eq(h->done[4], 150000);
    static const int want[] = {0, 4, 1, 2, 3};
    for (int k = 0; k < 5; k++)
        cr_expect_eq(h->order[k], want[k], "completion %d", k);
    cr_expect_eq(h->d.st.row_conflicts, 2);
    cr_expect_eq(h->d.st.row_hits, 1);
    cr_expect_eq(h->d.st.row_misses, 2);
    h_free(h);
}

Test(dram, bus_window_overflow_appends_after_the_last_reservation)
{
    struct dram_params p = p_small();
    p.bus_window = 64; /* the window is [0, 64) until time passes cycle 64 */
    struct harness *h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0);     /* 48-50, in the window */
    send_at(h, 0, addr_of(&p, 0, 0, 1, 0), REQ_READ, 64, 1);     /* data 95: past it */
    send_at(h, 0, addr_of(&p, 0, 1, 0, 0), REQ_READ, 64, 2);     /* data 48: 50-52 */
    send_at(h, 30000, addr_of(&p, 0, 2, 0, 0), REQ_READ, 64, 3); /* data 78: past it */
    /* At 64 the window becomes [64, 128): cycles up to the last reservation's
     * end (99) enter as reserved. A row hit with data at 98 must wait. */
    send_at(h, 64000, addr_of(&p, 0, 1, 0, 64), REQ_READ, 64, 4);
    send_at(h, 256000, addr_of(&p, 0, 3, 0, 0), REQ_READ, 64, 5); /* window [256, 320) */
    run(h);
    cr_expect_eq(h->done[0], 50000);
    cr_expect_eq(h->done[1], 97000);  /* after the last reservation (50) anyway */
    cr_expect_eq(h->done[2], 52000);  /* a gap inside the window: reordered */
    cr_expect_eq(h->done[3], 99000);  /* after the last reservation, 97; exact: 80000 */
    cr_expect_eq(h->done[4], 101000); /* 98 is taken by request 3: 99-101 */
    cr_expect_eq(h->done[5], 306000); /* the window slid on: unloaded again */
    cr_expect_eq(h->d.st.bus_overflows, 2);
    cr_expect_eq(h->d.st.bus_reordered, 1);
    h_free(h);

    p.bus_window = 128; /* everything fits: request 3 gets its exact slot */
    h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_READ, 64, 0);
    send_at(h, 0, addr_of(&p, 0, 0, 1, 0), REQ_READ, 64, 1);
    send_at(h, 30000, addr_of(&p, 0, 2, 0, 0), REQ_READ, 64, 3);
    run(h);
    cr_expect_eq(h->done[3], 80000);
    cr_expect_eq(h->d.st.bus_overflows, 0);
    h_free(h);
}

Test(dram, writes_cost_like_reads_and_sizes_round_to_bursts)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    send_at(h, 0, addr_of(&p, 0, 0, 0, 0), REQ_WRITE, 64, 0);
    send_at(h, 0, addr_of(&p, 1, 0, 0, 0), REQ_WRITEBACK, 128, 1); /* 2 bursts, 4 cycles */
    send_at(h, 0, addr_of(&p, 1, 1, 0, 0), REQ_ATOMIC, 4, 2);      /* a whole burst */
    run(h);
    cr_expect_eq(h->done[0], 50000);
    cr_expect_eq(h->done[1], 52000);
    cr_expect_eq(h->done[2], 54000);
    cr_expect_eq(h->d.st.writes, 2);
    cr_expect_eq(h->d.st.bytes_written, 192);
    cr_expect_eq(h->d.st.reads, 1);
    cr_expect_eq(h->d.st.bytes_read, 4);
    cr_expect_eq(h->d.st.busy_cycles, 2 + 4 + 2);
    h_free(h);
}

Test(dram, address_map)
{
    struct dram_params p = p_small();
    struct dram_loc l = dram_map(&p, 0);
    cr_expect(l.channel == 0 && l.bank == 0 && l.row == 0 && l.col_b == 0);
    l = dram_map(&p, 256 + 8);
    cr_expect(l.channel == 1 && l.bank == 0 && l.row == 0 && l.col_b == 8);
    l = dram_map(&p, 512);    /* channel 0's second 256 B chunk */
    cr_expect(l.channel == 0 && l.bank == 0 && l.row == 0 && l.col_b == 256);
    l = dram_map(&p, 2048);   /* channel-local 1024: next bank */
    cr_expect(l.channel == 0 && l.bank == 1 && l.row == 0 && l.col_b == 0);
    l = dram_map(&p, 8192);   /* channel-local 4096 = row_b x banks: next row */
    cr_expect(l.channel == 0 && l.bank == 0 && l.row == 1 && l.col_b == 0);
    l = dram_map(&p, 8192 + 2048 + 256 + 100);
    cr_expect(l.channel == 1 && l.bank == 1 && l.row == 1 && l.col_b == 100);

    p.channels = 3; /* not a power of two: plain modulo */
    l = dram_map(&p, 3 * 256 + 5);
    cr_expect(l.channel == 0 && l.col_b == 256 + 5);
    struct rng r;
    rng_seed(&r, 9);
    for (int i = 0; i < 10000; i++) {
        addr_t a = rng_below(&r, 1ull << 40);
        l = dram_map(&p, a);
        cr_assert_eq(addr_of(&p, l.channel, l.bank, l.row, l.col_b), a, "addr %llx",
                     (unsigned long long)a);
        cr_assert(l.channel < 3 && l.bank < 4 && l.col_b < 1024);
    }
}

static struct dram_params p_default(void)
{
    return (struct dram_params){
        .channels = 8, .banks = 16, .row_b = 2048, .burst_b = 64, .bus_b_per_cycle = 32,
        .interleave_b = 256, .mhz = 1000, .tcl = 14, .trcd = 14, .trp = 14, .tras = 33,
        .ctrl_lat = 20, .page_policy = DRAM_PAGE_OPEN,
    };
}

/* N random 64 B requests (one write in three), ten per memory cycle offered
 * against a peak of 8 x 32 B / 64 B = 4: saturated. Checks the invariants
 * (no two bursts of a channel overlap, one bank's requests complete in
 * arrival order, everything completes once) and returns the delivered
 * bandwidth in permille of peak over the whole run (*whole) and over the
 * saturated middle, from the 10% to the 70% completion (*steady). */
static void random_stream(struct dram_params p, int n, unsigned *whole, unsigned *steady,
                          struct dram_stats *st)
{
    struct harness *h = h_new(&p);
    static addr_t addr[MAXREQ];
    static int last_tag[8 * 16];
    struct rng r;
    rng_seed(&r, 123);
    for (int i = 0; i < n; i++) {
        addr[i] = rng_below(&r, 1ull << 32) & ~63ull;
        send_at(h, (ps_t)i * 100, addr[i], i % 3 ? REQ_READ : REQ_WRITE, 64, (uint64_t)i);
    }
    run(h);
    cr_assert_eq(h->ndone, n);
    cr_expect_eq(h->d.pending, 0);
    cr_expect_eq(sim_pending(&h->s), 0);

    /* Completion order is time order: on each channel consecutive
     * completions at least one burst apart means no two bursts overlap. */
    ps_t last[8] = {0}, end = 0;
    memset(last_tag, -1, sizeof last_tag);
    for (int k = 0; k < n; k++) {
        int i = h->order[k];
        struct dram_loc l = dram_map(&p, addr[i]);
        if (last[l.channel])
            cr_assert_geq(h->done[i], last[l.channel] + 2000, "request %d", i);
        last[l.channel] = h->done[i];
        end = max_u64(end, h->done[i]);
        int *bank_last = &last_tag[l.channel * 16 + l.bank];
        cr_assert_gt(i, *bank_last, "request %d overtook %d in its bank", i, *bank_last);
        *bank_last = i;
    }
    uint64_t cycles = end / 1000;
    cr_expect_eq(h->d.st.busy_cycles, 2ull * n);
    cr_expect_leq(h->d.st.busy_cycles, 8 * cycles);
    cr_expect_leq((uint64_t)n * 64, 8 * 32 * cycles);
    cr_expect_eq(h->d.st.reads + h->d.st.writes, (uint64_t)n);
    cr_expect_eq(h->d.st.row_hits + h->d.st.row_misses + h->d.st.row_conflicts, (uint64_t)n);

    int a = n / 10, b = n * 7 / 10; /* h->done by tag; h->order[k] is the k-th to finish */
    ps_t ta = h->done[h->order[a]], tb = h->done[h->order[b]];
    *whole = (unsigned)((uint64_t)n * 64 * 1000 / (8 * 32 * cycles));
    *steady = (unsigned)((uint64_t)(b - a) * 64 * 1000 * 1000 / (8 * 32 * (tb - ta)));
    *st = h->d.st;
    h_free(h);
}

Test(dram, random_stream_bandwidth_is_well_above_in_order_and_below_peak)
{
    struct dram_params p = p_default();
    unsigned whole, steady;
    struct dram_stats st;
    random_stream(p, MAXREQ, &whole, &steady, &st);
    /* All but ~0.1% are row conflicts, so each bank turns a row every
     * tRAS + tRP = 47 cycles at best: 16 banks x 64 B / 47 = 68.1% of the
     * peak is the ceiling; with in-order data return it was 22.9% (57 GB/s). */
    fprintf(stderr, "dram random stream: %.1f%% of peak over the run, %.1f%% saturated "
            "(%.1f GB/s of 256)\n", whole / 10.0, steady / 10.0, steady * 256.0 / 1000);
    cr_expect_gt(whole, 500, "%u permille", whole);
    cr_expect_gt(steady, 600, "%u permille", steady);
    cr_expect_leq(whole, 1000);
    cr_expect_leq(steady, 1000);
    cr_expect_gt(st.bus_reordered, (uint64_t)MAXREQ / 2);
    cr_expect_eq(st.bus_overflows, 0);
}

Test(dram, random_stream_keeps_invariants_when_the_bus_window_overflows)
{
    struct dram_params p = p_default();
    p.bus_window = 1024; /* the backlog reaches ~8000 cycles: most bursts overflow */
    unsigned whole, steady;
    struct dram_stats st;
    random_stream(p, 20000, &whole, &steady, &st);
    cr_expect_leq(whole, 1000);
    cr_expect_leq(steady, 1000);
    cr_expect_gt(st.bus_overflows, 1000);
    cr_expect_gt(st.bus_reordered, 1000);
}

Test(dram, sequential_stream_reaches_most_of_peak)
{
    struct dram_params p = p_default();
    struct harness *h = h_new(&p);
    enum { N = 16384 }; /* 1 MiB, 64 B at a time, all offered at once */
    for (int i = 0; i < N; i++)
        send_at(h, 0, (addr_t)i * 64, REQ_READ, 64, (uint64_t)i);
    run(h);
    ps_t end = 0;
    for (int i = 0; i < N; i++)
        end = max_u64(end, h->done[i]);
    uint64_t cycles = end / 1000;
    cr_expect_leq((uint64_t)N * 64, 8 * 32 * cycles);
    cr_expect_geq((uint64_t)N * 64 * 100, 95 * 8 * 32 * cycles, "%llu cycles",
                  (unsigned long long)cycles);
    h_free(h);
}

Test(dram, watchdog_probe_counts_requests_in_flight)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    struct mem_port port = dram_port(&h->d);
    for (int i = 0; i < 3; i++) {
        struct req *r = req_alloc(&h->s);
        r->addr = (addr_t)i * 4096;
        r->size = 64;
        r->tag = (uint64_t)i;
        req_on_done(r, on_done, h);
        mem_send(&h->s, &port, r);
    }
    cr_expect_eq(sim_pending(&h->s), 3);
    uint64_t before = h->s.progress;
    run(h);
    cr_expect_eq(sim_pending(&h->s), 0);
    cr_expect_eq(h->s.progress - before, 3);
    h_free(h);
}

Test(dram, stats_are_registered_under_the_prefix)
{
    struct dram_params p = p_small();
    struct harness *h = h_new(&p);
    struct stats st;
    stats_init(&st);
    dram_reg_stats(&h->d, &st, "gpu0.chiplet1.hbm");
    send_at(h, 0, 0, REQ_READ, 64, 0);
    send_at(h, 0, 64, REQ_WRITE, 64, 1);
    run(h);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.reads"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.writes"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.row_misses"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.row_hits"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.row_conflicts"), 0);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.bytes_read"), 64);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.bytes_written"), 64);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.busy_cycles"), 4);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.bus_reordered"), 0);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.hbm.bus_overflows"), 0);
    stats_free(&st);
    h_free(h);
}

/* Resolve `ini` against dram_keys in section [hbm]; returns the result of
 * the load/resolve/params steps (the first that fails) and the message. */
static int from_cfg(const char *ini, struct dram_params *p, struct err *e)
{
    struct cfg c;
    int rc = tcfg_load(&c, "hbm", dram_keys, NULL, ini, e);
    if (!rc)
        rc = dram_params_from_cfg(cfg_sec(&c, "hbm"), p, e);
    cfg_free(&c);
    return rc;
}

Test(dram, params_from_cfg_defaults_and_overrides)
{
    struct dram_params p;
    struct err e = {{0}};
    cr_assert_eq(from_cfg("", &p, &e), 0, "%s", e.msg);
    cr_expect(p.channels == 8 && p.banks == 16 && p.row_b == 2048 && p.burst_b == 64 &&
              p.bus_b_per_cycle == 32 && p.interleave_b == 256 && p.mhz == 1000);
    cr_expect(p.tcl == 14 && p.trcd == 14 && p.trp == 14 && p.tras == 33 && p.ctrl_lat == 20);
    cr_expect_eq(p.page_policy, DRAM_PAGE_OPEN);
    cr_expect_eq(p.bus_window, DRAM_BUS_WINDOW);
    cr_assert_eq(from_cfg("[hbm]\nchannels = 3\npage_policy = closed\nmhz = 500\n", &p, &e), 0,
                 "%s", e.msg);
    cr_expect_eq(p.channels, 3);
    cr_expect_eq(p.page_policy, DRAM_PAGE_CLOSED);
    cr_expect(p.mhz == 500);
}

Test(dram, params_from_cfg_reports_cross_key_errors)
{
    struct dram_params p;
    struct err e = {{0}};
    static const struct { const char *ini, *msg; } cases[] = {
        {"[hbm]\nburst_b = 48\n",
         "t.ini:2: [hbm] burst_b = 48: must be a multiple of bus_b_per_cycle (32) so that a "
         "burst fills whole bus cycles"},
        {"[hbm]\n\nrow_b = 1000\n", "t.ini:3: [hbm] row_b = 1000: must be a multiple of "
         "burst_b (64)"},
        {"[hbm]\ninterleave_b = 96\n", "t.ini:2: [hbm] interleave_b = 96: must be a multiple "
         "of burst_b (64) so that an aligned burst never spans two channels"},
        {"[hbm]\ntras = 10\n", "t.ini:2: [hbm] tras = 10: must be 0 (not modelled) or at "
         "least trcd (14)"},
        {"[hbm]\nbus_window = 100\n", "t.ini:2: [hbm] bus_window = 100: must be a multiple "
         "of 64 (bits of a ring word)"},
        {"[hbm]\npage_policy = lazy\n", "t.ini:2: [hbm] page_policy = lazy: not one of: "
         "open, closed"},
        {"[hbm]\nchannels = 0\n", "t.ini:2: [hbm] channels = 0: out of range [1, 1024]"},
        {"[hbm]\nchanels = 4\n", "t.ini:2: [hbm] chanels = 4: unknown key (did you mean "
         "'channels'?)"},
        {"[hbm]\naddr_map = RRBBBCCQSSSSSS\n", "t.ini:2: [hbm] addr_map = RRBBBCCQSSSSSS: "
         "letters must be R, B, C, S or '.'"},
        {"[hbm]\naddr_map = RRRBBBCCSSSSSS\n", "t.ini:2: [hbm] addr_map = RRRBBBCCSSSSSS: its "
         "B bits must number log2(banks)"},
        {"[hbm]\naddr_map = RRBBBBCCSSSSS\n", "t.ini:2: [hbm] addr_map = RRBBBBCCSSSSS: its S "
         "bits must number log2(burst_b)"},
        {"[hbm]\nbank_groups = 3\n", "t.ini:2: [hbm] bank_groups = 3: must divide banks (16)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        e.msg[0] = 0;
        cr_expect_eq(from_cfg(cases[i].ini, &p, &e), -1, "case %zu", i);
        cr_expect_str_eq(e.msg, cases[i].msg, "case %zu", i);
    }
    cr_expect_eq(from_cfg("[hbm]\ntras = 0\n", &p, &e), 0, "%s", e.msg);
}

/* QV100's HBM timing (spec accelsim.md 3.3): 32 B bursts of one cycle, four bank groups of
 * the low bank bits, tCCDL 2, tRRD 3, WL 2, and GPGPU-Sim's address map. */
static struct dram_params p_hbm2(void)
{
    struct dram_params p = p_small();
    p.banks = 16;
    p.row_b = 2048;
    p.burst_b = 32;
    p.bank_groups = 4;
    p.tccdl = 2;
    p.trrd = 3;
    p.twl = 2;
    snprintf(p.addr_map, sizeof p.addr_map, "RRRRRRRRRRRRR.BBBCCCB.CCCSSSSS");
    return p;
}

Test(dram, addr_map_gathers_bank_and_row_bits)
{
    struct dram_params p = p_hbm2();
    struct harness *h = h_new(&p);
    const struct dram_params *q = &h->d.p;
    /* channel-local bit 8 is bank bit 0, bits 12-14 bank bits 1-3, bits 15 up the row */
    struct dram_loc l = dram_map(q, 0);
    cr_expect(l.channel == 0 && l.bank == 0 && l.row == 0);
    l = dram_map(q, 256); /* the next 256 B chunk: channel 1 */
    cr_expect(l.channel == 1 && l.bank == 0);
    l = dram_map(q, 512); /* channel 0, local 256: bank 1 */
    cr_expect(l.channel == 0 && l.bank == 1 && l.row == 0 && l.col_b == 0);
    l = dram_map(q, 2 * 4096 + 64); /* local 4096 + 64: bank bit 1, column 64 */
    cr_expect(l.channel == 0 && l.bank == 2 && l.col_b == 64);
    l = dram_map(q, 2 * (32768 + 512)); /* local 32768 + 512: row 1, column bit 9 */
    cr_expect(l.bank == 0 && l.row == 1 && l.col_b == 512, "bank %u row %llu col %u", l.bank,
              (unsigned long long)l.row, l.col_b);
    h_free(h);
}

Test(dram, bursts_of_one_bank_group_keep_tccdl_apart)
{
    struct dram_params p = p_hbm2();
    for (int grp = 0; grp < 2; grp++) {
        struct harness *h = h_new(&p);
        /* two closed rows, activated 3 cycles apart (tRRD): banks 0 and 4 share group 0,
         * banks 0 and 1 are in groups 0 and 1 */
        send_at(h, 0, 0, REQ_READ, 32, 0);
        send_at(h, 0, grp ? 512 : 2 * 4096 * 2, REQ_READ, 32, 1);
        run(h);
        /* 20 + tRCD 14 + tCL 14 = 48, burst 48..49; the second activates at 23, its burst
         * would be 51..52 either way: tRRD decides, not tCCDL */
        cr_expect_eq(h->done[0], 49000);
        cr_expect_eq(h->done[1], 52000, "group case %d: %llu", grp,
                     (unsigned long long)h->done[1]);
        h_free(h);
    }
    /* a whole 128 B line from one bank: four bursts, 2 cycles apart in its group */
    struct harness *h = h_new(&p);
    send_at(h, 0, 0, REQ_READ, 128, 0);
    run(h);
    cr_expect_eq(h->done[0], (48 + 3 * 2 + 1) * 1000);
    cr_expect_eq(h->d.st.busy_cycles, 4);
    h_free(h);
    /* without bank groups the four bursts go back to back */
    p.bank_groups = 0;
    h = h_new(&p);
    send_at(h, 0, 0, REQ_READ, 128, 0);
    run(h);
    cr_expect_eq(h->done[0], (48 + 4) * 1000);
    h_free(h);
}

Test(dram, another_bank_group_fills_the_tccdl_gap)
{
    struct dram_params p = p_hbm2();
    struct harness *h = h_new(&p);
    /* a line from bank 0 (group 0) and, 3 cycles later (tRRD), a line from bank 1 (group 1):
     * bank 0's bursts at 48, 50, 52, 54 and bank 1's in the gaps at 51, 53, 55 and 57 */
    send_at(h, 0, 0, REQ_READ, 128, 0);
    send_at(h, 0, 512, REQ_READ, 128, 1);
    run(h);
    cr_expect_eq(h->done[0], 55000);
    cr_expect_eq(h->done[1], 58000, "%llu", (unsigned long long)h->done[1]);
    cr_expect_eq(h->d.st.busy_cycles, 8);
    h_free(h);
}

Test(dram, writes_use_the_write_latency)
{
    struct dram_params p = p_hbm2();
    struct harness *h = h_new(&p);
    send_at(h, 0, 0, REQ_WRITE, 32, 0);
    run(h);
    cr_expect_eq(h->done[0], (20 + 14 + 2 + 1) * 1000); /* ctrl + tRCD + WL + burst */
    h_free(h);
}
