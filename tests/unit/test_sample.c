/*
 * Kernel sampling (gpu/sample.h, docs/sampling.md): the estimate's fit and
 * its error; every kernel run in detail gives the unsampled result; skipped
 * kernels run functionally do the same work (warp instructions, L1
 * requests) with the checker quiet under every scheme where the schemes'
 * operations are needed, and a dropped operation still makes it fire;
 * tools/sampling_error.py compares sampled and whole runs.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/base.h"
#include "cli_util.h"
#include "gpu/sample.h"
#include "tiny_run.h"
#include "trace_util.h"
#include "workload/wl.h"

static long long stat_of(const json_t *j, const char *name)
{
    json_t *v = json_object_get(json_object_get(j, "stats"), name);
    cr_assert(json_is_integer(v), "no stat %s", name);
    return json_integer_value(v);
}

/* Skip all but each group's first kernel, whatever the others' work. */
static const char *const skip_most[] = {"-p", "sample.enable=true", "-p", "sample.first=1",
                                        "-p", "sample.every=1000", "-p", "sample.reach=1e9",
                                        "-p", "sample.tolerance=1e9"};

static json_t *run(const char *wl, const char *const *args, size_t nargs, const char *json)
{
    const char *extra[24] = {0};
    cr_assert(nargs < 24);
    for (size_t i = 0; i < nargs; i++)
        extra[i] = args[i];
    int rc;
    json_t *j = tiny_run(tiny_wl(wl), extra, json, &rc);
    cr_assert_eq(rc, 0, "%s: exit %d", wl, rc);
    return j;
}

Test(sample, the_fit_follows_the_detailed_kernels_and_its_misses_give_the_error)
{
    struct sample sm;
    sample_init(&sm, &(struct sample_params){.on = true, .first = 2, .every = 3, .reach = 1e9, .tolerance = 1e9});
    struct kernel k = {.name = "k", .grid = {4, 1, 1}, .block = {64, 1, 1}};
    struct kernel other = {.name = "k", .grid = {8, 1, 1}, .block = {64, 1, 1}};
    bool det;
    /* the group's first kernel (cold) alone sets the estimate only until a second comes */
    unsigned g = sample_begin(&sm, &k, &det);
    cr_assert(det);
    sample_detailed(&sm, g, 100, 5000, false);
    cr_assert_eq(sample_begin(&sm, &other, &det), g + 1, "another grid, another group");
    cr_assert(det);
    cr_assert_eq(sample_begin(&sm, &k, &det), g);
    cr_assert(det);
    sample_detailed(&sm, g, 100, 1100, false); /* predicted 5000: off by 3900 */
    cr_assert_eq(sm.st.checked, 1);
    cr_assert_eq(sm.st.checked_err_ps, 3900);
    /* kernels 2 and 3 skipped, 4 detailed (one in every 3 after the first 2) */
    cr_assert_eq(sample_begin(&sm, &k, &det), g);
    cr_assert(!det);
    cr_assert_eq(sample_skipped(&sm, g, 300, false, 0), 3300, "in proportion to the one point");
    sample_free(&sm);
    sample_init(&sm, &(struct sample_params){.on = true, .first = 1, .every = 100, .reach = 1e9, .tolerance = 1e9});
    g = sample_begin(&sm, &k, &det);
    sample_detailed(&sm, g, 100, 1000, false);
    sample_begin(&sm, &k, &det);
    cr_assert(!det);
    cr_assert_eq(sample_skipped(&sm, g, 100, false, 0), 1000);
    cr_assert_eq(sm.st.error_ps, 1000, "nothing checked: the whole estimate is the error");
    sample_free(&sm);
    sample_init(&sm, &(struct sample_params){.on = true, .first = 2, .every = 3, .reach = 1e9, .tolerance = 1e9});
    g = sample_begin(&sm, &k, &det);
    sample_detailed(&sm, g, 100, 5000, false);
    sample_begin(&sm, &other, &det);
    sample_begin(&sm, &k, &det);
    sample_detailed(&sm, g, 100, 1100, false);
    cr_assert_eq(sample_begin(&sm, &k, &det), g);
    cr_assert_eq(sample_skipped(&sm, g, 300, false, 0), 3300);
    cr_assert_eq(sample_begin(&sm, &k, &det), g);
    cr_assert(!det);
    cr_assert_eq(sample_skipped(&sm, g, 100, false, 0), 1100);
    cr_assert_eq(sample_begin(&sm, &k, &det), g);
    cr_assert(det);
    sample_detailed(&sm, g, 200, 2100, false); /* predicted 2200 */
    cr_assert_eq(sm.st.checked_err_ps, 4000);
    /* two points: the line 100 + 10 x insts */
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(sample_begin(&sm, &k, &det), g);
        cr_assert(!det);
    }
    cr_assert_eq(sample_skipped(&sm, g, 400, false, 0), 4100);
    cr_assert_eq(sm.st.skipped, 3);
    cr_assert_eq(sm.st.skipped_insts, 800);
    cr_assert_eq(sm.st.skipped_ps, 3300 + 1100 + 4100);
    cr_assert_eq(sm.st.checked_ps, 1100 + 2100);
    /* error: skipped time x the checked kernels' relative miss, 8500 x 4000 / 3200 */
    cr_assert_eq(sm.st.error_ps, 10625);
    /* a group that synchronizes runs in detail from then on */
    sample_begin(&sm, &k, &det);
    cr_assert(det);
    sample_detailed(&sm, g, 100, 1100, true);
    for (int i = 0; i < 5; i++) {
        sample_begin(&sm, &k, &det);
        cr_assert(det);
    }
    sample_free(&sm);
}

