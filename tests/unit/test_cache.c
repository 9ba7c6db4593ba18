/*
 * Cache: exact latencies, MSHR merging and exhaustion, bank ports,
 * replacement, write policies, flush/invalidate walks, 128 B lines and
 * config errors. The level below is a fake that acknowledges every request a
 * fixed delay after it arrives and records what it saw.
 *
 * Common set-up unless a test says otherwise: 1000 MHz (1 cycle = 1000 ps),
 * 1 KiB, 64 B lines, 2 ways -> 8 sets (same set every 512 B), hit 4, miss 2,
 * resp 3 cycles, lower delay 10 cycles. So a read miss answers after
 * 2 + 10 + 3 = 15 cycles, and the child READ reaches the lower level at 2.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cache_tb.h"
#include "test_util.h"
#include "config/cfg.h"
#include "mem/cache.h"
#include "mem/cache_array.h" /* a line record's version encoding */
#include "stats/stats.h"

static struct cache_params base_params(void)
{
    return (struct cache_params){
        .size_b = 1024, .line_b = 64, .ways = 2, .banks = 1, .ports = 1, .mshrs = 4,
        .mshr_targets = 4, .hit_lat = 4, .miss_lat = 2, .resp_lat = 3, .repl = CACHE_LRU,
        .write_policy = CACHE_WRITE_BACK, .write_alloc = CACHE_WA_FETCH,
        .walk_sets_per_cycle = 1, .wb_inflight = 64, .seed = 1, .versions = true,
    };
}

/* A request as tb_issue() makes it, from a requester that knows the home. */
static struct req *issue(struct tb *t, ps_t when, uint8_t kind, addr_t addr, uint32_t len,
                         uint64_t tag)
{
    struct req *r = tb_issue(t, when, kind, addr, len, tag);
    r->home = 5;
    return r;
}

static void rd(struct tb *t, ps_t when, addr_t addr, uint64_t tag)
{
    issue(t, when, REQ_READ, addr, 4, tag);
}

static void wr(struct tb *t, ps_t when, addr_t addr, uint32_t len, uint64_t tag)
{
    issue(t, when, REQ_WRITE, addr, len, tag);
}

/* Completion time of the request tagged `tag`; -1 if it never completed. */
static int64_t done_at(const struct tb *t, uint64_t tag)
{
    for (int i = 0; i < t->ndone; i++)
        if (t->done_tag[i] == tag)
            return (int64_t)t->done_t[i];
    return -1;
}

static void run(struct tb *t) { cr_assert_eq(sim_run(&t->s, 0), SIM_DONE); }

static void expect_rec(const struct tb *t, int i, uint8_t kind, addr_t addr, ps_t when)
{
    cr_assert_lt(i, t->low.n, "lower saw only %d requests", t->low.n);
    cr_expect_eq(t->low.rec[i].kind, kind, "rec %d kind", i);
    cr_expect_eq(t->low.rec[i].addr, addr, "rec %d addr %llx", i,
                 (unsigned long long)t->low.rec[i].addr);
    cr_expect_eq(t->low.rec[i].t, when, "rec %d time %llu", i,
                 (unsigned long long)t->low.rec[i].t);
}

static void op_done(struct sim *s, void *obj)
{
    struct tb *t = obj;
    t->op_t[t->nops++] = s->now;
}

static void flush_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    struct tb *t = obj;
    cache_flush(s, &t->c, op_done, t);
}

static void inval_ev(struct sim *s, void *obj, uint64_t clean_only)
{
    struct tb *t = obj;
    cache_invalidate(s, &t->c, clean_only != 0, op_done, t);
}

static void expect_masks(const struct tb *t, addr_t addr, uint64_t v0, uint64_t v1, uint64_t d0,
                         uint64_t d1)
{
    int64_t l = cache_find(&t->c, addr);
    cr_assert_geq(l, 0, "line %llx absent", (unsigned long long)addr);
    struct cache_mask vm = cache_line_valid(&t->c, l), dm = cache_line_dirty(&t->c, l);
    const uint64_t *v = vm.w, *d = dm.w;
    cr_expect_eq(v[0], v0, "valid[0] %llx", (unsigned long long)v[0]);
    cr_expect_eq(v[1], v1, "valid[1] %llx", (unsigned long long)v[1]);
    cr_expect_eq(d[0], d0, "dirty[0] %llx", (unsigned long long)d[0]);
    cr_expect_eq(d[1], d1, "dirty[1] %llx", (unsigned long long)d[1]);
}

/* ---- latencies ------------------------------------------------------------- */

Test(cache, miss_latency_is_miss_plus_lower_plus_resp)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    t->low.version = 7;
    rd(t, 0, 0x1010, 1);
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(t->done_version[0], 7);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY);
    cr_expect_eq(t->low.rec[0].size, 64);
    cr_expect_eq(t->low.rec[0].home, 5);
    int64_t l = cache_find(&t->c, 0x1010);
    cr_assert_geq(l, 0);
    cr_expect_eq(cache_line_home(&t->c, l), 5);
    cr_expect_eq(cache_line_state(&t->c, l), 0);
    cr_expect_eq(cache_line_version(&t->c, l, 4), 7);
    cr_expect_eq(cache_line_tag_addr(&t->c, l), 0x1000);
    cr_expect_eq(t->c.st.read_misses, 1);
    cr_expect_eq(t->c.st.accesses, 1);
    tb_free(t);
}

Test(cache, hit_latency_exact_on_and_off_edge)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    rd(t, 100 * CY, 0x1004, 2);
    rd(t, 200 * CY + 500, 0x103c, 3); /* accepted at the next edge */
    run(t);
    cr_expect_eq(done_at(t, 2), 104 * CY);
    cr_expect_eq(done_at(t, 3), 205 * CY);
    cr_expect_eq(t->low.n, 1);
    cr_expect_eq(t->c.st.reads, 3);
    cr_expect_eq(t->c.st.read_hits, 2);
    cr_expect_eq(t->c.st.read_misses, 1);
    tb_free(t);
}

Test(cache, two_reads_to_one_line_merge)
{
    struct cache_params p = base_params();
    p.ports = 2;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    rd(t, 0, 0x1020, 2);
    rd(t, 5 * CY, 0x1030, 3);
    run(t);
    cr_expect_eq(t->low.n, 1);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 15 * CY);
    cr_expect_eq(done_at(t, 3), 15 * CY);
    cr_expect_eq(t->c.st.mshr_merges, 2);
    cr_expect_eq(t->c.st.read_misses, 3);
    tb_free(t);
}

/* The requests a cache sends below carry the site of the access that caused
 * them: a miss's fetch its first target's, a forwarded write its own. */
Test(cache, requests_below_carry_the_site)
{
    struct cache_params p = base_params();
    p.write_policy = CACHE_WRITE_THROUGH;
    p.write_alloc = CACHE_WA_NONE;
    struct tb *t = tb_new(&p);
    issue(t, 0, REQ_READ, 0x1000, 4, 1)->site = 7;
    issue(t, 1 * CY, REQ_READ, 0x1020, 4, 2)->site = 8; /* merges into the first fetch */
    issue(t, 2 * CY, REQ_WRITE, 0x2000, 4, 3)->site = 9;
    run(t);
    cr_assert_eq(t->low.n, 2);
    cr_expect(t->low.rec[0].kind == REQ_READ && t->low.rec[0].site == 7);
    cr_expect(t->low.rec[1].kind == REQ_WRITE && t->low.rec[1].site == 9);
    tb_free(t);
}

Test(cache, full_mshr_target_list_waits_then_hits)
{
    struct cache_params p = base_params();
    p.ports = 4;
    p.mshr_targets = 2;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    rd(t, 0, 0x1004, 2);
    rd(t, 0, 0x1008, 3);
    run(t);
    cr_expect_eq(t->low.n, 1);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 15 * CY);
    /* retried when the MSHR frees at the fill (12): a hit, 12 + 4 */
    cr_expect_eq(done_at(t, 3), 16 * CY);
    cr_expect_eq(t->c.st.mshr_merges, 1);
    cr_expect_eq(t->c.st.mshr_stalls, 1);
    tb_free(t);
}

