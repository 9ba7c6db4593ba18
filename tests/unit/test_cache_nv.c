/*
 * NVIDIA-style cache mechanisms: 32 B sectors (child READ masks, merged fills,
 * invalidations in flight, lines kept while they fetch sectors, the `sectors`
 * stat, DRAM and link transfers sized by sectors), data banks
 * interleaved by sector, allocation on miss (victim at the miss, age from the
 * miss, no victim with a fill in flight), the local write policy and the
 * CU's sub-warp coalescing (coalesce_lanes).
 *
 * Common set-up unless a test says otherwise: 1000 MHz (1 cycle = 1000 ps),
 * 2 KiB, 128 B lines (4 sectors), 2 ways -> 8 sets (same set every 1 KiB),
 * hit 4, miss 2, resp 3, lower delay 10: a read miss sends its child READ at
 * 2 and answers at 15. The lower level stamps version 7 on READ responses,
 * writes carry version 9.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cache_tb.h"
#include "test_util.h"
#include "gpu/cu.h"
#include "mem/dram.h"
#include "net/link.h"

#define S0 0xffffffffull         /* sector 0 (or 2) of a 64-bit mask word */
#define S1 (0xffffffffull << 32) /* sector 1 (or 3) */

static struct cache_params base_params(void)
{
    return (struct cache_params){
        .size_b = 2048, .line_b = 128, .ways = 2, .banks = 1, .ports = 1, .mshrs = 4,
        .mshr_targets = 4, .hit_lat = 4, .miss_lat = 2, .resp_lat = 3, .repl = CACHE_LRU,
        .write_policy = CACHE_WRITE_BACK, .write_alloc = CACHE_WA_FETCH,
        .walk_sets_per_cycle = 1, .wb_inflight = 64, .seed = 1, .versions = true,
    };
}

/* The bench with the lower level stamping version 7 on its READ responses. */
static struct tb *tb_new7(const struct cache_params *p)
{
    struct tb *t = tb_new(p);
    t->low.version = 7;
    return t;
}

/* A request for [addr, addr + len) at `when` with flags; writes carry version 9. */
static void issue(struct tb *t, ps_t when, uint8_t kind, addr_t addr, uint32_t len, uint64_t tag,
                  uint8_t flags)
{
    struct req *r = tb_issue(t, when, kind, addr, len, tag);
    r->flags = flags;
    if (kind != REQ_READ)
        for (unsigned w = 0; w < REQ_WORDS; w++)
            r->ver[w] = 9;
}

static void rd(struct tb *t, ps_t when, addr_t addr, uint32_t len, uint64_t tag)
{
    issue(t, when, REQ_READ, addr, len, tag, 0);
}

static int64_t done_at(const struct tb *t, uint64_t tag)
{
    for (int i = 0; i < t->ndone; i++)
        if (t->done_tag[i] == tag)
            return (int64_t)t->done_t[i];
    return -1;
}

static void run(struct tb *t) { cr_assert_eq(sim_run(&t->s, 0), SIM_DONE); }

static void expect_rec(const struct tb *t, int i, uint8_t kind, addr_t addr, ps_t when,
                       uint64_t m0, uint64_t m1)
{
    cr_assert_lt(i, t->low.n, "lower saw only %d requests", t->low.n);
    const struct rec *r = &t->low.rec[i];
    cr_expect(r->kind == kind && r->addr == addr && r->t == when && r->mask[0] == m0 &&
                  r->mask[1] == m1,
              "rec %d: kind %u addr %#llx at %llu mask %#llx %#llx", i, r->kind,
              (unsigned long long)r->addr, (unsigned long long)r->t,
              (unsigned long long)r->mask[0], (unsigned long long)r->mask[1]);
}

static void expect_valid(const struct tb *t, addr_t addr, uint64_t v0, uint64_t v1)
{
    int64_t l = cache_find(&t->c, addr);
    cr_assert_geq(l, 0, "line %#llx absent", (unsigned long long)addr);
    struct cache_mask vm = cache_line_valid(&t->c, l);
    const uint64_t *v = vm.w;
    cr_expect(v[0] == v0 && v[1] == v1, "valid %#llx %#llx", (unsigned long long)v[0],
              (unsigned long long)v[1]);
}

