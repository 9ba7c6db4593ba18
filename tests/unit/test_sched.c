/*
 * Work-group scheduling (every policy's mapping to GPU/chiplet/CU, the
 * queues' dispatch order) and page placement (every rule, page sizes,
 * buffers' first launches, migrations); their costs and the CU-level
 * dispatch on the whole machine are in test_sched_run.c.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "sched/place.h"
#include "sched/wgsched.h"

/* ---- work-group scheduling --------------------------------------------------- */

static struct topo shape(unsigned g, unsigned c, unsigned k)
{
    return (struct topo){.gpus = g, .chiplets = c, .cus = k};
}

static struct sched_launch grid(uint32_t n)
{
    return (struct sched_launch){.name = "k", .grid = {n, 1, 1}, .block = {64, 1, 1}};
}

/* Plan n work-groups under policy `name` on g x c x k; the caller frees. */
static void plan(struct wgs *w, const char *name, struct topo t, uint32_t n, unsigned batch,
                 unsigned used)
{
    struct wgs_params p = {.ops = wgs_find(name), .batch = batch, .hier_batch = batch,
                           .chiplets_per_kernel = used};
    cr_assert(p.ops, "policy %s", name);
    struct err e;
    cr_assert_eq(wgs_init(w, &t, &p, NULL, &e), 0);
    struct sched_launch l = grid(n);
    wgs_plan(w, &l);
}

/* Chiplet of each work-group, and CU (WGS_ANY_CU: any). */
static void expect_map(const char *name, struct topo t, uint32_t n, unsigned batch,
                       unsigned used, const unsigned *chiplet, const unsigned *cu)
{
    struct wgs w;
    plan(&w, name, t, n, batch, used);
    for (uint32_t i = 0; i < n; i++) {
        struct wgs_target g = wgs_target_of(&w, i);
        cr_expect_eq(g.chiplet, chiplet[i], "%s n=%u: work-group %u on chiplet %u, not %u", name,
                     n, i, g.chiplet, chiplet[i]);
        cr_expect_eq(g.cu, cu ? cu[i] : WGS_ANY_CU, "%s n=%u: work-group %u on CU %u", name, n,
                     i, g.cu);
    }
    wgs_free(&w);
}

#define A(...) ((const unsigned[]){__VA_ARGS__})

Test(wgsched, static_blocks_give_the_remainder_to_the_first_chiplets)
{
    /* 10 work-groups on 4 chiplets: 3, 3, 2, 2 (spec cpelide 2.3) */
    expect_map("static", shape(1, 4, 2), 10, 1, 0, A(0, 0, 0, 1, 1, 1, 2, 2, 3, 3), NULL);
    /* fewer work-groups than chiplets */
    expect_map("static", shape(1, 4, 2), 2, 1, 0, A(0, 1), NULL);
    /* two GPUs of two chiplets: chiplets are global, GPU = chiplet / 2 */
    expect_map("static", shape(2, 2, 2), 7, 1, 0, A(0, 0, 1, 1, 2, 2, 3), NULL);
    /* three of four chiplets used (cpelide D12): 4, 3, 3 */
    expect_map("static", shape(1, 4, 2), 10, 1, 3, A(0, 0, 0, 0, 1, 1, 1, 2, 2, 2), NULL);
}

Test(wgsched, round_robin_over_the_chiplets_used)
{
    expect_map("round_robin", shape(1, 4, 2), 10, 1, 0, A(0, 1, 2, 3, 0, 1, 2, 3, 0, 1), NULL);
    expect_map("round_robin", shape(2, 2, 1), 6, 1, 3, A(0, 1, 2, 0, 1, 2), NULL);
}

Test(wgsched, batched_round_robin_with_a_batch_that_does_not_divide_the_grid)
{
    /* batches of 3: {0,1,2} {3,4,5} {6,7,8} {9,10,11} {12,13} on chiplets 0 1 2 3 0 */
    expect_map("batched", shape(1, 4, 2), 14, 3, 0,
               A(0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0), NULL);
    /* a batch larger than the grid: everything on chiplet 0 */
    expect_map("batched", shape(1, 4, 2), 5, 8, 0, A(0, 0, 0, 0, 0), NULL);
    /* batch 1 is round-robin */
    expect_map("batched", shape(1, 3, 2), 5, 1, 0, A(0, 1, 2, 0, 1), NULL);
}

