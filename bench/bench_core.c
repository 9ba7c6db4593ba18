/*
 * bench_core.c -- speed of the engine and of the memory system, in
 * simulated events and memory requests per second of wall time. Figures are
 * printed, never asserted; bench/RESULTS.md records them with the machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bench.h"
#include "cli/cli.h"
#include "cli/setup.h"
#include "engine/sim.h"
#include "gpu/memsys.h"
#include "workload/synth.h"

static void tick(struct sim *s, void *obj, uint64_t arg)
{
    uint64_t *left = obj;
    if (*left) {
        --*left;
        sim_after(s, 1 + (hash64(arg) & 1023), tick, obj, arg + 1);
    }
}

/* 64 independent chains of events with random gaps: queue depth ~64. */
static void bench_events(void)
{
    struct sim s;
    sim_init(&s, 1);
    uint64_t left = 20000000;
    for (uint64_t i = 0; i < 64; i++)
        sim_at(&s, i, tick, &left, i * 7919);
    double t0 = bench_now();
    sim_run(&s, 0);
    double dt = bench_now() - t0;
    fprintf(stderr, "%-40s %10.2f M events/s  (%llu events, %.2f s)\n", "engine: event queue, depth 64",
           (double)s.events / dt / 1e6, (unsigned long long)s.events, dt);
    sim_destroy(&s);
}

static void bench_memsys(const char *label, const char *const *overrides)
{
    struct cfg c;
    cfg_init(&c);
    setup_define_sections(&c);
    cfg_define(&c, "synth", "synthetic memory traffic", synth_keys, NULL);
    struct err e;
    int i = 0;
    for (const char *const *o = overrides; *o; o++)
        if (cfg_load_override(&c, *o, ++i, &e))
            BUG("%s", e.msg);
    if (cfg_resolve(&c, &e))
        BUG("%s", e.msg);
    struct sim s;
    struct stats st;
    struct memsys ms;
    struct synth g;
    struct synth_params sp;
    sim_init(&s, 1);
    req_pool_init(&s, 4096);
    stats_init(&st);
    if (memsys_build(&ms, &s, &c, false, &e) || synth_params_from_cfg(cfg_sec(&c, "synth"), &sp, &e))
        BUG("%s", e.msg);
    synth_init(&g, &s, &ms, &sp);
    double t0 = bench_now();
    synth_start(&g);
    if (sim_run(&s, 0) != SIM_DONE)
        BUG("benchmark run did not finish");
    double dt = bench_now() - t0;
    fprintf(stderr, "%-40s %10.2f M mem requests/s  %6.2f M events/s  (%llu requests, %.2f s)\n", label,
           (double)g.st.completed / dt / 1e6, (double)s.events / dt / 1e6,
           (unsigned long long)g.st.completed, dt);
    synth_free(&g);
    memsys_free(&ms);
    stats_free(&st);
    sim_destroy(&s);
    cfg_free(&c);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A whole run through `chipsim run`, `reps` times, reporting the runs' own
 * engine figures: warp instructions per second as minimum, median and
 * maximum, the rest as medians. Returns the median wall time per L1 access
 * in nanoseconds. */
static double bench_run(const char *label, const char *const *args, unsigned reps)
{
    enum { WIPS, MRPS, EVPS, WALL, NFIG };
    double fig[NFIG][16];
    long long insts = 0, cycles = 0;
    BUG_ON(reps > 16);
    for (unsigned k = 0; k < reps; k++) {
        char path[] = "/tmp/chipsim-bench-XXXXXX";
        int fd = mkstemp(path);
        if (fd < 0)
            BUG("mkstemp failed");
        close(fd);
        const char *argv[32] = {"run", "-q", "--json", path, "-c", "configs/mcm-4chiplet.ini"};
        int n = 6;
        for (const char *const *a = args; *a; a++)
            argv[n++] = *a;
        argv[n] = NULL;
        if (cli_run(n, (char **)argv))
            BUG("benchmark run failed");
        json_error_t je;
        json_t *j = json_load_file(path, 0, &je);
        unlink(path);
        json_t *simj = json_object_get(j, "sim"), *sum = json_object_get(j, "summary");
        fig[WIPS][k] = json_real_value(json_object_get(simj, "warp_insts_per_s")) / 1e6;
        fig[MRPS][k] = json_real_value(json_object_get(simj, "mem_reqs_per_s")) / 1e6;
        fig[EVPS][k] = json_real_value(json_object_get(simj, "events_per_s")) / 1e6;
        fig[WALL][k] = json_real_value(json_object_get(simj, "wall_s"));
        insts = (long long)json_integer_value(json_object_get(sum, "warp_insts"));
        cycles = (long long)json_integer_value(json_object_get(sum, "cycles"));
        json_decref(j);
    }
    for (unsigned f = 0; f < NFIG; f++)
        qsort(fig[f], reps, sizeof fig[f][0], cmp_double);
    unsigned mid = reps / 2;
    fprintf(stderr, "%-40s %6.2f M warp insts/s (min %.2f, max %.2f of %u runs)  %6.2f M mem "
            "requests/s  %6.2f M events/s  (%lld warp insts, %lld cycles, %.2f s)\n", label,
            fig[WIPS][mid], fig[WIPS][0], fig[WIPS][reps - 1], reps, fig[MRPS][mid],
            fig[EVPS][mid], insts, cycles, fig[WALL][mid]);
    return 1e3 / fig[MRPS][mid];
}

/* Results go to stderr; the runs' own tables (stdout) are discarded. */
int main(void)
{
    if (!freopen("/dev/null", "w", stdout))
        BUG("cannot discard stdout");
    bench_events();
    static const char *const stream[] = {"synth.pattern=stream", "synth.requests=4000", NULL};
    static const char *const rnd[] = {"synth.pattern=random", "synth.requests=4000",
                                      "synth.footprint_kib=65536", NULL};
    bench_memsys("memsys: 4x60 CUs, stream", stream);
    bench_memsys("memsys: 4x60 CUs, random 64 MiB", rnd);
    static const char *const square[] = {"-w", "square", "-p", "workload.n=4194304", "-p",
                                         "workload.iterations=4", NULL};
    static const char *const square_alu[] = {"-w", "square", "-p", "workload.n=1048576", "-p",
                                             "workload.iterations=4", "-p", "workload.blocks=60",
                                             NULL};
    static const char *const gstream[] = {"-w", "stream", "-p", "workload.target=dram", "-p",
                                         "workload.footprint_kib=131072", NULL};
    double per = bench_run("gpu: square 4M floats x 4, 4x60 CUs", square, 5);
    bench_limit("configs/mcm-4chiplet.ini", square, 3, per);
    bench_run("gpu: square 1M floats x 4, 60 WGs", square_alu, 5);
    static const char *const sssp[] = {"-w", "sssp", "-p", "workload.nodes=4096", NULL};
    bench_run("gpu: stream dram 128 MiB, 4x60 CUs", gstream, 5);
    bench_run("gpu: sssp 4096 nodes (irregular)", sssp, 5);
    return 0;
}
