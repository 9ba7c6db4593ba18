/*
 * cmd_study.c -- `chipsim study cpelide`: a paper's whole evaluation in one
 * command. The matrix is the bundled sweep file studies/NAME.ini (found
 * beside the executable's ../, else in the current directory); --quick
 * keeps its 4-chiplet slice; --full runs every workload at its Table II
 * size and machine (the file's [workload NAME] sections are not applied);
 * --d4 artifact runs every run under the artifact's reading of spec cpelide
 * D4 (the overrides of configs/d4-artifact.ini). The runs go to local
 * workers or, with --backend slurm, to a Slurm job array (sweep_args.h).
 * Results go to DIR/results.db (resumable), DIR/results.csv, and the summary
 * table and plots that tools/study_report.py makes from the CSV
 * (DIR/summary.txt, and the plots as PNG and PDF); DIR defaults to
 * results/NAME, with -full and -artifact appended as chosen.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "sweep.h"
#include "sweep_args.h"

struct study_args {
    const char *name, *out, *file;
    bool quick, full, artifact;
    struct sweep_args sa;
};

static int report(const char *out, bool quick)
{
    char csv[PATH_MAX + 16];
    snprintf(csv, sizeof csv, "%s/results.csv", out);
    const char *args[] = {"--csv", csv, "--out", out, quick ? "--chiplets" : NULL, "4", NULL};
    return cli_run_python("tools/study_report.py", args);
}

enum { O_QUICK = 1, O_FULL, O_D4, O_OUT, O_FILE };

static const struct cli_opt study_opts[] = {
    {O_QUICK, 0, "quick", NULL, "only the 4-chiplet runs (about 8 minutes on 2 cores)"},
    {O_FULL, 0, "full", NULL, "every workload at its Table II size and machine (long)"},
    {O_D4, 0, "d4", "paper|artifact",
     "which reading of the CPElide spec's decision D4 (default\npaper; docs/study.md)"},
    {O_OUT, 0, "out", "DIR",
     "results, summary and plots (default results/cpelide, with\n-full and -artifact appended)"},
    {O_FILE, 0, "file", "STUDY.ini", "the study's sweep file (default the bundled studies/cpelide.ini)"},
    {0},
};

static const struct cli_optgroup study_groups[] = {
    {NULL, study_opts}, {"how runs execute", sweep_exec_opts}, {NULL, NULL}};

const struct cli_cmd cli_cmd_study = {
    .name = "study",
    .args = "cpelide [--quick] [--full] [--d4 paper|artifact] [--out DIR] [--jobs N]",
    .summary = "a paper's whole evaluation: sweep, summary table and plots (resumable)",
    .about = "Runs the CPElide evaluation (docs/study.md): the 24 workloads under viper,\n"
             "cpelide, hmg and the ideal bound on 2, 4, 6 and 7 chiplets, into DIR/results.db,\n"
             "then writes DIR/results.csv, DIR/summary.txt and the figures (PNG and PDF).\n"
             "Started again, it runs only what is missing.",
    .groups = study_groups,
    .fn = cli_study,
};

/* 0, or CLI_HELP / CLI_BAD (message printed). */
static int parse(int argc, char **argv, struct study_args *x)
{
    const struct cli_cmd *c = &cli_cmd_study;
    struct cli_parser p;
    cli_parser_init(&p, c, argc, argv);
    char *v;
    int id;
    while ((id = cli_next(&p, &v)) > 0) {
        if (id == O_QUICK)
            x->quick = true;
        else if (id == O_FULL)
            x->full = true;
        else if (id == O_OUT)
            x->out = v;
        else if (id == O_FILE)
            x->file = v;
        else if (id == O_D4 && !(x->artifact = !strcmp(v, "artifact")) && strcmp(v, "paper"))
            id = cli_bad(c, "--d4 %s: expected paper or artifact", v);
        else if (id != O_D4 && sweep_args_apply(c, &x->sa, id, v))
            id = CLI_BAD;
        if (id < 0)
            break;
    }
    if (id == CLI_END) {
        if (p.npos > 1)
            id = cli_bad(c, "one study, not %d arguments", p.npos);
        else if (!p.npos || strcmp(p.pos[0], "cpelide"))
            id = cli_bad(c, "%s%s%s (the studies: cpelide)", p.npos ? "unknown study '" : "which study?",
                         p.npos ? p.pos[0] : "", p.npos ? "'" : "");
        else
            x->name = p.pos[0];
    }
    cli_parser_free(&p);
    if (id == CLI_END && sweep_args_backend(&x->sa))
        id = CLI_BAD;
    return id;
}