Test(cache, mshr_exhaustion_queues_then_proceeds)
{
    struct cache_params p = base_params();
    p.ports = 2;
    p.mshrs = 1;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x0, 1);
    rd(t, 0, 0x40, 2);
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    /* B gets the MSHR at A's fill (12): sent at 14, filled at 24, answered at 27 */
    cr_expect_eq(done_at(t, 2), 27 * CY);
    cr_assert_eq(t->low.n, 2);
    expect_rec(t, 0, REQ_READ, 0x0, 2 * CY);
    expect_rec(t, 1, REQ_READ, 0x40, 14 * CY);
    cr_expect_eq(t->c.st.mshr_stalls, 1);
    tb_free(t);
}

Test(cache, bank_port_contention)
{
    struct cache_params p = base_params();
    p.banks = 2; /* bank = line index % 2: 0x0, 0x80 in bank 0; 0x40 in bank 1 */
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x0, 1);
    rd(t, 20 * CY, 0x80, 2);
    rd(t, 40 * CY, 0x40, 3);
    rd(t, 100 * CY, 0x0, 10);
    rd(t, 100 * CY, 0x80, 11); /* same bank, same cycle: one cycle later */
    rd(t, 200 * CY, 0x0, 20);
    rd(t, 200 * CY, 0x40, 21); /* other bank: no delay */
    run(t);
    cr_expect_eq(done_at(t, 10), 104 * CY);
    cr_expect_eq(done_at(t, 11), 105 * CY);
    cr_expect_eq(done_at(t, 20), 204 * CY);
    cr_expect_eq(done_at(t, 21), 204 * CY);
    tb_free(t);
}

Test(cache, ports_per_cycle_fifo)
{
    struct cache_params p = base_params();
    p.ports = 2;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x0, 1);
    for (uint64_t i = 0; i < 5; i++)
        rd(t, 100 * CY, 0x0, 10 + i);
    run(t);
    int64_t want[5] = {104, 104, 105, 105, 106};
    for (int i = 0; i < 5; i++)
        cr_expect_eq(done_at(t, 10 + (uint64_t)i), want[i] * CY, "request %d", i);
    tb_free(t);
}

/* ---- replacement ----------------------------------------------------------- */

/* A, B fill set 0; A is touched again; C needs a victim. */
static void lru_fifo_sequence(struct tb *t)
{
    rd(t, 0, 0x000, 1);
    rd(t, 20 * CY, 0x200, 2);
    rd(t, 40 * CY, 0x000, 3);
    rd(t, 60 * CY, 0x400, 4);
    run(t);
    cr_expect_eq(done_at(t, 3), 44 * CY);
    cr_expect_eq(t->c.st.evictions, 1);
    cr_expect_eq(t->c.st.writebacks, 0);
}

Test(cache, lru_evicts_least_recently_used)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    lru_fifo_sequence(t);
    cr_expect_geq(cache_find(&t->c, 0x000), 0);
    cr_expect_eq(cache_find(&t->c, 0x200), -1);
    cr_expect_geq(cache_find(&t->c, 0x400), 0);
    tb_free(t);
}

Test(cache, fifo_evicts_oldest_install)
{
    struct cache_params p = base_params();
    p.repl = CACHE_FIFO;
    struct tb *t = tb_new(&p);
    lru_fifo_sequence(t);
    cr_expect_eq(cache_find(&t->c, 0x000), -1);
    cr_expect_geq(cache_find(&t->c, 0x200), 0);
    cr_expect_geq(cache_find(&t->c, 0x400), 0);
    tb_free(t);
}

Test(cache, random_replacement_follows_the_seeded_stream)
{
    struct cache_params p = base_params();
    p.ways = 4; /* 4 sets, set 0 every 256 B */
    p.repl = CACHE_RANDOM;
    p.seed = 99;
    struct tb *t = tb_new(&p);
    for (uint64_t k = 0; k < 12; k++)
        rd(t, k * 20 * CY, k * 256, k);
    run(t);
    struct rng ref;
    rng_seed(&ref, 99);
    uint64_t way_line[4] = {0, 1, 2, 3}; /* invalid ways fill in order */
    for (uint64_t k = 4; k < 12; k++)
        way_line[rng_below(&ref, 4)] = k;
    for (uint64_t w = 0; w < 4; w++)
        cr_expect_eq(cache_find(&t->c, way_line[w] * 256), (int64_t)w, "way %llu",
                     (unsigned long long)w);
    cr_expect_eq(t->c.st.evictions, 8);
    tb_free(t);
}

/* ---- replacement against a reference model ------------------------------- */

/* The tag array, victim choice and dirty tracking are built for speed
 * (fingerprints, way bitmaps, 32-bit stamps renumbered before they wrap);
 * this is the plain definition they must match: a line is in at most one
 * way; a miss takes the lowest invalid way, else (random) the seeded
 * stream's pick, else the way with the smallest stamp (lowest way among
 * equals); LRU stamps every touch, both LRU and FIFO every install. */
struct model {
    uint32_t ways, sets, banks;
    uint64_t *tag; /* sets x ways, UINT64_MAX = invalid */
    uint64_t *stamp;
    bool *dirty;
    uint64_t tick;
    struct rng rng;
    enum cache_repl repl;
    uint64_t wb[4096];
    int nwb;
};

static size_t model_set(const struct model *m, addr_t a)
{
    uint64_t li = a / 64, spb = m->sets / m->banks;
    return (size_t)(li % m->banks) * spb + (li / m->banks) % spb;
}

/* One access run to completion: a read, or a whole-word write (write-back,
 * fetch on a write miss, so a write dirties the line). */
static void model_access(struct model *m, addr_t a, bool write)
{
    size_t base = model_set(m, a) * m->ways;
    uint64_t li = a / 64;
    uint32_t w;
    for (w = 0; w < m->ways && m->tag[base + w] != li; w++)
        ;
    if (w == m->ways) {
        for (w = 0; w < m->ways && m->tag[base + w] != UINT64_MAX; w++)
            ;
        if (w == m->ways && m->repl == CACHE_RANDOM) {
            w = (uint32_t)rng_below(&m->rng, m->ways);
        } else if (w == m->ways) {
            w = 0;
            for (uint32_t v = 1; v < m->ways; v++)
                if (m->stamp[base + v] < m->stamp[base + w])
                    w = v;
        }
        if (m->tag[base + w] != UINT64_MAX && m->dirty[base + w])
            m->wb[m->nwb++] = m->tag[base + w] * 64;
        m->tag[base + w] = li;
        m->dirty[base + w] = false;
        m->stamp[base + w] = ++m->tick;
    } else if (m->repl == CACHE_LRU) {
        m->stamp[base + w] = ++m->tick;
    }
    m->dirty[base + w] |= write;
}

static void check_model(struct cache_params p, int steps, uint64_t tags_per_set, bool wrap)
{
    struct tb *t = tb_new(&p);
    struct model m = {.ways = p.ways, .sets = (uint32_t)(p.size_b / 64 / p.ways),
                      .banks = p.banks, .repl = p.repl};
    size_t lines = (size_t)m.sets * m.ways;
    m.tag = malloc(lines * sizeof *m.tag);
    m.stamp = calloc(lines, sizeof *m.stamp);
    m.dirty = calloc(lines, sizeof *m.dirty);
    for (size_t i = 0; i < lines; i++)
        m.tag[i] = UINT64_MAX;
    rng_seed(&m.rng, p.seed);
    struct rng r;
    rng_seed(&r, 1234 + p.ways);
    int nwb = 0;
    for (int k = 0; k < steps; k++) {
        if (wrap && k == steps / 2)
            for (size_t set = 0; set < t->c.sets; set++) /* above every stamp of the set: */
                t->c.set_tick[set] = UINT16_MAX - 3; /* they must be renumbered, order kept */
        addr_t a = (rng_below(&r, tags_per_set) * m.sets + rng_below(&r, m.sets)) * 64 +
                   4 * rng_below(&r, 16);
        bool write = rng_below(&r, 3) == 0;
        issue(t, t->s.now, write ? REQ_WRITE : REQ_READ, a, 4, (uint64_t)k);
        run(t);
        model_access(&m, a, write);
        for (int i = 0; i < t->low.n; i++)
            if (t->low.rec[i].kind == REQ_WRITEBACK) {
                cr_assert_lt(nwb, m.nwb, "step %d: write-back the model did not make", k);
                cr_assert_eq(t->low.rec[i].addr, m.wb[nwb], "write-back %d", nwb);
                nwb++;
            }
        t->low.n = t->ndone = 0; /* the recorders hold a few hundred entries */
        size_t base = model_set(&m, a) * m.ways;
        for (uint32_t w = 0; w < m.ways; w++) {
            int64_t want = m.tag[base + w] == UINT64_MAX ? -1 : (int64_t)(base + w);
            if (want >= 0)
                cr_assert_eq(cache_find(&t->c, m.tag[base + w] * 64), want,
                             "step %d: line %llx not in way %u", k,
                             (unsigned long long)m.tag[base + w] * 64, w);
        }
    }
    cr_expect_eq(nwb, m.nwb);
    free(m.tag);
    free(m.stamp);
    free(m.dirty);
    tb_free(t);
}