Test(wgsched, hierarchical_blocks_per_gpu_then_round_robin_over_its_chiplets)
{
    /* 2 GPUs x 3 chiplets, 11 work-groups: GPU 0 takes 0-5, GPU 1 takes 6-10 */
    expect_map("hierarchical", shape(2, 3, 2), 11, 1, 0, A(0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4),
               NULL);
    /* batches of 2 inside each GPU */
    expect_map("hierarchical", shape(2, 3, 2), 11, 2, 0, A(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5),
               NULL);
    /* five chiplets used: GPU 1 has two of them (3 and 4) */
    expect_map("hierarchical", shape(2, 3, 2), 8, 1, 5, A(0, 1, 2, 0, 3, 4, 3, 4), NULL);
    /* one GPU: round-robin in batches */
    expect_map("hierarchical", shape(1, 4, 2), 6, 1, 0, A(0, 1, 2, 3, 0, 1), NULL);
}

Test(wgsched, partition_gives_each_cu_one_contiguous_chunk)
{
    /* 2 GPUs x 2 chiplets x 2 CUs, 13 work-groups (spec dualopt 2.2): GPU 0
     * runs ceil(13/2) = 7 (0-6), chunks of ceil(7/4) = 2 on its CUs in order;
     * GPU 1 runs 7-12, chunks of ceil(6/4) = 2, its last CU none */
    expect_map("partition", shape(2, 2, 2), 13, 1, 0, A(0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3),
               A(0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0));
    /* fewer work-groups than CUs: 3 on 2 GPUs x 1 chiplet x 4 CUs */
    expect_map("partition", shape(2, 1, 4), 3, 1, 0, A(0, 0, 1), A(0, 1, 0));
    /* one GPU of 2 chiplets x 2 CUs, 10 work-groups: chunks of 3, 3, 3, 1 */
    expect_map("partition", shape(1, 2, 2), 10, 1, 0, A(0, 0, 0, 0, 0, 0, 1, 1, 1, 1),
               A(0, 0, 0, 1, 1, 1, 0, 0, 0, 1));
}

Test(wgsched, every_work_group_exactly_once_in_its_chiplets_queue)
{
    for (const struct wgs_ops *const *o = wgs_registry; *o; o++)
        for (unsigned g = 1; g <= 3; g++)
            for (unsigned c = 1; c <= 3; c++)
                for (uint32_t n = 0; n < 40; n += 3) {
                    struct wgs w;
                    plan(&w, (*o)->name, shape(g, c, 3), n, 2, 0);
                    unsigned seen[40] = {0};
                    for (unsigned ch = 0; ch < g * c; ch++) {
                        uint32_t m;
                        const uint32_t *v = wgs_chiplet_wgs(&w, ch, &m);
                        cr_assert_eq(m, wgs_left(&w, ch));
                        for (uint32_t i = 0; i < m; i++) {
                            cr_assert_eq(wgs_target_of(&w, v[i]).chiplet, ch);
                            seen[v[i]]++;
                        }
                    }
                    for (uint32_t i = 0; i < n; i++)
                        cr_assert_eq(seen[i], 1, "%s %ux%u n %u wg %u", (*o)->name, g, c, n, i);
                    wgs_free(&w);
                }
}

Test(wgsched, a_cu_takes_its_own_queue_then_its_chiplets_in_ascending_order)
{
    struct wgs w;
    /* round-robin on 2 chiplets: chiplet 1's shared queue is 1, 3, 5 */
    plan(&w, "round_robin", shape(1, 2, 2), 6, 1, 0);
    cr_expect(wgs_has(&w, 1, 0) && wgs_has(&w, 1, 1));
    cr_expect_eq(wgs_take(&w, 1, 1), 1);
    cr_expect_eq(wgs_take(&w, 1, 0), 3);
    cr_expect_eq(wgs_left(&w, 1), 1);
    cr_expect_eq(wgs_take(&w, 1, 1), 5);
    cr_expect(!wgs_has(&w, 1, 0) && !wgs_left(&w, 1));
    cr_expect_eq(wgs_left(&w, 0), 3, "chiplet 0 untouched");
    wgs_free(&w);
    /* partition on 1 x 2 x 2, 10 work-groups: CU 1 of chiplet 0 has 3, 4, 5
     * and never takes CU 0's */
    plan(&w, "partition", shape(1, 2, 2), 10, 1, 0);
    cr_expect_eq(wgs_take(&w, 0, 1), 3);
    cr_expect_eq(wgs_take(&w, 0, 1), 4);
    cr_expect_eq(wgs_take(&w, 0, 1), 5);
    cr_expect(!wgs_has(&w, 0, 1), "no stealing");
    cr_expect(wgs_has(&w, 0, 0));
    cr_expect_eq(wgs_take(&w, 0, 0), 0);
    cr_expect_eq(wgs_left(&w, 0), 2);
    wgs_free(&w);
}

