/*
 * Byte-range lists (base/range.h): the growable set (adding in any order,
 * merging of touching and overlapping ranges, union, overlap, bulk building)
 * and the fixed-capacity list of the workloads' ranges callbacks (joining,
 * rows of an array, the empty work-group and the overflow rule), each with
 * the exact ranges expected.
 */
#include <criterion/criterion.h>

#include "base/range.h"

#define R(lo, hi) ((struct addr_range){(lo), (hi)})

static void expect_ranges(const struct addr_range *got, unsigned n, const struct addr_range *want,
                          unsigned nwant)
{
    cr_assert_eq(n, nwant, "%u ranges, want %u", n, nwant);
    for (unsigned i = 0; i < n; i++) {
        cr_expect_eq(got[i].lo, want[i].lo, "range %u lo %llu", i, (unsigned long long)got[i].lo);
        cr_expect_eq(got[i].hi, want[i].hi, "range %u hi %llu", i, (unsigned long long)got[i].hi);
    }
}

/* The n ranges at v are exactly the ranges listed. */
#define EXPECT_RANGES(v, n, ...)                                          \
    expect_ranges((v), (n), (const struct addr_range[]){__VA_ARGS__},     \
                  sizeof((const struct addr_range[]){__VA_ARGS__}) / sizeof(struct addr_range))
#define EXPECT_SET(s, ...) EXPECT_RANGES((s)->v, (s)->n, __VA_ARGS__)

/* ---- range_set ------------------------------------------------------------ */

Test(range, set_keeps_disjoint_ranges_sorted)
{
    struct range_set s = {0};
    range_set_add(&s, 100, 200);
    range_set_add(&s, 0, 50);
    range_set_add(&s, 300, 400);
    range_set_add(&s, 60, 70);
    EXPECT_SET(&s, R(0, 50), R(60, 70), R(100, 200), R(300, 400));
    range_set_free(&s);
    cr_expect_null(s.v);
    cr_expect_eq(s.n, 0);
}

Test(range, set_merges_touching_and_overlapping)
{
    struct range_set s = {0};
    range_set_add(&s, 0, 50);
    range_set_add(&s, 50, 100); /* touches: one range */
    EXPECT_SET(&s, R(0, 100));
    range_set_add(&s, 90, 120); /* overlaps the end */
    range_set_add(&s, 200, 210);
    range_set_add(&s, 195, 200); /* touches the start */
    EXPECT_SET(&s, R(0, 120), R(195, 210));
    range_set_add(&s, 121, 194); /* one byte short of both: stays apart */
    EXPECT_SET(&s, R(0, 120), R(121, 194), R(195, 210));
    range_set_add(&s, 120, 121); /* fills the first gap */
    EXPECT_SET(&s, R(0, 194), R(195, 210));
    range_set_add(&s, 194, 195); /* and the second */
    EXPECT_SET(&s, R(0, 210));
    range_set_add(&s, 10, 20); /* inside */
    EXPECT_SET(&s, R(0, 210));
    range_set_free(&s);
}

Test(range, set_add_spanning_several_ranges)
{
    struct range_set s = {0};
    for (addr_t a = 0; a < 100; a += 20)
        range_set_add(&s, a, a + 10);
    EXPECT_SET(&s, R(0, 10), R(20, 30), R(40, 50), R(60, 70), R(80, 90));
    range_set_add(&s, 25, 65);
    EXPECT_SET(&s, R(0, 10), R(20, 70), R(80, 90));
    range_set_add(&s, 5, 200);
    EXPECT_SET(&s, R(0, 200));
    range_set_free(&s);
}

Test(range, set_ignores_empty_ranges)
{
    struct range_set s = {0};
    range_set_add(&s, 5, 5);
    range_set_add(&s, 9, 3);
    cr_expect_eq(s.n, 0);
    range_set_add(&s, 0, 10);
    range_set_add(&s, 10, 10); /* empty, even where it touches */
    range_set_add(&s, 40, 40);
    EXPECT_SET(&s, R(0, 10));
    range_set_clear(&s);
    cr_expect_eq(s.n, 0);
    range_set_free(&s);
}

