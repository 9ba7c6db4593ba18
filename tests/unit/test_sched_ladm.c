/*
 * LADM's LASP (spec ladm.md 6, 7; sched/ladm.h): the locality table a
 * description's launch carries, Eq. 3.1's granules, the `ladm` placement
 * and scheduling policies on one GPU and on several, and the agreement of
 * the two (a work-group runs where its datablock's page is). Expected homes
 * and nodes are derived by hand from the spec's equations.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "sched/ladm.h"
#include "sched/place.h"
#include "sched/wgsched.h"
#include "test_util.h"
#include "workload/kd.h"

#define KIB 1024ull
#define A(...) ((const unsigned[]){__VA_ARGS__})

static struct topo shape(unsigned g, unsigned c)
{
    return (struct topo){.gpus = g, .chiplets = c, .cus = 2};
}

/* A launch of one buffer of `size` bytes at 1 GiB with locality `loc`. */
static struct sched_launch one_buf(struct sched_dim grid, struct sched_dim block, uint64_t size,
                                   struct sched_locality loc)
{
    struct sched_launch l = {.name = "k", .grid = grid, .block = block, .page_b = 4 * KIB,
                             .nbufs = 1};
    l.bufs[0] = (struct sched_buf){"X", 1ull << 30, size, false, loc};
    return l;
}

static struct sched_locality nl(int64_t stride_b)
{
    return (struct sched_locality){.loc = SCHED_LOC_NL, .elem_b = 4, .stride_b = stride_b};
}

/* ---- the locality table of a description's launch ------------------------------- */

static const char *const params[] = {"t", NULL};
static const char *const bufs[] = {"A", "B", "C", NULL};

/* The tiled GEMM of spec ladm.md 5 (TILE 16, WIDTH = bdx * gdx): A row 2 moving
 * 16 elements an iteration, B row 5 moving 16 rows of WIDTH, C row 1; each
 * row WIDTH floats wide. */
Test(ladm, a_description_launch_carries_its_locality_table)
{
    struct kd_prog *p = tkd_compile(params, bufs, NULL,
                                    "for m0 = 0 .. t\n"
                                    "  load A[(by*16 + ty)*(bdx*gdx) + tx + m0*16] 4 -> r1\n"
                                    "  load B[m0*16*bdx*gdx + ty*(bdx*gdx) + bx*16 + tx] 4 -> r2\n"
                                    "  barrier\n"
                                    "end\n"
                                    "store C[(by*16 + ty)*(bdx*gdx) + bx*16 + tx] 4\n");
    static const struct kernel_buf a = {"A", 1 << 20, 1 << 20}, b = {"B", 2 << 20, 1 << 20},
                                   c = {"C", 3 << 20, 1 << 20};
    const struct kernel_buf *const bs[] = {&a, &b, &c};
    int64_t v[] = {4};
    struct kernel k;
    struct err e = {0};
    cr_assert_eq(kd_launch(p, &k, (struct kernel_dim){4, 4, 1}, (struct kernel_dim){16, 16, 1}, v,
                           bs, NULL, &e),
                 0, "%s", e.msg);
    const int64_t width = 4 * 16 * 4; /* 64 floats */
    /* a row of 4 work-groups covers by's 16 rows: 16 x 64 x 4 B / 4 apart; B has no by */
    struct sched_locality want[] = {
        {SCHED_LOC_ROW_H, 4, 16 * 4, width, 16 * width / 4, 0},
        {SCHED_LOC_COL_V, 4, 16 * width, width, 0, 0},
        {SCHED_LOC_NL, 4, 0, width, 16 * width / 4, 0},
    };
    for (unsigned i = 0; i < 3; i++) {
        const struct sched_locality *l = &k.args[i].loc;
        cr_expect(l->loc == want[i].loc && l->elem_b == 4 && l->stride_b == want[i].stride_b &&
                      l->row_b == want[i].row_b && l->block_b == want[i].block_b,
                  "%s: class %u, %u B, stride %lld, row %lld, block %lld", bufs[i], l->loc,
                  l->elem_b, (long long)l->stride_b, (long long)l->row_b, (long long)l->block_b);
    }
    /* a grid-stride kernel on a 1D grid: work-groups 1024 floats apart (each covers a
     * vector, as scalarProd's do), not L8's 64 threads x 4 B */
    struct kd_prog *q = tkd_compile(params, bufs, NULL,
                                    "for m0 = 0 .. t\n"
                                    "  for m1 = 0 .. 16\n"
                                    "    load A[(bx + m0*gdx)*1024 + tx + 64*m1] 4 -> r1\n"
                                    "  end\n"
                                    "end\n");
    cr_assert_eq(kd_launch(q, &k, (struct kernel_dim){8, 1, 1}, (struct kernel_dim){64, 1, 1}, v,
                           bs, NULL, &e),
                 0, "%s", e.msg);
    cr_expect(k.args[0].loc.loc == SCHED_LOC_NL && k.args[0].loc.block_b == 4096 &&
                  k.args[0].loc.stride_b == 8 * 4096,
              "block %lld, stride %lld", (long long)k.args[0].loc.block_b,
              (long long)k.args[0].loc.stride_b);
    kd_prog_free(q);
    /* on a 1D grid the same accesses are unclassified (Table 3.2 row 7) */
    cr_assert_eq(kd_launch(p, &k, (struct kernel_dim){16, 1, 1}, (struct kernel_dim){16, 16, 1},
                           v, bs, NULL, &e),
                 0, "%s", e.msg);
    cr_expect_eq(k.args[0].loc.loc, SCHED_LOC_UNCL);
    kd_prog_free(p);
}

