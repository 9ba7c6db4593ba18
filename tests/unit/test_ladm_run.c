/*
 * LADM on the whole machine (spec ladm.md 8): the L2 traffic classes add
 * up (every request an L2 sends toward another chiplet's data arrives at
 * its home's L2 as REMOTE-LOCAL, and nothing else does), LASP runs with
 * zero stale reads, and CRB's RONCE takes effect exactly for the kernels
 * that follow an intra-thread structure. On the tiny machine (two
 * chiplets) and on two GPUs of two, under software coherence on flat
 * routes with only remote stores written through (L9's dynamically shared
 * L2: every remote request enters its home's L2, which keeps its own data
 * write-back); without the launches' bulk invalidation the checker fires.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tiny_run.h"

#define SWFLAT "-p", "coherence.scheme=swcoh", "-p", "coherence.mode=flat", "-p", \
               "coherence.write_through=remote", "-p", "check.enable=true"

static long long stat_of(const json_t *j, const char *key)
{
    json_t *v = json_object_get(json_object_get(j, "stats"), key);
    cr_assert(v, "no counter %s", key);
    return json_integer_value(v);
}

/* Every pairing of placement and scheduling, on one GPU and on two. */
Test(ladm_run, remote_sends_equal_remote_local_accesses_with_zero_stale_reads)
{
    char json[] = "/tmp/chipsim-ladm-XXXXXX";
    tiny_begin(json);
    static const char *const wls[] = {"vecadd", "gemm", "hotspot3d", "spmv", "bfs", NULL};
    static const char *const pol[][2] = {
        {"place.policy=ladm", "sched.policy=ladm"},
        {"place.policy=first_touch", "sched.policy=static"},
        {"place.policy=interleave", "sched.policy=round_robin"},
    };
    long long arrived = 0;
    for (const char *const *n = wls; *n; n++)
        for (unsigned p = 0; p < sizeof pol / sizeof *pol; p++)
            for (unsigned gpus = 1; gpus <= 2; gpus++) {
                const char *extra[] = {SWFLAT, "-p", pol[p][0], "-p", pol[p][1], "-p",
                                       gpus > 1 ? "gpu.gpus=2" : "gpu.gpus=1", NULL};
                int rc;
                json_t *j = tiny_run(tiny_wl(*n), extra, json, &rc);
                cr_assert_eq(rc, 0, "%s, %s", *n, pol[p][0]);
                long long sent = tiny_summary(j, "l2_sent_remote");
                long long rl = tiny_summary(j, "l2_remote_local_accesses");
                cr_expect_eq(sent, rl, "%s, %s %s, %u GPUs: %lld sent, %lld arrived", *n,
                             pol[p][0], pol[p][1], gpus, sent, rl);
                cr_expect_eq(tiny_summary(j, "l2_remote_remote_accesses"), 0, "flat routes");
                cr_expect_eq(tiny_summary(j, "stale_reads"), 0, "%s, %s", *n, pol[p][0]);
                /* LOCAL-REMOTE misses leave; the others stay */
                cr_expect_leq(sent, tiny_summary(j, "l2_local_remote_accesses"));
                arrived += rl;
                json_decref(j);
            }
    cr_expect_gt(arrived, 1000, "the runs exchange remote traffic");
    unlink(json);
}

/* A run's summary without what CRB itself changes. */
static json_t *run_summary(const char *wl, const char *const *extra, const char *json,
                           long long *ronce)
{
    int rc;
    json_t *j = tiny_run(tiny_wl(wl), extra, json, &rc);
    cr_assert_eq(rc, 0, "%s", wl);
    *ronce = stat_of(j, "coherence.ronce_kernels");
    json_t *s = json_deep_copy(json_object_get(j, "summary"));
    json_decref(j);
    return s;
}

Test(ladm_run, crb_is_ronce_for_intra_thread_kernels_and_rtwice_for_the_others)
{
    char json[] = "/tmp/chipsim-crb-XXXXXX";
    tiny_begin(json);
    long long r0, r1, r2;
    /* spmv's two kernels follow an intra-thread structure (its CSR rows): crb is
     * home_alloc = false throughout, bit for bit */
    const char *crb[] = {SWFLAT, "-p", "coherence.crb=true", NULL};
    const char *never[] = {SWFLAT, "-p", "coherence.home_alloc=false", NULL};
    const char *always[] = {SWFLAT, NULL};
    json_t *a = run_summary("spmv", crb, json, &r0), *b = run_summary("spmv", never, json, &r1),
           *c = run_summary("spmv", always, json, &r2);
    cr_expect_eq(r0, 2, "both kernels RONCE");
    cr_expect_eq(r1 + r2, 0);
    cr_expect(json_equal(a, b), "crb on intra-thread kernels is RONCE");
    /* RTWICE keeps the remote readers' lines at the home: more REMOTE-LOCAL hits */
    cr_expect_lt(json_integer_value(json_object_get(a, "l2_remote_local_hits")),
                 json_integer_value(json_object_get(c, "l2_remote_local_hits")));
    json_decref(a);
    json_decref(b);
    json_decref(c);
    /* vecadd follows no-locality structures: crb changes nothing */
    a = run_summary("vecadd", crb, json, &r0);
    b = run_summary("vecadd", always, json, &r1);
    cr_expect_eq(r0, 0);
    cr_expect(json_equal(a, b), "crb on other kernels is RTWICE");
    json_decref(a);
    json_decref(b);
    unlink(json);
}

