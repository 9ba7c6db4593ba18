/*
 * cmd_classify.c -- `chipsim classify`: inter-kernel reuse of each workload
 * (spec cpelide 7.2, D16). Every workload runs twice on the chosen machine
 * (default configs/mcm-4chiplet.ini): under `viper`, whose kernel-boundary
 * flushes and invalidations empty every L2, and under `ideal`, which keeps
 * L2 contents across kernels. The relative reduction of the L2 miss rate
 * from viper to ideal measures the reuse a kernel finds in the L2 from the
 * kernels before it; a reduction of at least the threshold (default 15%)
 * classifies the workload as moderate-to-high reuse, else low reuse.
 * Workloads that read their kernels from files (a trace: `-w trace -p
 * workload.path=...`) run only when named. Runs are independent processes,
 * `--jobs` at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "workload/wl.h"

struct cls_opts {
    const char *config;
    const char **extra;      /* -p overrides passed to every run */
    size_t nextra;
    const char *only;        /* comma-separated workload names, or NULL for all */
    bool small;              /* each workload's small size */
    unsigned jobs;
    double threshold;        /* percent */
};

struct cls_run {
    const struct wl_ops *w;
    const char *scheme;
    char json[64];
    pid_t pid;
    int status;
};

static void usage(void)
{
    fprintf(stderr, "usage: chipsim classify [-c FILE] [-p section.key=value]... [-w a,b,...] "
                    "[--small] [--jobs N] [--threshold PCT]\n");
}

static int parse(int argc, char **argv, struct cls_opts *o)
{
    *o = (struct cls_opts){.config = "configs/mcm-4chiplet.ini", .jobs = 2, .threshold = 15};
    o->extra = calloc((size_t)argc, sizeof *o->extra);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0)
        o->jobs = (unsigned)n;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "-c") && more)
            o->config = argv[++i];
        else if (!strcmp(a, "-p") && more)
            o->extra[o->nextra++] = argv[++i];
        else if (!strcmp(a, "-w") && more)
            o->only = argv[++i];
        else if (!strcmp(a, "--small"))
            o->small = true;
        else if (!strcmp(a, "--jobs") && more)
            o->jobs = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--threshold") && more)
            o->threshold = atof(argv[++i]);
        else {
            fprintf(stderr, "chipsim classify: bad option '%s'\n", a);
            return -1;
        }
    }
    if (!o->jobs || o->threshold <= 0 || o->threshold >= 100) {
        fprintf(stderr, "chipsim classify: --jobs must be at least 1 and --threshold in (0, 100)\n");
        return -1;
    }
    return 0;
}

static bool selected(const struct cls_opts *o, const struct wl_ops *w)
{
    if (!o->only)
        return !w->needs_input; /* a trace runs only when named */
    const char *name = w->name;
    size_t n = strlen(name);
    for (const char *p = o->only; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, name, n))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

static void child(const struct cls_opts *o, const struct cls_run *r)
{
    const char *argv[96] = {"run", "-q", "-c", o->config, "-w", r->w->name, "--json", r->json};
    int n = 8;
    static char scheme[64], small[16][96];
    snprintf(scheme, sizeof scheme, "coherence.scheme=%s", r->scheme);
    argv[n++] = "-p";
    argv[n++] = scheme;
    int k = 0;
    for (const char *const *s = r->w->small; o->small && s && *s && k < 16; s++, k++) {
        snprintf(small[k], sizeof small[k], "workload.%s", *s);
        argv[n++] = "-p";
        argv[n++] = small[k];
    }
    for (size_t i = 0; i < o->nextra && n < 94; i++) {
        argv[n++] = "-p";
        argv[n++] = o->extra[i];
    }
    argv[n] = NULL;
    if (!freopen("/dev/null", "w", stdout))
        _exit(EXIT_SIMFAIL);
    _exit(cli_run(n, (char **)argv));
}