Test(wgsched, a_new_kernel_replans_and_grows_its_tables)
{
    struct wgs w;
    plan(&w, "static", shape(1, 2, 1), 4, 1, 0);
    struct sched_launch l = grid(1000);
    wgs_plan(&w, &l);
    cr_expect_eq(wgs_left(&w, 0), 500);
    cr_expect_eq(wgs_target_of(&w, 999).chiplet, 1);
    l = grid(0);
    wgs_plan(&w, &l);
    cr_expect_eq(wgs_left(&w, 0) + wgs_left(&w, 1), 0);
    wgs_free(&w);
}

/* A policy from outside the scheduler (as LADM's row binding would be):
 * work-group (x, y) on chiplet y mod used, pinned to CU x mod K. */
static void map_rows(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    (void)self;
    for (uint32_t i = 0; i < x->n; i++)
        out[i] = (struct wgs_target){(uint16_t)(i / x->l->grid.x % x->used),
                                     (uint16_t)(i % x->l->grid.x % x->t->cus)};
}

Test(wgsched, a_policy_decides_the_mapping_through_its_ops_table)
{
    static const struct wgs_ops rows = {.name = "rows", .desc = "test", .map = map_rows};
    struct topo t = shape(1, 2, 2);
    struct wgs_params p = {.ops = &rows};
    struct wgs w;
    struct err e;
    cr_assert_eq(wgs_init(&w, &t, &p, NULL, &e), 0);
    struct sched_launch l = {.grid = {3, 2, 1}};
    wgs_plan(&w, &l);
    /* row 0 = work-groups 0-2 on chiplet 0 (CUs 0, 1, 0), row 1 = 3-5 on chiplet 1 */
    uint32_t n;
    const uint32_t *v = wgs_chiplet_wgs(&w, 0, &n);
    cr_assert_eq(n, 3);
    cr_expect(v[0] == 0 && v[1] == 2 && v[2] == 1, "queues: CU 0's, then CU 1's");
    cr_expect_eq(wgs_take(&w, 1, 1), 4);
    cr_expect_eq(wgs_take(&w, 1, 0), 3);
    cr_expect_eq(wgs_take(&w, 1, 0), 5);
    wgs_free(&w);
}

static void expect_choices(const char *choices, const char *const *names)
{
    char buf[256] = "";
    for (; *names; names++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "|" : "", *names);
    cr_expect_str_eq(choices, buf);
}

Test(wgsched, the_policy_keys_list_every_registered_policy)
{
    const char *names[16];
    size_t n = 0;
    for (const struct wgs_ops *const *o = wgs_registry; *o; o++)
        names[n++] = (*o)->name;
    names[n] = NULL;
    expect_choices(wgs_choices, names);
    n = 0;
    for (const struct place_ops *const *o = place_registry; *o; o++)
        names[n++] = (*o)->name;
    names[n] = NULL;
    expect_choices(place_choices, names);
}

/* ---- page placement -------------------------------------------------------------- */

static void mk(struct place *p, const char *policy, uint64_t page_b, uint64_t ilv,
               struct topo t)
{
    struct place_params pp = {.ops = place_find(policy), .page_b = page_b, .interleave_b = ilv,
                              .migrate_ps = 1000};
    cr_assert(pp.ops, "%s", policy);
    place_init(p, &pp, &t);
}

Test(place, first_touch_keeps_the_first_home)
{
    struct place p;
    mk(&p, "first_touch", 4096, 0, shape(1, 4, 1));
    cr_expect_eq(place_lookup(&p, 0x10000), -1);
    cr_expect_eq(place_home(&p, 0x10010, 2), 2);
    cr_expect_eq(place_home(&p, 0x10ff8, 3), 2, "same page, later toucher");
    cr_expect_eq(place_home(&p, 0x11000, 3), 3, "next page");
    cr_expect_eq(place_lookup(&p, 0x10abc), 2);
    for (addr_t a = 0; a < 5000; a++)
        place_home(&p, 0x100000 + a * 4096, (unsigned)(a % 4));
    cr_expect_eq(place_lookup(&p, 0x100000 + 4999 * 4096), 4999 % 4, "the table grows");
    cr_expect_eq(place_lookup(&p, 0x10000), 2, "and keeps old pages");
    cr_expect_eq(p.st.first_touches, 5002);
    place_free(&p);
}

