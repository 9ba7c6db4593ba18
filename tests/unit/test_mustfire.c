/*
 * Must-fire: every operation a scheme needs for correctness has a test-only
 * fault key that drops it. Under the artifact reading of spec cpelide D4
 * (configs/d4-artifact.ini: L2s keep data homed elsewhere, so the
 * operations are needed), each fault makes the coherence checker count
 * stale reads on the named workloads at their small size on the tiny
 * machine, and the same runs without the fault count none.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tiny_run.h"

struct must {
    const char *scheme, *fault, *wl[4]; /* NULL-terminated */
};

static const struct must musts[] = {
    {"viper", "skip_l1_inv", {"gaussian", "lud"}},
    {"viper", "skip_l2_inv", {"bfs", "sssp", "lulesh"}},
    {"viper", "skip_l2_flush", {"rnn-lstm-small", "cnn", "pathfinder"}},
    {"cpelide", "no_xstale", {"sssp", "srad-v2"}},
    {"cpelide", "no_invalidate", {"color", "nw"}},
    {"cpelide", "no_flush", {"cnn", "hotspot"}},
    {"hmg", "no_inval", {"color", "gaussian"}},
    {"ideal", "no_move", {"rnn-gru-small", "hotspot"}},
    {"ideal", "no_drop", {"sssp", "gaussian"}},
    {"nocache", "skip_l1_inv", {"gaussian", "bfs"}},
};

static const struct wl_ops *wl_named(const char *name)
{
    for (const struct wl_ops *const *w = wl_registry; *w; w++)
        if (!strcmp((*w)->name, name))
            return *w;
    cr_assert_fail("no workload %s", name);
    return NULL;
}

/* Stale reads of one run. */
static long stale_reads(const char *scheme, const char *fault, const struct wl_ops *w,
                        const char *json)
{
    char sch[64], fl[64];
    snprintf(sch, sizeof sch, "coherence.scheme=%s", scheme);
    snprintf(fl, sizeof fl, "coherence.fault=%s", fault);
    const char *extra[] = {"-c", "configs/d4-artifact.ini", "-p", sch, "-p", fl, NULL};
    int rc;
    json_t *j = tiny_run(w, extra, json, &rc);
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
            const struct wl_ops *w = wl_named(*name);
            cr_expect_gt(stale_reads(musts[i].scheme, musts[i].fault, w, json), 0,
                         "%s with fault %s on %s: no stale read", musts[i].scheme,
                         musts[i].fault, *name);
            cr_expect_eq(stale_reads(musts[i].scheme, "none", w, json), 0, "%s on %s",
                         musts[i].scheme, *name);
        }
    unlink(json);
}
