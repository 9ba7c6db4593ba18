/*
 * `chipsim validate`: the small validation set runs and its table holds what
 * `chipsim run` gives for the same case (launch latency excluded, the
 * reference's clock, no L2 warm-up for a stock Accel-Sim build), the
 * Accel-Sim references lose their 5000-cycle launch latency per kernel, the
 * sector counts of vectorAdd are exact, and bad reference files exit 2.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "cli_util.h"
#include "trace_util.h"

/* The field `col` of the CSV row whose first field is `key` (no quoting). */
static double csv_get(const char *csv, const char *key, const char *col)
{
    char *text = xstrdup(csv), *save = NULL;
    int want = -1;
    double v = -1;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[64], *s2 = NULL;
        int n = 0;
        for (char *t = strtok_r(line, ",", &s2); t && n < 64; t = strtok_r(NULL, ",", &s2))
            f[n++] = t;
        if (want < 0) {
            for (int i = 0; i < n; i++)
                if (!strcmp(f[i], col))
                    want = i;
            cr_assert(want >= 0, "no column %s", col);
        } else if (!strcmp(f[0], key) && want < n) {
            v = strtod(f[want], NULL);
        }
    }
    free(text);
    cr_assert(v >= 0, "no row %s", key);
    return v;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s missing", path);
    char *buf = xcalloc(1 << 20, 1);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static json_t *run_summary(const char *dir, const char *list, const char *clock, bool warm)
{
    char *json = xasprintf("%s/one.json", dir), *path = xasprintf("workload.path=%s", list);
    char *clk = xasprintf("gpu.clock_mhz=%s", clock);
    const char *argv[] = {"run", "-q", "-c", "configs/qv100.ini", "-w", "trace", "-p", path,
                          "-p", clk, "-p", warm ? "sim.seed=1" : "cp.memcpy_warm_l2=false",
                          "--json", json, NULL};
    struct cli_result r = cli_exec(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_error_t je;
    json_t *root = json_load_file(json, 0, &je), *sum = json_incref(json_object_get(root, "summary"));
    json_decref(root);
    unlink(json);
    cli_result_free(&r);
    free(json);
    free(path);
    free(clk);
    return sum;
}

Test(validate, small_set_agrees_with_run, .timeout = 300)
{
    char *list = tu_shared_list("accelsim-vectoradd");
    if (!list)
        cr_skip_test("../shared/data is not here");
    char *dir = tu_dir(), *out = xasprintf("%s/val", dir);
    const char *argv[] = {"validate", "--small", "--out", out, "--jobs", "2", NULL};
    struct cli_result r = cli_exec(argv);
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "Pearson r") && strstr(r.out, "accelsim-qv100") &&
              strstr(r.out, "h100-silicon-ncu"), "%s", r.out);
    char *csvp = xasprintf("%s/validation.csv", out), *png = xasprintf("%s/correlation.png", out);
    char *csv = slurp(csvp);
    cr_expect_eq(access(png, R_OK), 0, "no plot");
    /* the stored traces only: no synthetic case */
    cr_expect(!strstr(csv, "scale-1m-qv100"), "--small generated a trace");

    const char *stock = "vectoradd-qv100-stock", *warm = "vectoradd-qv100-warm";
    cr_expect_eq(csv_get(csv, stock, "reference_kernel_cycles"),
                 csv_get(csv, stock, "reference") - 5000);
    cr_expect_eq(csv_get(csv, "ffma-1x32-i10-h100", "reference_kernel_cycles"),
                 csv_get(csv, "ffma-1x32-i10-h100", "reference"));
    /* 3,126 loads and 1,563 stores of 4 B per lane over 50,000 elements: 18,750 sectors */
    cr_expect_eq(csv_get(csv, stock, "chipsim_l1_accesses_sectors"), 18750);
    cr_expect_eq(csv_get(csv, stock, "chipsim_dram_reads_sectors") >= 12500, 1);
    cr_expect_eq(csv_get(csv, warm, "chipsim_dram_reads_sectors"), 0);

    json_t *s = run_summary(dir, list, "1132", false), *w = run_summary(dir, list, "1132", true);
    cr_expect_eq(csv_get(csv, stock, "chipsim_kernel_cycles"),
                 (double)json_integer_value(json_object_get(s, "kernel_cycles")));
    cr_expect_eq(csv_get(csv, warm, "chipsim_kernel_cycles"),
                 (double)json_integer_value(json_object_get(w, "kernel_cycles")));
    cr_expect_eq(csv_get(csv, stock, "chipsim_launch_cycles"),
                 (double)json_integer_value(json_object_get(s, "launch_cycles")));
    cr_expect_eq(json_integer_value(json_object_get(s, "cycles")),
                 json_integer_value(json_object_get(s, "kernel_cycles")) +
                     json_integer_value(json_object_get(s, "launch_cycles")));
    json_decref(s);
    json_decref(w);
    cli_result_free(&r);
    free(csv);
    free(csvp);
    free(png);
    free(out);
    free(list);
    tu_rmdir(dir);
}

