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
#include "sweep.h"
#include "sweep_args.h"

struct study_args {
    const char *name, *out, *file;
    bool quick, full, artifact;
    struct sweep_args sa;
};

static void usage(void)
{
    fprintf(stderr,
            "usage: chipsim study cpelide [--quick] [--full] [--d4 paper|artifact] [--out DIR]\n"
            "                             [--file STUDY.ini] [--jobs N] [--retry-failed] [-q]\n"
            "       chipsim study cpelide [...] --backend slurm [--partition P]\n"
            "                             [--max-parallel N] [--time LIMIT] [--sbatch-arg ARG]...\n"
            "                             [--no-wait] [--poll SECONDS]\n");
}

static int report(const char *out, bool quick)
{
    char csv[PATH_MAX + 16];
    snprintf(csv, sizeof csv, "%s/results.csv", out);
    const char *args[] = {"--csv", csv, "--out", out, quick ? "--chiplets" : NULL, "4", NULL};
    return cli_run_python("tools/study_report.py", args);
}

/* The study's own options; 1 when a is not one of them. */
static int study_option(struct study_args *x, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(a, "--quick"))
        x->quick = true;
    else if (!strcmp(a, "--full"))
        x->full = true;
    else if (v && (!strcmp(a, "--out") || !strcmp(a, "--file") || !strcmp(a, "--d4"))) {
        ++*i;
        if (!strcmp(a, "--out"))
            x->out = v;
        else if (!strcmp(a, "--file"))
            x->file = v;
        else if (!(x->artifact = !strcmp(v, "artifact")) && strcmp(v, "paper")) {
            fprintf(stderr, "chipsim study: --d4 %s: expected paper or artifact\n", v);
            return -1;
        }
    } else
        return 1;
    return 0;
}

static int parse(int argc, char **argv, struct study_args *x)
{
    for (int i = 1; i < argc; i++) {
        int rc = study_option(x, argc, argv, &i);
        if (rc == 1) {
            const char *a = argv[i];
            rc = sweep_args_option(&x->sa, argc, argv, &i);
            if (rc == 1 && (a[0] == '-' || x->name || x->sa.list)) {
                fprintf(stderr, "chipsim study: bad option '%s'\n", a);
                return -1;
            }
            if (rc == 1)
                x->name = a;
        }
        if (rc < 0)
            return -1;
    }
    if (x->sa.db || x->sa.csv || x->sa.list) {
        fprintf(stderr, "chipsim study: --db, --csv and --list are sweep options (the study "
                        "writes DIR/results.db and DIR/results.csv)\n");
        return -1;
    }
    if (!x->name || strcmp(x->name, "cpelide")) {
        fprintf(stderr, "chipsim study: %s (the studies: cpelide)\n",
                x->name ? "unknown study" : "which study?");
        return -1;
    }
    return sweep_args_backend(&x->sa);
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
    if (parse(argc, argv, &x) || load(&x, &sw)) {
        usage();
        free(x.sa.sbatch);
        return EXIT_USAGE;
    }
    char dflt[PATH_MAX];
    snprintf(dflt, sizeof dflt, "results/%s%s%s", x.name, x.full ? "-full" : "",
             x.artifact ? "-artifact" : "");
    const char *out = x.out ? x.out : dflt;
    bool done;
    int status = run(&x, &sw, out, &done);
    sweep_free(&sw);
    free(x.sa.sbatch);
    if (!done)
        return status;
    char buf[PATH_MAX + 32];
    snprintf(buf, sizeof buf, "%s/summary.txt", out);
    if (report(out, x.quick) || cli_print_file(buf))
        return EXIT_SIMFAIL;
    printf("\nresults: %s/results.csv (one row per run), %s/results.db (SQLite)\n"
           "plots:   %s/*.png, *.pdf\n", out, out, out);
    return status;
}