static void probe_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)s, (void)arg;
    struct tb *t = obj;
    t->probe_line = cache_find(&t->c, t->probe_addr);
}

static void flush_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    cache_flush(s, &((struct tb *)obj)->c, NULL, NULL);
}

/* ---- sectors ----------------------------------------------------------------- */

/* Sector 0 at 0, sector 2 at 30, sector 0 again at 60. Without sectors the
 * whole line is fetched and sector 2 hits (34). */
Test(cache_nv, sectored_miss_fetches_only_the_missing_sector)
{
    for (int sect = 0; sect < 2; sect++) {
        struct cache_params p = base_params();
        p.sectored = sect;
        struct tb *t = tb_new7(&p);
        rd(t, 0, 0x1010, 4, 1);
        rd(t, 30 * CY, 0x1044, 4, 2);
        rd(t, 60 * CY, 0x1010, 4, 3);
        run(t);
        cr_expect_eq(done_at(t, 1), 15 * CY);
        cr_expect_eq(done_at(t, 3), 64 * CY);
        cr_expect_eq(done_at(t, 2), (sect ? 45 : 34) * CY);
        cr_expect_eq(t->c.st.sectors, 3);
        cr_expect_eq(t->c.st.read_hits, sect ? 1 : 2);
        cr_assert_eq(t->low.n, sect ? 2 : 1);
        expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY, sect ? S0 : 0, 0);
        cr_expect_eq(t->low.rec[0].flags, sect ? REQ_F_SECTORS : 0);
        if (sect)
            expect_rec(t, 1, REQ_READ, 0x1000, 32 * CY, 0, S0);
        expect_valid(t, 0x1000, sect ? S0 : ~0ull, sect ? S0 : ~0ull);
        tb_free(t);
    }
}

/* Write-validate: bytes 8..11 (sector 0 in part) and bytes 32..63 (sector 1
 * whole) are dirty; a whole-line read fetches sectors 0, 2, 3 and the fill
 * keeps the dirty words' versions (9) under the fetched ones (7). */
Test(cache_nv, sectored_partly_written_sector_is_fetched_and_merged)
{
    struct cache_params p = base_params();
    p.sectored = true;
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new7(&p);
    issue(t, 0, REQ_WRITE, 0x1008, 4, 1, 0);
    issue(t, 1 * CY, REQ_WRITE, 0x1020, 32, 2, 0);
    rd(t, 10 * CY, 0x1000, 128, 3);
    run(t);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_READ, 0x1000, 12 * CY, S0, ~0ull);
    cr_expect_eq(done_at(t, 3), 25 * CY);
    int64_t l = cache_find(&t->c, 0x1000);
    expect_valid(t, 0x1000, ~0ull, ~0ull);
    cr_expect_eq(cache_line_dirty(&t->c, l).w[0], S1 | 0xf00ull);
    cr_expect_eq(cache_line_version(&t->c, l, 0), 7);
    cr_expect_eq(cache_line_version(&t->c, l, 2), 9);
    cr_expect_eq(cache_line_version(&t->c, l, 8), 9);
    cr_expect_eq(cache_line_version(&t->c, l, 16), 7);
    tb_free(t);
}

/* A read of sectors 1 and 2 misses at 0; a whole-line read joins its MSHR
 * at 1, is replayed at the fill (12), misses sectors 0 and 3 and fetches
 * just those (sent 14, filled 24, answered 27). */
