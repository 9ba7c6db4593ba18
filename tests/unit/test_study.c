/*
 * test_study.c -- `chipsim study hmg` end to end on a small study file: the
 * sweep, --quick keeping the matrices named main..., the report's tables
 * (speedups over no caching on 4 x 4 and 1 x 4, the invalidation metrics,
 * a sensitivity sweep with its Table 5.2 point) and its plots.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"

static char *slurp(const char *dir, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

static bool exists(const char *dir, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* The row of `bench` in the table headed `head`: its cells after the name. */
static const char *row_of(const char *text, const char *head, const char *bench)
{
    const char *t = strstr(text, head);
    if (!t)
        return NULL;
    const char *end = strstr(t + 1, "\n== ");
    const char *r = strstr(t, bench);
    return r && (!end || r < end) ? r + strlen(bench) : NULL;
}

/* `chipsim study NAME --file FILE --out OUT [--quick]` on 2 jobs: its summary.txt. */
static const char *run_study(const char *name, const char *file, const char *out, bool quick)
{
    const char *argv[] = {"study", name, "--file", file, "--out", out, "--jobs", "2", "-q",
                          quick ? "--quick" : NULL, NULL};
    struct cli_result r = cli_exec(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    const char *s = slurp(out, "summary.txt");
    cr_assert(s);
    return s;
}

Test(study, hmg_quick_then_whole_tables_metrics_sensitivity_and_plots, .timeout = 600)
{
    char *dir = cli_tmpdir();
    char cfg[PATH_MAX];
    cr_assert(realpath("configs/hmg-4x4.ini", cfg));
    char ini[PATH_MAX + 1024];
    snprintf(ini, sizeof ini,
             "[sweep]\nconfigs = %s\nworkloads = gaussian, bfs\nsmall = true\n"
             "[matrix main-4x4]\nschemes = nocache, swcoh, hmg, ideal\n"
             "[matrix main-4x4-flat]\nschemes = swcoh, hmg\nset = coherence.mode=flat\n"
             "[matrix main-4x4-wt]\nschemes = ideal\nset = coherence.l2_write=through\n"
             "[matrix main-1x4]\nschemes = nocache, hmg, ideal\nset = gpu.gpus=1\n"
             "[matrix sens-bw]\nschemes = nocache, hmg\ngpu_link.port_gbps = 50\n",
             cfg);
    char *file = cli_write_file(dir, "s.ini", ini);
    char out[PATH_MAX + 8];
    snprintf(out, sizeof out, "%s/out", dir);
    const char *s = run_study("hmg", file, out, true);
    /* the 20 runs of the matrices main...: sens-bw's four are not among them */
    cr_expect(strstr(s, "runs: 20 ok, 0 not ok; stale reads 0"), "%s", s);
    cr_expect(!strstr(s, "sensitivity"), "--quick ran a sensitivity sweep:\n%s", s);
    for (const char *b = "gaussian\0bfs\0"; *b; b += strlen(b) + 1) {
        const char *row = row_of(s, "== 4x4: speedup", b);
        cr_assert(row, "%s: no 4x4 row\n%s", b, s);
        double v[6];
        cr_expect_eq(sscanf(row, "%lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4],
                            &v[5]), 6, "%s: %s", b, row);
        cr_expect_eq(v[0], 1.0, "%s: the baseline over itself", b);
        for (unsigned c = 1; c < 5; c++) /* no configuration beats the oracle */
            cr_expect_leq(v[c], v[5] * 1.02, "%s: configuration %u %.3f, ideal %.3f", b, c, v[c],
                          v[5]);
        cr_expect(row_of(s, "== 1x4: speedup", b), "%s: no 1x4 row", b);
    }
    /* HMG invalidates on stores; no-caching keeps no directory: no figure */
    const char *m = row_of(s, "== 4x4: invalidations", "HMG");
    double per_store;
    cr_assert(m && sscanf(m, "%lf", &per_store) == 1, "%s", s);
    cr_expect_gt(per_store, 0.0);
    m = row_of(s, "== 4x4: invalidations", "No caching");
    char cell[8];
    cr_assert(m && sscanf(m, "%7s", cell) == 1);
    cr_expect_str_eq(cell, "-");
    cr_expect(exists(out, "perf-4x4.png") && exists(out, "perf-1x4.pdf"));
    cr_expect(!exists(out, "sens-bw.png"));

    s = run_study("hmg", file, out, false);
    cr_expect(strstr(s, "runs: 24 ok, 0 not ok; stale reads 0"), "%s", s);
    const char *sens = strstr(s, "== sensitivity: sens-bw (gpu_link.port_gbps)");
    cr_assert(sens, "%s", s);
    cr_expect(strstr(sens, "200 GB/s per link (Table 5.2)") && strstr(sens, "100 GB/s per link"),
              "%s", sens);
    cr_expect(exists(out, "sens-bw.png") && exists(out, "sens-bw.pdf"));
    free(file);
    free(dir);
}

/* `chipsim study ladm` on a small study: --quick keeps the matrices main...
 * (H-CODA, LADM, the monolithic GPU stacked on the 4 x 4 preset), the whole
 * file adds RONCE everywhere; the tables are normalized to H-CODA and to the
 * monolithic GPU, the traffic classes add up, and the plots are written. */
Test(study, ladm_quick_then_whole_normalized_tables_traffic_and_plots, .timeout = 600)
{
    char *dir = cli_tmpdir();
    char cfg[PATH_MAX], mono[PATH_MAX];
    cr_assert(realpath("configs/ladm-4x4.ini", cfg));
    cr_assert(realpath("configs/ladm-monolithic.ini", mono));
    char ini[3 * PATH_MAX + 1024];
    snprintf(ini, sizeof ini,
             "[sweep]\nconfigs = %s\nworkloads = vecadd, gemm\nschemes = swcoh\n"
             "set = coherence.mode=flat coherence.write_through=remote\nsmall = true\n"
             "[matrix main-hcoda]\nset = sched.policy=hcoda place.policy=interleave "
             "place.interleave_b=1024 place.interleave_order=hier\n"
             "[matrix main-ladm]\nset = sched.policy=ladm place.policy=ladm coherence.crb=true\n"
             "[matrix main-mono]\nconfigs = %s+%s\nset = sched.policy=static\n"
             "[matrix more-ronce]\nset = sched.policy=ladm place.policy=ladm "
             "coherence.home_alloc=false\n",
             cfg, cfg, mono);
    char *file = cli_write_file(dir, "s.ini", ini);
    char out[PATH_MAX + 8];
    snprintf(out, sizeof out, "%s/out", dir);
    const char *s = run_study("ladm", file, out, true);
    cr_expect(strstr(s, "runs: 6 ok, 0 not ok; stale reads 0"), "%s", s);
    cr_expect(!strstr(s, "LASP+RONCE"), "--quick ran more-ronce:\n%s", s);
    for (const char *b = "VecAdd\0SQ-GEMM\0"; *b; b += strlen(b) + 1) {
        double v[3];
        const char *row = row_of(s, "== performance normalized to H-CODA", b);
        cr_assert(row && sscanf(row, " %*s %lf %lf %lf", &v[0], &v[1], &v[2]) == 3, "%s\n%s", b,
                  s);
        cr_expect_eq(v[0], 1.0, "%s: H-CODA over itself", b);
        row = row_of(s, "== performance normalized to the monolithic", b);
        cr_assert(row && sscanf(row, " %*s %lf %lf %lf", &v[0], &v[1], &v[2]) == 3, "%s", b);
        cr_expect_eq(v[2], 1.0, "%s: the monolithic GPU over itself", b);
    }
    cr_expect(strstr(s, "LOCAL-REMOTE misses = REMOTE-LOCAL accesses): holds in every run"),
              "%s", s);
    cr_expect(exists(out, "perf-hcoda.png") && exists(out, "perf-mono.pdf") &&
              exists(out, "traffic.png") && exists(out, "perf-class.png"));

    s = run_study("ladm", file, out, false);
    cr_expect(strstr(s, "runs: 8 ok, 0 not ok; stale reads 0"), "%s", s);
    cr_expect(strstr(s, "== RTWICE against RONCE") && exists(out, "crb.png"), "%s", s);
    free(file);
    free(dir);
}