static struct cache_params model_params(uint32_t ways, uint32_t sets, uint32_t banks,
                                        enum cache_repl repl)
{
    struct cache_params p = base_params();
    p.ways = ways;
    p.size_b = (uint64_t)ways * sets * 64;
    p.banks = banks;
    p.repl = repl;
    p.seed = 77;
    p.mshrs = 1;
    return p;
}

Test(cache, lru_matches_the_reference_model)
{
    /* many tags per set: fingerprints collide, lookups must check tags */
    check_model(model_params(2, 8, 1, CACHE_LRU), 1500, 6, false);
    check_model(model_params(16, 4, 2, CACHE_LRU), 1500, 40, false);
    check_model(model_params(24, 2, 1, CACHE_LRU), 1500, 60, false);
    check_model(model_params(96, 2, 2, CACHE_LRU), 1500, 300, false);
}

Test(cache, fifo_and_random_match_the_reference_model)
{
    check_model(model_params(16, 4, 1, CACHE_FIFO), 1500, 40, false);
    check_model(model_params(96, 2, 1, CACHE_FIFO), 1500, 300, false);
    check_model(model_params(8, 4, 2, CACHE_RANDOM), 1500, 30, false);
    check_model(model_params(70, 2, 1, CACHE_RANDOM), 1500, 200, false);
}

Test(cache, stamps_renumbered_before_they_wrap_keep_the_order)
{
    check_model(model_params(16, 4, 1, CACHE_LRU), 2000, 40, true);
    check_model(model_params(96, 2, 1, CACHE_FIFO), 2000, 300, true);
}

/* Flush and invalidate walks read the way bitmaps: with more than 64 ways
 * they span several words per set. */
Test(cache, walks_over_more_than_64_ways)
{
    struct cache_params p = model_params(96, 2, 1, CACHE_LRU);
    struct tb *t = tb_new(&p);
    /* 150 lines, 75 in each set, every third one written */
    for (uint64_t k = 0; k < 150; k++) {
        issue(t, t->s.now, k % 3 ? REQ_READ : REQ_WRITE, k * 64, 4, k);
        run(t);
        t->low.n = t->ndone = 0;
    }
    int dirty = 0, valid = 0;
    for (uint64_t k = 0; k < 150; k++) {
        int64_t l = cache_find(&t->c, k * 64);
        if (l < 0)
            continue;
        valid++;
        dirty += cache_line_dirty(&t->c, l).w[0] != 0;
    }
    cr_assert_eq(valid, 150);
    cr_assert_eq(dirty, 50);
    sim_at(&t->s, t->s.now, flush_ev, t, 0);
    run(t);
    int wb = 0;
    for (int i = 0; i < t->low.n; i++)
        wb += t->low.rec[i].kind == REQ_WRITEBACK;
    cr_expect_eq(wb, dirty);
    for (uint64_t k = 0; k < 150; k++) {
        int64_t l = cache_find(&t->c, k * 64);
        if (l >= 0)
            cr_expect_eq(cache_line_dirty(&t->c, l).w[0], 0);
    }
    /* write one line again, then drop every clean line: only it stays */
    t->low.n = t->ndone = 0;
    issue(t, t->s.now, REQ_WRITE, 149 * 64, 4, 999);
    run(t);
    sim_at(&t->s, t->s.now, inval_ev, t, 1);
    run(t);
    for (uint64_t k = 0; k < 150; k++)
        cr_expect_eq(cache_find(&t->c, k * 64) >= 0, k == 149, "line %llu",
                     (unsigned long long)k);
    tb_free(t);
}

/* The FIFO of requests waiting for an MSHR remembers which lines it holds
 * in a table indexed by line number (4096 slots) with a map for lines
 * whose slot is taken. A burst that queues deeply must behave the same
 * whether its lines share slots or not: the second run maps every line to
 * the same cache set as the first but all to one of 8 slots. */
static void wait_burst(struct tb *t, bool collide, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    for (uint64_t k = 0; k < 200; k++) {
        uint64_t line = rng_below(&r, 24);
        uint64_t li = collide ? line * 4096 * 8 + (line & 7) : line;
        bool write = rng_below(&r, 4) == 0;
        issue(t, rng_below(&r, 60) * CY, write ? REQ_WRITE : REQ_READ, li * 64 + 4 * (k % 16),
              4, k);
    }
    run(t);
}

Test(cache, deep_waiting_fifo_is_the_same_whatever_lines_share_slots)
{
    struct cache_params p = base_params();
    p.mshrs = 2;
    p.mshr_targets = 2;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        struct tb *a = tb_new(&p), *b = tb_new(&p);
        wait_burst(a, false, seed);
        wait_burst(b, true, seed);
        cr_assert_eq(a->ndone, 200);
        cr_assert_eq(b->ndone, 200);
        for (uint64_t k = 0; k < 200; k++)
            cr_expect_eq(done_at(a, k), done_at(b, k), "seed %llu request %llu",
                         (unsigned long long)seed, (unsigned long long)k);
        cr_expect_gt(a->c.st.mshr_stalls, 100);
        cr_expect_eq(a->c.st.mshr_stalls, b->c.st.mshr_stalls);
        a->low.n = b->low.n = 0;
        tb_free(a);
        tb_free(b);
    }
}

/* ---- writes ---------------------------------------------------------------- */

Test(cache, dirty_eviction_writes_back_its_mask_once)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x004, 4, 1); /* fetch on miss, bytes 4..7 dirty */
    rd(t, 20 * CY, 0x200, 2);
    rd(t, 40 * CY, 0x400, 3); /* evicts 0x000 (LRU) at its fill, 52 */
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_assert_eq(t->low.n, 4);
    expect_rec(t, 0, REQ_READ, 0x000, 2 * CY);
    expect_rec(t, 1, REQ_READ, 0x200, 22 * CY);
    expect_rec(t, 2, REQ_READ, 0x400, 42 * CY);
    expect_rec(t, 3, REQ_WRITEBACK, 0x000, 52 * CY);
    cr_expect_eq(t->low.rec[3].mask[0], 0xf0ull);
    cr_expect_eq(t->low.rec[3].mask[1], 0);
    cr_expect_eq(t->low.rec[3].size, 64);
    cr_expect_eq(t->low.rec[3].home, 5);
    cr_expect_eq(t->c.st.writebacks, 1);
    cr_expect_eq(t->c.st.evictions, 1);
    cr_expect_eq(t->c.st.write_misses, 1);
    tb_free(t);
}

Test(cache, write_back_write_hit_dirties_bytes)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x000, 1);
    wr(t, 20 * CY, 0x010, 8, 2);
    run(t);
    cr_expect_eq(done_at(t, 2), 24 * CY);
    cr_expect_eq(t->low.n, 1);
    cr_expect_eq(t->c.st.write_hits, 1);
    expect_masks(t, 0x0, ~0ull, 0, 0xffull << 16, 0);
    tb_free(t);
}

/* A line's record is 32 bytes for 64-byte lines (two share a host cache
 * line) and 64 for 128-byte lines: each way of a full set keeps its own
 * byte masks, home and state, whatever its neighbours are given. */
