/*
 * The multi-GPU presets (configs/hmg-4x4.ini, ladm-4x4.ini, dualopt-4gpu.ini):
 * microbenchmarks read back every hop class's configured latency within 2%
 * (chase: load-to-use of the L1 and the L2, and differences of l2_remote
 * runs from chiplets further away, each against the sum of the configured
 * per-hop latencies and serialisations, whole cycles per network leg since
 * the caches work on clock edges), and saturate every link class at its
 * configured bandwidth within 5%, never above (stream), the expected figures
 * computed from each run's own resolved configuration; the L2 hits split by
 * where the data's home is; and the checks of the microbenchmarks' peer
 * parameters.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli_util.h"

static json_t *run(const char *preset, const char *const *args)
{
    char json[] = "/tmp/chipsim-presets-XXXXXX";
    int fd = mkstemp(json);
    cr_assert_geq(fd, 0);
    close(fd);
    const char *argv[40] = {"run", "-q", "-c", preset, "--json", json};
    int n = 6;
    for (; *args; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    FILE *null = freopen("/dev/null", "w", stdout);
    cr_assert(null);
    cr_assert_eq(cli_run(n, (char **)argv), 0, "%s", preset);
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    cr_assert(j, "%s", je.text);
    unlink(json);
    return j;
}

static double summary(const json_t *j, const char *key)
{
    return json_number_value(json_object_get(json_object_get(j, "summary"), key));
}

/* A number of the run's resolved configuration. */
static double conf(const json_t *j, const char *sec, const char *key)
{
    json_t *v = json_object_get(json_object_get(json_object_get(j, "config"), sec), key);
    cr_assert(json_is_number(v), "config %s.%s", sec, key);
    return json_number_value(v);
}

/* The GPU clock's period in picoseconds, as the engine rounds it. */
static double period_ps(const json_t *j)
{
    return round(1e6 / conf(j, "gpu", "clock_mhz"));
}

/* Cycles to serialise `bytes` at `gbps` on the GPU clock. */
static double ser(const json_t *j, double bytes, double gbps)
{
    return bytes / (gbps * period_ps(j) / 1000);
}

struct hop {
    const char *sec, *bw, *lat; /* section, bandwidth key (GB/s), latency key (NULL: 0) */
    double extra_lat;           /* cycles besides the key's (the tree's switch) */
};

/* One network leg of a message of `bytes`: serialisation and latency of each
 * hop, rounded up to a whole cycle where the receiving cache takes it. */
static double leg(const json_t *j, const struct hop *h, unsigned n, double bytes)
{
    double t = 0;
    for (unsigned i = 0; i < n; i++)
        t += ser(j, bytes, conf(j, h[i].sec, h[i].bw)) +
             (h[i].lat ? conf(j, h[i].sec, h[i].lat) : 0) + h[i].extra_lat;
    return ceil(t - 1e-9);
}

/* The microbenchmarks are built on first-touch placement and static dispatch
 * (docs/microbench.md); DUALOPT's preset places and dispatches otherwise. */
#define MICRO_PLACEMENT "-p", "place.policy=first_touch", "-p", "sched.policy=static"

/* avg load-to-use latency of a chase run and its result (for the config). */
static double chase(const char *preset, const char *target, unsigned peer, const char *fp,
                    const char *extra, json_t **out)
{
    char t[64], p[64], f[64];
    snprintf(t, sizeof t, "workload.target=%s", target);
    snprintf(p, sizeof p, "workload.peer=%u", peer);
    snprintf(f, sizeof f, "workload.footprint_kib=%s", fp);
    const char *args[20] = {"-w", "chase", "-p", t, "-p", f, "-p", "coherence.scheme=viper",
                            MICRO_PLACEMENT};
    int n = 12;
    if (!strcmp(target, "l2_remote")) {
        args[n++] = "-p";
        args[n++] = p;
    }
    if (extra) {
        args[n++] = "-p";
        args[n++] = extra;
    }
    args[n] = NULL;
    json_t *j = run(preset, args);
    cr_expect_eq(summary(j, "stale_reads"), 0);
    double lat = summary(j, "avg_load_latency_cycles");
    if (out)
        *out = j;
    else
        json_decref(j);
    return lat;
}

