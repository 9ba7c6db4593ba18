/*
 * What the commands show users: a figure that was not measured is null in
 * the JSON summary, absent from the text summary, n/a in `chipsim compare`
 * and NULL (an empty CSV cell) in a sweep's database, never 0; compare prints
 * every number of a column in one format and names unreadable files without
 * jansson's line -1; `list params` and `list schemes` speak without internal
 * references and write ranges as users would; tools/kernel_groups.py counts
 * a run's kernels and their groups as the run's sections do.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "cli_util.h"

/* `chipsim run -c configs/tiny.ini ARGS --json DIR/out.json`: its stdout in
 * *text (caller frees) and its JSON summary. */
static json_t *run(const char *dir, const char *const *args, char **text)
{
    json_t *j = cli_run_tiny_json(dir, "out.json", args, text);
    json_t *sum = json_incref(json_object_get(j, "summary"));
    json_decref(j);
    cr_assert(json_is_object(sum));
    return sum;
}

/* The line of the text summary whose label is `label` (between "== summary =="
 * and "== engine =="), or NULL. */
static const char *summary_line(const char *text, const char *label)
{
    const char *s = strstr(text, "== summary ==");
    const char *end = s ? strstr(s, "== engine ==") : NULL;
    cr_assert(s && end, "no summary in:\n%s", text);
    char want[64];
    snprintf(want, sizeof want, "\n  %s ", label);
    const char *at = strstr(s, want);
    return at && at < end ? at + 1 : NULL;
}

static void expect_null(json_t *sum, const char *k)
{
    json_t *v = json_object_get(sum, k);
    cr_expect(v && json_is_null(v), "summary.%s should be null (not measured), is %s", k,
              v ? (json_is_number(v) ? "a number" : "not null") : "missing");
}

Test(output, a_gpu_without_l3_has_no_l3_figures)
{
    char *dir = cli_tmpdir(), *text;
    const char *none[] = {"-w", "chase", "-p", "gpu.llc_slices=0", NULL};
    json_t *sum = run(dir, none, &text);
    expect_null(sum, "l3_accesses");
    expect_null(sum, "l3_hits");
    cr_expect(json_is_integer(json_object_get(sum, "l2_accesses")));
    cr_expect_null(summary_line(text, "L3"), "an L3 line without an L3:\n%s", text);
    cr_expect_not_null(summary_line(text, "L2"), "%s", text);
    json_decref(sum);
    free(text);
    /* the same run with its L3: the figures are there, measured */
    const char *one[] = {"-w", "chase", NULL};
    sum = run(dir, one, &text);
    cr_expect_gt(json_integer_value(json_object_get(sum, "l3_accesses")), 0);
    cr_expect_not_null(summary_line(text, "L3"), "%s", text);
    json_decref(sum);
    free(text);
    rmdir(dir);
    free(dir);
}

Test(output, a_latency_test_has_no_bandwidth_figure)
{
    char *dir = cli_tmpdir(), *text;
    const char *args[] = {"-w", "chase", NULL};
    json_t *sum = run(dir, args, &text);
    cr_expect_gt(json_real_value(json_object_get(sum, "avg_load_latency_cycles")), 0);
    expect_null(sum, "achieved_gbps");
    cr_expect_not_null(summary_line(text, "avg load latency"), "%s", text);
    cr_expect_null(summary_line(text, "achieved bandwidth"), "%s", text);
    json_decref(sum);
    free(text);
    rmdir(dir);
    free(dir);
}

Test(output, a_trace_on_one_chiplet_has_no_microbenchmark_or_remote_figures)
{
    char *dir = cli_tmpdir(), *text;
    const char *args[] = {"--trace", "tests/data/trace/kernelslist.g", "-p", "gpu.chiplets=1",
                          NULL};
    json_t *sum = run(dir, args, &text);
    expect_null(sum, "avg_load_latency_cycles");
    expect_null(sum, "achieved_gbps");
    expect_null(sum, "l2_remote_accesses");
    expect_null(sum, "flits_remote");
    expect_null(sum, "annotation_violations"); /* not asked for */
    cr_expect(json_is_integer(json_object_get(sum, "stale_reads")));
    cr_expect_gt(json_integer_value(json_object_get(sum, "l1_accesses")), 0);
    cr_expect_null(summary_line(text, "avg load latency"), "%s", text);
    cr_expect_null(summary_line(text, "L2 remote accesses"), "%s", text);
    cr_expect_null(strstr(text, " remote\n"), "remote flits shown:\n%s", text);
    json_decref(sum);
    free(text);
    rmdir(dir);
    free(dir);
}