static void expect_bad_refs(const char *text, const char *extra, const char *want)
{
    char *dir = tu_dir(), *refs = tu_write(dir, "refs.csv", text, 0);
    char *out = xasprintf("%s/out", dir);
    const char *argv[] = {"validate", "--refs", refs, "--out", out, extra, extra ? "x" : NULL,
                          NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 2, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, want) != NULL, "stderr: %s\nwanted: %s", r.err, want);
    cr_expect_eq(access(out, F_OK), -1, "an output directory was left behind");
    cli_result_free(&r);
    free(refs);
    free(out);
    tu_rmdir(dir);
}

#define HDR "case,source,trace,make_trace,preset,clock_mhz,metric,value\n"

Test(validate, bad_references_exit_2)
{
    expect_bad_refs(HDR "a,gem5,t/kernelslist.g,,qv100,1132,kernel_cycles,100\n", NULL,
                    "refs.csv:2: source = 'gem5': unknown");
    expect_bad_refs(HDR "a,accelsim-qv100,t/kernelslist.g,,qv100,fast,kernel_cycles,100\n", NULL,
                    "refs.csv:2: clock_mhz = 'fast': expected a non-negative number");
    expect_bad_refs(HDR "a,accelsim-qv100,t/k.g,,qv100,1132,ipc,1\n", NULL,
                    "refs.csv:2: metric = 'ipc': only kernel_cycles is compared");
    expect_bad_refs(HDR "a,accelsim-qv100,,,qv100,1132,kernel_cycles,1\n", NULL,
                    "refs.csv:2: case a: give exactly one of trace and make_trace");
    expect_bad_refs(HDR "a,accelsim-qv100,,rm -rf OUT,qv100,1132,kernel_cycles,1\n", NULL,
                    "refs.csv:2: make_trace = 'rm -rf OUT': expected 'gen-synth-trace.py OUT");
    expect_bad_refs("case,source,trace\n", NULL, "refs.csv:1: no column 'make_trace'");
    expect_bad_refs(HDR "a,\"accelsim-qv100,t,,qv100,1132,kernel_cycles,1\n", NULL,
                    "refs.csv:2: malformed CSV");
    expect_bad_refs(HDR "a,accelsim-qv100,t/k.g,,qv100,1132,kernel_cycles,1\n", "--case",
                    "--case x: no such case");
    expect_bad_refs(HDR "a,accelsim-qv100,t/k.g,,qv100,1132,kernel_cycles,1\n", "--bogus",
                    "unknown option '--bogus'");
}

Test(validate, help_exits_0)
{
    const char *argv[] = {"validate", "--help", NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: chipsim validate") != NULL, "%s", r.out);
    cli_result_free(&r);
}