Test(cache, records_of_neighbouring_ways_keep_their_own_masks)
{
    for (uint32_t line_b = 64; line_b <= 128; line_b *= 2) {
        struct cache_params p = base_params();
        p.line_b = line_b;
        p.ways = 8;
        p.size_b = 8 * line_b; /* one set */
        p.write_alloc = CACHE_WA_VALIDATE;
        struct tb *t = tb_new(&p);
        /* way k: its own bytes, across the 64-byte half for one 128-byte line */
        uint32_t e = line_b / 8, off[8], len[8];
        for (uint32_t k = 0; k < 8; k++) {
            off[k] = k * e + e / 2;
            len[k] = e / 2 + (k < 7 ? e / 4 : 0) - k % 2;
            wr(t, k * 10 * CY, k * line_b + off[k], len[k], k);
        }
        run(t);
        cr_expect_eq(t->low.n, 0, "validated, not fetched");
        for (uint32_t k = 0; k < 8; k++) {
            int64_t l = cache_find(&t->c, k * line_b);
            cr_assert_geq(l, 0);
            cache_line_set_home(&t->c, l, (uint16_t)(100 + k));
            cache_line_set_state(&t->c, l, (uint8_t)(10 + k));
        }
        /* then way 0 again, after its neighbours: a new line there */
        for (int pass = 0; pass < 2; pass++) {
            for (uint32_t k = pass; k < 8; k++) {
                uint64_t m[2];
                req_mask_range(m, off[k], len[k]);
                expect_masks(t, k * line_b, m[0], m[1], m[0], m[1]);
                int64_t l = cache_find(&t->c, k * line_b);
                cr_expect_eq(cache_line_home(&t->c, l), 100 + k, "line %u B, way %u", line_b,
                             k);
                cr_expect_eq(cache_line_state(&t->c, l), 10 + k, "line %u B, way %u", line_b,
                             k);
                cr_expect_eq(cache_line_tag_addr(&t->c, l), k * line_b);
            }
            if (pass)
                break;
            cr_assert(cache_drop(&t->c, 0));
            wr(t, t->s.now + 10 * CY, 8 * line_b + off[0], len[0], 8);
            run(t);
            uint64_t m[2];
            req_mask_range(m, off[0], len[0]);
            expect_masks(t, 8 * line_b, m[0], m[1], m[0], m[1]);
        }
        tb_free(t);
    }
}

Test(cache, write_through_forwards_and_completes_on_ack)
{
    struct cache_params p = base_params();
    p.write_policy = CACHE_WRITE_THROUGH;
    p.write_alloc = CACHE_WA_NONE;
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1000, 4, 1);        /* miss: forwarded, not allocated */
    rd(t, 20 * CY, 0x1000, 2);     /* fills the line */
    wr(t, 40 * CY, 0x1008, 8, 3);  /* hit: line updated, stays clean, forwarded */
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 35 * CY);
    cr_expect_eq(done_at(t, 3), 55 * CY);
    cr_assert_eq(t->low.n, 3);
    expect_rec(t, 0, REQ_WRITE, 0x1000, 2 * CY);
    expect_rec(t, 1, REQ_READ, 0x1000, 22 * CY);
    expect_rec(t, 2, REQ_WRITE, 0x1008, 42 * CY);
    cr_expect_eq(t->low.rec[2].mask[0], 0xffull << 8);
    cr_expect_eq(t->low.rec[2].size, 8);
    expect_masks(t, 0x1000, ~0ull, 0, 0, 0);
    cr_expect_eq(t->c.st.write_misses, 1);
    cr_expect_eq(t->c.st.write_hits, 1);
    tb_free(t);
}

Test(cache, write_alloc_none_forwards_without_allocating)
{
    struct cache_params p = base_params();
    p.write_alloc = CACHE_WA_NONE;
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1004, 4, 1);
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_WRITE, 0x1004, 2 * CY);
    cr_expect_eq(t->low.rec[0].mask[0], 0xf0ull);
    cr_expect_eq(cache_find(&t->c, 0x1000), -1);
    tb_free(t);
}

Test(cache, write_alloc_fetch_fetches_then_writes)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1004, 4, 1);
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY);
    expect_masks(t, 0x1000, ~0ull, 0, 0xf0ull, 0);
    tb_free(t);
}

Test(cache, write_alloc_validate_then_read_of_unwritten_byte_fetches_and_keeps_dirty)
{
    struct cache_params p = base_params();
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    struct req *w = issue(t, 0, REQ_WRITE, 0x1004, 4, 1);
    w->ver[1] = 42;
    rd(t, 10 * CY, 0x1004, 2); /* written bytes: a hit, no traffic */
    rd(t, 20 * CY, 0x1010, 3); /* unwritten: fetch */
    run(t);
    cr_expect_eq(done_at(t, 1), 4 * CY);
    cr_expect_eq(done_at(t, 2), 14 * CY);
    cr_expect_eq(done_at(t, 3), 35 * CY);
    cr_expect_eq(t->done_version[1], 42);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_READ, 0x1000, 22 * CY);
    expect_masks(t, 0x1000, ~0ull, 0, 0xf0ull, 0);
    cr_expect_eq(cache_line_version(&t->c, cache_find(&t->c, 0x1000), 1), 42);
    cr_expect_eq(cache_line_version(&t->c, cache_find(&t->c, 0x1000), 4), 0);
    /* evicting it writes back only the bytes written */
    rd(t, 100 * CY, 0x1200, 4);
    rd(t, 120 * CY, 0x1400, 5);
    run(t);
    cr_assert_eq(t->low.n, 4);
    expect_rec(t, 3, REQ_WRITEBACK, 0x1000, 132 * CY);
    cr_expect_eq(t->low.rec[3].mask[0], 0xf0ull);
    tb_free(t);
}

Test(cache, write_alloc_validate_allocates_without_traffic)
{
    struct cache_params p = base_params();
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1020, 16, 1);
    run(t);
    cr_expect_eq(done_at(t, 1), 4 * CY);
    cr_expect_eq(t->low.n, 0);
    expect_masks(t, 0x1000, 0xffffull << 32, 0, 0xffffull << 32, 0);
    cr_expect_eq(cache_line_home(&t->c, cache_find(&t->c, 0x1000)), 5);
    tb_free(t);
}

Test(cache, write_through_validate_allocates_clean_and_forwards)
{
    struct cache_params p = base_params();
    p.write_policy = CACHE_WRITE_THROUGH;
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1020, 4, 1);
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_WRITE, 0x1020, 2 * CY);
    expect_masks(t, 0x1000, 0xfull << 32, 0, 0, 0);
    tb_free(t);
}

Test(cache, write_through_fetch_fills_then_forwards)
{
    struct cache_params p = base_params();
    p.write_policy = CACHE_WRITE_THROUGH;
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1020, 4, 1);
    run(t);
    /* fill at 12, the write is then forwarded at 12 + 2, acked at 24, answered at 27 */
    cr_expect_eq(done_at(t, 1), 27 * CY);
    cr_assert_eq(t->low.n, 2);
    expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY);
    expect_rec(t, 1, REQ_WRITE, 0x1020, 14 * CY);
    expect_masks(t, 0x1000, ~0ull, 0, 0, 0);
    tb_free(t);
}

Test(cache, write_waits_for_a_fill_in_flight_on_its_line)
{
    struct cache_params p = base_params();
    p.write_policy = CACHE_WRITE_THROUGH;
    p.write_alloc = CACHE_WA_NONE;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    wr(t, 1 * CY, 0x1004, 4, 2); /* must not overtake the read */
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 27 * CY);
    cr_assert_eq(t->low.n, 2);
    expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY);
    expect_rec(t, 1, REQ_WRITE, 0x1004, 14 * CY);
    cr_expect_eq(t->c.st.mshr_merges, 1);
    tb_free(t);
}

