/*
 * cmd_study.c -- `chipsim study NAME`: a paper's whole evaluation in one
 * command (the studies: struct study_def below). The matrix is the bundled
 * sweep file studies/NAME.ini (found beside the executable's ../, else in
 * the current directory); --quick keeps its quick slice (cpelide: the
 * 4-chiplet runs; or the runs of the matrices named so); --full runs every
 * workload at its paper size and machine (the file's [workload NAME]
 * sections are not applied); cpelide's --d4 artifact runs every run under
 * the artifact's reading of spec cpelide D4 (the overrides of
 * configs/d4-artifact.ini). The runs go to local workers or, with --backend
 * slurm, to a Slurm job array (sweep_args.h). Results go to DIR/results.db
 * (resumable), DIR/results.csv, and the summary table and plots that the
 * study's report script makes from the CSV (DIR/summary.txt, and the plots
 * as PNG and PDF); DIR defaults to results/NAME, with -full and -artifact
 * appended as chosen.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "stats/report.h"
#include "sweep.h"
#include "sweep_args.h"

/* A study: its bundled sweep file, what --quick keeps of it, its report. */
struct study_def {
    const char *name;
    const char *file;
    const char *quick_override; /* --quick keeps the runs with this override, or */
    const char *quick_matrices; /* those of the matrices whose names begin so */
    const char *report;         /* the report script (tools/) */
    const char *quick_report;   /* an argument of the report under --quick */
    bool d4;                    /* takes --d4 */
    bool sample;                /* takes --sample: kernel sampling in every run, */
    const char *warmed;         /* and sample.warm=1 in these (sweep_add_override_to): those
                                   whose sampling error exceeds 3% without it
                                   (docs/sampling.md) */
};

static const struct study_def studies[] = {
    {"cpelide", "studies/cpelide.ini", "gpu.chiplets=4", NULL, "tools/study_report.py",
     "--chiplets", true, true, "lulesh@coherence.scheme=hmg lulesh@coherence.l2_write=through"},
    {"hmg", "studies/hmg.ini", NULL, "main", "tools/hmg_report.py", NULL, false, false, NULL},
    {"ladm", "studies/ladm.ini", NULL, "main", "tools/ladm_report.py", NULL, false, false, NULL},
};

struct study_args {
    const struct study_def *def;
    const char *out, *file;
    bool quick, full, artifact, sample;
    struct sweep_args sa;
};

static int report(const struct study_def *d, const char *out, bool quick)
{
    char csv[PATH_MAX + 16];
    snprintf(csv, sizeof csv, "%s/results.csv", out);
    bool q = quick && d->quick_report;
    const char *args[] = {"--csv", csv, "--out", out, q ? d->quick_report : NULL, "4", NULL};
    return cli_run_python(d->report, args);
}

enum { O_QUICK = 1, O_FULL, O_SAMPLE, O_D4, O_OUT, O_FILE };

static const struct cli_opt study_opts[] = {
    {O_QUICK, 0, "quick", NULL,
     "the quick slice: cpelide's 4-chiplet runs (about 8 minutes\non 2 cores); hmg's main "
     "comparison, without the\nsensitivity sweeps; ladm's eight main configurations"},
    {O_FULL, 0, "full", NULL, "every workload at its paper size and machine (long)"},
    {O_SAMPLE, 0, "sample", NULL,
     "cpelide: kernel sampling (sample.enable=true; docs/sampling.md) in\nevery run, with "
     "the kernel before each detailed one also\nin detail (sample.warm=1) where the error "
     "exceeds 3%\nwithout it"},
    {O_D4, 0, "d4", "paper|artifact",
     "cpelide: which reading of the CPElide spec's decision D4\n(default paper; docs/study.md)"},
    {O_OUT, 0, "out", "DIR",
     "results, summary and plots (default results/NAME, with\n-full, -artifact and -sampled "
     "appended)"},
    {O_FILE, 0, "file", "STUDY.ini",
     "the study's sweep file (default the bundled\nstudies/NAME.ini)"},
    {0},
};

static const struct cli_optgroup study_groups[] = {
    {NULL, study_opts}, {"how runs execute", sweep_exec_opts}, {NULL, NULL}};