static void expect_within(double got, double want, double tol, const char *what)
{
    cr_expect(fabs(got - want) <= tol * want, "%s: %.2f, configured %.2f", what, got, want);
}

/* A stream run's achieved bandwidth, with every measured line from where the
 * test meant: no L1 hit, no stale read. */
static double stream(const char *preset, const char *const *args)
{
    json_t *j = run(preset, args);
    cr_expect_eq(summary(j, "l1_hits"), 0);
    cr_expect_eq(summary(j, "stale_reads"), 0);
    double gbps = summary(j, "achieved_gbps");
    json_decref(j);
    return gbps;
}

static void expect_saturated(double gbps, double bound, const char *what)
{
    cr_expect_leq(gbps, bound * 1.0001, "%s: %.1f GB/s above the bound %.1f", what, gbps, bound);
    cr_expect_geq(gbps, 0.95 * bound, "%s: %.1f GB/s, bound %.1f", what, gbps, bound);
}

/* Each chiplet streams its peer's data once (one pass: no chunk is read
 * twice, so nothing merges in a requester's MSHRs) under cpelide, whose home
 * L2s keep the data across the kernel boundary and whose requesters do not
 * keep remote lines; 4 KiB pages so that every work-group's chunk has its
 * own home. */
#define REMOTE_STREAM "-w", "stream", "-p", "workload.target=remote", "-p", "workload.passes=1", \
    "-p", "coherence.scheme=cpelide", "-p", "coherence.remote_read_alloc=requester_no", "-p", \
    "place.page_b=4096", "-p", "cu.gmem_pipe_cycles=0", MICRO_PLACEMENT

/* ---- HMG: 4 GPUs x 4 GPMs, crossbars and a switch ---- */

#define HMG "configs/hmg-4x4.ini"

Test(presets, hmg_latencies)
{
    json_t *j;
    expect_within(chase(HMG, "l1", 1, "8", NULL, NULL), 28, 0.02, "L1 hit (H13)");
    double l2 = chase(HMG, "l2", 1, "2048", NULL, &j);
    expect_within(l2, 212, 0.02, "L2 hit (H13)");
    /* a read of one 32 B sector: 16 B request, 16 + 32 B response (H5) */
    const struct hop gpm[] = {{"xbar", "port_gbps", "lat", 0}, {"xbar", "port_gbps", NULL, 0}};
    const struct hop gpu[] = {{"xbar", "port_gbps", "lat", 0}, {"xbar", "port_gbps", NULL, 0},
                              {"gpu_link", "port_gbps", "lat", 0},
                              {"gpu_link", "port_gbps", NULL, 0},
                              {"xbar", "port_gbps", "lat", 0}, {"xbar", "port_gbps", NULL, 0}};
    double l2_pipe = conf(j, "l2", "miss_lat") + conf(j, "l2", "resp_lat");
    double gpm_rtt = leg(j, gpm, 2, 16) + leg(j, gpm, 2, 48);
    double gpu_rtt = leg(j, gpu, 6, 16) + leg(j, gpu, 6, 48);
    json_decref(j);
    double r1 = chase(HMG, "l2_remote", 1, "1024", NULL, NULL);
    double r4 = chase(HMG, "l2_remote", 4, "1024", NULL, NULL);
    expect_within(r1 - l2, l2_pipe + gpm_rtt, 0.02, "another GPM: the crossbar each way");
    expect_within(r4 - r1, gpu_rtt - gpm_rtt, 0.02,
                  "another GPU: both GPUs' crossbars and the switch each way");
}

Test(presets, hmg_bandwidths)
{
    /* payload share per direction of a port: every chiplet both requests
     * (16 B) and serves (16 + 128 B) lines of 128 B */
    const char *gpus[] = {REMOTE_STREAM, "-p", "workload.peer_shift=4", "-p",
                          "workload.footprint_kib=16384", NULL};
    expect_saturated(stream(HMG, gpus), 4 * 100 * 128.0 / 160, "inter-GPU: 4 ports x 100 GB/s");
    const char *gpms[] = {REMOTE_STREAM, "-p", "workload.peer_group=4", "-p",
                          "workload.footprint_kib=16384", NULL};
    expect_saturated(stream(HMG, gpms), 16 * 250 * 128.0 / 160,
                     "inter-GPM: 16 crossbar ports x 250 GB/s");
}