Test(sample, a_kernel_after_one_beyond_reach_of_the_fitted_ones_runs_in_detail)
{
    struct sample sm;
    sample_init(&sm, &(struct sample_params){.on = true, .first = 2, .every = 1000,
                                             .reach = 0.1, .tolerance = 1e9});
    struct kernel k = {.name = "k", .grid = {4, 1, 1}, .block = {64, 1, 1}};
    bool det;
    unsigned g = sample_begin(&sm, &k, &det);
    sample_detailed(&sm, g, 50, 900, false); /* the first: not what the fit is on */
    sample_begin(&sm, &k, &det);
    sample_detailed(&sm, g, 100, 1000, false);
    sample_begin(&sm, &k, &det);
    cr_assert(!det, "the last kernel ran what the fit is on");
    sample_skipped(&sm, g, 109, false, 0);
    sample_begin(&sm, &k, &det);
    cr_assert(!det, "109 is within 10%% of 100");
    sample_skipped(&sm, g, 120, false, 0);
    sample_begin(&sm, &k, &det);
    cr_assert(det, "120 is beyond it");
    sample_detailed(&sm, g, 130, 1300, false);
    sample_begin(&sm, &k, &det);
    cr_assert(!det, "now fitted on 100 .. 130");
    sample_skipped(&sm, g, 91, false, 0);
    sample_begin(&sm, &k, &det);
    cr_assert(!det, "91 x 1.1 reaches 100");
    sample_skipped(&sm, g, 90, false, 0);
    sample_begin(&sm, &k, &det);
    cr_assert(det, "90 x 1.1 does not");
    cr_assert_eq(sm.st.checked, 0, "only kernels within reach are checked: 100 and 130 were not");
    sample_detailed(&sm, g, 120, 1250, false); /* within reach: predicted 1200 */
    cr_assert_eq(sm.st.checked, 1);
    cr_assert_eq(sm.st.checked_err_ps, 50);
    sample_free(&sm);
}

Test(sample, a_group_runs_in_detail_while_its_estimate_misses)
{
    struct sample sm;
    sample_init(&sm, &(struct sample_params){.on = true, .first = 2, .every = 1000,
                                             .reach = 1e9, .tolerance = 0.02});
    struct kernel k = {.name = "k", .grid = {4, 1, 1}, .block = {64, 1, 1}};
    bool det;
    unsigned g = sample_begin(&sm, &k, &det);
    sample_detailed(&sm, g, 100, 1000, false); /* cold */
    sample_begin(&sm, &k, &det);
    sample_detailed(&sm, g, 100, 2000, false); /* predicted 1000: missed by half */
    sample_begin(&sm, &k, &det);
    cr_assert(det, "the last estimate missed by 50%%");
    sample_detailed(&sm, g, 100, 2020, false); /* predicted 2000: 1% */
    sample_begin(&sm, &k, &det);
    cr_assert(!det);
    cr_assert_eq(sample_skipped(&sm, g, 100, false, 0), 2010, "the mean of the window");
    cr_assert_eq(sm.st.checked, 2);
    cr_assert_eq(sm.st.checked_err_ps, 1000 + 20);
    /* a wait for the last kernel's traffic lies within the estimate; a longer
     * one ends the kernel */
    cr_assert_eq(sample_skipped(&sm, g, 100, false, 500), 2010);
    cr_assert_eq(sample_skipped(&sm, g, 100, false, 3000), 3000);
    cr_assert_eq(sm.st.drain_ps, 500 + 2010);
    sample_free(&sm);
}