Test(cache_nv, sectored_read_merged_into_a_fill_fetches_the_sectors_it_lacks)
{
    struct cache_params p = base_params();
    p.sectored = true;
    struct tb *t = tb_new7(&p);
    rd(t, 0, 0x1020, 64, 1);
    rd(t, 1 * CY, 0x1000, 128, 2);
    run(t);
    cr_expect_eq(t->c.st.mshr_merges, 1);
    cr_expect_eq(t->c.st.sectors, 2 + 4);
    cr_assert_eq(t->low.n, 2);
    expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY, S1, S0);
    expect_rec(t, 1, REQ_READ, 0x1000, 14 * CY, S0, S1);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 27 * CY);
    expect_valid(t, 0x1000, ~0ull, ~0ull);
    tb_free(t);
}

static void inval_ev(struct sim *s, void *obj, uint64_t addr)
{
    (void)s;
    cache_inval_line(&((struct tb *)obj)->c, addr);
}

/* As above, with an invalidation of the line at 5 while the first fetch is in
 * flight: the fill answers read 1 (15) and leaves no copy; read 2 fetches
 * sectors 0 and 3 (sent 14, filled 24), then, the copy being gone, sectors 1
 * and 2 (sent 26, filled 36, answered 39). Those fetches left after the
 * invalidation and keep their line: the line ends whole. (When the stale
 * mark passed on to them, every fill dropped the line again and read 2
 * fetched forever.) */
Test(cache_nv, sectored_fetches_after_an_invalidation_are_not_stale, .timeout = 10)
{
    struct cache_params p = base_params();
    p.sectored = true;
    struct tb *t = tb_new7(&p);
    rd(t, 0, 0x1020, 64, 1);
    rd(t, 1 * CY, 0x1000, 128, 2);
    sim_at(&t->s, 5 * CY, inval_ev, t, 0x1000);
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 39 * CY, "answered at %lld", (long long)done_at(t, 2));
    cr_assert_eq(t->low.n, 3, "the lower level saw %d READs", t->low.n);
    expect_rec(t, 1, REQ_READ, 0x1000, 14 * CY, S0, S1);
    expect_rec(t, 2, REQ_READ, 0x1000, 26 * CY, S1, S0);
    expect_valid(t, 0x1000, ~0ull, ~0ull);
    tb_free(t);
}

/* A sectored cache whose lower level answers for one line after `delay`. */
static struct tb *sectored_with_slow_line(addr_t line, ps_t delay)
{
    struct cache_params p = base_params();
    p.sectored = true;
    struct tb *t = tb_new7(&p);
    t->low.slow_addr = line;
    t->low.slow_delay = delay;
    return t;
}

/* A line fetching sectors is kept until they arrive. A (sector 0, a slow line:
 * 30 cycles below) filled at 32, B (same set) at 52. At 60 a whole-line read
 * of A fetches sectors 1-3 (sent 62, filled 92); C misses at 61 and fills at
 * 73, when A is the least recently used line but fetching: B goes, and A's
 * read is answered at 95. (Evicting A sent its read after sector 0 again.) */
Test(cache_nv, sectored_keeps_a_line_fetching_sectors)
{
    struct tb *t = sectored_with_slow_line(0x0000, 30 * CY);
    rd(t, 0, 0x0000, 4, 1);
    rd(t, 40 * CY, 0x0400, 4, 2);
    rd(t, 60 * CY, 0x0000, 128, 3);
    rd(t, 61 * CY, 0x0800, 4, 4);
    run(t);
    cr_expect_eq(done_at(t, 3), 95 * CY, "answered at %lld", (long long)done_at(t, 3));
    cr_expect_eq(done_at(t, 4), 76 * CY);
    cr_expect_eq(t->low.n, 4);
    cr_expect_eq(cache_find(&t->c, 0x0400), -1);
    expect_valid(t, 0x0000, ~0ull, ~0ull);
    tb_free(t);
}

/* Every way fetching sectors: A and B (sector 0 each) refetch their other
 * sectors at 40 and 41 (filled 52 and 53); C, a fast line (1 cycle below),
 * misses at 42 and is filled at 45 with no way to take: its fill is relayed
 * (answered 48, no copy kept), and A and B end whole. */