/* The L1-L2 links of one GPU's SMs, streaming from their L2s: `passes`
 * measured passes after one warm-up pass in the same kernel, whose responses
 * share the links during the measured window, so passes / (passes + 1) of
 * the links' payload is measured. A faster DRAM keeps the warm-up from
 * holding the measured passes back (the links are what is measured). */
static double l1l2_stream(const char *preset, const char *fp, unsigned passes, double *bound)
{
    char f[64], p[64];
    snprintf(f, sizeof f, "workload.footprint_kib=%s", fp);
    snprintf(p, sizeof p, "workload.passes=%u", passes);
    const char *args[] = {"-w", "stream", "-p", "workload.target=l2", "-p", f, "-p", p, "-p",
                          "gpu.gpus=1", "-p", "place.page_b=4096", "-p", "coherence.scheme=cpelide", "-p",
                          "dram.channels=64", "-p", "cu.gmem_pipe_cycles=0", MICRO_PLACEMENT,
                          NULL};
    json_t *j = run(preset, args);
    cr_expect_eq(summary(j, "l1_hits"), 0);
    double cus = conf(j, "gpu", "chiplets") * conf(j, "gpu", "cus_per_chiplet");
    double bpc = conf(j, "link_l1_l2", "bw_b_per_cycle");
    double line = conf(j, "l1d", "line_b"), hdr = conf(j, "link_l1_l2", "header_b");
    /* a line's response: the line (its 4 sectors) and a header */
    *bound = cus * bpc / period_ps(j) * 1000 * line / (line + hdr) * passes / (passes + 1);
    double gbps = summary(j, "achieved_gbps");
    json_decref(j);
    return gbps;
}

Test(presets, hmg_l1_l2_links)
{
    double bound, gbps = l1l2_stream(HMG, "4096", 15, &bound);
    expect_saturated(gbps, bound, "L1-L2 links: 128 x 32 B per cycle");
}

/* A value of the run's stats, summed over every name ending in `suffix`. */
static double stat_sum(const json_t *j, const char *suffix)
{
    double sum = 0;
    const char *k;
    json_t *v;
    size_t n = strlen(suffix);
    json_object_foreach(json_object_get(j, "stats"), k, v)
    {
        size_t kn = strlen(k);
        if (kn >= n && !strcmp(k + kn - n, suffix))
            sum += json_number_value(v);
    }
    return sum;
}

/* L2 hits split by the data's home: a chase over another GPM's (peer 1) or
 * another GPU's (peer 4) data under viper, whose requester L2s keep no remote
 * data (spec cpelide D4). Every L2 access of the remote class is a miss that
 * arrives at the home, where it counts as local; the three classes add up to
 * every L2 read and write. */
Test(presets, hmg_l2_hits_by_home)
{
    static const char *const cls[] = {"l2_remote_chiplet", "l2_remote_gpu"};
    for (unsigned k = 0; k < 2; k++) {
        const char *args[] = {"-w", "chase", "-p", "coherence.scheme=viper", "-p",
                              "workload.target=l2_remote", "-p",
                              k ? "workload.peer=4" : "workload.peer=1", "-p",
                              "workload.footprint_kib=1024", NULL};
        json_t *j = run(HMG, args);
        char acc[64], hits[64], other[64];
        snprintf(acc, sizeof acc, "%s_accesses", cls[k]);
        snprintf(hits, sizeof hits, "%s_hits", cls[k]);
        snprintf(other, sizeof other, "%s_accesses", cls[!k]);
        double remote = summary(j, "l2_remote_accesses");
        cr_expect_gt(remote, 0);
        cr_expect_eq(summary(j, acc), remote, "%s", acc);
        cr_expect_eq(summary(j, hits), 0, "%s", hits);
        cr_expect_eq(summary(j, other), 0, "%s", other);
        cr_expect_geq(summary(j, "l2_local_hits"), remote, "the homes hit every remote read");
        cr_expect_eq(summary(j, "l2_local_accesses") + summary(j, "l2_remote_chiplet_accesses") +
                         summary(j, "l2_remote_gpu_accesses"),
                     stat_sum(j, ".l2.reads") + stat_sum(j, ".l2.writes"));
        json_decref(j);
    }
}