Test(place, page_sizes_from_4_kib_to_2_mib)
{
    struct place p;
    mk(&p, "first_touch", 2 << 20, 0, shape(1, 4, 1));
    cr_expect_eq(place_home(&p, 0x40000000, 1), 1);
    cr_expect_eq(place_home(&p, 0x40000000 + (2 << 20) - 1, 2), 1, "last byte of the page");
    cr_expect_eq(place_home(&p, 0x40000000 + (2 << 20), 2), 2, "first byte of the next");
    cr_expect_eq(place_lookup(&p, 0x40000000 - 1), -1);
    cr_expect_eq(p.st.first_touches, 2);
    place_free(&p);
    mk(&p, "interleave", 64 << 10, 0, shape(2, 2, 1));
    cr_expect_eq(place_home(&p, (64 << 10) - 1, 3), 0);
    cr_expect_eq(place_home(&p, 64 << 10, 0), 1);
    cr_expect_eq(place_home(&p, 5 * (64 << 10), 0), 1);
    place_free(&p);
}

Test(place, interleave_at_page_sub_page_and_multi_page_units)
{
    struct place p;
    mk(&p, "interleave", 8192, 0, shape(1, 3, 1));
    cr_expect_eq(place_home(&p, 0, 2), 0);
    cr_expect_eq(place_home(&p, 8191, 2), 0);
    cr_expect_eq(place_home(&p, 8192, 0), 1);
    cr_expect_eq(place_home(&p, 3 * 8192 + 5, 1), 0);
    cr_expect_eq(place_lookup(&p, 2 * 8192), 2, "fixed by the rule, touched or not");
    cr_expect_eq(p.st.first_touches, 0);
    place_free(&p);
    /* 1 KiB units inside 4 KiB pages (CODA's sub-page interleaving) */
    mk(&p, "interleave", 4096, 1024, shape(1, 3, 1));
    cr_expect_eq(place_home(&p, 0, 1), 0);
    cr_expect_eq(place_home(&p, 1024, 1), 1);
    cr_expect_eq(place_home(&p, 2047, 1), 1);
    cr_expect_eq(place_home(&p, 3072, 1), 0);
    place_free(&p);
    /* three-page units (ladm Eq. 3.1 rounds to page multiples) over 2 chiplets */
    mk(&p, "interleave", 4096, 3 * 4096, shape(1, 2, 1));
    static const unsigned want[7] = {0, 0, 0, 1, 1, 1, 0};
    for (unsigned pg = 0; pg < 7; pg++)
        cr_expect_eq(place_home(&p, pg * 4096 + 7, 0), want[pg], "page %u", pg);
    place_free(&p);
}

static struct sched_launch with_buf(addr_t base, uint64_t size)
{
    struct sched_launch l = grid(1);
    l.nbufs = 1;
    l.bufs[0] = (struct sched_buf){"X", base, size, true, {0}};
    return l;
}

/* Homes of pages 0 .. n-1 of a buffer at `base` placed by chunk on t. */
static void expect_chunk(struct topo t, enum place_chunk_chiplets inner, uint64_t page_b,
                         uint64_t size, const unsigned *want, unsigned n)
{
    struct place p;
    mk(&p, "chunk", page_b, 0, t);
    p.p.chunk_chiplets = inner;
    addr_t base = 0x100000000ull;
    struct sched_launch l = with_buf(base, size);
    cr_expect_eq(place_launch(&p, &l), 0);
    cr_expect_eq(p.st.policy_pages, n);
    for (unsigned i = 0; i < n; i++)
        cr_expect_eq(place_lookup(&p, base + i * page_b), (int)want[i], "page %u of %u", i, n);
    cr_expect_eq(place_lookup(&p, base + n * page_b), -1, "after the buffer: first touch");
    place_free(&p);
}

