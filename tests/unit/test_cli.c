/*
 * End-to-end command tests: bad input exits 2 with the documented message
 * and writes nothing; a good run echoes its configuration, writes the JSON
 * contract, and is deterministic.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "cli_util.h"
#include "workload/wl.h"

static void expect_bad(const char *ini, const char *override, const char *want_in_stderr)
{
    char *dir = cli_tmpdir();
    char *cfg = cli_write_file(dir, "bad.ini", ini);
    char *json = xasprintf("%s/out.json", dir);
    const char *argv[] = {"run", "-c", cfg, "-p", override, "--json", json, NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 2, "status %d, stderr: %s", r.status, r.err);
    cr_expect(strstr(r.err, want_in_stderr) != NULL, "stderr: %s\nwanted: %s", r.err,
              want_in_stderr);
    cr_expect_eq(access(json, F_OK), -1, "no output file may be left behind");
    cr_expect_str_eq(r.out, "", "nothing on stdout for bad input");
    cli_result_free(&r);
    unlink(cfg);
    rmdir(dir);
    free(cfg);
    free(json);
    free(dir);
}

Test(cli, unknown_key_exits_2)
{
    expect_bad("[l2]\n\nsise_kib = 8192\n", "sim.seed=3", "bad.ini:3: [l2] sise_kib = 8192: unknown key (did you mean 'size_kib'?)");
}

Test(cli, out_of_range_exits_2)
{
    expect_bad("[gpu]\nchiplets = 0\n", "sim.seed=3", "bad.ini:2: [gpu] chiplets = 0: out of range [1, 64]");
}

Test(cli, malformed_line_exits_2)
{
    expect_bad("[gpu]\nchiplets 4\n", "sim.seed=3", "bad.ini:2: malformed line");
}

Test(cli, bad_override_exits_2)
{
    expect_bad("[gpu]\n", "coherence.remote_store=maybe",
               "-p:1: [coherence] remote_store = maybe: not one of: write_through, write_back");
}

Test(cli, unknown_scheme_and_workload_exit_2)
{
    expect_bad("[coherence]\nscheme = magic\n", "sim.seed=3",
               "bad.ini:2: [coherence] scheme = magic: unknown scheme (known: viper, ideal");
    expect_bad("[workload]\nname = nosuch\n", "sim.seed=3",
               "bad.ini:2: [workload] name = nosuch: unknown workload (`chipsim list workloads`");
    expect_bad("[workload]\nname = vecad\n", "sim.seed=3",
               "bad.ini:2: [workload] name = vecad: unknown workload (did you mean 'vecadd'?)");
    expect_bad("[gpu]\n", "coherence.scheme=cpelid",
               "-p:1: [coherence] scheme = cpelid: unknown scheme (did you mean 'cpelide'?)");
}

Test(cli, integer_overflow_says_so)
{
    expect_bad("[gpu]\nchiplets = 99999999999999999999\n", "sim.seed=3",
               "bad.ini:2: [gpu] chiplets = 99999999999999999999: integer too large: out of "
               "range [1, 64]");
    expect_bad("[gpu]\n", "sim.seed=1x", "-p:1: [sim] seed = 1x: not an integer");
}

Test(cli, workload_parameter_errors_exit_2)
{
    expect_bad("[workload]\nname = chase\n", "workload.target=l9",
               "-p:1: [workload] target = l9: not one of: ");
    expect_bad("[workload]\nname = vecadd\nsize = 3\n", "sim.seed=3",
               "bad.ini:3: [workload] size = 3: unknown key");
}

Test(cli, cross_key_error_exits_2)
{
    expect_bad("[l2]\nline_b = 128\n", "sim.seed=3", "bad.ini:2: [l2] line_b = 128: must equal [l1d] line_b (64)");
}

Test(cli, unknown_command_and_option)
{
    const char *a1[] = {"frobnicate", NULL};
    struct cli_result r = cli_exec(a1);
    cr_expect_eq(r.status, 2);
    cli_result_free(&r);
    const char *a2[] = {"run", "--bogus", NULL};
    r = cli_exec(a2);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown option '--bogus'") != NULL, "%s", r.err);
    cli_result_free(&r);
}

Test(cli, list_params_has_every_section)
{
    const char *argv[] = {"list", "params", NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0);
    const char *want[] = {"[gpu]", "gpu.chiplets = 4", "[l1d]", "l1d.hit_lat = 140", "[l2]",
                          "l2.size_kib = 8192", "[dram]", "[xbar]", "xbar.port_gbps = 768",
                          "[place]", "place.page_b = 4096", "[cu]", "[lds]", "[cp]", "[energy]",
                          "[check]", "[coherence]", "coherence.scheme = viper",
                          "[coherence(viper)]", "[workload]", "[workload(chase)]",
                          "workload(chase).target", "[sim]"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(r.out, want[i]) != NULL, "missing %s", want[i]);
    cli_result_free(&r);
}

/* Every workload is listed with its suite and its one-line summary. */
Test(cli, list_workloads_gives_suites)
{
    const char *argv[] = {"list", "workloads", NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0);
    for (const struct wl_ops *const *w = wl_registry; *w; w++) {
        cr_expect((*w)->suite && *(*w)->suite, "%s has no suite", (*w)->name);
        char line[256];
        snprintf(line, sizeof line, "%-16s %-13s %s\n", (*w)->name, (*w)->suite, (*w)->desc);
        cr_expect(strstr(r.out, line) != NULL, "missing: %s", line);
    }
    cr_expect(strstr(r.out, "hotspot3d        Rodinia       ") != NULL);
    cli_result_free(&r);
}