/* ---- LADM: 4 GPUs x 4 chiplets, rings and a switch ---- */

#define LADM "configs/ladm-4x4.ini"
#define NOALLOC "coherence.remote_read_alloc=requester_no"

Test(presets, ladm_latencies)
{
    json_t *j;
    expect_within(chase(LADM, "l1", 1, "8", NOALLOC, NULL), 28, 0.02, "L1 hit");
    double l2 = chase(LADM, "l2", 1, "512", NOALLOC, &j);
    expect_within(l2, 200, 0.02, "L2 hit (L2: about 200)");
    /* a read of one 32 B sector: 8 B request, 8 + 32 B response */
    const struct hop ring1[] = {{"ring", "link_gbps", "hop_lat", 0}};
    const struct hop ring2[] = {{"ring", "link_gbps", "hop_lat", 0},
                                {"ring", "link_gbps", "hop_lat", 0}};
    /* chiplet 0 of GPU 1 to chiplet 0 of GPU 0: its stop's port link, the
     * switch, the port link into stop 0 */
    const struct hop gpu[] = {{"ring", "link_gbps", "hop_lat", 0},
                              {"gpu_link", "port_gbps", "lat", 0},
                              {"gpu_link", "port_gbps", NULL, 0},
                              {"ring", "link_gbps", "hop_lat", 0}};
    double l2_pipe = conf(j, "l2", "miss_lat") + conf(j, "l2", "resp_lat");
    double hop1 = leg(j, ring1, 1, 8) + leg(j, ring1, 1, 40);
    double hop2 = leg(j, ring2, 2, 8) + leg(j, ring2, 2, 40);
    double trip = leg(j, gpu, 4, 8) + leg(j, gpu, 4, 40);
    json_decref(j);
    double r1 = chase(LADM, "l2_remote", 1, "512", NOALLOC, NULL);
    double r2 = chase(LADM, "l2_remote", 2, "512", NOALLOC, NULL);
    double r4 = chase(LADM, "l2_remote", 4, "512", NOALLOC, NULL);
    expect_within(r1 - l2, l2_pipe + hop1, 0.02, "the next chiplet: one ring hop each way");
    expect_within(r2 - r1, hop2 - hop1, 0.02, "two chiplets on: one more ring hop each way");
    expect_within(r4 - r1, trip - hop1, 0.02, "another GPU: port links and the switch");
}

Test(presets, ladm_bandwidths)
{
    /* every chiplet requests (8 B) and serves (8 + 128 B) lines of 128 B */
    const char *gpus[] = {REMOTE_STREAM, "-p", "workload.peer_shift=4", "-p",
                          "workload.footprint_kib=16384", "-p", NOALLOC, NULL};
    expect_saturated(stream(LADM, gpus), 4 * 90 * 128.0 / 144, "inter-GPU: 4 ports x 90 GB/s");
    /* the next chiplet on the ring: responses ride one ccw link each,
     * requests one cw link */
    const char *ring[] = {REMOTE_STREAM, "-p", "workload.peer_group=4", "-p",
                          "workload.footprint_kib=16384", "-p", NOALLOC, NULL};
    expect_saturated(stream(LADM, ring), 16 * 90 * 128.0 / 136, "ring: 16 links x 90 GB/s");
}

Test(presets, ladm_l1_l2_links)
{
    double bound, gbps = l1l2_stream(LADM, "2048", 15, &bound);
    expect_saturated(gbps, bound, "L1-L2 links: 64 x 45 GB/s (Table 3.3)");
}

/* ---- DUALOPT: 4 GPUs of one chiplet on MGPUSim's PCIe tree ---- */

#define DUALOPT "configs/dualopt-4gpu.ini"

