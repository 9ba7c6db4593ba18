/*
 * cmd_run.c -- `chipsim run`: resolve the configuration, build the machine
 * and the workload, run every kernel, then print the resolved configuration,
 * a summary table and (with --stats) every counter, and write the JSON result
 * (--json) atomically. Bad input exits 2 before anything is written; a
 * deadlock or a stale read found by the checker is reported (a deadlock exits
 * 3 with no result file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/report.h"
#include "cli/setup.h"
#include "gpu/gpu.h"
#include "stats/report.h"
#include "workload/wl.h"

struct run {
    struct setup_machine m;
    double t0, wall_s, last_progress;
    bool progress;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* On a terminal, a progress line: the kernel and the share of its
 * work-groups finished, simulated time, wall time, speed and, when the
 * workload knows how many kernels it has, the ETA. */
static void progress(void *obj)
{
    struct run *r = obj;
    double t = now_s();
    if (t - r->last_progress < 0.5)
        return;
    r->last_progress = t;
    const struct cp *cp = &r->m.g.cp;
    size_t total = r->m.wl->kernels ? r->m.wl->kernels(r->m.wl_self) : 0;
    bool inflight = cp->running && cp->wgs_left;
    uint32_t nwg = inflight ? kernel_nwg(&cp->k) : 0;
    double part = nwg ? 1.0 - (double)cp->wgs_left / nwg : 1;
    double done = (double)cp->nkernel_ps + (inflight ? part : 0);
    char of[32] = "", eta[48] = "";
    if (total) {
        snprintf(of, sizeof of, "/%zu", total);
        if (done > 0.01) {
            int left = (int)((t - r->t0) * ((double)total - done) / done);
            snprintf(eta, sizeof eta, ", ETA %dm%02ds", left / 60, left % 60);
        }
    }
    fprintf(stderr, "\r\033[Kkernel %zu%s (%.0f%% of its work-groups), %.1f us simulated, "
                    "%.0f s, %.2f M warp insts/s%s", cp->nkernel_ps + inflight, of,
            100 * part, (double)r->m.s.now / 1e6, t - r->t0,
            (double)stats_sum(&r->m.st, "core.warp_insts") / (t - r->t0) / 1e6, eta);
    fflush(stderr);
}

static void kernel_done(void *obj, unsigned id, const struct kernel *k)
{
    struct run *r = obj;
    if (r->m.st.keep_sections) {
        char name[80];
        snprintf(name, sizeof name, "kernel%u.%s", id, k->name);
        stats_section_end(&r->m.st, name);
    }
    if (r->progress)
        progress(r);
}

static json_t *sim_json(const struct run *r)
{
    double w = r->wall_s > 0 ? r->wall_s : 1e-9;
    uint64_t insts = stats_sum(&r->m.st, "core.warp_insts");
    uint64_t reqs = stats_sum(&r->m.st, "l1d.accesses");
    return json_pack("{s:f, s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:s}", "wall_s", r->wall_s,
                     "events", (json_int_t)r->m.s.events, "sim_time_ps", (json_int_t)r->m.s.now,
                     "events_per_s", (double)r->m.s.events / w, "warp_insts_per_s",
                     (double)insts / w, "mem_reqs_per_s", (double)reqs / w, "peak_rss_kib",
                     (json_int_t)report_peak_rss_kib(), "footprint_b",
                     (json_int_t)wl_footprint(&r->m.env), "version", CHIPSIM_VERSION);
}

static int finish(struct run *r, const struct run_opts *o, struct err *e)
{
    json_t *sum = gpu_summary(&r->m.g, &r->m.st), *simj = sim_json(r);
    report_print_summary(stdout, sum, simj);
    if (o->print_stats) {
        printf("\n== stats ==\n");
        stats_print_text(&r->m.st, stdout);
    }
    chk_print_reports(&r->m.g.chk, stderr);
    int status = EXIT_OK;
    if (o->json) {
        json_t *root = json_pack("{s:o, s:O, s:o, s:O}", "config", cfg_to_json(&r->m.cfg),
                                 "summary", sum, "stats", stats_to_json(&r->m.st), "sim", simj);
        if (json_write_atomic(o->json, root, e)) {
            fprintf(stderr, "chipsim: %s\n", e->msg);
            status = EXIT_USAGE;
        }
        json_decref(root);
    }
    json_decref(sum);
    json_decref(simj);
    return status;
}

enum { O_CONFIG = 1, O_PARAM, O_WORKLOAD, O_TRACE, O_SMALL, O_JSON, O_STATS, O_QUIET };