static json_t *run_json(const char *dir, const char *name, const char *const *extra)
{
    return cli_run_tiny_json(dir, name, extra, NULL);
}

Test(cli, json_contract)
{
    char *dir = cli_tmpdir();
    const char *extra[] = {"-w", "vecadd", "-p", "workload.n=4096", NULL};
    json_t *j = run_json(dir, "a.json", extra);
    const char *top[] = {"config", "summary", "stats", "sim"};
    for (int i = 0; i < 4; i++)
        cr_expect(json_is_object(json_object_get(j, top[i])), "missing %s", top[i]);
    json_t *sim = json_object_get(j, "sim");
    const char *simk[] = {"wall_s", "events", "warp_insts_per_s", "mem_reqs_per_s", "peak_rss_kib",
                          "version"};
    for (int i = 0; i < 6; i++)
        cr_expect(json_object_get(sim, simk[i]) != NULL, "missing sim.%s", simk[i]);
    json_t *cfg = json_object_get(j, "config");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(cfg, "gpu"), "chiplets")), 2);
    json_t *sum = json_object_get(j, "summary");
    const char *keys[] = {"cycles", "kernels", "warp_insts", "l1_accesses", "l1_hits",
                          "l2_accesses", "l2_hits", "l2_remote_accesses", "l3_accesses", "l3_hits",
                          "dram_reads", "dram_writes", "flits_l1_l2", "flits_l2_l3",
                          "flits_remote", "l2_flushes", "l2_invalidates", "stale_reads"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        cr_expect(json_is_integer(json_object_get(sum, keys[i])), "summary.%s", keys[i]);
    const char *ek[] = {"l1i", "l1d", "lds", "l2", "noc", "dram", "total"};
    for (size_t i = 0; i < 7; i++)
        cr_expect(json_is_real(json_object_get(json_object_get(sum, "energy_pj"), ek[i])),
                  "energy_pj.%s", ek[i]);
    /* vecadd of 4096 floats: a, b and c are 256 lines each; every line is one
     * L1 access (two loads, one store), and the single kernel had one flush
     * and one invalidate per chiplet (viper). */
    cr_expect_eq(json_integer_value(json_object_get(sum, "kernels")), 1);
    cr_expect_eq(json_integer_value(json_object_get(sum, "l1_accesses")), 768);
    cr_expect_eq(json_integer_value(json_object_get(sum, "l2_flushes")), 2);
    cr_expect_eq(json_integer_value(json_object_get(sum, "l2_invalidates")), 2);
    cr_expect_eq(json_integer_value(json_object_get(sum, "stale_reads")), 0);
    json_decref(j);
    rmdir(dir);
    free(dir);
}

static void drop_wall_fields(json_t *j)
{
    json_t *sim = json_object_get(j, "sim");
    const char *k[] = {"wall_s", "events_per_s", "warp_insts_per_s", "mem_reqs_per_s",
                       "peak_rss_kib"};
    for (int i = 0; i < 5; i++)
        json_object_del(sim, k[i]);
}

static long long wl_param(json_t *j, const char *key)
{
    json_t *w = json_object_get(json_object_get(j, "config"), "workload");
    return json_integer_value(json_object_get(w, key));
}

/* run --small takes each of the workload's small parameters (hotspot: grid
 * 64, 5 iterations); a -p given with it still wins. */
Test(cli, small_takes_the_workloads_small_size_and_p_wins)
{
    char *dir = cli_tmpdir();
    const char *both[] = {"-w", "hotspot", "--small", NULL};
    json_t *j = run_json(dir, "a.json", both);
    cr_assert(j);
    cr_expect_eq(wl_param(j, "grid"), 64);
    cr_expect_eq(wl_param(j, "iterations"), 5);
    json_decref(j);
    const char *p[] = {"-w", "hotspot", "--small", "-p", "workload.iterations=2", NULL};
    j = run_json(dir, "b.json", p);
    cr_assert(j);
    cr_expect_eq(wl_param(j, "grid"), 64);
    cr_expect_eq(wl_param(j, "iterations"), 2, "-p comes after --small");
    json_decref(j);
    rmdir(dir);
    free(dir);
}

