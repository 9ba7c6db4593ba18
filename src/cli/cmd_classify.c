/*
 * cmd_classify.c -- `chipsim classify`: inter-kernel reuse of each workload
 * (spec cpelide 7.2, D16). Every workload runs twice on the chosen machine
 * (default configs/mcm-4chiplet.ini): under `viper`, whose kernel-boundary
 * flushes and invalidations empty every L2, and under `ideal` with
 * `caching = d4` (viper's request path), which keeps L2 contents across
 * kernels and nothing else. The relative reduction of the L2 miss rate
 * from viper to ideal measures the reuse a kernel finds in the L2 from the
 * kernels before it; a reduction of at least the threshold (default 15%)
 * classifies the workload as moderate-to-high reuse, else low reuse.
 * Workloads that read their kernels from files (a trace: `-w trace -p
 * workload.path=...`) run only when named. Runs are independent worker
 * processes (sweep_pool), `--jobs` at a time. `--study [FILE]` also runs
 * each workload at the size a study file gives it (default
 * studies/cpelide.ini: its [workload NAME] parameters and machine
 * overrides), so that a downsized study can be checked to keep each
 * workload's Table II class.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/cls_ladm.h"
#include "cli/opts.h"
#include "cli/setup.h"
#include "sweep.h"
#include "sweep_db.h"
#include "workload/wl.h"

struct cls_opts {
    const char *config;
    const char **extra;      /* -p overrides passed to every run */
    size_t nextra;
    const char *only;        /* comma-separated workload names, or NULL for all */
    bool small;              /* each workload's small size */
    unsigned jobs;
    double threshold;        /* percent */
    const char *study;       /* --study: the study file, or NULL */
    bool ladm;               /* --ladm: the locality of each kernel argument instead */
    struct sweep sw;         /* its runs, when loaded */
};

struct cls_run {
    const struct wl_ops *w;
    const char *scheme;
    const struct sweep_run *size; /* the study's run of w whose sizes to take, or NULL */
    int status;
    double miss;             /* L2 miss rate, when status is 0 */
};

enum { O_CONFIG = 1, O_PARAM, O_WORKLOADS, O_SMALL, O_STUDY, O_JOBS, O_THRESHOLD, O_LADM };

static const struct cli_opt cls_opts_tab[] = {
    {O_CONFIG, 'c', "config", "FILE", "the machine (default configs/mcm-4chiplet.ini)"},
    {O_PARAM, 'p', "param", "SECTION.KEY=VALUE", "set one key in every run (repeatable)"},
    {O_WORKLOADS, 'w', "workloads", "a,b,...",
     "only these workloads (default: every workload model; a trace\nruns only when named)"},
    {O_SMALL, 0, "small", NULL, "each workload at its small size (fast)"},
    {O_STUDY, 0, "study", "[=FILE]",
     "also at the sizes a study file gives the workloads (default\nstudies/cpelide.ini)"},
    {O_JOBS, 0, "jobs", "N", "parallel runs (default: the number of CPUs)"},
    {O_THRESHOLD, 0, "threshold", "PCT",
     "L2 miss-rate reduction that makes moderate-to-high reuse\n(default 15, spec D16)"},
    {O_LADM, 0, "ladm", NULL,
     "instead: the LADM locality class of every argument of every\nkernel, from its "
     "description's index expressions (no\nsimulation; docs/ladm.md)"},
    {0},
};

static const struct cli_optgroup cls_groups[] = {{NULL, cls_opts_tab}, {NULL, NULL}};

const struct cli_cmd cli_cmd_classify = {
    .name = "classify",
    .args = "[-c FILE] [-w a,b] [--small] [--study[=FILE]] [--jobs N] [--ladm]",
    .summary = "inter-kernel reuse class of each workload (viper vs no-sync)",
    .about = "Runs every workload under viper (every L2 emptied at every kernel boundary) and\n"
             "under the no-sync reference (L2 contents kept), and classifies it by the relative\n"
             "reduction of its L2 miss rate: moderate-to-high reuse at the threshold or above,\n"
             "else low (docs/study.md).",
    .groups = cls_groups,
    .fn = cli_classify,
};