/* ---- the decisions ------------------------------------------------------------------- */

Test(ladm, the_kernel_follows_its_largest_buffer_ties_to_a_row_class)
{
    struct sched_launch l = {.page_b = 4 * KIB, .nbufs = 3, .block = {64, 1, 1}};
    l.bufs[0] = (struct sched_buf){"a", 0, 10 * 4 * KIB, false, {.loc = SCHED_LOC_COL_H}};
    l.bufs[1] = (struct sched_buf){"b", 0, 10 * 4 * KIB - 5, false, {.loc = SCHED_LOC_ROW_H}};
    l.bufs[2] = (struct sched_buf){"c", 0, 40 * 4 * KIB, false, {.loc = SCHED_LOC_UNKNOWN}};
    /* c is larger but unknown; b's 10 pages tie a's: the row class wins (L11) */
    cr_expect_eq(ladm_decider(&l), 1);
    cr_expect_eq(ladm_kernel_loc(&l), SCHED_LOC_ROW_H);
    l.bufs[0].size += 1; /* now 11 pages */
    cr_expect_eq(ladm_decider(&l), 0);
    l.nbufs = 0;
    cr_expect_eq(ladm_decider(&l), -1);
    cr_expect_eq(ladm_kernel_loc(&l), SCHED_LOC_UNKNOWN);
}

Test(ladm, granules_of_eq_3_1)
{
    struct sched_dim g = {64, 1, 1}, b128 = {128, 1, 1};
    /* no loop, (128,1) floats: 512 B datablocks, MinTBBatch 8, a page per granule (L5) */
    struct sched_launch l = one_buf(g, b128, 1 << 20, nl(0));
    cr_expect_eq(ladm_datablock_b(&l, &l.bufs[0]), 512);
    cr_expect_eq(ladm_min_batch(&l, &l.bufs[0]), 8);
    cr_expect_eq(ladm_granule_b(&l, &l.bufs[0], 4), 4 * KIB);
    /* datablocks larger than a page: one work-group per batch, granules of whole pages */
    l.block = (struct sched_dim){1024, 2, 1};
    cr_expect_eq(ladm_min_batch(&l, &l.bufs[0]), 1);
    cr_expect_eq(ladm_granule_b(&l, &l.bufs[0], 4), 8 * KIB);
    /* a stride of 64 KiB over 4 nodes: 16 KiB; of 20 KiB over 4: 5 KiB, rounded to 8 KiB */
    l = one_buf(g, b128, 1 << 20, nl(64 * KIB));
    cr_expect_eq(ladm_granule_b(&l, &l.bufs[0], 4), 16 * KIB);
    l.bufs[0].loc.stride_b = 20 * KIB;
    cr_expect_eq(ladm_granule_b(&l, &l.bufs[0], 4), 8 * KIB);
    /* column-based: a 32 KiB row over 4 nodes is 8 KiB; an 8 KiB row collapses to a page */
    struct sched_locality col = {.loc = SCHED_LOC_COL_V, .elem_b = 4, .row_b = 32 * KIB};
    l = one_buf(g, b128, 1 << 20, col);
    cr_expect_eq(ladm_granule_b(&l, &l.bufs[0], 4), 8 * KIB);
    l.bufs[0].loc.row_b = 8 * KIB;
    cr_expect_eq(ladm_granule_b(&l, &l.bufs[0], 4), 4 * KIB);
    /* without a row width, and for the row, intra-thread and unclassified
     * classes: kernel-wide, 10 pages over 4 nodes in chunks of 3 */
    l.bufs[0].loc.row_b = 0;
    l.bufs[0].size = 10 * 4 * KIB;
    cr_expect_eq(ladm_granule_b(&l, &l.bufs[0], 4), 12 * KIB);
    for (unsigned c = SCHED_LOC_UNKNOWN; c <= SCHED_LOC_UNCL; c++) {
        l.bufs[0].loc.loc = (uint8_t)c;
        if (c != SCHED_LOC_NL && c != SCHED_LOC_ROW_V && c != SCHED_LOC_COL_V)
            cr_expect_eq(ladm_granule_b(&l, &l.bufs[0], 4), 12 * KIB, "class %u", c);
    }
}