Test(cache, request_behind_a_waiting_one_to_its_line_waits_too)
{
    struct cache_params p = base_params();
    p.mshrs = 1;
    p.ports = 4;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x0000, 1);
    rd(t, 0, 0x1040, 2);      /* no MSHR: waits */
    wr(t, 1 * CY, 0x1044, 4, 3); /* same line as a waiting read: waits behind it */
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    /* both replayed at A's fill (12): B fetched at 14, the write joins it */
    cr_expect_eq(done_at(t, 2), 27 * CY);
    cr_expect_eq(done_at(t, 3), 27 * CY);
    cr_assert_eq(t->low.n, 2);
    expect_rec(t, 1, REQ_READ, 0x1040, 14 * CY);
    cr_expect_eq(t->c.st.mshr_stalls, 2);
    cr_expect_eq(t->c.st.mshr_merges, 1);
    expect_masks(t, 0x1040, ~0ull, 0, 0xf0ull, 0);
    tb_free(t);
}

Test(cache, targets_replay_in_order_across_a_write_through_atomic)
{
    struct cache_params p = base_params();
    p.write_policy = CACHE_WRITE_THROUGH;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    issue(t, 1 * CY, REQ_ATOMIC, 0x1008, 4, 2); /* joins the fill in flight */
    rd(t, 2 * CY, 0x1010, 3);                  /* after the atomic: must refetch */
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 27 * CY);
    cr_expect_eq(done_at(t, 3), 27 * CY);
    cr_assert_eq(t->low.n, 3);
    expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY);
    expect_rec(t, 1, REQ_ATOMIC, 0x1008, 14 * CY);
    expect_rec(t, 2, REQ_READ, 0x1000, 14 * CY);
    tb_free(t);
}

Test(cache, a_hit_on_bytes_an_atomic_waits_to_write_waits_behind_it)
{
    struct cache_params p = base_params();
    p.write_policy = CACHE_WRITE_THROUGH;
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1000, 4, 1);                     /* bytes 0..3 valid, written through */
    rd(t, 1 * CY, 0x1010, 2);                   /* bytes 16..19 absent: a fetch */
    issue(t, 2 * CY, REQ_ATOMIC, 0x1000, 4, 3); /* a hit, but it waits for the fill */
    rd(t, 3 * CY, 0x1000, 4);                   /* would hit bytes 0..3: must not overtake */
    run(t);
    cr_expect_eq(t->c.st.mshr_merges, 2);
    cr_assert_eq(t->low.n, 4);
    expect_rec(t, 0, REQ_WRITE, 0x1000, 2 * CY);
    expect_rec(t, 1, REQ_READ, 0x1000, 3 * CY);
    /* the fill at 13 replays the read, then the atomic (the line dropped),
     * then the read of its word, which fetches again */
    expect_rec(t, 2, REQ_ATOMIC, 0x1000, 15 * CY);
    expect_rec(t, 3, REQ_READ, 0x1000, 15 * CY);
    cr_expect_eq(done_at(t, 2), 16 * CY);
    cr_expect_gt(done_at(t, 4), done_at(t, 2));
    tb_free(t);
}

/* ---- atomics and write-backs from above ------------------------------------ */

Test(cache, write_back_atomic_is_performed_here)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    issue(t, 0, REQ_ATOMIC, 0x1008, 4, 1);     /* miss: fetch, then perform */
    issue(t, 20 * CY, REQ_ATOMIC, 0x1010, 4, 2); /* hit */
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 24 * CY);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY);
    expect_masks(t, 0x1000, ~0ull, 0, (0xfull << 8) | (0xfull << 16), 0);
    cr_expect_eq(t->c.st.atomics, 2);
    tb_free(t);
}

Test(cache, write_through_atomic_drops_the_line_and_goes_below)
{
    struct cache_params p = base_params();
    p.write_policy = CACHE_WRITE_THROUGH;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    issue(t, 20 * CY, REQ_ATOMIC, 0x1008, 4, 2);
    run(t);
    cr_expect_eq(done_at(t, 2), 35 * CY);
    cr_assert_eq(t->low.n, 2);
    expect_rec(t, 1, REQ_ATOMIC, 0x1008, 22 * CY);
    cr_expect_eq(cache_find(&t->c, 0x1000), -1);
    tb_free(t);
}

Test(cache, writeback_from_above)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    struct req *r = issue(t, 0, REQ_WRITEBACK, 0x1000, 64, 1);
    r->mask[0] = 0xff00;
    run(t);
    cr_expect_eq(done_at(t, 1), 4 * CY);
    cr_expect_eq(t->low.n, 0);
    expect_masks(t, 0x1000, 0xff00, 0, 0xff00, 0);
    tb_free(t);

    p.write_policy = CACHE_WRITE_THROUGH;
    t = tb_new(&p);
    r = issue(t, 0, REQ_WRITEBACK, 0x1000, 64, 1);
    r->mask[0] = 0xff00;
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_WRITEBACK, 0x1000, 2 * CY);
    cr_expect_eq(t->low.rec[0].mask[0], 0xff00);
    cr_expect_eq(cache_find(&t->c, 0x1000), -1);
    tb_free(t);
}

/* ---- flush and invalidate -------------------------------------------------- */

Test(cache, flush_without_dirty_lines_takes_the_walk_time)
{
    struct cache_params p = base_params();
    p.banks = 2; /* 4 sets per bank */
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x0, 1);
    sim_at(&t->s, 100 * CY, flush_ev, t, 0);
    sim_at(&t->s, 200 * CY + 500, flush_ev, t, 0); /* starts on the next edge */
    run(t);
    cr_assert_eq(t->nops, 2);
    cr_expect_eq(t->op_t[0], 104 * CY);
    cr_expect_eq(t->op_t[1], 205 * CY);
    cr_expect_eq(t->c.st.flushes, 2);
    cr_expect_eq(t->c.st.flush_writebacks, 0);
    tb_free(t);

    p.walk_sets_per_cycle = 3; /* ceil(4 / 3) = 2 cycles */
    t = tb_new(&p);
    sim_at(&t->s, 0, flush_ev, t, 0);
    run(t);
    cr_assert_eq(t->nops, 1);
    cr_expect_eq(t->op_t[0], 2 * CY);
    tb_free(t);
}

/* Three dirty lines (two in set 0, one in set 3) written with validate, then a
 * flush at 100 with the given write-back limit; returns the finish time. */
static ps_t flush_dirty(uint32_t wb_inflight)
{
    struct cache_params p = base_params();
    p.write_alloc = CACHE_WA_VALIDATE;
    p.wb_inflight = wb_inflight;
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x000, 4, 1);
    wr(t, 0, 0x208, 8, 2);
    wr(t, 0, 0x0c0, 64, 3);
    sim_at(&t->s, 100 * CY, flush_ev, t, 0);
    run(t);
    cr_assert_eq(t->nops, 1);
    cr_assert_eq(t->low.n, 3);
    cr_expect_eq(t->low.rec[0].kind, REQ_WRITEBACK);
    cr_expect_eq(t->low.rec[0].addr, 0x000);
    cr_expect_eq(t->low.rec[0].mask[0], 0xfull);
    cr_expect_eq(t->low.rec[1].addr, 0x200);
    cr_expect_eq(t->low.rec[1].mask[0], 0xffull << 8);
    cr_expect_eq(t->low.rec[2].addr, 0x0c0);
    cr_expect_eq(t->low.rec[2].mask[0], ~0ull);
    expect_masks(t, 0x000, 0xfull, 0, 0, 0);
    expect_masks(t, 0x200, 0xffull << 8, 0, 0, 0);
    expect_masks(t, 0x0c0, ~0ull, 0, 0, 0);
    cr_expect_eq(t->c.st.flush_writebacks, 3);
    cr_expect_eq(t->c.st.writebacks, 0);
    ps_t when = t->op_t[0];
    tb_free(t);
    return when;
}

Test(cache, flush_with_dirty_lines_and_wb_limit)
{
    /* limit 1: each write-back waits for the previous ack (10 cycles); the
     * last is sent at 120 and acked at 130 */
    cr_expect_eq(flush_dirty(1), 130 * CY);
    /* limit 2: set 3's write-back waits for the acks at 110, acked at 120 */
    cr_expect_eq(flush_dirty(2), 120 * CY);
    /* no limit reached: sent at 100, 100, 103; last ack at 113 */
    cr_expect_eq(flush_dirty(64), 113 * CY);
}

