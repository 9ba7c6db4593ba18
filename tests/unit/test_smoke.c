/*
 * Smoke: every registered coherence scheme runs every registered workload,
 * at the workload's small size, on the tiny machine, under both readings of
 * spec cpelide D4, to completion, with no stale read and no kernel cycles
 * below the oracle's (ideal) beyond a small tolerance. New schemes and
 * workloads are covered by registering them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "tiny_run.h"
#include "coherence/coh.h"
#include "workload/wl.h"

/* The two readings of spec cpelide D4: the paper's (built-in defaults: no L2
 * holds another chiplet's data) and the artifact's, where every scheme's L2
 * operations are needed and the checker sees any that a scheme leaves out. */
static const char *const readings[] = {NULL, "configs/d4-artifact.ini"};
#define NREAD 2

/* Cycles of one run, after checking what every run must give. */
static uint64_t check_run(const char *scheme, const struct wl_ops *w, const char *reading,
                          const char *json, const char *more)
{
    const char *rd = reading ? "artifact D4" : "paper D4";
    char sch[64];
    snprintf(sch, sizeof sch, "coherence.scheme=%s", scheme);
    const char *extra[] = {"-p", "check.annotations=true", "-p", sch, "-p",
                           more ? more : "sim.seed=1", reading ? "-c" : NULL, reading, NULL};
    int rc;
    json_t *j = tiny_run(w, extra, json, &rc);
    cr_assert_eq(rc, 0, "%s x %s (%s): exit %d", scheme, w->name, rd, rc);
    cr_expect_eq(tiny_summary(j, "stale_reads"), 0, "%s x %s (%s)", scheme, w->name, rd);
    cr_expect_eq(tiny_summary(j, "annotation_violations"), 0, "%s x %s (%s)", scheme, w->name,
                 rd);
    cr_expect_gt(tiny_summary(j, "kernels"), 0);
    cr_expect_gt(tiny_summary(j, "warp_insts"), 0);
    /* no scheme issues more than the baseline's one flush and one invalidate
     * per chiplet (2 on the tiny machine) per kernel: issued + elided = that */
    long long base = 2 * tiny_summary(j, "kernels");
    cr_expect_eq(tiny_summary(j, "l2_flushes") + tiny_summary(j, "l2_flushes_elided"), base,
                 "%s x %s (%s)", scheme, w->name, rd);
    cr_expect_eq(tiny_summary(j, "l2_invalidates") + tiny_summary(j, "l2_invalidates_elided"),
                 base, "%s x %s (%s)", scheme, w->name, rd);
    uint64_t cycles = (uint64_t)tiny_summary(j, "kernel_cycles");
    json_decref(j);
    return cycles;
}

/* No scheme may beat the oracle by more than this (docs/coherence.md: the
 * oracle's caches keep more, which can evict what a scheme that keeps less
 * would still hit on, and timing differs with the replacement order). The
 * oracle is the better of its two L2 write policies (write-back and, as
 * HMG-WT, write-through): neither alone is the faster on every workload. */
#define ORACLE_TOLERANCE 0.02

Test(smoke, every_scheme_runs_every_workload)
{
    char json[] = "/tmp/chipsim-smoke-XXXXXX";
    tiny_begin(json);
    unsigned runs = 0;
    for (const struct wl_ops *const *w = wl_registry; *w; w++) {
        cr_assert(w[0]->small, "workload %s has no small size", (*w)->name);
        for (unsigned r = 0; r < NREAD; r++) {
            uint64_t back = check_run("ideal", *w, readings[r], json, NULL);
            uint64_t through = check_run("ideal", *w, readings[r], json,
                                         "coherence.l2_write=through");
            uint64_t oracle = back < through ? back : through;
            for (const struct coh_ops *const *c = coh_registry; *c; c++) {
                if (!strcmp((*c)->name, "ideal"))
                    continue;
                uint64_t cyc = check_run((*c)->name, *w, readings[r], json, NULL);
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

/* The multi-GPU machine (4 GPUs x 4 chiplets of 32 CUs, sectored 128 B
 * lines, no L3, 2 MB pages): every scheme runs every workload with no stale
 * read. stream gives each work-group whole pages: at its small size, 16 of
 * them (one per chiplet) on 2 MB pages. */
Test(smoke, every_scheme_runs_every_workload_on_hmg_4x4)
{
    char json[] = "/tmp/chipsim-smoke-XXXXXX";
    tiny_begin(json);
    for (const struct wl_ops *const *w = wl_registry; *w; w++)
        for (const struct coh_ops *const *c = coh_registry; *c; c++) {
            bool stream = !strcmp((*w)->name, "stream");
            /* the flat modes too: hmg's NHCC, swcoh's NH-SW */
            bool flat = !strcmp((*c)->name, "hmg") || !strcmp((*c)->name, "swcoh");
            for (unsigned v = 0; v < (flat ? 2u : 1u); v++) {
                char sch[64];
                snprintf(sch, sizeof sch, "coherence.scheme=%s", (*c)->name);
                const char *extra[] = {"-p", sch, "-p", v ? "coherence.mode=flat" : "sim.seed=1",
                                       stream ? "-p" : NULL, "workload.cus=16", "-p",
                                       "workload.footprint_kib=32768", NULL};
                int rc;
                json_t *j = preset_run("configs/hmg-4x4.ini", *w, extra, json, &rc);
                cr_assert_eq(rc, 0, "%s%s x %s: exit %d", (*c)->name, v ? " (flat)" : "",
                             (*w)->name, rc);
                cr_expect_eq(tiny_summary(j, "stale_reads"), 0, "%s%s x %s: %lld stale reads",
                             (*c)->name, v ? " (flat)" : "", (*w)->name,
                             tiny_summary(j, "stale_reads"));
                cr_expect_gt(tiny_summary(j, "warp_insts"), 0, "%s x %s", (*c)->name,
                             (*w)->name);
                json_decref(j);
            }
        }
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