/* The periodic kernels' gap doubles while their estimates hold, up to
 * backoff x every, and falls back to every after a miss (while the tolerance rule
 * keeps the group in detail until its estimate holds again). first 1, every 2,
 * backoff 4 (gaps up to 8); every kernel 100 instructions in 1000 ps but the 23rd (1500). */
Test(sample, the_gap_to_the_next_periodic_kernel_doubles_while_estimates_hold)
{
    struct sample sm;
    sample_init(&sm, &(struct sample_params){.on = true, .first = 1, .every = 2,
                                             .backoff = 4, .reach = 1e9,
                                             .tolerance = 0.02});
    struct kernel k = {.name = "k", .grid = {4, 1, 1}, .block = {64, 1, 1}};
    /* D: in detail. 2, 6, 14, 22: gaps 4, 8, 8; 22 misses, so 23-27 run while
     * the window holds its time, and the gap after 24 and 26 is 2 again;
     * 28 holds: 4 to 32. */
    const char *want = "DSDSSSDSSSSSSSDSSSSSSSDDDDDDDSSSD";
    for (unsigned n = 0; want[n]; n++) {
        bool det;
        unsigned g = sample_begin(&sm, &k, &det);
        cr_assert_eq(det, want[n] == 'D', "kernel %u", n);
        if (det)
            sample_detailed(&sm, g, 100, n == 22 ? 1500 : 1000, false);
        else
            sample_skipped(&sm, g, 100, false, 0);
    }
    sample_free(&sm);
    /* backoff 1: a fixed gap; every 1: every kernel, whatever the backoff */
    for (unsigned every = 3; every; every = every == 3 ? 1 : 0) {
        sample_init(&sm, &(struct sample_params){.on = true, .first = 1, .every = every,
                                                 .backoff = every == 3 ? 1 : 8, .reach = 1e9,
                                                 .tolerance = 1e9});
        for (unsigned n = 0; n < 20; n++) {
            bool det;
            unsigned g = sample_begin(&sm, &k, &det);
            cr_assert_eq(det, n % every == 0, "every %u, kernel %u", every, n);
            if (det)
                sample_detailed(&sm, g, 100, 1000, false);
            else
                sample_skipped(&sm, g, 100, false, 0);
        }
        sample_free(&sm);
    }
}

/* sample.warm: a kernel also runs in detail (W) when one of the next `warm`
 * kernels will by its own rules (D), the next kernels predicted from the
 * order in which the groups ran last; a group that repeats ahead counts its
 * own kernels before it. */
static void warm_sequence(unsigned warm, const struct kernel *const *ks, const char *want)
{
    struct sample sm;
    sample_init(&sm, &(struct sample_params){.on = true, .first = 1, .every = 4,
                                             .backoff = 1, .reach = 1e9, .tolerance = 1e9,
                                             .warm = warm});
    uint64_t warmed = 0;
    for (unsigned n = 0; want[n]; n++) {
        bool det;
        unsigned g = sample_begin(&sm, ks[n % 2], &det);
        cr_assert_eq(det, want[n] != 'S', "warm %u, kernel %u", warm, n);
        warmed += want[n] == 'W';
        cr_assert_eq(sm.st.warmed, warmed, "warm %u, kernel %u", warm, n);
        if (det)
            sample_detailed(&sm, g, 100, 1000, false);
        else
            sample_skipped(&sm, g, 100, false, 0);
    }
    sample_free(&sm);
}

Test(sample, a_kernel_before_a_detailed_one_runs_in_detail_to_warm_it)
{
    struct kernel a = {.name = "a", .grid = {4, 1, 1}, .block = {64, 1, 1}};
    struct kernel b = {.name = "b", .grid = {4, 1, 1}, .block = {64, 1, 1}};
    const struct kernel *one[] = {&a, &a}, *two[] = {&a, &b};
    /* one group: its kernels 0, 4, 8 by the gap; 3 and 7 (then also 2 and 6) before them */
    warm_sequence(0, one, "DSSSDSSSDS");
    warm_sequence(1, one, "DSSWDSSWDS");
    warm_sequence(2, one, "DSWWDSWWDS");
    /* a b a b ...: each group's kernels 0, 4, 8; b's third (b3) warms a4, which then
     * runs with b4 */
    warm_sequence(0, two, "DDSSSSSSDDSSSSSSDD");
    warm_sequence(1, two, "DDSSSSSWDDSSSSSWDD");
    warm_sequence(2, two, "DDSSSSWWDDSSSSWWDD");
}