/* 0, or CLI_HELP / CLI_BAD (message printed). */
static int parse(int argc, char **argv, struct cls_opts *o)
{
    *o = (struct cls_opts){.config = "configs/mcm-4chiplet.ini", .jobs = cli_default_jobs(),
                           .threshold = 15};
    o->extra = xcalloc((size_t)argc, sizeof *o->extra);
    const struct cli_cmd *c = &cli_cmd_classify;
    struct cli_parser p;
    cli_parser_init(&p, c, argc, argv);
    char *v, *end;
    int id;
    while ((id = cli_next(&p, &v)) > 0) {
        switch (id) {
        case O_CONFIG: o->config = v; break;
        case O_PARAM: o->extra[o->nextra++] = v; break;
        case O_WORKLOADS: o->only = v; break;
        case O_SMALL: o->small = true; break;
        case O_LADM: o->ladm = true; break;
        case O_STUDY: o->study = v ? v : ""; break;
        case O_JOBS:
            if (cli_uint_arg(c, "--jobs", v, 1, 1024, &o->jobs))
                id = CLI_BAD;
            break;
        case O_THRESHOLD:
            o->threshold = strtod(v, &end);
            if (*end || end == v || !(o->threshold > 0 && o->threshold < 100))
                id = cli_bad(c, "--threshold %s: expected a percentage above 0 and below 100", v);
            break;
        }
        if (id < 0)
            break;
    }
    /* `--study FILE` as well as `--study=FILE` */
    if (id == CLI_END && p.npos == 1 && o->study && !*o->study)
        o->study = p.pos[0];
    else if (id == CLI_END && p.npos)
        id = cli_bad(c, "unexpected argument '%s'", p.pos[0]);
    cli_parser_free(&p);
    return id;
}

static bool selected(const void *sel, const struct wl_ops *w)
{
    const struct cls_opts *o = sel;
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

/* A study override that sets the workload's size or its machine (not the
 * scheme or chiplet count the study varies). */
static bool size_override(const char *ov)
{
    return strncmp(ov, "coherence.", 10) && strncmp(ov, "gpu.chiplets=", 13);
}

/* The overrides of one run: the scheme, the small size, the -p options,
 * the study's sizes. */
static void describe(const struct cls_opts *o, const struct cls_run *r, struct sweep_run *sr)
{
    size_t n = 2 + o->nextra + 1 + (r->size ? r->size->noverrides : 0);
    n += setup_small_overrides(r->w, NULL);
    *sr = (struct sweep_run){.key = xstrdup(r->w->name), .config = xstrdup(o->config),
                             .workload = xstrdup(r->w->name),
                             .overrides = xcalloc(n, sizeof(char *))};
    sr->overrides[sr->noverrides++] = xasprintf("coherence.scheme=%s", r->scheme);
    if (o->small)
        sr->noverrides += setup_small_overrides(r->w, sr->overrides + sr->noverrides);
    for (size_t i = 0; r->size && i < r->size->noverrides; i++)
        if (size_override(r->size->overrides[i]))
            sr->overrides[sr->noverrides++] = xstrdup(r->size->overrides[i]);
    if (!strcmp(r->scheme, "ideal"))
        sr->overrides[sr->noverrides++] = xstrdup("coherence.caching=d4");
    for (size_t i = 0; i < o->nextra; i++)
        sr->overrides[sr->noverrides++] = xstrdup(o->extra[i]);
}

/* The study's run of w that gives its size, if the study sizes it apart
 * from its defaults. */
static const struct sweep_run *study_size(const struct cls_opts *o, const struct wl_ops *w)
{
    for (size_t i = 0; i < o->sw.nruns; i++) {
        const struct sweep_run *r = &o->sw.runs[i];
        if (strcmp(r->workload, w->name))
            continue;
        for (size_t j = 0; j < r->noverrides; j++)
            if (size_override(r->overrides[j]))
                return r;
        return NULL;
    }
    return NULL;
}

struct cls_ctx {
    struct cls_run *runs;
    size_t done, n;
};

static int run_done(void *p, size_t i, const struct sweep_outcome *out)
{
    struct cls_ctx *x = p;
    struct cls_run *r = &x->runs[i];
    r->status = out->status;
    json_t *s = out->result ? json_object_get(out->result, "summary") : NULL;
    if (!r->status && !s)
        r->status = EXIT_SIMFAIL;
    if (s) {
        double acc = (double)json_integer_value(json_object_get(s, "l2_accesses"));
        double hit = (double)json_integer_value(json_object_get(s, "l2_hits"));
        r->miss = acc > 0 ? 1.0 - hit / acc : 0;
    }
    fprintf(stderr, "\rclassify: %zu/%zu runs done", ++x->done, x->n);
    return 0;
}

static int run_all(const struct cls_opts *o, struct cls_run *runs, size_t n)
{
    char dir[] = "/tmp/chipsim-classify-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "chipsim classify: cannot create a scratch directory in /tmp\n");
        return -1;
    }
    struct sweep_run *sr = xcalloc(n, sizeof *sr);
    size_t *todo = xcalloc(n, sizeof *todo);
    for (size_t i = 0; i < n; i++) {
        describe(o, &runs[i], &sr[i]);
        todo[i] = i;
    }
    struct cls_ctx x = {runs, 0, n};
    sweep_pool(sr, todo, n, o->jobs, dir, "classify", run_done, &x);
    fprintf(stderr, "\n");
    rmdir(dir);
    for (size_t i = 0; i < n; i++)
        sweep_run_free(&sr[i]);
    free(sr);
    free(todo);
    return 0;
}