static const struct cli_opt run_opts[] = {
    {O_CONFIG, 'c', "config", "FILE",
     "load an INI configuration (repeatable; a later file overrides an earlier one;\n"
     "A.ini+B.ini loads A, then B)"},
    {O_PARAM, 'p', "param", "SECTION.KEY=VALUE",
     "set one key after the files (repeatable; `chipsim list params`)"},
    {O_WORKLOAD, 'w', "workload", "NAME",
     "the workload (`chipsim list workloads`); same as -p workload.name=NAME"},
    {O_TRACE, 0, "trace", "LIST",
     "replay an Accel-Sim trace, DIR/kernelslist.g\n(same as -w trace -p workload.path=LIST)"},
    {O_SMALL, 0, "small", NULL,
     "the workload at its small (test) size: its parameters come after the\nfiles and "
     "before -p"},
    {O_JSON, 0, "json", "FILE",
     "write the configuration, summary, every counter and the run's\nspeed as JSON (checked "
     "before the run starts)"},
    {O_STATS, 0, "stats", NULL, "also print every counter"},
    {O_QUIET, 'q', "quiet", NULL, "do not print the resolved configuration"},
    {0},
};

static const struct cli_optgroup run_groups[] = {{NULL, run_opts}, {NULL, NULL}};

const struct cli_cmd cli_cmd_run = {
    .name = "run",
    .args = "[-c FILE.ini]... [-p SECTION.KEY=VALUE]... [-w NAME | --trace LIST] [--small] "
            "[--json FILE]",
    .summary = "run one simulation and print its summary",
    .about = "Resolves the configuration (built-in defaults, then each -c file in order, then\n"
             "-w/--trace, then --small, then each -p), builds the machine and the workload,\n"
             "runs every kernel and prints the resolved configuration and a summary\n"
             "(docs/summary.md). Exit status: 0 ok, 2 bad input (nothing written), 3\n"
             "simulation failure (deadlock).",
    .groups = run_groups,
    .fn = cli_run,
};

/* 0, or CLI_HELP / CLI_BAD (message printed). */
static int parse_args(int argc, char **argv, struct run_opts *o)
{
    *o = (struct run_opts){0};
    o->configs = xcalloc((size_t)argc, sizeof *o->configs);
    o->overrides = xcalloc((size_t)argc, sizeof *o->overrides);
    struct cli_parser p;
    cli_parser_init(&p, &cli_cmd_run, argc, argv);
    char *v;
    int id;
    while ((id = cli_next(&p, &v)) > 0) {
        switch (id) {
        case O_CONFIG: o->configs[o->nconfigs++] = v; break;
        case O_PARAM: o->overrides[o->noverrides++] = v; break;
        case O_WORKLOAD: o->workload = v; break;
        case O_TRACE: o->trace = v; break;
        case O_SMALL: o->small = true; break;
        case O_JSON: o->json = v; break;
        case O_STATS: o->print_stats = true; break;
        case O_QUIET: o->quiet = true; break;
        }
    }
    if (id == CLI_END && p.npos)
        id = cli_bad(&cli_cmd_run, "unexpected argument '%s'%s", p.pos[0],
                     strstr(p.pos[0], "kernelslist") ? " (a trace is given with --trace)" : "");
    cli_parser_free(&p);
    return id;
}

int cli_run(int argc, char **argv)
{
    struct run_opts o;
    struct err e;
    static struct run r;
    r = (struct run){0};
    cfg_init(&r.m.cfg);
    int status = EXIT_USAGE, prc = parse_args(argc, argv, &o);
    if (prc) {
        status = prc == CLI_HELP ? EXIT_OK : EXIT_USAGE;
        goto out;
    }
    if ((o.json && cli_check_out_file(o.json, "--json", &e)) || setup_config(&r.m.cfg, &o, &e) ||
        setup_build(&r.m, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        goto out;
    }
    if (!o.quiet) {
        printf("# chipsim %s: resolved configuration\n", CHIPSIM_VERSION);
        cfg_print_ini(&r.m.cfg, stdout);
    }
    r.progress = isatty(2);
    r.t0 = r.last_progress = now_s();
    if (r.progress) {
        r.m.s.tick = progress;
        r.m.s.tick_obj = &r;
    }
    cp_start(&r.m.g.cp, setup_next_kernel, &r.m, kernel_done, &r);
    enum sim_status ss = sim_run(&r.m.s, 0);
    r.wall_s = now_s() - r.t0;
    if (r.progress && r.last_progress > r.t0)
        fprintf(stderr, "\n");
    if (r.m.env.failed) {
        fprintf(stderr, "chipsim: workload %s: %s; no results written\n", r.m.wl->name,
                r.m.env.err.msg);
        goto out;
    }
    if (ss != SIM_DONE || !r.m.g.cp.finished) {
        fprintf(stderr, "chipsim: simulation failed (deadlock); no results written\n");
        status = EXIT_SIMFAIL;
        goto out;
    }
    status = finish(&r, &o, &e);
out:
    setup_free_args(&o);
    setup_teardown(&r.m);
    return status;
}
