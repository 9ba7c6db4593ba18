/*
 * cmd_run.c -- `chipsim run`: resolve the configuration, build the machine,
 * run it, print the resolved configuration, a summary table and (with
 * --stats) every counter, and write the JSON result (--json) atomically.
 * Bad input exits 2 before anything is written; a deadlock exits 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/setup.h"
#include "engine/sim.h"
#include "gpu/memsys.h"
#include "stats/report.h"
#include "workload/synth.h"

struct run {
    struct cfg cfg;
    struct stats st;
    struct sim s;
    struct memsys ms;
    struct synth g;
    double wall_s;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int build(struct run *r, struct err *e)
{
    const struct cfg_sec *simsec = cfg_sec(&r->cfg, "sim");
    sim_init(&r->s, cfg_uint(simsec, "seed"));
    req_pool_init(&r->s, 4096);
    stats_init(&r->st);
    r->st.keep_sections = cfg_bool(simsec, "per_kernel_stats");
    r->s.stats = &r->st;
    struct synth_params sp;
    if (memsys_build(&r->ms, &r->s, &r->cfg, e) ||
        synth_params_from_cfg(cfg_sec(&r->cfg, "synth"), &sp, e))
        return -1;
    synth_init(&r->g, &r->s, &r->ms, &sp);
    r->s.watchdog_ps = (ps_t)(cfg_float(simsec, "watchdog_us") * 1e6);
    memsys_reg_stats(&r->ms, &r->st);
    synth_reg_stats(&r->g, &r->st, "synth");
    return 0;
}

static json_t *summary_json(const struct run *r)
{
    const struct synth *g = &r->g;
    const struct stats *st = &r->st;
    ps_t span = g->last_done - g->first_issue;
    uint64_t cycles = span / r->ms.gpu_clk.period;
    double avg_lat = g->st.completed ? (double)g->st.latency_ps / (double)g->st.completed /
                                           (double)r->ms.gpu_clk.period : 0;
    double gbps = span ? (double)g->st.bytes / (double)span * 1e3 : 0;
    return json_pack("{s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                     "cycles", (json_int_t)cycles, "requests", (json_int_t)g->st.completed,
                     "avg_latency_cycles", avg_lat, "achieved_gbps", gbps,
                     "l1_accesses", (json_int_t)stats_sum(st, "l1d.accesses"),
                     "l1_hits", (json_int_t)memsys_hits(st, "l1d"),
                     "l2_accesses", (json_int_t)stats_sum(st, "l2.accesses"),
                     "l2_hits", (json_int_t)memsys_hits(st, "l2"),
                     "l3_accesses", (json_int_t)stats_sum(st, "l3.accesses"),
                     "l3_hits", (json_int_t)memsys_hits(st, "l3"),
                     "dram_reads", (json_int_t)stats_sum(st, "dram.reads"),
                     "dram_writes", (json_int_t)stats_sum(st, "dram.writes"),
                     "flits_l1_l2", (json_int_t)stats_sum(st, "flits_l1_l2"),
                     "flits_l2_l3", (json_int_t)stats_sum(st, "flits_l2_l3"),
                     "flits_remote", (json_int_t)stats_sum(st, "flits_remote"));
}

static json_t *sim_json(const struct run *r)
{
    double w = r->wall_s > 0 ? r->wall_s : 1e-9;
    return json_pack("{s:f, s:I, s:I, s:f, s:f, s:f, s:I, s:s}", "wall_s", r->wall_s,
                     "events", (json_int_t)r->s.events, "sim_time_ps", (json_int_t)r->s.now,
                     "events_per_s", (double)r->s.events / w, "warp_insts_per_s", 0.0,
                     "mem_reqs_per_s", (double)r->g.st.completed / w,
                     "peak_rss_kib", (json_int_t)report_peak_rss_kib(), "version",
                     CHIPSIM_VERSION);
}

static void pct(FILE *o, const char *what, json_t *sum, const char *acc, const char *hit)
{
    json_int_t a = json_integer_value(json_object_get(sum, acc));
    json_int_t h = json_integer_value(json_object_get(sum, hit));
    fprintf(o, "  %-22s %14lld accesses %7.2f%% hits\n", what, (long long)a,
            a ? 100.0 * (double)h / (double)a : 0.0);
}

static void print_table(FILE *o, json_t *sum, json_t *simj)
{
    fprintf(o, "\n== summary ==\n");
    fprintf(o, "  %-22s %14lld\n", "cycles", (long long)json_integer_value(json_object_get(sum, "cycles")));
    fprintf(o, "  %-22s %14lld\n", "requests", (long long)json_integer_value(json_object_get(sum, "requests")));
    fprintf(o, "  %-22s %14.1f cycles\n", "avg load latency",
            json_real_value(json_object_get(sum, "avg_latency_cycles")));
    fprintf(o, "  %-22s %14.1f GB/s\n", "achieved bandwidth",
            json_real_value(json_object_get(sum, "achieved_gbps")));
    pct(o, "L1D", sum, "l1_accesses", "l1_hits");
    pct(o, "L2", sum, "l2_accesses", "l2_hits");
    pct(o, "L3", sum, "l3_accesses", "l3_hits");
    fprintf(o, "  %-22s %14lld reads %lld writes\n", "DRAM",
            (long long)json_integer_value(json_object_get(sum, "dram_reads")),
            (long long)json_integer_value(json_object_get(sum, "dram_writes")));
    fprintf(o, "  %-22s %14lld L1-L2 %lld L2-L3 %lld remote\n", "flits",
            (long long)json_integer_value(json_object_get(sum, "flits_l1_l2")),
            (long long)json_integer_value(json_object_get(sum, "flits_l2_l3")),
            (long long)json_integer_value(json_object_get(sum, "flits_remote")));
    fprintf(o, "\n== engine ==\n  %.3f s wall, %lld events (%.2f M/s), %.2f M requests/s, peak RSS %lld KiB\n",
            json_real_value(json_object_get(simj, "wall_s")),
            (long long)json_integer_value(json_object_get(simj, "events")),
            json_real_value(json_object_get(simj, "events_per_s")) / 1e6,
            json_real_value(json_object_get(simj, "mem_reqs_per_s")) / 1e6,
            (long long)json_integer_value(json_object_get(simj, "peak_rss_kib")));
}

static void teardown(struct run *r)
{
    synth_free(&r->g);
    memsys_free(&r->ms);
    sim_destroy(&r->s);
    stats_free(&r->st);
    cfg_free(&r->cfg);
}

int cli_run(int argc, char **argv)
{
    struct run_opts o;
    struct err e;
    static struct run r;
    r = (struct run){0};
    cfg_init(&r.cfg);
    int status = EXIT_USAGE;
    if (setup_parse_args(argc, argv, &o, &e) || setup_config(&r.cfg, &o, &e) || build(&r, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        goto out;
    }
    if (!o.quiet) {
        printf("# chipsim %s: resolved configuration\n", CHIPSIM_VERSION);
        cfg_print_ini(&r.cfg, stdout);
    }
    double t0 = now_s();
    synth_start(&r.g);
    enum sim_status ss = sim_run(&r.s, 0);
    r.wall_s = now_s() - t0;
    if (ss != SIM_DONE) {
        fprintf(stderr, "chipsim: simulation failed (deadlock); no results written\n");
        status = EXIT_SIMFAIL;
        goto out;
    }
    stats_section_end(&r.st, "run");
    json_t *sum = summary_json(&r), *simj = sim_json(&r);
    print_table(stdout, sum, simj);
    if (o.print_stats) {
        printf("\n== stats ==\n");
        stats_print_text(&r.st, stdout);
    }
    status = EXIT_OK;
    if (o.json) {
        json_t *root = json_pack("{s:o, s:O, s:o, s:O}", "config", cfg_to_json(&r.cfg), "summary",
                                 sum, "stats", stats_to_json(&r.st), "sim", simj);
        if (json_write_atomic(o.json, root, &e)) {
            fprintf(stderr, "chipsim: %s\n", e.msg);
            status = EXIT_USAGE;
        }
        json_decref(root);
    }
    json_decref(sum);
    json_decref(simj);
out:
    setup_free_args(&o);
    teardown(&r);
    return status;
}
