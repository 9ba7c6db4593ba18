/*
 * Work-group partitioning (static contiguous blocks, round-robin) and page
 * placement (first touch, interleave).
 */
#include <criterion/criterion.h>

#include "sched/place.h"
#include "sched/wgsched.h"

static void expect_iter(enum wgs_policy p, uint32_t n, unsigned k, unsigned c,
                        const uint32_t *want, unsigned nwant)
{
    struct wgs_iter it = wgs_chiplet(p, n, k, c);
    cr_expect_eq(wgs_count(&it), nwant, "count n=%u k=%u c=%u", n, k, c);
    for (unsigned i = 0; i < nwant; i++) {
        cr_assert(wgs_more(&it));
        cr_expect_eq(wgs_take(&it), want[i], "wg %u of chiplet %u", i, c);
    }
    cr_expect(!wgs_more(&it));
}

Test(wgsched, static_blocks_give_the_remainder_to_the_first_chiplets)
{
    /* 10 work-groups on 4 chiplets: 3, 3, 2, 2 (spec cpelide 2.3) */
    expect_iter(WGS_STATIC, 10, 4, 0, (uint32_t[]){0, 1, 2}, 3);
    expect_iter(WGS_STATIC, 10, 4, 1, (uint32_t[]){3, 4, 5}, 3);
    expect_iter(WGS_STATIC, 10, 4, 2, (uint32_t[]){6, 7}, 2);
    expect_iter(WGS_STATIC, 10, 4, 3, (uint32_t[]){8, 9}, 2);
    /* fewer work-groups than chiplets */
    expect_iter(WGS_STATIC, 2, 4, 0, (uint32_t[]){0}, 1);
    expect_iter(WGS_STATIC, 2, 4, 1, (uint32_t[]){1}, 1);
    expect_iter(WGS_STATIC, 2, 4, 2, NULL, 0);
}

Test(wgsched, every_work_group_exactly_once)
{
    for (unsigned k = 1; k <= 7; k++)
        for (uint32_t n = 0; n < 50; n++)
            for (int p = 0; p < 2; p++) {
                unsigned seen[50] = {0};
                for (unsigned c = 0; c < k; c++) {
                    struct wgs_iter it = wgs_chiplet((enum wgs_policy)p, n, k, c);
                    while (wgs_more(&it))
                        seen[wgs_take(&it)]++;
                }
                for (uint32_t i = 0; i < n; i++)
                    cr_assert_eq(seen[i], 1, "policy %d n %u k %u wg %u", p, n, k, i);
            }
}

Test(wgsched, round_robin)
{
    expect_iter(WGS_ROUND_ROBIN, 10, 4, 1, (uint32_t[]){1, 5, 9}, 3);
    expect_iter(WGS_ROUND_ROBIN, 10, 4, 3, (uint32_t[]){3, 7}, 2);
}

Test(place, first_touch_keeps_the_first_home)
{
    struct place p;
    place_init(&p, PLACE_FIRST_TOUCH, 4096, 4);
    cr_expect_eq(place_lookup(&p, 0x10000), -1);
    cr_expect_eq(place_home(&p, 0x10010, 2), 2);
    cr_expect_eq(place_home(&p, 0x10ff8, 3), 2, "same page, later toucher");
    cr_expect_eq(place_home(&p, 0x11000, 3), 3, "next page");
    cr_expect_eq(place_lookup(&p, 0x10abc), 2);
    for (addr_t a = 0; a < 5000; a++)
        place_home(&p, 0x100000 + a * 4096, (unsigned)(a % 4));
    cr_expect_eq(place_lookup(&p, 0x100000 + 4999 * 4096), 4999 % 4, "the table grows");
    cr_expect_eq(place_lookup(&p, 0x10000), 2, "and keeps old pages");
    place_free(&p);
}

Test(place, interleave_and_page_size)
{
    struct place p;
    place_init(&p, PLACE_INTERLEAVE, 8192, 3);
    cr_expect_eq(place_home(&p, 0, 2), 0);
    cr_expect_eq(place_home(&p, 8191, 2), 0);
    cr_expect_eq(place_home(&p, 8192, 0), 1);
    cr_expect_eq(place_home(&p, 3 * 8192 + 5, 1), 0);
    place_free(&p);
}