Test(presets, dualopt_latencies)
{
    json_t *j;
    expect_within(chase(DUALOPT, "l1", 1, "8", NULL, NULL), 60, 0.02, "L1 hit (8.3)");
    double l2 = chase(DUALOPT, "l2", 1, "1024", NULL, &j);
    /* a 64 B line: 12 B request, 4 + 64 B response (2.3) */
    double want_l2 = conf(j, "l1d", "miss_lat") + conf(j, "l2", "hit_lat") +
                     conf(j, "l1d", "resp_lat") + conf(j, "link_l1_l2", "lat") * 2 +
                     12 / conf(j, "link_l1_l2", "bw_b_per_cycle") +
                     68 / conf(j, "link_l1_l2", "bw_b_per_cycle");
    expect_within(l2, want_l2, 0.02, "L2 hit");
    double sw = conf(j, "gpu_tree", "switch_lat");
    const struct hop pair[] = {{"xbar", "port_gbps", "lat", 0}, {"xbar", "port_gbps", NULL, 0},
                               {"gpu_tree", "link_gbps", "link_lat", sw},
                               {"gpu_tree", "link_gbps", "link_lat", 0},
                               {"xbar", "port_gbps", "lat", 0}, {"xbar", "port_gbps", NULL, 0}};
    const struct hop far[] = {{"xbar", "port_gbps", "lat", 0}, {"xbar", "port_gbps", NULL, 0},
                              {"gpu_tree", "link_gbps", "link_lat", sw},
                              {"gpu_tree", "link_gbps", "link_lat", sw},
                              {"gpu_tree", "link_gbps", "link_lat", sw},
                              {"gpu_tree", "link_gbps", "link_lat", 0},
                              {"xbar", "port_gbps", "lat", 0}, {"xbar", "port_gbps", NULL, 0}};
    double l2_pipe = conf(j, "l2", "miss_lat") + conf(j, "l2", "resp_lat");
    double rtt1 = leg(j, pair, 6, 12) + leg(j, pair, 6, 68);
    double rtt3 = leg(j, far, 8, 12) + leg(j, far, 8, 68);
    json_decref(j);
    /* chiplet 1 is GPU 1 (GPU 0's pair: one switch), chiplet 2 GPU 2 (three) */
    double r1 = chase(DUALOPT, "l2_remote", 1, "1024", NULL, NULL);
    double r2 = chase(DUALOPT, "l2_remote", 2, "1024", NULL, NULL);
    expect_within(r1 - l2, l2_pipe + rtt1, 0.02, "GPU 1: one switch each way");
    expect_within(r2 - r1, rtt3 - rtt1, 0.02, "GPU 2: the root and the other pair's switch");
}

Test(presets, dualopt_bandwidth)
{
    /* every GPU requests (12 B) and serves (4 + 64 B) lines of 64 B; on the
     * tree every link carries one request and one response stream */
    const char *gpus[] = {REMOTE_STREAM, "-p", "workload.footprint_kib=16384", NULL};
    expect_saturated(stream(DUALOPT, gpus), 4 * 64 * 64.0 / 80, "inter-GPU tree: 64 GB/s links");
}

/* ---- the microbenchmarks' peer parameters ---- */

static void expect_run_error(const char *const *argv, const char *want)
{
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, want) != NULL, "got '%s', want '%s'", r.err, want);
    cli_result_free(&r);
}

Test(presets, peer_parameters_are_checked)
{
    const char *chase4[] = {"run", "-c", "configs/tiny.ini", "-w", "chase", "-p",
                            "workload.target=l2_remote", "-p", "workload.peer=2", NULL};
    expect_run_error(chase4, "-p:2: [workload] peer = 2: not a chiplet of the system (0..1)");
    const char *group[] = {"run", "-c", HMG, "-w", "stream", "-p", "workload.target=remote",
                           "-p", "workload.peer_group=3", NULL};
    expect_run_error(group, "[workload] peer_group = 3: does not divide the 16 chiplets");
    const char *shift[] = {"run", "-c", HMG, "-w", "stream", "-p", "workload.target=remote",
                           "-p", "workload.peer_group=4", "-p", "workload.peer_shift=8", NULL};
    expect_run_error(shift, "[workload] peer_shift = 8: 8 is a multiple of the group of 4 "
                            "chiplets: every chiplet would read its own data");
}