/* clean line 0x000, partial dirty 0x040, full dirty 0x080, and 0x0c0 written
 * at bytes 0..3 then filled by a read of byte 16 (valid full, dirty partial) */
static struct tb *inval_setup(void)
{
    struct cache_params p = base_params();
    p.write_alloc = CACHE_WA_VALIDATE;
    p.ports = 4;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x000, 1);
    wr(t, 0, 0x044, 4, 2);
    wr(t, 0, 0x080, 64, 3);
    wr(t, 0, 0x0c0, 4, 4);
    rd(t, 1 * CY, 0x0d0, 5);
    run(t);
    return t;
}

Test(cache, invalidate_all_drops_everything)
{
    struct tb *t = inval_setup();
    sim_at(&t->s, 100 * CY, inval_ev, t, 0);
    run(t);
    cr_assert_eq(t->nops, 1);
    cr_expect_eq(t->op_t[0], 108 * CY); /* 8 sets, one bank */
    for (addr_t a = 0; a < 0x100; a += 0x40)
        cr_expect_eq(cache_find(&t->c, a), -1);
    cr_expect_eq(t->c.st.lines_invalidated, 4);
    cr_expect_eq(t->c.st.invalidates, 1);
    cr_expect_eq(t->low.n, 2); /* the two read fills; no write-backs */
    tb_free(t);
}

Test(cache, invalidate_clean_only_keeps_dirty_bytes)
{
    struct tb *t = inval_setup();
    sim_at(&t->s, 100 * CY, inval_ev, t, 1);
    run(t);
    cr_assert_eq(t->nops, 1);
    cr_expect_eq(t->op_t[0], 108 * CY);
    cr_expect_eq(cache_find(&t->c, 0x000), -1);            /* V -> I */
    expect_masks(t, 0x040, 0xf0ull, 0, 0xf0ull, 0);       /* W stays */
    expect_masks(t, 0x080, ~0ull, 0, ~0ull, 0);           /* M -> W (full) */
    expect_masks(t, 0x0c0, 0xfull, 0, 0xfull, 0);         /* valid shrinks to dirty */
    cr_expect_eq(t->c.st.lines_invalidated, 1);
    tb_free(t);
}

Test(cache, flush_then_invalidate_chained)
{
    struct tb *t = inval_setup();
    sim_at(&t->s, 100 * CY, flush_ev, t, 0);
    run(t);
    cr_assert_eq(t->nops, 1);
    sim_at(&t->s, t->s.now, inval_ev, t, 1);
    run(t);
    cr_assert_eq(t->nops, 2);
    for (addr_t a = 0; a < 0x100; a += 0x40)
        cr_expect_eq(cache_find(&t->c, a), -1);
    cr_expect_eq(t->c.st.flush_writebacks, 3);
    tb_free(t);
}

/* ---- line API, 128 B lines, watchdog, stats -------------------------------- */

Test(cache, direct_line_api)
{
    struct cache_params p = base_params();
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1044, 4, 1);
    run(t);
    cr_expect_eq(cache_line_addr(&t->c, 0x1044), 0x1040);
    int64_t l = cache_find(&t->c, 0x1050);
    cr_assert_geq(l, 0);
    cache_line_set_state(&t->c, l, 3);
    cache_line_set_home(&t->c, l, 9);
    cr_expect_eq(cache_line_state(&t->c, l), 3);
    cr_expect_eq(cache_line_home(&t->c, l), 9);
    uint64_t v[2] = {0x1, 0}, d[2] = {0x10, 0};
    cache_line_set_masks(&t->c, l, v, d);
    expect_masks(t, 0x1040, 0x11, 0, 0x10, 0);
    cr_expect(cache_drop(&t->c, 0x1040));
    cr_expect(!cache_drop(&t->c, 0x1040));
    cr_expect_eq(cache_find(&t->c, 0x1040), -1);
    tb_free(t);
}

Test(cache, lines_of_128_bytes)
{
    struct cache_params p = base_params();
    p.line_b = 128;
    p.size_b = 2048; /* 8 sets of 2 ways, same set every 1 KiB */
    struct tb *t = tb_new(&p);
    wr(t, 0, 0x1064, 4, 1); /* bytes 100..103 of the line */
    rd(t, 20 * CY, 0x1078, 2);
    rd(t, 40 * CY, 0x1400, 3);
    rd(t, 60 * CY, 0x1800, 4); /* evicts 0x1000 */
    run(t);
    cr_expect_eq(done_at(t, 2), 24 * CY);
    cr_assert_eq(t->low.n, 4);
    expect_rec(t, 0, REQ_READ, 0x1000, 2 * CY);
    cr_expect_eq(t->low.rec[0].size, 128);
    expect_rec(t, 3, REQ_WRITEBACK, 0x1000, 72 * CY);
    cr_expect_eq(t->low.rec[3].size, 128);
    cr_expect_eq(t->low.rec[3].mask[0], 0);
    cr_expect_eq(t->low.rec[3].mask[1], 0xfull << 36);
    tb_free(t);
}

Test(cache, watchdog_reports_mshrs_and_waiting_requests)
{
    struct cache_params p = base_params();
    p.mshrs = 1;
    p.ports = 2;
    struct tb *t = tb_new(&p);
    t->s.report = tmpfile();
    t->low.hold = true;
    rd(t, 0, 0x1000, 1);
    rd(t, 0, 0x2040, 2);
    cr_expect_eq(sim_run(&t->s, 0), SIM_DEADLOCK);
    rewind(t->s.report);
    char buf[4096] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, t->s.report);
    buf[n] = 0;
    cr_expect(strstr(buf, "l1: 2 pending") != NULL, "got: %s", buf);
    cr_expect(strstr(buf, "mshr 0: line 0x1000, 1 targets") != NULL, "got: %s", buf);
    cr_expect(strstr(buf, "waiting for an mshr: READ 0x2040") != NULL, "got: %s", buf);
    fclose(t->s.report);
    cache_free(&t->c);
    sim_destroy(&t->s); /* the held requests go with the pool */
    free(t);
}