Test(cli, same_run_twice_is_identical)
{
    char *dir = cli_tmpdir();
    const char *extra[] = {"-w", "square", "-p", "workload.n=20000", "-p", "workload.blocks=16",
                           "-p", "workload.iterations=3", NULL};
    json_t *a = run_json(dir, "a.json", extra), *b = run_json(dir, "b.json", extra);
    drop_wall_fields(a);
    drop_wall_fields(b);
    char *sa = json_dumps(a, JSON_SORT_KEYS), *sb = json_dumps(b, JSON_SORT_KEYS);
    cr_expect(strlen(sa) > 1000);
    cr_expect_str_eq(sa, sb);
    free(sa);
    free(sb);
    json_decref(a);
    json_decref(b);
    rmdir(dir);
    free(dir);
}

Test(cli, classify_reports_the_reuse_of_each_workload)
{
    /* square at its small size: two identical kernels over A and C; under
     * viper every L2 access misses, under ideal the second kernel hits
     * everything the first brought in: half the misses */
    const char *argv[] = {"classify", "-c", "configs/tiny.ini", "--small", "-w", "square",
                          "--jobs", "1", NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "| square | small | 100.0% | 50.0% | 50.0% | moderate-to-high |"),
              "%s", r.out);
    cr_expect(strstr(r.out, "threshold 15%"), "%s", r.out);
    cli_result_free(&r);
    const char *low[] = {"classify", "-c", "configs/tiny.ini", "--small", "-w", "square",
                         "--threshold", "60", "--jobs", "1", NULL};
    r = cli_exec(low);
    cr_expect(strstr(r.out, "| square | small | 100.0% | 50.0% | 50.0% | low |"), "%s", r.out);
    cli_result_free(&r);
    /* --study: also at the size a study gives the workload, here a 1 KiB L2
     * (16 lines) that keeps nothing across the boundary: no reuse left */
    char *dir = cli_tmpdir();
    char study[PATH_MAX + 128], tiny[PATH_MAX];
    cr_assert(realpath("configs/tiny.ini", tiny));
    snprintf(study, sizeof study, "[sweep]\nconfigs = %s\nworkloads = square\nsmall = true\n"
             "[workload square]\nl2.size_kib = 1\n", tiny);
    char *path = cli_write_file(dir, "study.ini", study);
    const char *st[] = {"classify", "-c", "configs/tiny.ini", "--small", "-w", "square",
                        "--study", path, "--jobs", "1", NULL};
    r = cli_exec(st);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "| square | small | 100.0% | 50.0% | 50.0% | moderate-to-high |"),
              "%s", r.out);
    cr_expect(strstr(r.out, "| square | study | 100.0% | 100.0% | 0.0% | low |"), "%s", r.out);
    cli_result_free(&r);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
    const char *bad[] = {"classify", "--jobs", "0", NULL};
    r = cli_exec(bad);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--jobs 0: expected a whole number from 1 to 1024"), "%s", r.err);
    cli_result_free(&r);
}

Test(cli, compare_prints_both_summaries_and_ratios)
{
    char *dir = cli_tmpdir();
    char *a = xasprintf("%s/a.json", dir), *b = xasprintf("%s/b.json", dir);
    const char *ra[] = {"run", "-q", "-c", "configs/tiny.ini", "-w", "square", "--json", a, NULL};
    const char *rb[] = {"run",  "-q", "-c", "configs/tiny.ini", "-w", "square", "-p",
                        "coherence.scheme=ideal", "--json", b, NULL};
    struct cli_result r = cli_exec(ra);
    cli_result_free(&r);
    r = cli_exec(rb);
    cli_result_free(&r);
    const char *cmp[] = {"compare", a, b, NULL};
    r = cli_exec(cmp);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "kernels"), "%s", r.out);
    cr_expect(strstr(r.out, "energy_pj.total"), "%s", r.out);
    cr_expect(strstr(r.out, "coherence.scheme: \"viper\" -> \"ideal\""), "%s", r.out);
    /* both runs execute the same instructions: ratio 1 */
    const char *wi = strstr(r.out, "warp_insts");
    cr_assert(wi);
    char line[160];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(wi, "\n"), wi);
    cr_expect(strstr(line, " 1.0000"), "%s", line);
    cli_result_free(&r);
    const char *missing[] = {"compare", a, "/nonexistent.json", NULL};
    r = cli_exec(missing);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "/nonexistent.json"), "%s", r.err);
    cli_result_free(&r);
    free(a);
    free(b);
    free(dir);
}