Test(cache_nv, sectored_fill_with_every_way_fetching_is_relayed)
{
    struct tb *t = sectored_with_slow_line(0x0800, 1 * CY);
    rd(t, 0, 0x0000, 4, 1);
    rd(t, 20 * CY, 0x0400, 4, 2);
    rd(t, 40 * CY, 0x0000, 128, 3);
    rd(t, 41 * CY, 0x0400, 128, 4);
    rd(t, 42 * CY, 0x0800, 4, 5);
    run(t);
    cr_expect_eq(done_at(t, 5), 48 * CY, "answered at %lld", (long long)done_at(t, 5));
    cr_expect_eq(cache_find(&t->c, 0x0800), -1);
    cr_expect_eq(t->c.st.evictions, 0);
    cr_expect_eq(t->low.n, 5);
    expect_valid(t, 0x0000, ~0ull, ~0ull);
    expect_valid(t, 0x0400, ~0ull, ~0ull);
    tb_free(t);
}

/* A non-allocating read of sector 2 that joins the MSHR of a non-allocating
 * read of sector 0: the relayed fill carried only sector 0, so the second
 * read fetches its own sector (a READ with mask {0, S0} at 14, answered at
 * 27) instead of being answered from bytes that were never fetched. */
Test(cache_nv, sectored_noalloc_reads_of_two_sectors_fetch_both)
{
    struct cache_params p = base_params();
    p.sectored = true;
    struct tb *t = tb_new7(&p);
    issue(t, 0, REQ_READ, 0x1010, 4, 1, REQ_F_NOALLOC);
    issue(t, 1 * CY, REQ_READ, 0x1044, 4, 2, REQ_F_NOALLOC);
    run(t);
    cr_expect_eq(done_at(t, 2), 27 * CY, "answered at %lld", (long long)done_at(t, 2));
    cr_expect_eq(t->low.n, 2, "the lower level saw %d READs", t->low.n);
    if (t->low.n == 2)
        expect_rec(t, 1, REQ_READ, 0x1000, 14 * CY, 0, S0);
    tb_free(t);
}

/* A cache straight over DRAM with 32 B bursts on a 32 B/cycle bus: a closed
 * row answers after ctrl 20 + tRCD 14 + tCL 14 + 1 bus cycle per burst. A read
 * sent at 2 is answered at 2 + 48 + 1 + 3 = 54 with one sector, 57 with four;
 * the flush of bytes 0..3 and 100..103 writes back 2 sectors (64 B) or, not
 * sectored, the whole line (128 B). Links size a sectored fill likewise. */
Test(cache_nv, sectored_transfers_below_move_only_their_sectors)
{
    struct dram_params dp = {.channels = 1, .banks = 4, .row_b = 1024, .burst_b = 32,
                             .bus_b_per_cycle = 32, .interleave_b = 256, .mhz = 1000, .tcl = 14,
                             .trcd = 14, .trp = 14, .tras = 33, .ctrl_lat = 20,
                             .page_policy = DRAM_PAGE_CLOSED};
    for (int sect = 0; sect < 2; sect++) {
        struct cache_params p = base_params();
        p.sectored = sect;
        struct dram d;
        struct tb *t = tb_new7(&p);
        dram_init(&d, &t->s, "dram", NULL, &dp);
        t->c.lower = dram_port(&d);
        rd(t, 0, 0x0, 4, 1);
        issue(t, 100 * CY, REQ_WRITE, 0x0, 4, 2, 0);
        issue(t, 101 * CY, REQ_WRITE, 0x64, 4, 3, 0);
        sim_at(&t->s, 200 * CY, flush_ev, t, 0);
        run(t);
        cr_expect_eq(done_at(t, 1), (sect ? 54 : 57) * CY);
        cr_expect_eq(d.st.read_sectors, sect ? 1 : 4);
        cr_expect_eq(d.st.bytes_read, sect ? 32 : 128);
        cr_expect_eq(d.st.busy_cycles, sect ? 1 + 2 : 4 + 4);
        cr_expect_eq(d.st.write_sectors, 2);
        cr_expect_eq(d.st.bytes_written, sect ? 64 : 128);
        dram_free(&d);
        tb_free(t);
    }
    /* links: a fill's response carries 32 B per sector of its mask */
    struct link_params lp = {.lat = 1, .bw_b_per_cycle = 32, .flit_b = 32, .header_b = 8};
    struct req r = {.kind = REQ_READ, .size = 128, .mask = {1ull << 40, S0}}; /* sectors 1, 2 */
    cr_expect_eq(link_msg_bytes(&lp, &r, true), 8 + 128);
    r.flags = REQ_F_SECTORS;
    cr_expect_eq(link_msg_bytes(&lp, &r, false), 8);
    cr_expect_eq(link_msg_bytes(&lp, &r, true), 8 + 64);
}

