/*
 * Configuration: layering (defaults < files < -p), typed checks, the error
 * format "file:line: [section] key = value: reason", suggestions, and the
 * resolved echo.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "config/cfg.h"

static const struct cfg_key keys[] = {
    {"size_kib", CFG_INT, "16", 1, 1 << 20, "capacity", NULL},
    {"lat", CFG_INT, "140", 0, 100000, "latency", NULL},
    {"ratio", CFG_FLOAT, "0.5", 0, 1, "a fraction", NULL},
    {"enabled", CFG_BOOL, "true", 0, 0, "a switch", NULL},
    {"policy", CFG_ENUM, "lru", 0, 0, "replacement", "lru|fifo|random"},
    {"name", CFG_STR, "x", 0, 0, "a label", NULL},
    CFG_END,
};

static void setup(struct cfg *c)
{
    cfg_init(c);
    cfg_define(c, "l1d", "L1 data cache", keys, NULL);
    static const char *const l2_defaults[] = {"size_kib=8192", "lat=269", NULL};
    cfg_define(c, "l2", "L2 cache", keys, l2_defaults);
}

Test(config, defaults_per_section)
{
    struct cfg c;
    setup(&c);
    struct err e;
    cr_assert_eq(cfg_resolve(&c, &e), 0);
    cr_expect_eq(cfg_int(cfg_sec(&c, "l1d"), "size_kib"), 16);
    cr_expect_eq(cfg_int(cfg_sec(&c, "l2"), "size_kib"), 8192);
    cr_expect_eq(cfg_int(cfg_sec(&c, "l2"), "lat"), 269);
    cr_expect_eq(cfg_enum(cfg_sec(&c, "l2"), "policy"), 0);
    cr_expect(cfg_bool(cfg_sec(&c, "l2"), "enabled"));
    cfg_free(&c);
}

Test(config, layering_files_then_overrides)
{
    struct cfg c;
    setup(&c);
    struct err e;
    cr_assert_eq(cfg_load_string(&c, "a.ini", "[l2]\nsize_kib = 4096\nlat=300\n", &e), 0);
    cr_assert_eq(cfg_load_string(&c, "b.ini", "; comment\n[l2]\nlat = 310 ; inline\n", &e), 0);
    cr_assert_eq(cfg_load_override(&c, "l2.policy=fifo", 1, &e), 0);
    cr_assert_eq(cfg_load_override(&c, "l2.size_kib=2048", 2, &e), 0);
    cr_assert_eq(cfg_resolve(&c, &e), 0, "%s", e.msg);
    const struct cfg_sec *l2 = cfg_sec(&c, "l2");
    cr_expect_eq(cfg_int(l2, "size_kib"), 2048);
    cr_expect_eq(cfg_int(l2, "lat"), 310);
    cr_expect_eq(cfg_enum(l2, "policy"), 1);
    cr_expect_str_eq(cfg_item(l2, "lat")->origin, "b.ini:3");
    cr_expect_str_eq(cfg_item(l2, "size_kib")->origin, "-p:2");
    cr_expect_str_eq(cfg_item(cfg_sec(&c, "l1d"), "lat")->origin, "default");
    cfg_free(&c);
}

static void expect_error(const char *text, const char *want)
{
    struct cfg c;
    setup(&c);
    struct err e = {{0}};
    int rc = cfg_load_string(&c, "t.ini", text, &e);
    if (rc == 0)
        rc = cfg_resolve(&c, &e);
    cr_expect_eq(rc, -1, "accepted: %s", text);
    cr_expect_str_eq(e.msg, want);
    cfg_free(&c);
}

Test(config, unknown_key_suggests)
{
    expect_error("[l2]\n\nsise_kib = 8\n", "t.ini:3: [l2] sise_kib = 8: unknown key (did you mean 'size_kib'?)");
}

Test(config, unknown_key_without_close_match)
{
    expect_error("[l2]\nbananas = 8\n", "t.ini:2: [l2] bananas = 8: unknown key");
}

Test(config, unknown_section_suggests)
{
    expect_error("[l1]\nlat = 8\n", "t.ini:2: [l1] lat = 8: unknown section (did you mean 'l1d'?)");
}

Test(config, out_of_range)
{
    expect_error("[l1d]\nsize_kib = 0\n", "t.ini:2: [l1d] size_kib = 0: out of range [1, 1048576]");
    expect_error("[l1d]\nratio = 1.5\n", "t.ini:2: [l1d] ratio = 1.5: out of range [0, 1]");
}

Test(config, wrong_types)
{
    expect_error("[l1d]\nlat = fast\n", "t.ini:2: [l1d] lat = fast: not an integer");
    expect_error("[l1d]\nlat = 12abc\n", "t.ini:2: [l1d] lat = 12abc: not an integer");
    expect_error("[l1d]\nratio = half\n", "t.ini:2: [l1d] ratio = half: not a number");
    expect_error("[l1d]\nenabled = maybe\n",
                 "t.ini:2: [l1d] enabled = maybe: not a boolean (true/false, yes/no, on/off, 1/0)");
    expect_error("[l1d]\npolicy = plru\n", "t.ini:2: [l1d] policy = plru: not one of: lru, fifo, random");
}

Test(config, malformed_lines)
{
    expect_error("[l1d]\nlat 140\n",
                 "t.ini:2: malformed line (expected [section] or key = value inside a section)");
    expect_error("lat = 140\n",
                 "t.ini:1: malformed line (expected [section] or key = value inside a section)");
    expect_error("[l1d\nlat = 1\n",
                 "t.ini:1: malformed line (expected [section] or key = value inside a section)");
}

Test(config, override_syntax)
{
    struct cfg c;
    setup(&c);
    struct err e;
    cr_expect_eq(cfg_load_override(&c, "l2size_kib=3", 4, &e), -1);
    cr_expect_str_eq(e.msg, "-p:4: 'l2size_kib=3': expected section.key=value");
    cr_expect_eq(cfg_load_override(&c, "l2.size_kib", 1, &e), -1);
    cr_assert_eq(cfg_load_override(&c, "l2.lat=-5", 7, &e), 0);
    cr_expect_eq(cfg_resolve(&c, &e), -1);
    cr_expect_str_eq(e.msg, "-p:7: [l2] lat = -5: out of range [0, 100000]");
    cfg_free(&c);
}

Test(config, cross_key_error_names_origin)
{
    struct cfg c;
    setup(&c);
    struct err e;
    cr_assert_eq(cfg_load_string(&c, "x.ini", "[l2]\n\n\nsize_kib = 3\n", &e), 0);
    cr_assert_eq(cfg_resolve(&c, &e), 0);
    cr_expect_eq(cfg_err(&e, cfg_sec(&c, "l2"), "size_kib", "not a multiple of %d", 4), -1);
    cr_expect_str_eq(e.msg, "x.ini:4: [l2] size_kib = 3: not a multiple of 4");
    cfg_free(&c);
}

Test(config, peek_before_resolve)
{
    struct cfg c;
    setup(&c);
    struct err e;
    cr_expect_str_eq(cfg_peek(&c, "l2", "policy"), "lru");
    cr_assert_eq(cfg_load_override(&c, "l2.policy=random", 1, &e), 0);
    cr_expect_str_eq(cfg_peek(&c, "l2", "policy"), "random");
    cr_expect_null(cfg_peek(&c, "nosuch", "key"));
    cfg_free(&c);
}

Test(config, echo_and_json)
{
    struct cfg c;
    setup(&c);
    struct err e;
    cr_assert_eq(cfg_load_override(&c, "l1d.lat=99", 1, &e), 0);
    cr_assert_eq(cfg_resolve(&c, &e), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cfg_print_ini(&c, f);
    fclose(f);
    cr_expect(strstr(buf, "[l1d]\nsize_kib = 16\nlat = 99\n") != NULL, "%s", buf);
    free(buf);
    json_t *j = cfg_to_json(&c);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(j, "l1d"), "lat")), 99);
    cr_expect(json_is_true(json_object_get(json_object_get(j, "l2"), "enabled")));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "l2"), "policy")), "lru");
    json_decref(j);
    cfg_free(&c);
}

Test(config, missing_file)
{
    struct cfg c;
    setup(&c);
    struct err e;
    cr_expect_eq(cfg_load_file(&c, "/nonexistent/x.ini", &e), -1);
    cr_expect_str_eq(e.msg, "/nonexistent/x.ini: cannot open config file: No such file or directory");
    cfg_free(&c);
}
