/*
 * Smoke: every registered coherence scheme runs every registered workload,
 * at the workload's small size, on the tiny machine, to completion, with no
 * stale read. New schemes and workloads are covered by registering them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "coherence/coh.h"
#include "workload/wl.h"

/* The two readings of spec cpelide D4: the paper's (built-in defaults: no L2
 * holds another chiplet's data) and the artifact's, where every scheme's L2
 * operations are needed and the checker sees any that a scheme leaves out. */
static const char *const readings[] = {NULL, "configs/d4-artifact.ini"};
#define NREAD 2

static int run_one(const char *scheme, const struct wl_ops *w, const char *reading,
                   const char *json)
{
    const char *argv[64] = {"run", "-q", "-c", "configs/tiny.ini", "-w", w->name, "--json", json,
                            "-p", "check.annotations=true"};
    int n = 10;
    char sch[64];
    snprintf(sch, sizeof sch, "coherence.scheme=%s", scheme);
    argv[n++] = "-p";
    argv[n++] = sch;
    if (reading) {
        argv[n++] = "-c";
        argv[n++] = reading;
    }
    char ov[16][96];
    int k = 0;
    for (const char *const *o = w->small; o && *o && k < 16; o++, k++) {
        snprintf(ov[k], sizeof ov[k], "workload.%s", *o);
        argv[n++] = "-p";
        argv[n++] = ov[k];
    }
    argv[n] = NULL;
    return cli_run(n, (char **)argv);
}

/* Cycles of one run, after checking what every run must give. */
static uint64_t check_run(const char *scheme, const struct wl_ops *w, const char *reading,
                          const char *json)
{
    const char *rd = reading ? "artifact D4" : "paper D4";
    int rc = run_one(scheme, w, reading, json);
    cr_assert_eq(rc, 0, "%s x %s (%s): exit %d", scheme, w->name, rd, rc);
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    cr_assert(j, "%s x %s: %s", scheme, w->name, je.text);
    json_t *sum = json_object_get(j, "summary");
    cr_expect_eq(json_integer_value(json_object_get(sum, "stale_reads")), 0, "%s x %s (%s)",
                 scheme, w->name, rd);
    cr_expect_eq(json_integer_value(json_object_get(sum, "annotation_violations")), 0,
                 "%s x %s (%s)", scheme, w->name, rd);
    cr_expect_gt(json_integer_value(json_object_get(sum, "kernels")), 0);
    cr_expect_gt(json_integer_value(json_object_get(sum, "warp_insts")), 0);
    uint64_t cycles = (uint64_t)json_integer_value(json_object_get(sum, "kernel_cycles"));
    json_decref(j);
    return cycles;
}

/* No scheme may beat the oracle by more than this (docs/coherence.md: the
 * oracle's caches keep more, which can evict what a scheme that keeps less
 * would still hit on, and timing differs with the replacement order). */
#define ORACLE_TOLERANCE 0.02

Test(smoke, every_scheme_runs_every_workload)
{
    char json[] = "/tmp/chipsim-smoke-XXXXXX";
    int fd = mkstemp(json);
    cr_assert_geq(fd, 0);
    close(fd);
    FILE *null = freopen("/dev/null", "w", stdout);
    cr_assert(null);
    unsigned runs = 0;
    for (const struct wl_ops *const *w = wl_registry; *w; w++) {
        cr_assert(w[0]->small, "workload %s has no small size", (*w)->name);
        for (unsigned r = 0; r < NREAD; r++) {
            uint64_t oracle = check_run("ideal", *w, readings[r], json);
            for (const struct coh_ops *const *c = coh_registry; *c; c++) {
                if (!strcmp((*c)->name, "ideal"))
                    continue;
                uint64_t cyc = check_run((*c)->name, *w, readings[r], json);
                cr_expect_geq((double)cyc * (1 + ORACLE_TOLERANCE), (double)oracle,
                              "%s beats the oracle on %s (%s D4): %llu < %llu cycles",
                              (*c)->name, (*w)->name, r ? "artifact" : "paper",
                              (unsigned long long)cyc, (unsigned long long)oracle);
                runs++;
            }
        }
    }
    cr_expect_geq(runs, 2 * 3);
    unlink(json);
}

/* The in-process machine runs a registered workload directly (used by the
 * workload model tests). */
#include "machine.h"

Test(smoke, machine_runs_a_workload_in_process)
{
    struct err e;
    extern const struct wl_ops wl_vecadd;
    struct machine *m = machine_new_wl("[workload]\nn = 4096\n[check]\nannotations = true\n",
                                       &wl_vecadd, &e);
    cr_assert(m, "%s", e.msg);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(m->g.cp.st.kernels, 1);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    cr_expect_eq(machine_stat(m, "checker.annotation_violations"), 0);
    cr_expect_eq(machine_stat(m, "l1d.accesses"), 3 * 4096 * 4 / 64);
    machine_free(m);
    m = machine_new_wl("[workload]\nn = 17179869184\nblock = 1\n", &wl_vecadd, &e);
    cr_expect_null(m);
}