Test(output, checks_that_were_not_run_are_null)
{
    char *dir = cli_tmpdir(), *text;
    const char *off[] = {"-w", "vecadd", "-p", "workload.n=4096", "-p", "check.enable=false",
                         NULL};
    json_t *sum = run(dir, off, &text);
    expect_null(sum, "stale_reads");
    cr_expect_null(summary_line(text, "stale reads"), "%s", text);
    json_decref(sum);
    free(text);
    const char *on[] = {"-w", "vecadd", "-p", "workload.n=4096", "-p", "check.annotations=true",
                        NULL};
    sum = run(dir, on, &text);
    cr_expect(json_is_integer(json_object_get(sum, "annotation_violations")));
    cr_expect_not_null(summary_line(text, "annotation violations"), "%s", text);
    json_decref(sum);
    free(text);
    rmdir(dir);
    free(dir);
}

/* ---- compare ------------------------------------------------------------------ */

static char *run_file(const char *dir, const char *name, const char *const *args)
{
    return cli_run_tiny(dir, name, args, NULL);
}

/* The compare row of `key`: its A, B and ratio cells. */
static void compare_row(const char *out, const char *key, char *a, char *b, char *ratio)
{
    char want[64];
    snprintf(want, sizeof want, "\n  %s ", key);
    const char *at = strstr(out, want);
    cr_assert(at, "no row %s in:\n%s", key, out);
    char name[64];
    cr_assert_eq(sscanf(at, " %63s %47s %47s %31s", name, a, b, ratio), 4, "%.120s", at);
}