/* A skipped kernel's functional pass waits until the traffic of the kernel
 * before it has drained (here DRAM writes behind the L3 of the tiny machine,
 * with no launch latency to hide them); the detailed kernels' times the
 * estimate comes from overlap that traffic, so the wait lies within the
 * estimate: each skipped kernel runs exactly its estimated time. */
Test(sample, a_skipped_kernel_runs_its_estimate_from_its_dispatch)
{
    char json[] = "/tmp/chipsim-sample-XXXXXX";
    tiny_begin(json);
    const char *args[14] = {"-p", "cp.launch_us=0", "-p", "sim.per_kernel_stats=true"};
    memcpy(args + 4, skip_most, sizeof skip_most);
    json_t *j = run("babelstream", args, 14, json);
    cr_assert_gt(stat_of(j, "sample.drain_ps"), 0, "a skipped kernel waited for DRAM writes");
    json_t *secs = json_object_get(json_object_get(j, "stats"), "sections"), *sec;
    size_t i, skipped = 0;
    json_array_foreach(secs, i, sec) {
        json_t *st = json_object_get(sec, "stats");
        if (!json_integer_value(json_object_get(st, "sample.skipped")))
            continue;
        skipped++;
        long long est = json_integer_value(json_object_get(st, "sample.skipped_ps"));
        cr_expect_eq(json_integer_value(json_object_get(st, "cp.run_ps")), est,
                     "%s: run time %lld ps, estimate %lld ps (waited %lld ps)",
                     json_string_value(json_object_get(sec, "name")),
                     json_integer_value(json_object_get(st, "cp.run_ps")), est,
                     json_integer_value(json_object_get(st, "sample.drain_ps")));
    }
    cr_expect_eq((long long)skipped, stat_of(j, "sample.skipped"));
    json_decref(j);
    unlink(json);
}

Test(sample, every_kernel_in_detail_gives_the_unsampled_result)
{
    char json[] = "/tmp/chipsim-sample-XXXXXX";
    tiny_begin(json);
    const char *const all[] = {"-p", "sample.enable=true", "-p", "sample.every=1"};
    const char *const wls[] = {"babelstream", "gaussian", "sssp"};
    for (size_t i = 0; i < sizeof wls / sizeof *wls; i++) {
        json_t *a = run(wls[i], NULL, 0, json), *b = run(wls[i], all, 4, json);
        cr_expect(json_equal(json_object_get(a, "summary"), json_object_get(b, "summary")),
                  "%s: every kernel in detail changed the result", wls[i]);
        cr_expect_eq(stat_of(b, "sample.skipped"), 0);
        cr_expect_eq(stat_of(b, "sample.detailed"), tiny_summary(a, "kernels"));
        cr_expect_null(json_object_get(json_object_get(a, "stats"), "sample.skipped"),
                       "no sampling counters without sampling");
        json_decref(a);
        json_decref(b);
    }
    unlink(json);
}

Test(sample, skipped_kernels_do_the_same_work_with_the_checker_quiet)
{
    char json[] = "/tmp/chipsim-sample-XXXXXX";
    tiny_begin(json);
    /* HMG with a directory lookup time: its invalidations are sent after a delay in
     * time, and at once in the functional pass */
    const char *const schemes[][2] = {
        {"viper", "sim.seed=1"}, {"cpelide", "sim.seed=1"}, {"hmg", "sim.seed=1"},
        {"hmg", "coherence.dir_lookup_cycles=20"}, {"ideal", "sim.seed=1"},
        {"nocache", "sim.seed=1"}, {"swcoh", "sim.seed=1"},
    };
    const char *const wls[] = {"gaussian", "sssp", "lulesh", "fw"};
    for (size_t s = 0; s < sizeof schemes / sizeof *schemes; s++)
        for (size_t i = 0; i < sizeof wls / sizeof *wls; i++) {
            char sch[64];
            snprintf(sch, sizeof sch, "coherence.scheme=%s", schemes[s][0]);
            const char *base[] = {"-c", "configs/d4-artifact.ini", "-p", sch, "-p", schemes[s][1]};
            const char *sampled[16];
            memcpy(sampled, base, sizeof base);
            memcpy(sampled + 6, skip_most, sizeof skip_most);
            json_t *a = run(wls[i], base, 6, json), *b = run(wls[i], sampled, 16, json);
            cr_expect_gt(stat_of(b, "sample.skipped"), 0, "%s x %s", schemes[s][0], wls[i]);
            cr_expect_eq(tiny_summary(b, "stale_reads"), 0, "%s x %s", schemes[s][0], wls[i]);
            cr_expect_eq(tiny_summary(a, "warp_insts"), tiny_summary(b, "warp_insts"),
                         "%s x %s", schemes[s][0], wls[i]);
            cr_expect_eq(tiny_summary(a, "l1_accesses"), tiny_summary(b, "l1_accesses"),
                         "%s x %s", schemes[s][0], wls[i]);
            cr_expect_eq(tiny_summary(a, "kernels"), tiny_summary(b, "kernels"));
            json_decref(a);
            json_decref(b);
        }
    unlink(json);
}