Test(range, set_union)
{
    struct range_set a = {0}, b = {0}, e = {0};
    range_set_add(&a, 0, 10);
    range_set_add(&a, 40, 50);
    range_set_add(&b, 10, 20);
    range_set_add(&b, 30, 35);
    range_set_add(&b, 100, 110);
    range_set_union(&a, &b);
    EXPECT_SET(&a, R(0, 20), R(30, 35), R(40, 50), R(100, 110));
    EXPECT_SET(&b, R(10, 20), R(30, 35), R(100, 110)); /* the source is unchanged */
    range_set_union(&a, &e);
    EXPECT_SET(&a, R(0, 20), R(30, 35), R(40, 50), R(100, 110));
    range_set_union(&e, &a);
    EXPECT_SET(&e, R(0, 20), R(30, 35), R(40, 50), R(100, 110));
    range_set_free(&a);
    range_set_free(&b);
    range_set_free(&e);
}

Test(range, set_overlap)
{
    struct range_set a = {0}, b = {0}, e = {0};
    range_set_add(&a, 0, 10);
    range_set_add(&a, 50, 60);
    range_set_add(&b, 10, 20); /* touches a's first range only */
    range_set_add(&b, 30, 50); /* and its second */
    cr_expect_not(range_set_overlap(&a, &b), "touching ranges share no byte");
    cr_expect_not(range_set_overlap(&b, &a));
    range_set_add(&b, 59, 70);
    cr_expect(range_set_overlap(&a, &b), "byte 59");
    cr_expect(range_set_overlap(&b, &a));
    cr_expect_not(range_set_overlap(&a, &e));
    cr_expect_not(range_set_overlap(&e, &e));
    range_set_free(&a);
    range_set_free(&b);
}

Test(range, set_bulk_push_then_norm)
{
    struct range_set s = {0};
    const struct addr_range v[] = {R(300, 400), R(0, 10), R(5, 5), R(10, 20), R(350, 360),
                                   R(30, 40), R(0, 10), R(500, 450)};
    range_set_push(&s, v, 8);
    range_set_norm(&s);
    EXPECT_SET(&s, R(0, 20), R(30, 40), R(300, 400));
    range_set_free(&s);
}

/* Far more ranges than the list first holds, in a scattered order: the list
 * is sorted and merged as it fills, and the end result is the same. */
Test(range, set_bulk_many_ranges)
{
    struct range_set s = {0};
    for (uint64_t i = 0; i < 10000; i++) {
        uint64_t j = i * 7919 % 10000; /* a permutation of 0..9999 */
        struct addr_range r = R(j * 8, j * 8 + 4);
        range_set_push(&s, &r, 1);
    }
    range_set_norm(&s);
    cr_assert_eq(s.n, 10000);
    for (unsigned i = 0; i < s.n; i++)
        cr_expect(s.v[i].lo == i * 8ull && s.v[i].hi == i * 8ull + 4, "range %u", i);
    range_set_clear(&s);
    for (uint64_t i = 0; i < 10000; i++) {
        uint64_t j = i * 7919 % 10000;
        struct addr_range r = R(j * 8, j * 8 + 8); /* all touch */
        range_set_push(&s, &r, 1);
    }
    range_set_norm(&s);
    EXPECT_SET(&s, R(0, 80000));
    cr_expect_leq(s.cap, 16384, "merged while filling: cap %zu", s.cap);
    range_set_free(&s);
}

/* ---- range_list ----------------------------------------------------------- */

Test(range, list_sorts_and_merges)
{
    struct addr_range out[4];
    struct range_list l;
    range_list_init(&l, out, 4, 0);
    range_list_add(&l, 300, 400);
    range_list_add(&l, 0, 100);
    range_list_add(&l, 100, 200);
    range_list_add(&l, 150, 160);
    range_list_add(&l, 250, 250);
    EXPECT_RANGES(out, range_list_done(&l, 0), R(0, 200), R(300, 400));
    cr_expect_not(l.over);
}

