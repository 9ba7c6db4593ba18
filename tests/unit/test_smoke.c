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

static int run_one(const char *scheme, const struct wl_ops *w, const char *json)
{
    const char *argv[64] = {"run", "-q", "-c", "configs/tiny.ini", "-w", w->name, "--json", json,
                            "-p", "check.annotations=true"};
    int n = 10;
    char sch[64];
    snprintf(sch, sizeof sch, "coherence.scheme=%s", scheme);
    argv[n++] = "-p";
    argv[n++] = sch;
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

Test(smoke, every_scheme_runs_every_workload)
{
    char json[] = "/tmp/chipsim-smoke-XXXXXX";
    int fd = mkstemp(json);
    cr_assert_geq(fd, 0);
    close(fd);
    FILE *null = freopen("/dev/null", "w", stdout);
    cr_assert(null);
    unsigned runs = 0;
    for (const struct coh_ops *const *c = coh_registry; *c; c++)
        for (const struct wl_ops *const *w = wl_registry; *w; w++) {
            cr_assert(w[0]->small, "workload %s has no small size", (*w)->name);
            int rc = run_one((*c)->name, *w, json);
            cr_assert_eq(rc, 0, "%s x %s: exit %d", (*c)->name, (*w)->name, rc);
            json_error_t je;
            json_t *j = json_load_file(json, 0, &je);
            cr_assert(j, "%s x %s: %s", (*c)->name, (*w)->name, je.text);
            json_t *sum = json_object_get(j, "summary");
            cr_expect_eq(json_integer_value(json_object_get(sum, "stale_reads")), 0, "%s x %s",
                         (*c)->name, (*w)->name);
            cr_expect_eq(json_integer_value(json_object_get(sum, "annotation_violations")), 0,
                         "%s x %s", (*c)->name, (*w)->name);
            cr_expect_gt(json_integer_value(json_object_get(sum, "kernels")), 0);
            cr_expect_gt(json_integer_value(json_object_get(sum, "warp_insts")), 0);
            json_decref(j);
            runs++;
        }
    cr_expect_geq(runs, 2 * 4);
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