/* Under the artifact reading of D4 each fault drops an operation the scheme
 * needs; with all but each group's first kernel skipped, the stale reads it
 * causes are seen in the functional pass. */
Test(sample, a_dropped_operation_makes_the_checker_fire_in_skipped_kernels)
{
    char json[] = "/tmp/chipsim-sample-XXXXXX";
    tiny_begin(json);
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY); /* the checker's reports */
    cr_assert(saved >= 0 && null >= 0 && dup2(null, 2) == 2);
    static const struct {
        const char *scheme, *fault, *wl;
    } cases[] = {
        {"viper", "skip_l1_inv", "gaussian"}, {"viper", "skip_l2_inv", "sssp"},
        {"cpelide", "no_xstale", "sssp"},     {"hmg", "no_inval", "gaussian"},
        {"ideal", "no_drop", "sssp"},         {"swcoh", "skip_bulk_inv", "gaussian"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sch[64], fl[64];
        snprintf(sch, sizeof sch, "coherence.scheme=%s", cases[i].scheme);
        snprintf(fl, sizeof fl, "coherence.fault=%s", cases[i].fault);
        const char *args[16] = {"-c", "configs/d4-artifact.ini", "-p", sch, "-p", fl};
        memcpy(args + 6, skip_most, sizeof skip_most);
        json_t *j = run(cases[i].wl, args, 16, json);
        long long det = stat_of(j, "sample.detailed"), groups = stat_of(j, "sample.groups");
        cr_expect_eq(det, groups, "%s/%s: only each group's first kernel in detail",
                     cases[i].scheme, cases[i].fault);
        cr_expect_gt(stat_of(j, "sample.skipped"), 4 * det);
        cr_expect_gt(tiny_summary(j, "stale_reads"), 0, "%s with %s on %s: no stale read",
                     cases[i].scheme, cases[i].fault, cases[i].wl);
        json_decref(j);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(null);
    unlink(json);
}

Test(sample, a_bad_key_is_refused_with_its_name)
{
    char json[] = "/tmp/chipsim-sample-XXXXXX";
    tiny_begin(json);
    const char *extra[] = {"-p", "sample.enable=true", "-p", "sample.every=0", NULL};
    int rc;
    json_t *j = tiny_run(tiny_wl("square"), extra, json, &rc);
    cr_expect_eq(rc, 2);
    cr_expect_null(j);
    const char *none[] = {"-p", "sample.enable=true", "-p", "sample.backoff=0", NULL};
    j = tiny_run(tiny_wl("square"), none, json, &rc);
    cr_expect_eq(rc, 2, "backoff 0");
    cr_expect_null(j);
    const char *far[] = {"-p", "sample.enable=true", "-p", "sample.warm=17", NULL};
    j = tiny_run(tiny_wl("square"), far, json, &rc);
    cr_expect_eq(rc, 2, "warm beyond SAMPLE_WARM_MAX");
    cr_expect_null(j);
    unlink(json);
}

/* tools/sampling_error.py's rows: with every kernel in detail the sampled
 * run is the whole run; with the defaults it skips kernels. */
static json_t *tool_rows(const char *dir, const char *set)
{
    const char *b = getenv("CHIPSIM_BIN");
    char *cmd = xasprintf("python3 tools/sampling_error.py --binary %s -c configs/tiny.ini --small "
                          "-w gaussian -w sssp --jobs 1 --no-wall --dir %s --json %s/rows.json%s%s "
                          ">/dev/null", b ? b : "bin/chipsim", dir, dir, set ? " --set " : "",
                          set ? set : "");
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    free(cmd);
    char *path = xasprintf("%s/rows.json", dir);
    json_error_t je;
    json_t *rows = json_load_file(path, 0, &je);
    cr_assert(json_is_array(rows) && json_array_size(rows) == 2, "%s", je.text);
    unlink(path);
    free(path);
    return rows;
}

static long long field(const json_t *rows, size_t i, const char *k)
{
    return json_integer_value(json_object_get(json_array_get(rows, i), k));
}

Test(sample, the_error_tool_compares_sampled_and_whole_runs)
{
    char *dir = cli_tmpdir();
    json_t *all = tool_rows(dir, "sample.every=1"), *dflt = tool_rows(dir, NULL);
    for (size_t i = 0; i < 2; i++) {
        cr_expect_eq(field(all, i, "skipped"), 0);
        cr_expect_eq(field(all, i, "cycles"), field(all, i, "sampled_cycles"));
        cr_expect_eq(field(all, i, "l2_hits"), field(all, i, "sampled_l2_hits"));
        cr_expect_eq(field(dflt, i, "cycles"), field(all, i, "cycles"), "the same whole run");
        cr_expect_gt(field(dflt, i, "skipped"), 0);
        cr_expect_gt(field(dflt, i, "kernels"), field(dflt, i, "skipped"));
    }
    json_decref(all);
    json_decref(dflt);
    tu_rmdir(dir);
}

/* `study cpelide --sample`: every run sampled, lulesh under HMG and under the
 * oracle with write-through L2s with the kernels before detailed ones in
 * detail too; the studies whose sampling error is not measured refuse --sample. */
Test(sample, the_study_samples_every_run_and_warms_those_that_need_it)
{
    char *dir = cli_tmpdir(), cwd[PATH_MAX];
    cr_assert(getcwd(cwd, sizeof cwd));
    char *ini = xasprintf("[sweep]\nconfigs = %s/configs/tiny.ini\nworkloads = babelstream, "
                          "gaussian, lulesh\n\n[matrix schemes]\nschemes = viper, cpelide, hmg\n"
                          "chiplets = 2, 4\n\n[matrix bound]\nschemes = ideal\nchiplets = 4\n\n"
                          "[matrix bound-wt]\nschemes = ideal\nchiplets = 4\n"
                          "set = coherence.l2_write=through\n\n"
                          "[matrix reuse]\nschemes = ideal\nchiplets = 4\n"
                          "set = coherence.caching=d4\n\n[workload babelstream]\nn = 4096\n"
                          "iterations = 4\n\n[workload gaussian]\nsize = 32\n\n"
                          "[workload lulesh]\nsize = 4\niterations = 2\n", cwd);
    char *file = cli_write_file(dir, "s.ini", ini), *out = xasprintf("%s/out", dir);
    const char *argv[] = {"study", "cpelide", "--file", file, "--out", out, "--quick",
                          "--sample", "--jobs", "2", "-q", NULL};
    struct cli_result r = cli_exec(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    char *csv = xasprintf("%s/results.csv", out);
    FILE *f = fopen(csv, "r");
    cr_assert(f, "%s", csv);
    char line[1 << 14];
    size_t rows = 0, sampled = 0, warmed = 0;
    cr_assert(fgets(line, sizeof line, f), "a header");
    while (fgets(line, sizeof line, f)) {
        rows++;
        bool w = strstr(line, "sample.warm=1") != NULL,
             need = strstr(line, ",lulesh,") != NULL &&
                    (strstr(line, "coherence.scheme=hmg") ||
                     strstr(line, "coherence.l2_write=through"));
        cr_expect_eq(w, need, "%s", line);
        sampled += strstr(line, "sample.enable=true") != NULL;
        warmed += w;
    }
    fclose(f);
    cr_expect_eq(rows, 18, "three workloads x six runs");
    cr_expect_eq(sampled, 18, "every run sampled");
    cr_expect_eq(warmed, 2, "lulesh under hmg and under ideal with write-through L2s");
    const char *hmg[] = {"study", "hmg", "--sample", "--out", out, NULL};
    r = cli_exec(hmg);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--sample") != NULL, "%s", r.err);
    cli_result_free(&r);
    tu_rmdir(dir);
    free(csv);
    free(out);
    free(file);
    free(ini);
}
