/*
 * Must-fire: every operation a scheme needs for correctness has a test-only
 * fault key that drops it. Under the artifact reading of spec cpelide D4
 * (configs/d4-artifact.ini: L2s keep data homed elsewhere, so the
 * operations are needed), each fault makes the coherence checker count
 * stale reads on the named workloads at their small size on the tiny
 * machine (or the preset named, for operations only a multi-GPU machine
 * needs), and the same runs without the fault count none.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tiny_run.h"

struct must {
    const char *scheme, *fault, *wl[4]; /* NULL-terminated */
    const char *preset;                 /* NULL: the tiny machine under the artifact D4 */
};

static const struct must musts[] = {
    {"viper", "skip_l1_inv", {"gaussian", "lud"}, NULL},
    {"viper", "skip_l2_inv", {"bfs", "sssp", "lulesh"}, NULL},
    {"viper", "skip_l2_flush", {"rnn-lstm-small", "cnn", "pathfinder"}, NULL},
    {"cpelide", "no_xstale", {"sssp", "srad-v2"}, NULL},
    {"cpelide", "no_invalidate", {"color", "nw"}, NULL},
    {"cpelide", "no_flush", {"cnn", "hotspot"}, NULL},
    {"hmg", "no_inval", {"color", "gaussian"}, NULL},
    {"ideal", "no_move", {"rnn-gru-small", "hotspot"}, NULL},
    {"ideal", "no_drop", {"sssp", "gaussian"}, NULL},
    {"nocache", "skip_l1_inv", {"gaussian", "bfs"}, NULL},
    {"swcoh", "skip_bulk_inv", {"gaussian", "bfs"}, NULL},
    /* 4 GPUs x 4 chiplets: a GPU home passes the system home's invalidations on */
    {"hmg", "no_forward", {"gaussian", "srad-v2"}, "configs/hmg-4x4.ini"},
};

/* Stale reads of one run. */
static long stale_reads(const struct must *m, const char *fault, const struct wl_ops *w,
                        const char *json)
{
    const char *scheme = m->scheme;
    char sch[64], fl[64];
    snprintf(sch, sizeof sch, "coherence.scheme=%s", scheme);
    snprintf(fl, sizeof fl, "coherence.fault=%s", fault);
    const char *extra[] = {"-c", "configs/d4-artifact.ini", "-p", sch, "-p", fl, NULL};
    int rc;
    json_t *j = m->preset ? preset_run(m->preset, w, extra + 2, json, &rc)
                          : tiny_run(w, extra, json, &rc);
    cr_assert_eq(rc, 0, "%s/%s on %s", scheme, fault, w->name);
    long v = (long)tiny_summary(j, "stale_reads");
    json_decref(j);
    return v;
}

Test(mustfire, every_dropped_operation_makes_the_checker_fire)
{
    char json[] = "/tmp/chipsim-mustfire-XXXXXX";
    tiny_begin(json);
    FILE *nerr = freopen("/dev/null", "w", stderr); /* the checker's reports */
    cr_assert(nerr);
    for (size_t i = 0; i < sizeof musts / sizeof *musts; i++)
        for (const char *const *name = musts[i].wl; *name; name++) {
            const struct wl_ops *w = tiny_wl(*name);
            cr_expect_gt(stale_reads(&musts[i], musts[i].fault, w, json), 0,
                         "%s with fault %s on %s: no stale read", musts[i].scheme,
                         musts[i].fault, *name);
            cr_expect_eq(stale_reads(&musts[i], "none", w, json), 0, "%s on %s",
                         musts[i].scheme, *name);
        }
    unlink(json);
}