Test(cache, stats_are_registered_under_the_prefix)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    struct stats st;
    stats_init(&st);
    cache_reg_stats(&t->c, &st, "gpu0.l1");
    rd(t, 0, 0x0, 1);
    rd(t, 20 * CY, 0x0, 2);
    wr(t, 40 * CY, 0x0, 4, 3);
    run(t);
    cr_expect_eq(stats_get(&st, "gpu0.l1.accesses"), 3);
    cr_expect_eq(stats_get(&st, "gpu0.l1.reads"), 2);
    cr_expect_eq(stats_get(&st, "gpu0.l1.read_hits"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.l1.read_misses"), 1);
    cr_expect_eq(stats_get(&st, "gpu0.l1.write_hits"), 1);
    const char *names[] = {"writes", "write_misses", "atomics", "mshr_merges", "mshr_stalls",
                           "evictions", "writebacks", "flushes", "flush_writebacks",
                           "invalidates", "lines_invalidated"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char full[64];
        snprintf(full, sizeof full, "gpu0.l1.%s", names[i]);
        cr_expect(stats_find(&st, full) != NULL, "%s", full);
    }
    stats_free(&st);
    tb_free(t);
}

/* A line's versions live in its record while its words all carry one, and
 * in its row of wver otherwise: random writes of random word sets (versions
 * drawn from three values, so that lines often become uniform again), on 64 B
 * and 128 B lines, always read back as a plain per-word copy holds them, and
 * the row is used exactly while the words differ. */
Test(cache, line_versions_read_back_as_a_plain_copy_holds_them)
{
    for (unsigned line_b = 64; line_b <= 128; line_b *= 2) {
        struct cache_params p = base_params();
        p.line_b = line_b;
        struct tb *t = tb_new(&p);
        struct cache *c = &t->c;
        cr_assert(cache_install_clean(&t->s, c, 0x1000, 0, NULL));
        int64_t l = cache_find(c, 0x1000);
        cr_assert_geq(l, 0);
        unsigned words = line_b / 4;
        uint32_t ref[32] = {0}, src[32], got[32];
        uint64_t x = 12345;
        for (unsigned i = 0; i < 4000; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t r = (uint32_t)(x >> 32);
            /* a whole line one time in four, else a random set of words */
            uint32_t wm = (r & 3) == 0 ? c->all_words : (uint32_t)(x >> 7) & c->all_words;
            bool one = r >> 2 & 1; /* every written word the same version */
            for (unsigned w = 0; w < words; w++)
                src[w] = one ? (r >> 8) % 3 : (uint32_t)((x >> (w % 48)) % 3);
            cache_line_set_versions(c, l, src, wm);
            for (unsigned w = 0; w < words; w++)
                if (wm >> w & 1)
                    ref[w] = src[w];
            bool same = true;
            for (unsigned w = 0; w < words; w++) {
                cr_assert_eq(cache_line_version(c, l, w), ref[w], "line %u B, step %u, word %u",
                             line_b, i, w);
                same &= ref[w] == ref[0];
            }
            cr_assert_eq(cache_rec(c, l)->ver_mixed, !same, "line %u B, step %u", line_b, i);
            uint32_t rm = (uint32_t)(x >> 17) & c->all_words;
            memset(got, 0xff, sizeof got);
            cache_line_get_versions(c, l, got, rm);
            for (unsigned w = 0; w < 32; w++)
                cr_assert_eq(got[w], rm >> w & 1 ? ref[w] : 0xffffffffu, "step %u, word %u", i,
                             w);
            cache_line_get_versions(c, l, got, c->all_words);
            cr_assert_eq(memcmp(got, ref, words * sizeof *got), 0, "step %u", i);
        }
        tb_free(t);
    }
}

/* ---- per-request flags (coherence schemes) -------------------------------- */

static struct req *flagged(struct tb *t, ps_t when, uint8_t kind, addr_t addr, uint32_t len,
                           uint64_t tag, uint8_t flags)
{
    struct req *r = issue(t, when, kind, addr, len, tag);
    r->flags = flags;
    return r;
}

Test(cache, noalloc_read_miss_is_relayed_without_allocating)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    t->low.version = 9;
    flagged(t, 0, REQ_READ, 0x1000, 4, 1, REQ_F_NOALLOC);
    flagged(t, 1 * CY, REQ_READ, 0x1008, 4, 2, REQ_F_NOALLOC); /* merges */
    run(t);
    cr_expect_eq(t->low.n, 1);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 15 * CY);
    cr_expect_eq(t->done_version[0], 9, "the relayed data carries its versions");
    cr_expect_eq(cache_find(&t->c, 0x1000), -1, "nothing allocated");
    cr_expect_eq(t->c.st.evictions, 0);
    tb_free(t);
}

Test(cache, noalloc_fill_with_an_allocating_target_installs)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    flagged(t, 0, REQ_READ, 0x1000, 4, 1, REQ_F_NOALLOC);
    rd(t, 1 * CY, 0x1008, 2);
    run(t);
    cr_expect_eq(t->low.n, 1);
    cr_expect_geq(cache_find(&t->c, 0x1000), 0);
    tb_free(t);
}

Test(cache, noalloc_hit_is_served_from_the_line)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    flagged(t, 50 * CY, REQ_READ, 0x1004, 4, 2, REQ_F_NOALLOC);
    run(t);
    cr_expect_eq(t->low.n, 1);
    cr_expect_eq(done_at(t, 2), 54 * CY);
    tb_free(t);
}

Test(cache, noalloc_write_miss_forwards_in_a_write_back_cache)
{
    struct cache_params p = base_params();
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    flagged(t, 0, REQ_WRITE, 0x1000, 4, 1, REQ_F_NOALLOC);
    run(t);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_WRITE, 0x1000, 2 * CY);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(cache_find(&t->c, 0x1000), -1);
    tb_free(t);
}

Test(cache, wt_flag_writes_through_a_write_back_cache_and_keeps_the_line_clean)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    struct req *w = flagged(t, 50 * CY, REQ_WRITE, 0x1004, 4, 2, REQ_F_WT);
    w->ver[1] = 77;
    run(t);
    cr_assert_eq(t->low.n, 2);
    expect_rec(t, 1, REQ_WRITE, 0x1004, 52 * CY);
    cr_expect_eq(done_at(t, 2), 65 * CY);
    expect_masks(t, 0x1000, ~0ull, 0, 0, 0);
    cr_expect_eq(cache_line_version(&t->c, cache_find(&t->c, 0x1000), 1), 77);
    tb_free(t);
}

Test(cache, noalloc_atomic_is_performed_below)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    flagged(t, 0, REQ_ATOMIC, 0x1000, 4, 1, REQ_F_NOALLOC);
    run(t);
    cr_assert_eq(t->low.n, 1);
    expect_rec(t, 0, REQ_ATOMIC, 0x1000, 2 * CY);
    cr_expect_eq(cache_find(&t->c, 0x1000), -1);
    tb_free(t);
}

Test(cache, writeback_carries_the_versions_of_dirty_words)
{
    struct cache_params p = base_params();
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    struct req *w = issue(t, 0, REQ_WRITE, 0x1008, 4, 1);
    w->ver[2] = 5;
    run(t);
    cache_flush(&t->s, &t->c, op_done, t);
    run(t);
    cr_assert_eq(t->low.n, 1);
    cr_expect_eq(t->low.rec[0].kind, REQ_WRITEBACK);
    cr_expect_eq(t->low.rec[0].mask[0], 0xf00ull);
    tb_free(t);
}

/* ---- configuration ---------------------------------------------------------- */

static int params_of(const char *ini, const char *const *defaults, struct cache_params *p,
                     struct err *e)
{
    struct cfg cfg;
    int rc = tcfg_load(&cfg, "l2", cache_keys, defaults, ini, e);
    if (!rc)
        rc = cache_params_from_cfg(cfg_sec(&cfg, "l2"), p, e);
    cfg_free(&cfg);
    return rc;
}

Test(cache_cfg, reads_every_key)
{
    struct cache_params p;
    struct err e = {{0}};
    const char *ini = "[l2]\nsize_kib = 8192\nways = 32\nbanks = 8\nports = 2\nmshrs = 256\n"
                      "mshrs_remote = 64\n"
                      "mshr_targets = 16\nhit_lat = 121\nmiss_lat = 10\nresp_lat = 5\n"
                      "replacement = random\nwrite_policy = write_through\n"
                      "write_alloc = validate\nwalk_sets_per_cycle = 2\nwb_inflight = 32\n"
                      "seed = 9\nline_b = 128\n";
    cr_assert_eq(params_of(ini, NULL, &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.size_b, 8192ull * 1024);
    cr_expect_eq(p.line_b, 128);
    cr_expect_eq(p.ways, 32);
    cr_expect_eq(p.banks, 8);
    cr_expect_eq(p.ports, 2);
    cr_expect_eq(p.mshrs, 256);
    cr_expect_eq(p.mshrs_remote, 64);
    cr_expect_eq(p.mshr_targets, 16);
    cr_expect_eq(p.hit_lat, 121);
    cr_expect_eq(p.miss_lat, 10);
    cr_expect_eq(p.resp_lat, 5);
    cr_expect_eq(p.repl, CACHE_RANDOM);
    cr_expect_eq(p.write_policy, CACHE_WRITE_THROUGH);
    cr_expect_eq(p.write_alloc, CACHE_WA_VALIDATE);
    cr_expect_eq(p.walk_sets_per_cycle, 2);
    cr_expect_eq(p.wb_inflight, 32);
    cr_expect_eq(p.seed, 9);
}

Test(cache_cfg, defaults_build_a_cache)
{
    struct cache_params p;
    struct err e = {{0}};
    cr_assert_eq(params_of(NULL, NULL, &p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.size_b, 16 * 1024);
    cr_expect_eq(p.repl, CACHE_LRU);
    cr_expect_eq(p.write_policy, CACHE_WRITE_BACK);
    cr_expect_eq(p.write_alloc, CACHE_WA_FETCH);
}

Test(cache_cfg, geometry_errors_name_origin_and_key)
{
    struct cache_params p;
    struct err e = {{0}};
    const char *const d3[] = {"size_kib=3", NULL};
    cr_assert_eq(params_of(NULL, d3, &p, &e), -1);
    cr_expect_str_eq(e.msg, "default: [l2] size_kib = 3: gives 12 sets (4 ways x 64 B lines), "
                            "not a power of two");

    cr_assert_eq(params_of("[l2]\nsize_kib = 3\n", NULL, &p, &e), -1);
    const char *want = "t.ini:2: [l2] size_kib = 3: gives 12 sets";
    cr_expect(!strncmp(e.msg, want, strlen(want)), "got: %s", e.msg);

    cr_assert_eq(params_of("[l2]\nline_b = 128\nways = 16\nsize_kib = 1\n", NULL, &p, &e), -1);
    cr_expect_str_eq(e.msg, "t.ini:4: [l2] size_kib = 1: 1024 B is not a whole number of sets "
                            "(16 ways x 128 B lines)");

    cr_assert_eq(params_of("[l2]\nline_b = 96\n", NULL, &p, &e), -1);
    cr_expect_str_eq(e.msg, "t.ini:2: [l2] line_b = 96: must be 64 or 128");

    cr_assert_eq(params_of("[l2]\nbanks = 3\n", NULL, &p, &e), -1);
    cr_expect_str_eq(e.msg, "t.ini:2: [l2] banks = 3: must be a power of two");

    /* 16 KiB / (4 x 64 B) = 64 sets */
    cr_assert_eq(params_of("[l2]\nbanks = 128\n", NULL, &p, &e), -1);
    cr_expect_str_eq(e.msg, "t.ini:2: [l2] banks = 128: the 64 sets cannot be split evenly "
                            "across the banks");

    cr_assert_eq(params_of("[l2]\nreplacement = plru\n", NULL, &p, &e), -1);
    cr_expect(strstr(e.msg, "t.ini:2: [l2] replacement = plru: not one of: lru, fifo, random"),
              "got: %s", e.msg);
}

static void inval_line_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)s;
    cache_inval_line(obj, (addr_t)arg);
}