/* ---- placement ------------------------------------------------------------------------ */

/* Homes of the n pages of launch l's buffer under `ladm` on t. */
static void expect_homes(struct topo t, struct sched_launch l, const unsigned *want, unsigned n)
{
    struct place p;
    struct place_params pp = {.ops = place_find("ladm"), .page_b = 4 * KIB};
    place_init(&p, &pp, &t);
    cr_expect_eq(place_launch(&p, &l), 0);
    cr_expect_eq(p.st.policy_pages, n);
    for (unsigned i = 0; i < n; i++)
        cr_expect_eq(place_lookup(&p, l.bufs[0].base + i * 4 * KIB), (int)want[i],
                     "page %u: home %d, not %u", i, place_lookup(&p, l.bufs[0].base + i * 4 * KIB),
                     want[i]);
    place_free(&p);
}

Test(ladm, placement_by_class_on_one_gpu)
{
    struct sched_dim g = {64, 1, 1}, b = {128, 1, 1};
    /* a stride of 32 KiB over 4 chiplets: granules of 2 pages, round-robin */
    expect_homes(shape(1, 4), one_buf(g, b, 10 * 4 * KIB, nl(32 * KIB)),
                 A(0, 0, 1, 1, 2, 2, 3, 3, 0, 0), 10);
    /* no loop: page round-robin */
    expect_homes(shape(1, 4), one_buf(g, b, 6 * 4 * KIB, nl(0)), A(0, 1, 2, 3, 0, 1), 6);
    /* column-based, a row of 16 KiB: each row's 4 pages over the 4 chiplets */
    struct sched_locality col = {.loc = SCHED_LOC_COL_V, .elem_b = 4, .row_b = 16 * KIB};
    expect_homes(shape(1, 4), one_buf(g, b, 8 * 4 * KIB, col), A(0, 1, 2, 3, 0, 1, 2, 3), 8);
    /* row-based and intra-thread: contiguous chunks of ceil(7 / 4) = 2 pages */
    struct sched_locality row = {.loc = SCHED_LOC_ROW_H, .elem_b = 4};
    expect_homes(shape(1, 4), one_buf(g, b, 7 * 4 * KIB, row), A(0, 0, 1, 1, 2, 2, 3), 7);
    row.loc = SCHED_LOC_ITL;
    expect_homes(shape(1, 4), one_buf(g, b, 7 * 4 * KIB, row), A(0, 0, 1, 1, 2, 2, 3), 7);
}

Test(ladm, placement_by_gpu_then_page_round_robin_over_its_chiplets)
{
    struct sched_dim g = {64, 1, 1}, b = {128, 1, 1};
    /* 2 GPUs x 2 chiplets, a stride of 16 KiB over the 2 GPUs: granules of 2
     * pages alternate GPUs (q mod 2); inside a GPU its k-th page goes to its
     * chiplet k mod 2: GPU 0 holds pages 0 1 4 5 (ranks 0 1 2 3) */
    expect_homes(shape(2, 2), one_buf(g, b, 8 * 4 * KIB, nl(16 * KIB)),
                 A(0, 1, 2, 3, 0, 1, 2, 3), 8);
    /* kernel-wide on 2 GPUs x 2 chiplets: 6 pages, 3 per GPU, round-robin inside */
    struct sched_locality itl = {.loc = SCHED_LOC_ITL, .elem_b = 8};
    expect_homes(shape(2, 2), one_buf(g, b, 6 * 4 * KIB, itl), A(0, 1, 0, 2, 3, 2), 6);
}

