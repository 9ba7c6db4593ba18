/*
 * report.c -- the summary table (see report.h). A figure the summary holds as
 * null (not measured: docs/summary.md) is left out, never shown as 0.
 */
#include "report.h"

#include <stdbool.h>

static bool has(json_t *o, const char *k) { return json_is_number(json_object_get(o, k)); }

static long long geti(json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static double getf(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

static void hits(FILE *o, const char *what, json_t *sum, const char *acc, const char *hit)
{
    if (!has(sum, acc))
        return;
    long long a = geti(sum, acc), h = geti(sum, hit);
    fprintf(o, "  %-24s %14lld accesses", what, a);
    if (a)
        fprintf(o, " %7.2f%% hits", 100.0 * (double)h / (double)a);
    fputc('\n', o);
}

static void count(FILE *o, const char *what, json_t *sum, const char *k)
{
    if (has(sum, k))
        fprintf(o, "  %-24s %14lld\n", what, geti(sum, k));
}

static void time_lines(FILE *o, json_t *sum)
{
    fprintf(o, "  %-24s %14lld (kernels %lld, launch latency %lld)\n", "cycles",
            geti(sum, "cycles"), geti(sum, "kernel_cycles"), geti(sum, "launch_cycles"));
    fprintf(o, "  %-24s %14lld", "kernels", geti(sum, "kernels"));
    if (geti(sum, "kernels") == 1 && has(sum, "kernel_us_median"))
        fprintf(o, " (%.3f us)", getf(sum, "kernel_us_median"));
    else if (has(sum, "kernel_us_median"))
        fprintf(o, " (per kernel: min %.3f, median %.3f, max %.3f us)",
                getf(sum, "kernel_us_min"), getf(sum, "kernel_us_median"),
                getf(sum, "kernel_us_max"));
    fputc('\n', o);
}

static void traffic_lines(FILE *o, json_t *sum)
{
    hits(o, "L1D", sum, "l1_accesses", "l1_hits");
    hits(o, "L2", sum, "l2_accesses", "l2_hits");
    fprintf(o, "  %-24s %14lld L1D %lld L2 %lld DRAM reads %lld DRAM writes\n", "32 B sectors",
            geti(sum, "l1_sectors"), geti(sum, "l2_sectors"), geti(sum, "dram_read_sectors"),
            geti(sum, "dram_write_sectors"));
    count(o, "L2 remote accesses", sum, "l2_remote_accesses");
    hits(o, "L2, data homed here", sum, "l2_local_accesses", "l2_local_hits");
    hits(o, "L2, other chiplet's", sum, "l2_remote_chiplet_accesses", "l2_remote_chiplet_hits");
    hits(o, "L2, other GPU's", sum, "l2_remote_gpu_accesses", "l2_remote_gpu_hits");
    hits(o, "L3", sum, "l3_accesses", "l3_hits");
    fprintf(o, "  %-24s %14lld reads %lld writes\n", "DRAM", geti(sum, "dram_reads"),
            geti(sum, "dram_writes"));
    /* without an L3 the L2's misses go to the DRAM over the same links */
    fprintf(o, "  %-24s %14lld L1-L2 %lld %s", "flits", geti(sum, "flits_l1_l2"),
            geti(sum, "flits_l2_l3"), has(sum, "l3_accesses") ? "L2-L3" : "L2-DRAM");
    if (has(sum, "flits_remote"))
        fprintf(o, " %lld remote", geti(sum, "flits_remote"));
    fputc('\n', o);
}

static void coherence_lines(FILE *o, json_t *sum)
{
    fprintf(o, "  %-24s %14lld flushes %lld invalidates", "L2 operations",
            geti(sum, "l2_flushes"), geti(sum, "l2_invalidates"));
    if (geti(sum, "l2_scoped_flushes") || geti(sum, "l2_scoped_invalidates"))
        fprintf(o, " (and inside kernels: %lld, %lld)", geti(sum, "l2_scoped_flushes"),
                geti(sum, "l2_scoped_invalidates"));
    if (has(sum, "l2_flushes_elided"))
        fprintf(o, " (elided of the baseline's: %lld, %lld)", geti(sum, "l2_flushes_elided"),
                geti(sum, "l2_invalidates_elided"));
    fputc('\n', o);
    long long nk = geti(sum, "kernels");
    fprintf(o, "  %-24s %14.3f us", "coherence time", getf(sum, "coherence_us"));
    if (nk)
        fprintf(o, " (%.3f us per kernel)", getf(sum, "coherence_us") / (double)nk);
    fputc('\n', o);
    json_t *en = json_object_get(sum, "energy_pj");
    fprintf(o, "  %-24s %14.3f uJ (L1I %.3f, L1D %.3f, LDS %.3f, L2 %.3f, NoC %.3f, DRAM %.3f)\n",
            "memory energy", getf(en, "total") / 1e6, getf(en, "l1i") / 1e6, getf(en, "l1d") / 1e6,
            getf(en, "lds") / 1e6, getf(en, "l2") / 1e6, getf(en, "noc") / 1e6,
            getf(en, "dram") / 1e6);
}

void report_print_summary(FILE *o, json_t *sum, json_t *simj)
{
    fprintf(o, "\n== summary ==\n");
    time_lines(o, sum);
    fprintf(o, "  %-24s %14lld\n", "warp instructions", geti(sum, "warp_insts"));
    traffic_lines(o, sum);
    coherence_lines(o, sum);
    if (has(sum, "avg_load_latency_cycles"))
        fprintf(o, "  %-24s %14.1f cycles\n", "avg load latency",
                getf(sum, "avg_load_latency_cycles"));
    if (has(sum, "achieved_gbps"))
        fprintf(o, "  %-24s %14.1f GB/s\n", "achieved bandwidth", getf(sum, "achieved_gbps"));
    count(o, "stale reads", sum, "stale_reads");
    count(o, "annotation violations", sum, "annotation_violations");
    fprintf(o, "\n== engine ==\n  %.3f s wall, %lld events, %.2f M warp insts/s, %.2f M mem "
               "requests/s, peak RSS %lld KiB\n",
            getf(simj, "wall_s"), geti(simj, "events"), getf(simj, "warp_insts_per_s") / 1e6,
            getf(simj, "mem_reqs_per_s") / 1e6, geti(simj, "peak_rss_kib"));
}