/* Every placement and scheduling of the LADM study on every workload of spec
 * ladm.md 10 (small sizes, two GPUs of two chiplets): no stale read. */
Test(ladm_run, every_policy_runs_every_ladm_workload_with_zero_stale_reads, .timeout = 900)
{
    char json[] = "/tmp/chipsim-ladm-all-XXXXXX";
    tiny_begin(json);
    static const char *const wls[] = {
        "vecadd", "srad-v2", "hotspot", "scalarprod", "blackscholes", "histogram", "reduction",
        "hotspot3d", "convolution", "fwt", "gemm", "transpose", "pagerank", "bfs-relax", "sssp",
        "random-loc", "kmeans", "spmv-jds", "btree", "lbm", "streamcluster", "dl-fc", "dl-lstm",
        NULL};
    static const char *const pol[][5] = {
        {"sched.policy=ladm", "place.policy=ladm", "coherence.crb=true", "sim.seed=1", NULL},
        {"sched.policy=ladm", "place.policy=ladm", "coherence.home_alloc=false", "sim.seed=1",
         NULL},
        {"sched.policy=hcoda", "place.policy=interleave", "place.interleave_b=1024",
         "place.interleave_order=hier", NULL},
        {"sched.policy=coda", "place.policy=interleave", "place.interleave_b=1024", "sim.seed=1",
         NULL},
        {"sched.policy=round_robin", "place.policy=interleave", "sim.seed=1", "sim.seed=1", NULL},
        {"sched.policy=batched", "place.policy=first_touch", "place.fault_us=20", "sim.seed=1",
         NULL},
        {"sched.policy=static", "place.policy=chunk", "sim.seed=1", "sim.seed=1", NULL},
    };
    for (const char *const *n = wls; *n; n++)
        for (unsigned p = 0; p < sizeof pol / sizeof *pol; p++) {
            const char *extra[] = {SWFLAT, "-p", "gpu.gpus=2", "-p", pol[p][0], "-p", pol[p][1],
                                   "-p", pol[p][2], "-p", pol[p][3], NULL};
            int rc;
            json_t *j = tiny_run(tiny_wl(*n), extra, json, &rc);
            cr_assert_eq(rc, 0, "%s under %s, %s", *n, pol[p][0], pol[p][1]);
            cr_expect_eq(tiny_summary(j, "stale_reads"), 0, "%s under %s, %s", *n, pol[p][0],
                         pol[p][1]);
            cr_expect_eq(tiny_summary(j, "l2_sent_remote"),
                         tiny_summary(j, "l2_remote_local_accesses"), "%s under %s", *n,
                         pol[p][0]);
            json_decref(j);
        }
    unlink(json);
}

/* L9's coherence needs each launch to drop the L2s' remote copies: without
 * it (the test-only fault skip_bulk_inv) the checker sees stale reads. */
Test(ladm_run, the_dynamically_shared_l2_needs_its_bulk_invalidation)
{
    char json[] = "/tmp/chipsim-ladm-fire-XXXXXX";
    tiny_begin(json);
    FILE *nerr = freopen("/dev/null", "w", stderr); /* the checker's reports */
    cr_assert(nerr);
    static const char *const wls[] = {"gaussian", "bfs", NULL};
    for (const char *const *n = wls; *n; n++)
        for (unsigned fault = 0; fault < 2; fault++) {
            const char *extra[] = {SWFLAT, "-p",
                                   fault ? "coherence.fault=skip_bulk_inv" : "coherence.fault=none",
                                   NULL};
            int rc;
            json_t *j = tiny_run(tiny_wl(*n), extra, json, &rc);
            cr_assert_eq(rc, 0, "%s", *n);
            long long stale = tiny_summary(j, "stale_reads");
            if (fault)
                cr_expect_gt(stale, 0, "%s without the bulk invalidation: no stale read", *n);
            else
                cr_expect_eq(stale, 0, "%s", *n);
            json_decref(j);
        }
    unlink(json);
}
