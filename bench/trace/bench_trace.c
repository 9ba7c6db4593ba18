/*
 * bench_trace.c -- speed of the trace reader and of trace-driven runs
 * (docs/trace.md). For each trace: the checking pass (every line tokenized,
 * checked and indexed, as when a run starts) and the loading pass (every
 * thread block read into records, as at dispatch), in lines per second; then
 * whole runs of `bin/chipsim run --trace`, each in its own process, with the
 * run's own figures (warp instructions per second, wall time, peak RSS).
 * Last, the speed ratio against Accel-Sim on the validation references'
 * synthetic traces: the wall time of whole `chipsim run` processes against
 * the recorded wall time of Accel-Sim's runs of the same traces.
 * Figures are printed, never asserted; bench/RESULTS.md records them.
 *
 *     build/rel/bench-trace [LIST.g ...]
 *
 * Without arguments: the shared traces ($CHIPSIM_SHARED or ../shared) and
 * the generated traces in build/bench/gen and gen-quarter (tools/gen_trace.py;
 * `make bench` writes them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "trace/trace.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Both passes over every kernel file of the list. */
static void bench_parse(const char *list)
{
    struct trace_list l;
    struct err e;
    if (trace_list_read(&l, list, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    struct trace_ops ops;
    trace_ops_init(&ops, NULL);
    uint64_t lines = 0, bytes = 0, tbs = 0, rec_bytes = 0;
    double check = 0, load = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (l.cmd[i].kind != TCMD_KERNEL)
            continue;
        struct trace_kfile kf = {.path = xstrdup(l.cmd[i].path)};
        double t0 = now_s();
        if (trace_check_kernel(&kf, &ops, &e))
            BUG("%s", e.msg);
        double t1 = now_s();
        struct trace_in in;
        struct trace_tb tb = {0};
        if (trace_in_open(&in, kf.path, &e))
            BUG("%s", e.msg);
        for (size_t k = 0; k < kf.nidx; k++) {
            if (trace_read_tb(&in, &kf, &ops, kf.idx[k].tb, &tb, &e))
                BUG("%s", e.msg);
            rec_bytes += tb.len;
        }
        double t2 = now_s();
        trace_in_close(&in);
        trace_tb_free(&tb);
        check += t1 - t0;
        load += t2 - t1;
        lines += kf.lines;
        bytes += kf.bytes;
        tbs += kf.nidx;
        trace_kfile_free(&kf);
    }
    fprintf(stderr, "parse %s\n  %llu lines, %.1f MB, %llu blocks (%.1f MB of records)\n"
            "  check: %.2f M lines/s (%.0f MB/s, %.2f s)  load: %.2f M lines/s (%.2f s)\n", list,
            (unsigned long long)lines, (double)bytes / 1e6, (unsigned long long)tbs,
            (double)rec_bytes / 1e6, (double)lines / check / 1e6, (double)bytes / check / 1e6,
            check, (double)lines / load / 1e6, load);
    trace_ops_free(&ops);
    trace_list_free(&l);
}

/* bin/chipsim run -q -c config --trace list --json tmp, in a child process. */
static void bench_run(const char *config, const char *list)
{
    char json[] = "/tmp/chipsim-bench-trace-XXXXXX";
    int fd = mkstemp(json);
    if (fd < 0)
        BUG("mkstemp failed");
    close(fd);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execl("bin/chipsim", "chipsim", "run", "-q", "-c", config, "--trace", list, "--json",
              json, (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    json_error_t je;
    json_t *j = WIFEXITED(status) && !WEXITSTATUS(status) ? json_load_file(json, 0, &je) : NULL;
    unlink(json);
    if (!j) {
        fprintf(stderr, "run %s on %s: failed\n", list, config);
        return;
    }
    json_t *sim = json_object_get(j, "sim"), *sum = json_object_get(j, "summary");
    fprintf(stderr, "run %s on %s\n  %lld warp insts, %lld cycles: %.3f M warp insts/s, %.2f s, "
            "peak RSS %lld MiB\n", list, config,
            (long long)json_integer_value(json_object_get(sum, "warp_insts")),
            (long long)json_integer_value(json_object_get(sum, "cycles")),
            json_real_value(json_object_get(sim, "warp_insts_per_s")) / 1e6,
            json_real_value(json_object_get(sim, "wall_s")),
            (long long)json_integer_value(json_object_get(sim, "peak_rss_kib")) / 1024);
    json_decref(j);
}

/* Accel-Sim's wall time on the traces of ../shared/validation/gen-synth-trace.py,
 * replaying them with its SM7_QV100 configuration (the validation
 * references' build, dev 73f9fac) on this project's 2-core benchmark machine:
 * the range over repeated runs. */
static const struct accelsim_ref {
    const char *label, *list;
    double min_s, max_s;
} accelsim_refs[] = {
    {"scale, 1M floats", "build/bench/scale-1m/kernelslist.g", 40, 52},
    {"stencil2d, 1024 x 1024, 1 sweep", "build/bench/stencil-1k/kernelslist.g", 102, 128},
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Whole `chipsim run` processes on qv100, as Accel-Sim runs the trace: wall
 * time from fork to exit, minimum, median and maximum of `reps`. */
static void bench_accelsim(const struct accelsim_ref *ref, unsigned reps)
{
    if (access(ref->list, R_OK)) {
        fprintf(stderr, "skipped %s: absent\n", ref->list);
        return;
    }
    double t[16];
    BUG_ON(reps > 16);
    for (unsigned k = 0; k < reps; k++) {
        double t0 = now_s();
        pid_t pid = fork();
        if (pid == 0) {
            if (!freopen("/dev/null", "w", stdout))
                _exit(127);
            execl("bin/chipsim", "chipsim", "run", "-q", "-c", "configs/qv100.ini", "--trace",
                  ref->list, (char *)NULL);
            _exit(127);
        }
        int status;
        waitpid(pid, &status, 0);
        t[k] = now_s() - t0;
        if (!WIFEXITED(status) || WEXITSTATUS(status)) {
            fprintf(stderr, "run %s: failed\n", ref->list);
            return;
        }
    }
    qsort(t, reps, sizeof t[0], cmp_double);
    double med = t[reps / 2];
    fprintf(stderr, "%s on qv100, whole runs: %.3f s (min %.3f, max %.3f of %u); Accel-Sim "
            "%.0f-%.0f s: %.0f-%.0fx\n", ref->label, med, t[0], t[reps - 1], reps, ref->min_s,
            ref->max_s, ref->min_s / med, ref->max_s / med);
}

static void bench_list(const char *list, bool chiplets)
{
    if (access(list, R_OK)) {
        fprintf(stderr, "skipped %s: absent\n", list);
        return;
    }
    bench_parse(list);
    bench_run("configs/qv100.ini", list);
    if (chiplets)
        bench_run("configs/mcm-4chiplet.ini", list);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        bench_list(argv[i], true);
    if (argc > 1)
        return 0;
    const char *root = getenv("CHIPSIM_SHARED");
    if (!root || !*root)
        root = "../shared";
    const char *names[] = {"accelsim-vectoradd", "accelsim-rodinia-btree-h100",
                           "accelsim-rodinia-backprop-h100"};
    for (int i = 0; i < 3; i++) {
        char *list = xasprintf("%s/data/%s/kernelslist.g", root, names[i]);
        bench_list(list, true);
        free(list);
    }
    bench_list("build/bench/gen-quarter/kernelslist.g", false);
    bench_list("build/bench/gen/kernelslist.g", true);
    bench_list("build/bench/gen/kernelslist-xz.g", false);
    for (size_t i = 0; i < sizeof accelsim_refs / sizeof accelsim_refs[0]; i++)
        bench_accelsim(&accelsim_refs[i], 5);
    return 0;
}
