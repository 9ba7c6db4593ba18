/*
 * bench_core.c -- speed of the engine and of the memory system, in
 * simulated events and memory requests per second of wall time. Figures are
 * printed, never asserted; bench/RESULTS.md records them with the machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/setup.h"
#include "engine/sim.h"
#include "gpu/memsys.h"
#include "workload/synth.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
    double t0 = now_s();
    sim_run(&s, 0);
    double dt = now_s() - t0;
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
    double t0 = now_s();
    synth_start(&g);
    if (sim_run(&s, 0) != SIM_DONE)
        BUG("benchmark run did not finish");
    double dt = now_s() - t0;
    fprintf(stderr, "%-40s %10.2f M mem requests/s  %6.2f M events/s  (%llu requests, %.2f s)\n", label,
           (double)g.st.completed / dt / 1e6, (double)s.events / dt / 1e6,
           (unsigned long long)g.st.completed, dt);
    synth_free(&g);
    memsys_free(&ms);
    stats_free(&st);
    sim_destroy(&s);
    cfg_free(&c);
}

/* A whole run through `chipsim run`, reporting its own engine figures. */
static void bench_run(const char *label, const char *const *args)
{
    char path[] = "/tmp/chipsim-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        BUG("mkstemp failed");
    close(fd);
    const char *argv[32] = {"run", "-q", "--json", path, "-c", "configs/mcm-4chiplet.ini"};
    int n = 6;
    for (; *args; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    int rc = cli_run(n, (char **)argv);
    if (rc)
        BUG("benchmark run failed");
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    unlink(path);
    json_t *simj = json_object_get(j, "sim"), *sum = json_object_get(j, "summary");
    fprintf(stderr, "%-40s %8.2f M warp insts/s  %6.2f M mem requests/s  %6.2f M events/s  "
            "(%lld warp insts, %lld cycles, %.2f s)\n", label,
            json_real_value(json_object_get(simj, "warp_insts_per_s")) / 1e6,
            json_real_value(json_object_get(simj, "mem_reqs_per_s")) / 1e6,
            json_real_value(json_object_get(simj, "events_per_s")) / 1e6,
            (long long)json_integer_value(json_object_get(sum, "warp_insts")),
            (long long)json_integer_value(json_object_get(sum, "cycles")),
            json_real_value(json_object_get(simj, "wall_s")));
    json_decref(j);
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
    bench_run("gpu: square 4M floats x 4, 4x60 CUs", square);
    bench_run("gpu: square 1M floats x 4, 60 WGs", square_alu);
    static const char *const sssp[] = {"-w", "sssp", "-p", "workload.nodes=4096", NULL};
    bench_run("gpu: stream dram 128 MiB, 4x60 CUs", gstream);
    bench_run("gpu: sssp 4096 nodes (irregular)", sssp);
    return 0;
}