/* ---- scheduling ------------------------------------------------------------------------ */

/* Plan launch l under `ladm` on t: chiplet of each work-group. */
static void expect_nodes(struct topo t, struct sched_launch l, const unsigned *want)
{
    struct wgs w;
    struct wgs_params p = {.ops = wgs_find("ladm"), .batch = 1, .hier_batch = 1};
    struct err e;
    cr_assert_eq(wgs_init(&w, &t, &p, NULL, &e), 0);
    wgs_plan(&w, &l);
    for (uint32_t i = 0; i < sched_nwg(&l); i++)
        cr_expect_eq(wgs_target_of(&w, i).chiplet, want[i], "work-group %u on chiplet %u, not %u",
                     i, wgs_target_of(&w, i).chiplet, want[i]);
    wgs_free(&w);
}

Test(ladm, row_and_column_binding_with_the_fallback_of_l6)
{
    struct sched_dim b = {16, 16, 1};
    struct sched_locality row = {.loc = SCHED_LOC_ROW_H, .elem_b = 4};
    struct sched_locality col = {.loc = SCHED_LOC_COL_V, .elem_b = 4};
    /* 2 x 8 work-groups on 4 chiplets: rows 0-1 on chiplet 0, 2-3 on 1 ... */
    expect_nodes(shape(1, 4), one_buf((struct sched_dim){2, 8, 1}, b, 1 << 20, row),
                 A(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
    /* 8 x 2, column binding: columns 0-1 on chiplet 0 ... */
    expect_nodes(shape(1, 4), one_buf((struct sched_dim){8, 2, 1}, b, 1 << 20, col),
                 A(0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1, 2, 2, 3, 3));
    /* row binding with 2 rows on 4 chiplets: kernel-wide, chunks of 4 */
    expect_nodes(shape(1, 4), one_buf((struct sched_dim){8, 2, 1}, b, 1 << 20, row),
                 A(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
    /* a 3D grid's rows are (y, z): 1 x 2 x 2 is 4 rows */
    expect_nodes(shape(1, 4), one_buf((struct sched_dim){1, 2, 2}, b, 1 << 20, row), A(0, 1, 2, 3));
}

Test(ladm, alignment_aware_batches_and_gpu_chunks_with_chiplet_round_robin)
{
    struct sched_dim b = {128, 1, 1};
    /* no loop, floats: MinTBBatch 8 work-groups a page, round-robin over 4 chiplets */
    unsigned want[40];
    for (unsigned i = 0; i < 40; i++)
        want[i] = (i / 8) % 4;
    expect_nodes(shape(1, 4), one_buf((struct sched_dim){40, 1, 1}, b, 1 << 20, nl(0)), want);
    /* 2 GPUs x 2 chiplets: batches of 8 alternate GPUs, each GPU's batches alternate its
     * chiplets: 0-7 chiplet 0, 8-15 chiplet 2, 16-23 chiplet 1, 24-31 chiplet 3 */
    for (unsigned i = 0; i < 40; i++)
        want[i] = (i / 8) % 2 * 2 + (i / 16) % 2;
    expect_nodes(shape(2, 2), one_buf((struct sched_dim){40, 1, 1}, b, 1 << 20, nl(0)), want);
    /* intra-thread on 2 GPUs x 2 chiplets: 20 work-groups, 10 per GPU, then batches of
     * MinTBBatch = 4096 / (128 x 8) = 4 over its chiplets */
    struct sched_locality itl = {.loc = SCHED_LOC_ITL, .elem_b = 8};
    expect_nodes(shape(2, 2), one_buf((struct sched_dim){20, 1, 1}, b, 1 << 20, itl),
                 A(0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 2, 2, 2, 2, 3, 3, 3, 3, 2, 2));
}

/* LASP's two halves agree: on every shape, for a grid-stride (X-stride) kernel
 * and a no-loop one, with its data from the buffer's start or from an offset
 * (LBM's first plane of padding), every work-group's datablocks are homed on
 * the chiplet the work-group runs on. */
Test(ladm, every_work_group_runs_where_its_datablocks_are)
{
    for (unsigned g = 1; g <= 4; g *= 2)
        for (unsigned c = 1; c <= 4; c *= 2)
            for (unsigned v = 0; v < 4; v++) {
                bool loop = v & 1;
                uint64_t lead = v & 2 ? 7 * 512 : 0;
                struct topo t = shape(g, c);
                uint32_t n = 256;
                struct sched_dim b = {128, 1, 1};
                uint64_t pass = (uint64_t)n * 128 * 4; /* one grid-stride iteration's bytes */
                struct sched_launch l = one_buf((struct sched_dim){n, 1, 1}, b, lead + 3 * pass,
                                                nl(loop ? (int64_t)pass : 0));
                l.bufs[0].loc.block_b = 512;
                l.bufs[0].loc.offset_b = (int64_t)lead;
                struct place p;
                struct place_params pp = {.ops = place_find("ladm"), .page_b = 4 * KIB};
                place_init(&p, &pp, &t);
                place_launch(&p, &l);
                struct wgs w;
                struct wgs_params wp = {.ops = wgs_find("ladm"), .batch = 1, .hier_batch = 1};
                struct err e;
                cr_assert_eq(wgs_init(&w, &t, &wp, NULL, &e), 0);
                wgs_plan(&w, &l);
                for (uint32_t i = 0; i < n; i++)
                    for (unsigned it = 0; it < (loop ? 3u : 1u); it++) {
                        addr_t a = l.bufs[0].base + lead + i * 512ull + it * pass;
                        cr_expect_eq(place_lookup(&p, a), wgs_target_of(&w, i).chiplet,
                                     "%ux%u, %s, offset %llu: work-group %u, iteration %u", g,
                                     c, loop ? "stride" : "no loop", (unsigned long long)lead, i,
                                     it);
                    }
                wgs_free(&w);
                place_free(&p);
            }
}

/* ---- CODA and H-CODA (spec ladm 2, L12) ------------------------------------------------ */

/* Under coda (flat interleave) and hcoda (interleave_order = hier), at 1 KiB
 * units: batches of 1024 / 512 = 2 work-groups of (128,1) floats, and each
 * work-group's datablock is homed where it runs. */
Test(ladm, coda_batches_fill_an_interleave_unit_where_they_run)
{
    static const char *const pol[] = {"coda", "hcoda"};
    for (unsigned h = 0; h < 2; h++)
        for (unsigned g = 1; g <= 2; g++) {
            struct topo t = shape(g, g == 1 ? 4 : 2);
            struct sched_launch l = one_buf((struct sched_dim){40, 1, 1},
                                            (struct sched_dim){128, 1, 1}, 1 << 20, nl(0));
            l.unit_b = 1024;
            l.bufs[0].loc.loc = SCHED_LOC_UNKNOWN; /* CODA needs no class */
            struct place p;
            struct place_params pp = {.ops = place_find("interleave"), .page_b = 4 * KIB,
                                      .interleave_b = 1024, .interleave_hier = h};
            place_init(&p, &pp, &t);
            struct wgs w;
            struct wgs_params wp = {.ops = wgs_find(pol[h]), .batch = 1, .hier_batch = 1};
            struct err e;
            cr_assert_eq(wgs_init(&w, &t, &wp, NULL, &e), 0);
            wgs_plan(&w, &l);
            for (uint32_t i = 0; i < 40; i++) {
                unsigned c = wgs_target_of(&w, i).chiplet;
                cr_expect_eq(place_lookup(&p, l.bufs[0].base + i * 512ull), (int)c,
                             "%s on %u GPUs: work-group %u", pol[h], g, i);
                /* by hand: batch b = i / 2; coda: chiplet b mod 4; hcoda on 2 x 2:
                 * GPU b mod 2, its chiplet (b / 2) mod 2 */
                unsigned b = i / 2, want = g == 1 ? b % 4 : h ? b % 2 * 2 + b / 2 % 2 : b % 4;
                cr_expect_eq(c, want, "%s on %u GPUs: work-group %u on %u", pol[h], g, i, c);
            }
            wgs_free(&w);
            place_free(&p);
        }
}