Test(place, chunk_splits_a_buffer_per_gpu_then_per_chiplet)
{
    /* 11 pages on 2 GPUs x 2 chiplets: GPU 0 pages 0-4, GPU 1 pages 5-10 (the
     * leftover page to the last GPU); GPU 0's 5 pages: 2 on chiplet 0, 3 on 1;
     * GPU 1's 6: 3 on chiplet 2, 3 on chiplet 3 */
    expect_chunk(shape(2, 2, 1), PLACE_CHUNK_CONTIGUOUS, 4096, 11 * 4096,
                 A(0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3), 11);
    /* the same with the GPU's pages round-robin over its chiplets (ladm L4) */
    expect_chunk(shape(2, 2, 1), PLACE_CHUNK_INTERLEAVE, 4096, 11 * 4096,
                 A(0, 1, 0, 1, 0, 2, 3, 2, 3, 2, 3), 11);
    /* a partial last page counts: 4 pages + 1 byte = 5 pages over 4 chiplets */
    expect_chunk(shape(1, 4, 1), PLACE_CHUNK_CONTIGUOUS, 4096, 4 * 4096 + 1, A(0, 1, 2, 3, 3),
                 5);
    /* fewer pages than GPUs: all on GPU 0 (MGPUSim's distributor); 3 pages on
     * 2 GPUs: 1 on GPU 0, 2 on GPU 1 */
    expect_chunk(shape(2, 2, 1), PLACE_CHUNK_CONTIGUOUS, 4096, 4096, A(0), 1);
    expect_chunk(shape(2, 2, 1), PLACE_CHUNK_CONTIGUOUS, 4096, 3 * 4096, A(0, 2, 3), 3);
    /* 2 MiB pages: a 5 MiB buffer is 3 pages */
    expect_chunk(shape(1, 2, 1), PLACE_CHUNK_CONTIGUOUS, 2 << 20, 5 << 20, A(0, 1, 1), 3);
}

Test(place, a_buffer_is_placed_at_its_first_launch_only_and_moves_cost)
{
    struct place p;
    mk(&p, "chunk", 4096, 0, shape(1, 2, 1));
    addr_t base = 0x100000000ull;
    /* pages 0 and 3 touched first (by chiplets 1 and 1), page 1 copied to 0 */
    place_home(&p, base + 10, 1);
    place_home(&p, base + 3 * 4096, 1);
    place_copy(&p, base + 4096, 0);
    struct sched_launch l = with_buf(base, 4 * 4096);
    /* chunk wants 0, 0, 1, 1: page 0 moves (1 -> 0), page 1 stays, page 3 stays */
    cr_expect_eq(place_launch(&p, &l), 1000, "one move of 1000 ps");
    cr_expect_eq(p.st.migrations, 1);
    cr_expect_eq(place_lookup(&p, base), 0);
    cr_expect_eq(place_lookup(&p, base + 2 * 4096), 1);
    /* a later launch of the same buffer places nothing */
    place_set(&p, base, 1);
    cr_expect_eq(place_launch(&p, &l), 0);
    cr_expect_eq(place_lookup(&p, base), 1);
    cr_expect_eq(p.st.policy_pages, 5);
    place_free(&p);
    /* first touch has no launch placement */
    mk(&p, "first_touch", 4096, 0, shape(1, 2, 1));
    cr_expect_eq(place_launch(&p, &l), 0);
    cr_expect_eq(place_lookup(&p, base), -1);
    place_free(&p);
}

Test(place, host_copies_place_only_unplaced_pages_under_first_touch)
{
    struct place p;
    mk(&p, "first_touch", 4096, 0, shape(1, 2, 1));
    place_home(&p, 0x5000, 1);
    place_copy(&p, 0x5000, 0);
    place_copy(&p, 0x6000, 0);
    cr_expect_eq(place_lookup(&p, 0x5000), 1);
    cr_expect_eq(place_lookup(&p, 0x6000), 0);
    cr_expect_eq(p.st.first_touches, 1, "a copy is not a kernel's first touch");
    place_free(&p);
    mk(&p, "interleave", 4096, 0, shape(1, 2, 1));
    place_copy(&p, 0x5000, 0);
    cr_expect_eq(place_lookup(&p, 0x5000), 1, "interleave ignores copies");
    place_free(&p);
}

Test(place, a_fault_holds_requests_to_its_page_until_it_is_served)
{
    struct place p;
    struct place_params pp = {.ops = place_find("first_touch"), .page_b = 4096,
                              .fault_ps = 5000};
    struct topo t = shape(1, 2, 1);
    place_init(&p, &pp, &t);
    place_home(&p, 0x1000, 0);
    place_copy(&p, 0x3000, 1);
    cr_expect_eq(place_ready(&p, 0x1040, 100), 5100, "the first request starts the fault");
    cr_expect_eq(place_ready(&p, 0x1080, 3000), 5100, "a later one waits with it");
    cr_expect_eq(place_ready(&p, 0x10c0, 5100), 0, "served");
    cr_expect_eq(place_ready(&p, 0x1000, 9000), 0);
    cr_expect_eq(place_ready(&p, 0x3000, 0), 0, "copied pages do not fault");
    cr_expect_eq(place_ready(&p, 0x8000, 0), 0, "unplaced pages neither");
    cr_expect_eq(p.st.faults, 1);
    place_free(&p);
}