Test(range, list_join_distance)
{
    struct addr_range out[4];
    struct range_list l;
    range_list_init(&l, out, 4, 64);
    range_list_add(&l, 0, 10);
    range_list_add(&l, 73, 80);   /* 63 bytes apart: joined */
    range_list_add(&l, 144, 150); /* 64 bytes apart: not */
    range_list_add(&l, 20, 30);   /* inside the join */
    EXPECT_RANGES(out, range_list_done(&l, 0), R(0, 80), R(144, 150));
    range_list_init(&l, out, 4, 64);
    range_list_add(&l, 200, 210);
    range_list_add(&l, 100, 137); /* joins from below */
    EXPECT_RANGES(out, range_list_done(&l, 0), R(100, 210));
    range_list_init(&l, out, 4, 0);
    range_list_add(&l, 0, 10);
    range_list_add(&l, 11, 20); /* join 0: one byte apart stays apart */
    range_list_add(&l, 20, 30);
    EXPECT_RANGES(out, range_list_done(&l, 0), R(0, 10), R(11, 30));
}

Test(range, list_rows_of_an_array)
{
    struct addr_range out[8];
    struct range_list l;
    range_list_init(&l, out, 8, 0);
    /* columns 3, 4 of rows 2, 3 of a 16-wide array of 4-byte elements at 1000 */
    range_list_rows(&l, 1000, 16, 4, 2, 4, 3, 5);
    EXPECT_RANGES(out, range_list_done(&l, 1000), R(1000 + 35 * 4, 1000 + 37 * 4),
                  R(1000 + 51 * 4, 1000 + 53 * 4));
    range_list_init(&l, out, 8, 0);
    range_list_rows(&l, 1000, 16, 8, 1, 5, 0, 16); /* whole rows touch: one range */
    range_list_rows(&l, 1000, 16, 8, 6, 9, 4, 4);  /* no column: nothing */
    EXPECT_RANGES(out, range_list_done(&l, 1000), R(1000 + 16 * 8, 1000 + 80 * 8));
}

Test(range, list_empty_workgroup_declares_an_empty_range)
{
    struct addr_range out[2] = {R(7, 7), R(7, 7)};
    struct range_list l;
    range_list_init(&l, out, 2, 0);
    range_list_add(&l, 30, 30);
    EXPECT_RANGES(out, range_list_done(&l, 4096), R(4096, 4096));
}

Test(range, list_without_room_is_unknown)
{
    struct addr_range out[1] = {R(7, 7)};
    struct range_list l;
    range_list_init(&l, out, 0, 0);
    range_list_add(&l, 0, 10);
    cr_expect_eq(range_list_done(&l, 0), 0);
    cr_expect_eq(out[0].lo, 7, "nothing written");
    cr_expect_eq(out[0].hi, 7);
}

/* The overflow rule: the one range spanning everything added, widened by
 * what comes after. */
Test(range, list_overflow_becomes_the_span)
{
    struct addr_range out[2];
    struct range_list l;
    range_list_init(&l, out, 2, 0);
    range_list_add(&l, 20, 30);
    range_list_add(&l, 40, 50);
    cr_expect_not(l.over);
    range_list_add(&l, 30, 40); /* merges: no new entry needed */
    cr_expect_not(l.over);
    cr_expect_eq(l.n, 1);
    range_list_add(&l, 60, 70);
    range_list_add(&l, 5, 8); /* a third entry: over */
    cr_expect(l.over);
    EXPECT_RANGES(out, range_list_done(&l, 0), R(5, 70));
    range_list_add(&l, 100, 110);
    range_list_add(&l, 50, 55); /* inside */
    range_list_add(&l, 2, 2);   /* empty */
    EXPECT_RANGES(out, range_list_done(&l, 0), R(5, 110));
}

Test(range, list_overflow_with_one_entry)
{
    struct addr_range out[1];
    struct range_list l;
    range_list_init(&l, out, 1, 64);
    range_list_add(&l, 1000, 1010);
    range_list_add(&l, 900, 937); /* joined (63 bytes apart) */
    cr_expect_not(l.over);
    range_list_add(&l, 1074, 1080); /* 64 bytes apart: over */
    cr_expect(l.over);
    EXPECT_RANGES(out, range_list_done(&l, 0), R(900, 1080));
}