/* ---- data banks ---------------------------------------------------------------- */

/* Lines 0x000, 0x080, 0x100, 0x180 present; sector s is in bank s % 4. */
static struct tb *banked(uint32_t data_banks)
{
    struct cache_params p = base_params();
    p.ports = 4;
    p.data_banks = data_banks;
    struct tb *t = tb_new7(&p);
    for (addr_t a = 0; a < 0x200; a += 0x80)
        cr_assert(cache_install_clean(&t->s, &t->c, a, 0, NULL));
    return t;
}

/* At 100, one sector in each of banks 0..3: all accepted at once (104). At
 * 200, sector 0 of four lines, all in bank 0: one per cycle (204..207), 6
 * cycles of stalls. Without data banks (0) all eight take their port slot. */
Test(cache_nv, data_banks_conflicts_serialise_same_bank_sectors)
{
    static const addr_t spread[4] = {0x000, 0x0a0, 0x140, 0x1e0}; /* banks 0, 1, 2, 3 */
    for (uint32_t db = 0; db <= 4; db += 4) {
        struct tb *t = banked(db);
        for (uint64_t i = 0; i < 4; i++) {
            rd(t, 100 * CY, spread[i], 4, i);
            rd(t, 200 * CY, i * 0x80, 4, 10 + i); /* sector 0 of each line: bank 0 */
        }
        run(t);
        for (uint64_t i = 0; i < 4; i++) {
            cr_expect_eq(done_at(t, i), 104 * CY, "spread %llu", (unsigned long long)i);
            int64_t want = (int64_t)(204 + (db ? i : 0)) * CY;
            cr_expect_eq(done_at(t, 10 + i), want, "bank 0 read %llu", (unsigned long long)i);
        }
        cr_expect_eq(t->c.st.data_bank_stalls, db ? 0 + 1 + 2 + 3 : 0);
        cr_expect_eq(t->low.n, 0);
        tb_free(t);
    }
}

/* A whole-line read holds each bank one cycle per sector it has there: with
 * 4 banks one cycle, with 2 banks two. */
Test(cache_nv, data_banks_whole_line_read_holds_its_banks_per_sector)
{
    for (uint32_t db = 2; db <= 4; db += 2) {
        struct tb *t = banked(db);
        rd(t, 100 * CY, 0x000, 128, 1);
        rd(t, 100 * CY, 0x0a0, 4, 2); /* sector 5: bank 1 */
        rd(t, 100 * CY, 0x100, 128, 3);
        run(t);
        int64_t hold = 4 / db;
        cr_expect_eq(done_at(t, 1), 104 * CY);
        cr_expect_eq(done_at(t, 2), (104 + hold) * CY);
        cr_expect_eq(done_at(t, 3), (104 + hold + 1) * CY);
        cr_expect_eq(t->c.st.data_bank_stalls, (uint64_t)(hold + hold + 1));
        tb_free(t);
    }
}

/* ---- allocation on miss ------------------------------------------------------ */

/* A (0x0000) and B (0x0400) fill set 0; A is written (dirty) then B read, so
 * A is the LRU victim of C (0x0800), read at 60. The probe looks for C at 65. */
