/*
 * Golden runs on configs/mcm-4chiplet.ini: the chase microbenchmark must
 * reproduce Table I's load-to-use latencies within 2% (spec cpelide 2.1,
 * D6), and streams must never exceed the configured peak bandwidths (and
 * the DRAM stream must approach its peak).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"

static json_t *run(const char *const *args)
{
    char json[] = "/tmp/chipsim-golden-XXXXXX";
    int fd = mkstemp(json);
    cr_assert_geq(fd, 0);
    close(fd);
    const char *argv[32] = {"run", "-q", "-c", "configs/mcm-4chiplet.ini", "--json", json};
    int n = 6;
    for (; *args; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    FILE *null = freopen("/dev/null", "w", stdout);
    cr_assert(null);
    cr_assert_eq(cli_run(n, (char **)argv), 0);
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    cr_assert(j, "%s", je.text);
    unlink(json);
    return j;
}

/* The streams measure the memory system: their passes assume every CU stays
 * in step with the others (no two CUs of a chiplet read one chunk at once),
 * which the CU's shared global-memory pipeline breaks (its oldest-first
 * arbitration lets CUs drift, and CUs that meet on a chunk merge their
 * misses in the L2), so they issue without it. */
#define NO_PIPE "-p", "cu.gmem_pipe_cycles=0"

static double summary(json_t *j, const char *key)
{
    return json_number_value(json_object_get(json_object_get(j, "summary"), key));
}

static void chase(const char *target, double want)
{
    char t[64];
    snprintf(t, sizeof t, "workload.target=%s", target);
    const char *args[] = {"-w", "chase", "-p", t, NULL};
    json_t *j = run(args);
    double got = summary(j, "avg_load_latency_cycles");
    cr_expect(fabs(got - want) <= 0.02 * want, "%s: %.1f cycles, Table I says %.0f", target, got,
              want);
    cr_expect_eq(summary(j, "stale_reads"), 0);
    json_decref(j);
}

Test(golden, chase_reproduces_table1_latencies)
{
    chase("l1", 140);
    chase("l2", 269);
    chase("l2_remote", 390);
    chase("l3", 330);
}

Test(golden, dram_stream_approaches_but_never_exceeds_hbm_peak)
{
    /* 4 chiplets x 8 channels x 32 B per cycle x 1000 MHz = 1024 GB/s */
    const char *args[] = {"-w", "stream", "-p", "workload.target=dram", "-p",
                          "workload.footprint_kib=131072", NO_PIPE, NULL};
    json_t *j = run(args);
    double gbps = summary(j, "achieved_gbps");
    cr_expect_leq(gbps, 1024.0);
    cr_expect_geq(gbps, 0.9 * 1024.0, "%.1f GB/s", gbps);
    json_decref(j);
}

/* A stream run's achieved bandwidth, after checking that every measured
 * byte came from the level under test: no L1 hit and no L1 MSHR merge. */
static double stream_gbps(const char *const *args)
{
    json_t *j = run(args);
    cr_expect_eq(summary(j, "l1_hits"), 0);
    cr_expect_eq(summary(j, "l2_accesses") - summary(j, "l2_remote_accesses"),
                 summary(j, "l1_accesses"), "every L1 miss reaches the L2");
    cr_expect_eq(summary(j, "stale_reads"), 0);
    double gbps = summary(j, "achieved_gbps");
    json_decref(j);
    return gbps;
}

Test(golden, l2_stream_approaches_but_never_exceeds_l2_bank_peak)
{
    /* 4 chiplets x 8 banks x 64 B per cycle x 1801 MHz = 3688 GB/s; half the
     * default footprint, 32 measured passes after the warm-up pass */
    const double peak = 4 * 8 * 64 * 1.801;
    const char *l2[] = {"-w", "stream", "-p", "workload.target=l2", "-p",
                        "workload.footprint_kib=7680", NO_PIPE, NULL};
    double gbps = stream_gbps(l2);
    cr_expect_leq(gbps, peak);
    cr_expect_geq(gbps, 0.9 * peak, "%.1f GB/s", gbps);
}

Test(golden, remote_stream_approaches_but_never_exceeds_its_bound)
{
    /* Every chiplet reads the next one's lines, so each remote line costs one
     * L2 bank access at the requester and one at the home: 4 x 8 x 64 B x
     * 1801 MHz / 2 = 1844 GB/s, below the crossbar's payload peak of
     * 4 x 768 x 64 / 80 = 2458 GB/s (8 B request + 72 B response per line).
     * Under cpelide (requester_no: nothing is cached away from its home, and
     * the data is read-only, so nothing is flushed or invalidated) the home
     * L2 keeps the lines across the kernel boundary. */
    const double bound = 4 * 8 * 64 * 1.801 / 2, xbar = 4 * 768.0 * 64 / 80;
    const char *kept[] = {"-w", "stream", "-p", "workload.target=remote", "-p",
                          "workload.footprint_kib=4096", "-p", "coherence.scheme=cpelide",
                          NO_PIPE, NULL};
    double gbps = stream_gbps(kept);
    cr_expect_leq(gbps, bound);
    cr_expect_geq(gbps, 0.9 * bound, "%.1f GB/s", gbps);
    /* viper: the boundary empties the home L2, which serves from its L3 over
     * the L2-L3 link (256 B per cycle per chiplet: the same 1844 GB/s) */
    const char *viper[] = {"-w", "stream", "-p", "workload.target=remote", "-p",
                           "workload.footprint_kib=4096", NO_PIPE, NULL};
    gbps = stream_gbps(viper);
    cr_expect_leq(gbps, bound);
    cr_expect_leq(gbps, xbar);
    cr_expect_geq(gbps, 0.8 * bound, "%.1f GB/s", gbps);
}

/* The monolithic reference (spec cpelide 6): the 4-chiplet machine's 240 CUs,
 * 32 MB of L2 and 16 MB of L3 behind one chiplet. square's second kernel
 * reads what the first brought into the one L2 (no kernel boundary touches
 * it): half the L2 accesses hit, none is remote, no L2 operation is issued;
 * the 4-chiplet baseline misses every time. */
Test(golden, the_monolithic_reference_keeps_its_l2_across_kernels)
{
    const char *mono[] = {"-c", "configs/mcm-monolithic.ini", "-w", "square", "-p",
                          "workload.n=65536", NULL};
    json_t *j = run(mono);
    cr_expect_eq(summary(j, "kernels"), 2);
    cr_expect_eq(summary(j, "l2_hits") * 2, summary(j, "l2_accesses"));
    cr_expect_eq(summary(j, "l2_remote_accesses"), 0);
    cr_expect_eq(summary(j, "l2_flushes") + summary(j, "l2_invalidates"), 0);
    double mono_cycles = summary(j, "kernel_cycles");
    json_decref(j);
    const char *mcm[] = {"-w", "square", "-p", "workload.n=65536", NULL};
    j = run(mcm);
    cr_expect_eq(summary(j, "l2_hits"), 0);
    cr_expect_lt(mono_cycles, summary(j, "kernel_cycles"));
    json_decref(j);
}