/* The runs: the study file, its 4-chiplet slice, its D4 reading. */
static int load(const struct study_args *x, struct sweep *sw)
{
    char path[PATH_MAX];
    if (!x->file && !cli_find_bundled("studies/cpelide.ini", path, sizeof path)) {
        fprintf(stderr, "chipsim: studies/cpelide.ini not found\n");
        return -1;
    }
    struct err e;
    if (sweep_load_sections(sw, x->file ? x->file : path, !x->full, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        return -1;
    }
    if (x->quick)
        sweep_filter(sw, "gpu.chiplets=4");
    if (x->artifact) { /* the overrides of configs/d4-artifact.ini */
        sweep_add_override(sw, "coherence.remote_read_alloc=requester_yes");
        sweep_add_override(sw, "coherence.remote_store=write_back");
    }
    return 0;
}

/* Execute the runs not yet stored; *done: all are stored (ok or failed),
 * so the summary can be written. */
static int run(struct study_args *x, struct sweep *sw, const char *out, bool *done)
{
    *done = false;
    char buf[PATH_MAX + 32];
    if (cli_mkdirs(out)) {
        fprintf(stderr, "chipsim: %s: cannot create the output directory\n", out);
        return EXIT_USAGE;
    }
    free(sw->db);
    snprintf(buf, sizeof buf, "%s/results.db", out);
    sw->db = strdup(buf);
    struct sweep_result res;
    struct err e;
    snprintf(buf, sizeof buf, "%s/results.csv", out);
    if (sweep_args_execute(sw, &x->sa, &res, &e) || cli_write_csv(sw->db, buf, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        return EXIT_SIMFAIL;
    }
    if (res.queued || res.lost) {
        fprintf(stderr, "study: %zu runs in Slurm's queue or lost; the same command collects "
                        "them (and submits the lost again), then writes the summary\n",
                res.queued + res.lost);
        return res.lost ? EXIT_SIMFAIL : EXIT_OK;
    }
    *done = true;
    if (res.failed) {
        fprintf(stderr, "study: %zu runs failed (their errors are in %s, table runs)\n",
                res.failed, sw->db);
        return EXIT_SIMFAIL;
    }
    return EXIT_OK;
}

int cli_study(int argc, char **argv)
{
    struct study_args x = {.sa = {.o = {.jobs = cli_default_jobs(), .label = "study"},
                                  .so = {.poll_s = 10}}};
    struct sweep sw;
    int prc = parse(argc, argv, &x);
    if (prc) {
        free(x.sa.sbatch);
        return prc == CLI_HELP ? EXIT_OK : EXIT_USAGE;
    }
    char dflt[PATH_MAX];
    snprintf(dflt, sizeof dflt, "results/%s%s%s", x.name, x.full ? "-full" : "",
             x.artifact ? "-artifact" : "");
    const char *out = x.out ? x.out : dflt;
    struct err e;
    if (cli_check_out_dir(out, "--out", &e)) {
        fprintf(stderr, "chipsim study: %s\n", e.msg);
        free(x.sa.sbatch);
        return EXIT_USAGE;
    }
    if (load(&x, &sw)) {
        free(x.sa.sbatch);
        return EXIT_USAGE;
    }
    bool done;
    int status = run(&x, &sw, out, &done);
    sweep_free(&sw);
    free(x.sa.sbatch);
    if (!done)
        return status;
    char buf[PATH_MAX + 32];
    snprintf(buf, sizeof buf, "%s/summary.txt", out);
    if (!x.sa.o.quiet)
        fprintf(stderr, "study: writing the summary table and the figures\n");
    if (report(out, x.quick) || cli_print_file(buf))
        return EXIT_SIMFAIL;
    printf("\nresults: %s/results.csv (one row per run), %s/results.db (SQLite)\n"
           "plots:   %s/*.png and *.pdf\n", out, out, out);
    return status;
}