Test(cache_nv, alloc_on_miss_evicts_and_writes_back_at_the_miss)
{
    for (int aom = 0; aom < 2; aom++) {
        struct cache_params p = base_params();
        p.alloc_on_miss = aom;
        struct tb *t = tb_new7(&p);
        rd(t, 0, 0x0000, 4, 1);
        rd(t, 20 * CY, 0x0400, 4, 2);
        issue(t, 40 * CY, REQ_WRITE, 0x0000, 4, 3, 0);
        rd(t, 50 * CY, 0x0400, 4, 4);
        rd(t, 60 * CY, 0x0800, 4, 5);
        t->probe_addr = 0x0800;
        sim_at(&t->s, 65 * CY, probe_ev, t, 0);
        run(t);
        cr_assert_eq(t->low.n, 4);
        cr_expect_eq(done_at(t, 5), 75 * CY);
        int wb = aom ? 2 : 3, fetch = aom ? 3 : 2;
        expect_rec(t, wb, REQ_WRITEBACK, 0x0000, (aom ? 60 : 72) * CY, 0xf, 0);
        expect_rec(t, fetch, REQ_READ, 0x0800, 62 * CY, 0, 0);
        cr_expect_eq(t->probe_line >= 0, aom, "C reserved at the miss only with allocate=miss");
        cr_expect_eq(cache_find(&t->c, 0x0000), -1);
        cr_expect_eq(t->c.st.evictions, 1);
        cr_expect_eq(t->c.st.writebacks, 1);
        tb_free(t);
    }
}

/* A's fill is slow (30): A missed at 0 (and again at 5, merged), B missed at
 * 1; A is filled at 32, after B (13). At 40, C (0x0800) needs a victim: with
 * allocate=miss A (oldest miss), with allocate=fill B (oldest fill). */
Test(cache_nv, alloc_on_miss_age_counts_from_the_miss)
{
    for (int aom = 0; aom < 2; aom++) {
        struct cache_params p = base_params();
        p.alloc_on_miss = aom;
        struct tb *t = tb_new7(&p);
        t->low.slow_addr = 0x0000;
        t->low.slow_delay = 30 * CY;
        rd(t, 0, 0x0000, 4, 1);
        rd(t, 1 * CY, 0x0400, 4, 2);
        rd(t, 5 * CY, 0x0010, 4, 3);
        rd(t, 40 * CY, 0x0800, 4, 4);
        run(t);
        cr_expect_eq(done_at(t, 1), 35 * CY);
        cr_expect_eq(done_at(t, 3), 35 * CY);
        cr_expect_eq(done_at(t, 2), 16 * CY);
        cr_expect_eq(cache_find(&t->c, 0x0000) >= 0, !aom);
        cr_expect_eq(cache_find(&t->c, 0x0400) >= 0, aom);
        cr_expect_geq(cache_find(&t->c, 0x0800), 0);
        tb_free(t);
    }
}

/* B present; A missed at 20 (reserved, fill at 32); B hit at 21, so A is
 * the LRU line when C misses at 22; A has a fill in flight, so B goes. */
Test(cache_nv, alloc_on_miss_spares_a_line_with_a_fill_in_flight)
{
    struct cache_params p = base_params();
    p.alloc_on_miss = true;
    struct tb *t = tb_new7(&p);
    rd(t, 0, 0x0400, 4, 1);
    rd(t, 20 * CY, 0x0000, 4, 2);
    rd(t, 21 * CY, 0x0400, 4, 3);
    rd(t, 22 * CY, 0x0800, 4, 4);
    run(t);
    cr_expect_eq(done_at(t, 2), 35 * CY);
    cr_expect_eq(done_at(t, 3), 25 * CY);
    cr_expect_eq(done_at(t, 4), 37 * CY);
    cr_expect_eq(cache_find(&t->c, 0x0400), -1);
    expect_valid(t, 0x0000, ~0ull, ~0ull);
    expect_valid(t, 0x0800, ~0ull, ~0ull);
    cr_expect_eq(t->c.st.evictions, 1);
    tb_free(t);
}