Test(output, compare_prints_one_format_per_kind_and_n_a_for_null)
{
    char *dir = cli_tmpdir();
    const char *a_args[] = {"-w", "chase", "-p", "gpu.llc_slices=0", NULL};
    const char *b_args[] = {"-w", "chase", "-p", "workload.passes=3", NULL};
    char *a = run_file(dir, "a.json", a_args), *b = run_file(dir, "b.json", b_args);
    const char *argv[] = {"compare", a, b, NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_null(strstr(r.out, "e+"), "a number with an exponent:\n%s", r.out);
    char x[48], y[48], q[32];
    compare_row(r.out, "l3_accesses", x, y, q);
    cr_expect_str_eq(x, "n/a");
    cr_expect_str_eq(q, "n/a");
    cr_expect(strspn(y, "0123456789") == strlen(y), "an integer as an integer: %s", y);
    /* cycles is in the millions: an integer with all its digits */
    compare_row(r.out, "cycles", x, y, q);
    cr_expect(strlen(x) >= 7 && strspn(x, "0123456789") == strlen(x), "cycles %s", x);
    cr_expect(strchr(q, '.') && strlen(strchr(q, '.')) == 5, "ratio with 4 decimals: %s", q);
    /* reals: three decimals, in both columns */
    compare_row(r.out, "energy_pj.total", x, y, q);
    cr_expect(strchr(x, '.') && strlen(strchr(x, '.')) == 4, "%s", x);
    cr_expect(strchr(y, '.') && strlen(strchr(y, '.')) == 4, "%s", y);
    compare_row(r.out, "achieved_gbps", x, y, q);
    cr_expect_str_eq(x, "n/a");
    cr_expect_str_eq(y, "n/a");
    cli_result_free(&r);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
    rmdir(dir);
    free(dir);
}

static void expect_compare_error(const char *path, const char *other, const char *want)
{
    const char *argv[] = {"compare", path, other, NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 2, "%s: status %d", path, r.status);
    cr_expect_null(strstr(r.err, ":-1:"), "%s", r.err);
    cr_expect(strstr(r.err, want), "stderr: %s\nwanted: %s", r.err, want);
    cr_expect_str_eq(r.out, "");
    cli_result_free(&r);
}

Test(output, compare_names_an_unreadable_file_plainly)
{
    char *dir = cli_tmpdir();
    char *empty = cli_write_file(dir, "empty.json", "");
    char *other = cli_write_file(dir, "other.json", "{\"config\": {}}\n");
    char *bad = cli_write_file(dir, "bad.json", "{\"summary\": {\n  \"cycles\": 1,,\n}}\n");
    char want[PATH_MAX + 64];
    expect_compare_error("/nonexistent/a.json", empty,
                         "chipsim: /nonexistent/a.json: cannot open: No such file or directory");
    snprintf(want, sizeof want, "chipsim: %s: cannot read: Is a directory", dir);
    expect_compare_error(dir, empty, want);
    snprintf(want, sizeof want, "chipsim: %s: empty file", empty);
    expect_compare_error(empty, other, want);
    snprintf(want, sizeof want, "chipsim: %s: not a chipsim result", other);
    expect_compare_error(other, empty, want);
    snprintf(want, sizeof want, "chipsim: %s:2:", bad); /* file:line:col of the syntax error */
    expect_compare_error(bad, empty, want);
    unlink(empty);
    unlink(other);
    unlink(bad);
    free(empty);
    free(other);
    free(bad);
    rmdir(dir);
    free(dir);
}

/* ---- the sweep database --------------------------------------------------------- */

static char *query_text(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    char *v = NULL;
    cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_text(st, 0))
        v = xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Cell `col` (0-based) of a CSV line, quotes removed, into buf. */
static void csv_cell(const char *line, int col, char *buf, size_t n)
{
    size_t k = 0;
    bool quoted = false;
    for (int c = 0; *line && *line != '\n'; line++) {
        if (*line == '"') {
            quoted = !quoted;
            continue;
        }
        if (*line == ',' && !quoted) {
            c++;
            continue;
        }
        if (c == col && k + 1 < n)
            buf[k++] = *line;
    }
    buf[k] = 0;
}

static int csv_column(const char *header, const char *name)
{
    char cell[96];
    for (int i = 0; i < 200; i++) {
        csv_cell(header, i, cell, sizeof cell);
        if (!strcmp(cell, name))
            return i;
    }
    return -1;
}

Test(output, a_sweep_stores_an_unmeasured_figure_as_null)
{
    char *dir = cli_tmpdir(), tiny[PATH_MAX], text[PATH_MAX + 256], db[PATH_MAX], csv[PATH_MAX];
    cr_assert(realpath("configs/tiny.ini", tiny));
    snprintf(text, sizeof text,
             "[sweep]\nconfigs = %s\nworkloads = vecadd\nsmall = true\ngpu.llc_slices = 0, 1\n",
             tiny);
    char *path = cli_write_file(dir, "s.ini", text);
    snprintf(db, sizeof db, "%s/r.db", dir);
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    const char *argv[] = {"sweep", path, "--db", db, "--jobs", "1", "--csv", csv, NULL};
    struct cli_result r = cli_exec(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    char *v = query_text(db, "SELECT count(*) FROM runs WHERE l3_accesses IS NULL AND "
                             "overrides LIKE '%llc_slices=0%'");
    cr_expect_str_eq(v, "1");
    free(v);
    v = query_text(db, "SELECT typeof(l3_accesses) FROM runs WHERE overrides LIKE "
                       "'%llc_slices=1%'");
    cr_expect_str_eq(v, "integer");
    free(v);
    /* the CSV: the L3 run's cell holds its count, the other's is empty */
    FILE *f = fopen(csv, "r");
    cr_assert(f);
    char lines[3][8192];
    for (int i = 0; i < 3; i++)
        cr_assert(fgets(lines[i], sizeof lines[i], f), "line %d", i);
    fclose(f);
    int col = csv_column(lines[0], "l3_accesses"), ov = csv_column(lines[0], "overrides");
    cr_assert_geq(col, 0, "%s", lines[0]);
    for (int i = 1; i < 3; i++) {
        char cell[64], ovs[512];
        csv_cell(lines[i], col, cell, sizeof cell);
        csv_cell(lines[i], ov, ovs, sizeof ovs);
        if (strstr(ovs, "llc_slices=0"))
            cr_expect_str_eq(cell, "", "%s", lines[i]);
        else
            cr_expect_gt(atoll(cell), 0, "%s", lines[i]);
    }
    unlink(csv);
    unlink(db);
    char wal[PATH_MAX + 8];
    snprintf(wal, sizeof wal, "%s-wal", db);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", db);
    unlink(wal);
    unlink(path);
    free(path);
    rmdir(dir);
    free(dir);
}

/* ---- list ------------------------------------------------------------------------- */

Test(output, list_params_speaks_to_users)
{
    const char *argv[] = {"list", "params", NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0);
    const char *never[] = {"spec ", "9.2e+18", "e+", "(int,", "(int)", "  (float",
                           "  (enum", "  (bool", "(D1", "D13", "0..1"};
    for (size_t i = 0; i < sizeof never / sizeof *never; i++) {
        const char *at = strstr(r.out, never[i]);
        cr_expect_null(at, "'%s' in list params: %.200s", never[i], at ? at : "");
    }
    const char *want[] = {"sim.seed = 1  (integer >= 0)\n",
                          "gpu.chiplets = 4  (integer, 1 to 64)\n",
                          "sim.watchdog_us = 100  (number, 0 to 1e9)\n",
                          "l1d.replacement = lru  (one of: lru, fifo, random)\n",
                          "l1d.sectored = false  (true or false)\n",
                          "xbar.port_gbps = 768  (number, 0.001 to 1e6)\n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(r.out, want[i]), "missing: %s", want[i]);
    cli_result_free(&r);
}

Test(output, list_schemes_speaks_to_users)
{
    const char *argv[] = {"list", "schemes", NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "cpelide "), "%s", r.out);
    cr_expect_null(strstr(r.out, "spec"), "%s", r.out);
    cr_expect_null(strstr(r.out, "(D"), "%s", r.out);
    cli_result_free(&r);
}

/* tools/kernel_groups.py on a run with per-kernel sections: its count of
 * kernels and of (name, work-groups) groups, against the sections counted
 * here; extrapolating from at least every kernel of each group is exact. */
Test(output, kernel_groups_counts_the_runs_kernels_and_groups)
{
    char *dir = cli_tmpdir();
    const char *args[] = {"-w", "sssp", "--small", "-p", "sim.per_kernel_stats=true", NULL};
    char *path = cli_run_tiny(dir, "out.json", args, NULL);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    cr_assert(j, "%s", je.text);
    json_t *secs = json_object_get(json_object_get(j, "stats"), "sections");
    size_t n = json_array_size(secs), ngroups = 0;
    char seen[64][96];
    for (size_t i = 0; i < n; i++) {
        json_t *sec = json_array_get(secs, i);
        const char *name = strchr(json_string_value(json_object_get(sec, "name")), '.') + 1;
        long long wgs = json_integer_value(
            json_object_get(json_object_get(sec, "stats"), "cp.wgs"));
        char key[96];
        snprintf(key, sizeof key, "%s/%lld", name, wgs);
        size_t k = 0;
        while (k < ngroups && strcmp(seen[k], key))
            k++;
        if (k == ngroups && ngroups < 64)
            snprintf(seen[ngroups++], sizeof seen[0], "%s", key);
    }
    cr_assert(n > 3 && ngroups > 1, "sssp runs several kernels of several kinds");
    json_decref(j);
    char *cmd = xasprintf("python3 tools/kernel_groups.py %s --first %zu", path, n);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char out[8192] = "";
    size_t len = fread(out, 1, sizeof out - 1, p);
    out[len] = 0;
    cr_expect_eq(pclose(p), 0, "%s", out);
    char want[80];
    snprintf(want, sizeof want, "%zu kernels in %zu groups (name, work-groups)", n, ngroups);
    cr_expect(strstr(out, want), "wanted '%s' in:\n%s", want, out);
    cr_expect(strstr(out, "the first"), "%s", out);
    cr_expect(strstr(out, "kernel time +0.00% off"), "every kernel of a group: exact\n%s", out);
    free(cmd);
    unlink(path);
    free(path);
    rmdir(dir);
    free(dir);
}