static void report(const struct cls_opts *o, struct cls_run *runs, size_t n)
{
    printf("| workload | size | viper L2 miss rate | ideal L2 miss rate | reduction | class |\n");
    printf("|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i += 2) {
        const struct cls_run *v = &runs[i], *d = &runs[i + 1];
        const char *size = v->size ? "study" : o->small ? "small" : "default";
        if (v->status || d->status) {
            printf("| %s | %s | failed (exit %d) | failed (exit %d) | | |\n", v->w->name, size,
                   v->status, d->status);
            continue;
        }
        double red = v->miss > 0 ? 100.0 * (v->miss - d->miss) / v->miss : 0;
        printf("| %s | %s | %.1f%% | %.1f%% | %.1f%% | %s |\n", v->w->name, size, 100 * v->miss,
               100 * d->miss, red, red >= o->threshold ? "moderate-to-high" : "low");
    }
    printf("\nReuse: relative L2 miss-rate reduction from viper to ideal (caching = d4: viper's "
           "request path, L2 contents kept across kernels); threshold %.0f%% (spec cpelide "
           "D16). Size: the workload's default (Table II) or small size, or the study's.\n",
           o->threshold);
}

static int load_study(struct cls_opts *o)
{
    char path[4096];
    const char *file = o->study;
    if (!*file) {
        if (!cli_find_bundled("studies/cpelide.ini", path, sizeof path)) {
            fprintf(stderr, "chipsim: studies/cpelide.ini not found\n");
            return -1;
        }
        file = path;
    }
    struct err e;
    if (sweep_load(&o->sw, file, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        return -1;
    }
    return 0;
}

/* viper and ideal at the default (or small) size, and at the study's size
 * where the study gives one. */
static size_t plan(const struct cls_opts *o, struct cls_run *runs)
{
    size_t k = 0;
    for (const struct wl_ops *const *w = wl_registry; *w; w++) {
        if (!selected(o, *w))
            continue;
        const struct sweep_run *st = o->study ? study_size(o, *w) : NULL;
        for (int sized = 0; sized < 1 + (st != NULL); sized++)
            for (int s = 0; s < 2; s++, k++)
                if (runs)
                    runs[k] = (struct cls_run){.w = *w, .scheme = s ? "ideal" : "viper",
                                               .size = sized ? st : NULL};
    }
    return k;
}

static int finish(struct cls_opts *o, struct cls_run *runs, int status)
{
    free(runs);
    free(o->extra);
    if (o->study)
        sweep_free(&o->sw);
    return status;
}

int cli_classify(int argc, char **argv)
{
    struct cls_opts o;
    int prc = parse(argc, argv, &o);
    if (prc) {
        free(o.extra);
        return prc == CLI_HELP ? EXIT_OK : EXIT_USAGE;
    }
    if (o.ladm) {
        struct cls_ladm_args a = {.config = o.config, .extra = o.extra, .nextra = o.nextra,
                                  .small = o.small, .selected = selected, .sel = &o};
        if (!plan(&o, NULL)) {
            fprintf(stderr, "chipsim classify: no workload matches '%s'\n", o.only);
            return finish(&o, NULL, EXIT_USAGE);
        }
        return finish(&o, NULL, cls_ladm(&a));
    }
    if (o.study && load_study(&o)) {
        o.study = NULL;
        return finish(&o, NULL, EXIT_USAGE);
    }
    size_t n = plan(&o, NULL);
    if (!n) {
        fprintf(stderr, "chipsim classify: no workload matches '%s'\n", o.only);
        return finish(&o, NULL, EXIT_USAGE);
    }
    struct cls_run *runs = calloc(n, sizeof *runs);
    plan(&o, runs);
    if (run_all(&o, runs, n))
        return finish(&o, runs, EXIT_SIMFAIL);
    report(&o, runs, n);
    int status = EXIT_OK;
    for (size_t i = 0; i < n; i++)
        if (runs[i].status)
            status = runs[i].status == EXIT_USAGE ? EXIT_USAGE : EXIT_SIMFAIL;
    return finish(&o, runs, status);
}