/* With allocate=miss a sector miss on a line that is present renews its age
 * at the miss (as allocate=fill does at the fill): A is kept and B, the
 * least recently used, evicted. The same holds for a read miss on a
 * write-validated line without sectors. */
Test(cache_nv, alloc_on_miss_sector_miss_renews_the_age_of_a_present_line)
{
    for (int aom = 0; aom < 2; aom++) {
        struct cache_params p = base_params();
        p.sectored = true;
        p.alloc_on_miss = aom;
        struct tb *t = tb_new7(&p);
        rd(t, 0, 0x0000, 4, 1);
        rd(t, 20 * CY, 0x0400, 4, 2);
        rd(t, 40 * CY, 0x0040, 4, 3);
        rd(t, 60 * CY, 0x0800, 4, 4);
        run(t);
        cr_expect_eq(t->low.n, 4);
        const char *mode = aom ? "miss" : "fill";
        cr_expect_geq(cache_find(&t->c, 0x0000), 0, "allocate=%s: A evicted", mode);
        cr_expect_eq(cache_find(&t->c, 0x0400), -1, "allocate=%s: B kept", mode);
        tb_free(t);
    }
}

/* ---- local write policy ---------------------------------------------------------- */

/* Global: write-through, write-validate; local: write-back, no allocation.
 * Line 0x1000 is filled at 12. A local store hit (20) stays dirty here; a
 * global store hit (30) is written through (sent 32, acked 42, answered 45);
 * a local store miss (50) is forwarded without allocating (a global one would
 * allocate). With local_write_policy = same (0) the local hit is written
 * through too. A flush at 100 writes the local bytes back. */
Test(cache_nv, local_stores_follow_the_local_write_policy)
{
    for (uint8_t lwp = 0; lwp <= 1 + CACHE_WRITE_BACK; lwp += 1 + CACHE_WRITE_BACK) {
        struct cache_params p = base_params();
        p.write_policy = CACHE_WRITE_THROUGH;
        p.write_alloc = CACHE_WA_VALIDATE;
        p.local_write_policy = lwp;
        p.local_write_alloc = 1 + CACHE_WA_NONE;
        struct tb *t = tb_new7(&p);
        rd(t, 0, 0x1000, 4, 1);
        issue(t, 20 * CY, REQ_WRITE, 0x1004, 4, 2, REQ_F_LOCAL);
        issue(t, 30 * CY, REQ_WRITE, 0x1008, 4, 3, 0);
        issue(t, 50 * CY, REQ_WRITE, 0x2004, 4, 4, REQ_F_LOCAL);
        sim_at(&t->s, 100 * CY, flush_ev, t, 0);
        run(t);
        int i = 1;
        if (lwp) {
            cr_expect_eq(done_at(t, 2), 24 * CY);
        } else {
            cr_expect_eq(done_at(t, 2), 35 * CY);
            expect_rec(t, i++, REQ_WRITE, 0x1004, 22 * CY, 0xf0, 0);
        }
        expect_rec(t, i++, REQ_WRITE, 0x1008, 32 * CY, 0xf00, 0);
        expect_rec(t, i++, REQ_WRITE, 0x2004, 52 * CY, 0xf0, 0);
        if (lwp)
            expect_rec(t, i++, REQ_WRITEBACK, 0x1000, 100 * CY, 0xf0, 0);
        cr_expect_eq(t->low.n, i);
        cr_expect_eq(done_at(t, 3), 45 * CY);
        cr_expect_eq(done_at(t, 4), 65 * CY);
        cr_expect_eq(cache_find(&t->c, 0x2000), -1);
        cr_expect_eq(t->c.st.write_hits, 2);
        cr_expect_eq(t->c.st.write_misses, 1);
        tb_free(t);
    }
}

/* ---- sub-warp coalescing (CU) ------------------------------------------------- */

static void next_op(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    *op = ((const struct kernel_op *)k->ctx)[w->pc++];
}

static unsigned home0(void *obj, addr_t a, unsigned cu)
{
    (void)obj, (void)a, (void)cu;
    return 0;
}