static void run_all(const struct cls_opts *o, struct cls_run *runs, size_t n)
{
    size_t started = 0, running = 0, done = 0;
    while (done < n) {
        while (running < o->jobs && started < n) {
            struct cls_run *r = &runs[started++];
            fflush(NULL);
            r->pid = fork();
            if (r->pid == 0)
                child(o, r);
            running++;
        }
        int ws;
        pid_t pid = wait(&ws);
        for (size_t i = 0; i < started; i++)
            if (runs[i].pid == pid) {
                runs[i].status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
                fprintf(stderr, "\rclassify: %zu/%zu runs done", ++done, n);
            }
        running--;
    }
    fprintf(stderr, "\n");
}

/* L2 miss rate of a finished run, or -1. */
static double miss_rate(const struct cls_run *r, json_t **sum_out)
{
    if (r->status)
        return -1;
    json_error_t je;
    json_t *j = json_load_file(r->json, 0, &je);
    unlink(r->json);
    if (!j)
        return -1;
    json_t *s = json_object_get(j, "summary");
    double acc = (double)json_integer_value(json_object_get(s, "l2_accesses"));
    double hit = (double)json_integer_value(json_object_get(s, "l2_hits"));
    *sum_out = json_incref(s);
    json_decref(j);
    return acc > 0 ? 1.0 - hit / acc : 0;
}

static void report(const struct cls_opts *o, struct cls_run *runs, size_t n)
{
    printf("| workload | viper L2 miss rate | ideal L2 miss rate | reduction | class |\n");
    printf("|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i += 2) {
        json_t *sv = NULL, *si = NULL;
        double mv = miss_rate(&runs[i], &sv), mi = miss_rate(&runs[i + 1], &si);
        if (mv < 0 || mi < 0) {
            printf("| %s | failed (exit %d) | failed (exit %d) | | |\n", runs[i].w->name,
                   runs[i].status, runs[i + 1].status);
        } else {
            double red = mv > 0 ? 100.0 * (mv - mi) / mv : 0;
            printf("| %s | %.1f%% | %.1f%% | %.1f%% | %s |\n", runs[i].w->name, 100 * mv,
                   100 * mi, red, red >= o->threshold ? "moderate-to-high" : "low");
        }
        json_decref(sv);
        json_decref(si);
    }
    printf("\nReuse: relative L2 miss-rate reduction from viper to ideal; threshold %.0f%% "
           "(spec cpelide D16).\n", o->threshold);
}

int cli_classify(int argc, char **argv)
{
    struct cls_opts o;
    if (parse(argc, argv, &o)) {
        usage();
        free(o.extra);
        return EXIT_USAGE;
    }
    size_t n = 0;
    for (const struct wl_ops *const *w = wl_registry; *w; w++)
        n += selected(&o, *w) ? 2 : 0;
    if (!n) {
        fprintf(stderr, "chipsim classify: no workload matches '%s'\n", o.only);
        free(o.extra);
        return EXIT_USAGE;
    }
    struct cls_run *runs = calloc(n, sizeof *runs);
    size_t k = 0;
    for (const struct wl_ops *const *w = wl_registry; *w; w++) {
        if (!selected(&o, *w))
            continue;
        for (int s = 0; s < 2; s++, k++) {
            runs[k] = (struct cls_run){.w = *w, .scheme = s ? "ideal" : "viper"};
            snprintf(runs[k].json, sizeof runs[k].json, "/tmp/chipsim-cls-%ld-%zu.json",
                     (long)getpid(), k);
        }
    }
    run_all(&o, runs, n);
    report(&o, runs, n);
    int status = EXIT_OK;
    for (size_t i = 0; i < n; i++)
        if (runs[i].status)
            status = runs[i].status == EXIT_USAGE ? EXIT_USAGE : EXIT_SIMFAIL;
    free(runs);
    free(o.extra);
    return status;
}
