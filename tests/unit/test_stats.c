/*
 * Statistics: registration under hierarchical names, sums by suffix,
 * per-kernel sections, JSON and atomic writing.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats/report.h"
#include "stats/stats.h"

struct ctr {
    uint64_t read_miss, read_hit;
};
static const struct stat_desc ctr_desc[] = {
    STAT_DESC(struct ctr, read_miss, "read misses"),
    STAT_DESC(struct ctr, read_hit, "read hits"),
    {0},
};

Test(stats, register_and_sum)
{
    struct stats st;
    stats_init(&st);
    struct ctr a = {3, 10}, b = {4, 20};
    stats_reg_block(&st, "gpu0.chiplet0.l2", ctr_desc, &a);
    stats_reg_block(&st, "gpu0.chiplet1.l2", ctr_desc, &b);
    cr_expect_eq(stats_get(&st, "gpu0.chiplet1.l2.read_miss"), 4);
    cr_expect_eq(stats_sum(&st, "l2.read_miss"), 7);
    cr_expect_eq(stats_sum(&st, "read_hit"), 30);
    cr_expect_eq(stats_sum(&st, "ead_hit"), 0, "suffix must match whole name components");
    a.read_miss++;
    cr_expect_eq(stats_sum(&st, "l2.read_miss"), 8, "the registry reads live counters");
    stats_free(&st);
}

Test(stats, sections_record_deltas)
{
    struct stats st;
    stats_init(&st);
    st.keep_sections = true;
    struct ctr a = {0, 0};
    stats_reg_block(&st, "l1", ctr_desc, &a);
    a.read_hit = 5;
    stats_section_end(&st, "kernel0");
    a.read_hit = 12;
    a.read_miss = 2;
    stats_section_end(&st, "kernel1");
    cr_assert_eq(st.nsecs, 2);
    cr_expect_eq(st.secs[0].delta[1], 5);
    cr_expect_eq(st.secs[1].delta[1], 7);
    cr_expect_eq(st.secs[1].delta[0], 2);
    json_t *j = stats_to_json(&st);
    json_t *k1 = json_object_get(json_array_get(json_object_get(j, "sections"), 1), "stats");
    cr_expect_eq(json_integer_value(json_object_get(k1, "l1.read_hit")), 7);
    cr_expect_eq(json_integer_value(json_object_get(j, "l1.read_hit")), 12);
    json_decref(j);
    stats_free(&st);
}

Test(stats, atomic_json_write)
{
    char dir[] = "/tmp/chipsim-test-XXXXXX";
    cr_assert(mkdtemp(dir));
    char *path = xasprintf("%s/out.json", dir);
    json_t *j = json_pack("{s:i}", "x", 42);
    struct err e;
    cr_assert_eq(json_write_atomic(path, j, &e), 0);
    json_error_t je;
    json_t *back = json_load_file(path, 0, &je);
    cr_assert(back);
    cr_expect_eq(json_integer_value(json_object_get(back, "x")), 42);
    json_decref(back);
    char *bad = xasprintf("%s/nodir/out.json", dir);
    cr_expect_eq(json_write_atomic(bad, j, &e), -1);
    cr_expect(strstr(e.msg, "cannot write") != NULL);
    json_decref(j);
    unlink(path);
    rmdir(dir);
    free(path);
    free(bad);
}