static void wg_done(void *obj, struct cu *cu, uint32_t wg) { (void)obj, (void)cu, (void)wg; }

/* One 64-lane warp of a CU loads 4 B per lane from 0x1000 (256 B, 4 lines
 * of 64 B) through an L1 of 64 B lines; returns the CU's load_lines. */
static uint64_t warp_load(struct tb *t, unsigned coalesce_lanes)
{
    static const struct kernel_op ops[] = {
        {.kind = KOP_LOAD, .size = 4, .dst = 1, .base = 0x1000, .stride = 4}, {.kind = KOP_EXIT}};
    struct chk chk;
    struct cu cu;
    chk_init(&chk, false, 64);
    struct cu_params p = {.simds = 4, .warps_per_simd = 10, .warp_size = 64, .alu_cycles = 4,
                          .max_wgs = 40, .coalesce_lanes = coalesce_lanes};
    struct cu_env env = {.s = &t->s, .clk = &t->clk, .chk = &chk, .home = home0,
                         .wg_done = wg_done};
    cu_init(&cu, 0, &p, &env, &t->c, NULL, 0); /* no LDS ops */
    struct kernel k = {.grid = {1, 1, 1}, .block = {64, 1, 1}, .next = next_op, .ctx = ops};
    cu_dispatch(&cu, &k, 0);
    run(t);
    uint64_t lines = cu.st.load_lines;
    cu_free(&cu);
    chk_free(&chk);
    return lines;
}

/* Whole warp: one request per line (4). Groups of 8 lanes: each group's
 * 32 B is its own request (8), two per line; the second of each line joins
 * the first's MSHR, so the level below still sees 4 READs. */
Test(cache_nv, coalesce_lanes_gives_each_group_its_own_requests)
{
    for (unsigned g = 0; g <= 8; g += 8) {
        struct cache_params cp = base_params();
        cp.size_b = 16384, cp.line_b = 64, cp.ways = 16, cp.ports = 64, cp.mshrs = 64;
        struct tb *t = tb_new7(&cp);
        cr_expect_eq(warp_load(t, g), g ? 8 : 4);
        cr_expect_eq(t->c.st.accesses, g ? 8 : 4);
        cr_expect_eq(t->c.st.sectors, 8);
        cr_expect_eq(t->c.st.mshr_merges, g ? 4 : 0);
        cr_assert_eq(t->low.n, 4);
        for (int i = 0; i < 4; i++)
            expect_rec(t, i, REQ_READ, 0x1000 + 0x40 * (addr_t)i, 2 * CY, 0, 0);
        tb_free(t);
    }
}

/* IPOLY bank selection (spec accelsim.md 2.6): 64 lines 64 lines apart all fall in bank 0
 * of 64 line-interleaved banks, one port each, so they are accepted one per cycle; hashed,
 * a power-of-two stride meets no conflict and all 64 go at once. */
Test(cache_nv, ipoly_spreads_a_power_of_two_stride_over_the_banks)
{
    for (int hashed = 0; hashed < 2; hashed++) {
        struct cache_params p = base_params();
        p.size_b = 64 * 2 * 128; /* 64 banks of one set */
        p.banks = 64;
        p.mshrs = 64;
        p.ipoly = hashed;
        struct tb *t = tb_new7(&p);
        for (unsigned i = 0; i < 64; i++)
            rd(t, 0, (addr_t)i * 64 * 128, 4, i);
        run(t);
        cr_assert_eq(t->low.n, 64);
        ps_t last = 0;
        for (int i = 0; i < 64; i++)
            last = t->low.rec[i].t > last ? t->low.rec[i].t : last;
        /* accepted at 0 (hashed) or 0..63 (linear), sent below miss_lat 2 later */
        cr_expect_eq(last, (hashed ? 2 : 65) * CY, "hashed %d: last miss sent at %llu", hashed,
                     (unsigned long long)(last / CY));
        tb_free(t);
    }
}