const struct cli_cmd cli_cmd_study = {
    .name = "study",
    .args = "cpelide|hmg|ladm [--quick] [--full] [--sample] [--d4 paper|artifact] [--out DIR] "
            "[--jobs N]",
    .summary = "a paper's whole evaluation: sweep, summary table and plots (resumable)",
    .about = "Runs a paper's evaluation (docs/study.md) into DIR/results.db, then writes\n"
             "DIR/results.csv, DIR/matrices.csv, DIR/summary.txt and the figures (PNG and\n"
             "PDF). cpelide: the 24 workloads under viper, cpelide, hmg and the ideal bound on\n"
             "2, 4, 6 and 7 chiplets. hmg: the 20 benchmarks of the HMG paper under its six\n"
             "configurations on 4 GPUs x 4 GPMs and on one GPU, then its sensitivity sweeps.\n"
             "ladm: the 27 workloads of the LADM paper on 4 GPUs x 4 chiplets under its\n"
             "placement and scheduling baselines, LADM and the monolithic GPU.\n"
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
        else if (id == O_SAMPLE)
            x->sample = true;
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
    for (size_t i = 0; id == CLI_END && p.npos == 1 && i < sizeof studies / sizeof *studies; i++)
        if (!strcmp(p.pos[0], studies[i].name))
            x->def = &studies[i];
    if (id == CLI_END) {
        if (p.npos > 1)
            id = cli_bad(c, "one study, not %d arguments", p.npos);
        else if (!x->def)
            id = cli_bad(c, "%s%s%s (the studies: cpelide, hmg, ladm)",
                         p.npos ? "unknown study '" : "which study?", p.npos ? p.pos[0] : "",
                         p.npos ? "'" : "");
        else if (x->artifact && !x->def->d4)
            id = cli_bad(c, "--d4: only the cpelide study has the two readings of D4%s", "");
        else if (x->sample && !x->def->sample)
            id = cli_bad(c, "--sample: only the cpelide study has its sampling error measured "
                         "(docs/sampling.md)%s", "");
    }
    cli_parser_free(&p);
    if (id == CLI_END && sweep_args_backend(&x->sa))
        id = CLI_BAD;
    return id;
}

/* The runs: the study file, its quick slice, its D4 reading. */
static int load(const struct study_args *x, struct sweep *sw)
{
    char path[PATH_MAX];
    if (!x->file && !cli_find_bundled(x->def->file, path, sizeof path)) {
        fprintf(stderr, "chipsim: %s not found\n", x->def->file);
        return -1;
    }
    struct err e;
    if (sweep_load_sections(sw, x->file ? x->file : path, !x->full, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        return -1;
    }
    if (x->quick && x->def->quick_override)
        sweep_filter(sw, x->def->quick_override);
    if (x->quick && x->def->quick_matrices)
        sweep_keep_matrices(sw, x->def->quick_matrices);
    if (x->sample) {
        sweep_add_override(sw, "sample.enable=true");
        sweep_add_override_to(sw, "sample.warm=1", x->def->warmed);
    }
    if (x->artifact) { /* the overrides of configs/d4-artifact.ini */
        sweep_add_override(sw, "coherence.remote_read_alloc=requester_yes");
        sweep_add_override(sw, "coherence.remote_store=write_back");
    }
    return 0;
}

/* A CSV field: quoted, its quotes doubled. */
static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* DIR/matrices.csv: each run's key and the matrices of the study file that
 * give it, so that a report can tell a main comparison from a sweep. */
static int write_matrices(const struct sweep *sw, const char *path, struct err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return err_set(e, "%s: cannot write", path);
    fputs("key,matrices\n", f);
    for (size_t i = 0; i < sw->nruns; i++) {
        csv_field(f, sw->runs[i].key);
        fputc(',', f);
        csv_field(f, sw->runs[i].matrices ? sw->runs[i].matrices : "");
        fputc('\n', f);
    }
    int rc = fclose(f) ? err_set(e, "%s: write failed", path) : 0;
    if (!rc)
        rc = report_write_atomic(path, buf, len, e);
    free(buf);
    return rc;
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
    snprintf(buf, sizeof buf, "%s/matrices.csv", out);
    if (write_matrices(sw, buf, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        return EXIT_USAGE;
    }
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
    snprintf(dflt, sizeof dflt, "results/%s%s%s%s", x.def->name, x.full ? "-full" : "",
             x.artifact ? "-artifact" : "", x.sample ? "-sampled" : "");
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
    if (report(x.def, out, x.quick) || cli_print_file(buf))
        return EXIT_SIMFAIL;
    printf("\nresults: %s/results.csv (one row per run), %s/results.db (SQLite)\n"
           "plots:   %s/*.png and *.pdf\n", out, out, out);
    return status;
}