Test(cache, invalidation_of_a_line_with_a_fill_in_flight_leaves_no_copy)
{
    struct cache_params p = base_params();
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x1000, 1);
    sim_at(&t->s, 5 * CY, inval_line_ev, &t->c, 0x1000); /* before the fill at 12 */
    rd(t, 50 * CY, 0x2000, 2);
    cache_inval_line(&t->c, 0x2000);                 /* nothing there: no effect */
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY, "the request is still served");
    cr_expect_eq(cache_find(&t->c, 0x1000), -1, "but no clean copy stays");
    cr_expect_geq(cache_find(&t->c, 0x2000), 0);
    tb_free(t);
}

Test(cache, a_dirty_line_evicted_during_its_own_fill_keeps_its_words)
{
    struct cache_params p = base_params();
    p.ways = 1;
    p.size_b = 512; /* 8 sets of one way */
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    struct req *w = issue(t, 0, REQ_WRITE, 0x1004, 4, 1); /* word 1 dirty, version 42 */
    w->ver[1] = 42;
    rd(t, 1 * CY, 0x1200, 2);  /* same set: its fill (at 13) evicts 0x1000 */
    rd(t, 2 * CY, 0x1010, 3);  /* unwritten bytes of 0x1000: fetched, fill at 14 */
    run(t);
    /* the write-back went below after the fetch had been read there, so the
     * fill brings version 0 for word 1; the line must still hold 42 */
    int64_t l = cache_find(&t->c, 0x1000);
    cr_assert_geq(l, 0);
    cr_expect_eq(cache_line_version(&t->c, l, 1), 42);
    cr_expect_eq(t->c.st.writebacks, 1);
    tb_free(t);
}

Test(cache, a_remote_read_of_a_line_with_dirty_words_merges_them)
{
    struct cache_params p = base_params();
    p.ways = 1;
    p.size_b = 512; /* 8 sets of one way */
    p.write_alloc = CACHE_WA_VALIDATE;
    struct tb *t = tb_new(&p);
    t->low.version = 3;
    struct req *w = issue(t, 0, REQ_WRITE, 0x1004, 4, 1); /* word 1 dirty, version 42 */
    w->ver[1] = 42;
    rd(t, 9 * CY, 0x1200, 2); /* same set: its fill (at 21) evicts 0x1000 */
    flagged(t, 10 * CY, REQ_READ, 0x1000, 64, 3, REQ_F_NOALLOC | REQ_F_REMOTE);
    run(t);
    /* the remote read of the whole line (from another chiplet, not allocating)
     * goes through an MSHR, which keeps the dirty word when the line is evicted
     * before its data is back: the reply carries 42 for word 1, not the 3 the
     * level below still had when it was read */
    cr_expect_eq(t->done_word1[2], 42);
    cr_expect_eq(t->done_version[2], 3, "word 0 from below");
    tb_free(t);
}

/* ---- MSHRs kept for requests from other chiplets ---------------------------- */

Test(cache, a_remote_request_takes_a_kept_mshr_while_local_ones_wait)
{
    struct cache_params p = base_params();
    p.ports = 4;
    p.mshrs = 1;
    p.mshrs_remote = 1;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x000, 1);                                /* the local MSHR */
    rd(t, 0, 0x040, 2);                                /* waits for it */
    flagged(t, 1 * CY, REQ_READ, 0x080, 4, 3, REQ_F_REMOTE); /* passes it */
    flagged(t, 1 * CY, REQ_READ, 0x0c0, 4, 4, REQ_F_REMOTE); /* waits for the remote one */
    run(t);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 3), 16 * CY, "fetched at once from the kept MSHR");
    /* 2 gets the local MSHR at 1's fill (12), 4 the remote one at 3's (13) */
    cr_expect_eq(done_at(t, 2), 27 * CY);
    cr_expect_eq(done_at(t, 4), 28 * CY);
    cr_assert_eq(t->low.n, 4);
    expect_rec(t, 1, REQ_READ, 0x080, 3 * CY);
    expect_rec(t, 2, REQ_READ, 0x040, 14 * CY);
    expect_rec(t, 3, REQ_READ, 0x0c0, 15 * CY);
    cr_expect_geq(cache_find(&t->c, 0x080), 0, "the remote read allocated");
    cr_expect_eq(t->c.st.mshr_stalls, 2);
    tb_free(t);
}

Test(cache, without_kept_mshrs_a_remote_request_waits_in_line)
{
    struct cache_params p = base_params();
    p.ports = 4;
    p.mshrs = 1;
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x000, 1);
    rd(t, 0, 0x040, 2);
    flagged(t, 1 * CY, REQ_READ, 0x080, 4, 3, REQ_F_REMOTE);
    run(t);
    cr_expect_eq(done_at(t, 2), 27 * CY);
    cr_expect_eq(done_at(t, 3), 39 * CY, "behind 2 in the one FIFO");
    tb_free(t);
}

Test(cache, targets_of_both_pools_that_must_wait_keep_their_order)
{
    struct cache_params p = base_params();
    p.ports = 8;
    p.mshrs = 1;
    p.mshrs_remote = 1;
    p.mshr_targets = 1;
    p.ways = 1;
    p.size_b = 512; /* 8 sets of one way: 0x000 and 0x200 share a set */
    struct tb *t = tb_new(&p);
    rd(t, 0, 0x000, 1);                                      /* local MSHR, line A */
    flagged(t, 0, REQ_READ, 0x200, 4, 2, REQ_F_REMOTE);     /* remote MSHR, line B */
    rd(t, 1 * CY, 0x004, 3);                                 /* A: target list full */
    flagged(t, 1 * CY, REQ_READ, 0x204, 4, 4, REQ_F_REMOTE); /* B: full too */
    run(t);
    /* every request completes, each after the fill it waited for; A's fill
     * (12) evicts nothing, B's (12) evicts A: 3 then misses again */
    cr_expect_eq(t->ndone, 4);
    cr_expect_eq(done_at(t, 1), 15 * CY);
    cr_expect_eq(done_at(t, 2), 15 * CY);
    cr_expect_gt(done_at(t, 3), 15 * CY);
    cr_expect_gt(done_at(t, 4), 15 * CY);
    cr_expect_eq(t->c.nfree[0] + t->c.nfree[1], 2);
    tb_free(t);
}
