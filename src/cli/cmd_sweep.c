/*
 * cmd_sweep.c -- `chipsim sweep FILE`: run a sweep file's matrix of
 * simulations into its SQLite database, on local worker processes (the
 * default) or as a Slurm job array (--backend slurm), resuming where an
 * earlier, interrupted invocation stopped (sweep.h, docs/sweeps.md); and
 * `chipsim sweep-task`, the hidden command each Slurm array task runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "stats/report.h"
#include "sweep.h"
#include "sweep_args.h"

unsigned cli_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int cli_write_csv(const char *db, const char *path, struct err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return err_set(e, "%s: cannot write", path);
    int rc = sweep_export_csv(db, f, e);
    if (fclose(f) && !rc)
        rc = err_set(e, "%s: write failed", path);
    if (!rc)
        rc = report_write_atomic(path, buf, len, e);
    free(buf);
    return rc;
}

/* A Slurm time limit: minutes, [days-]hours:minutes[:seconds] and the like,
 * or UNLIMITED; sbatch checks the rest. */
static bool time_ok(const char *arg)
{
    return *arg && (!strcmp(arg, "UNLIMITED") || !strcmp(arg, "INFINITE") ||
                    strspn(arg, "0123456789:-") == strlen(arg));
}

static bool poll_ok(const char *arg, double *v)
{
    char *end;
    double s = strtod(arg, &end);
    *v = s;
    return !*end && end != arg && s >= 0.1 && s <= 3600;
}

const struct cli_opt sweep_exec_opts[] = {
    {SW_JOBS, 0, "jobs", "N", "local worker processes (default: the number of CPUs)"},
    {SW_RETRY, 0, "retry-failed", NULL, "run again the runs stored as failed"},
    {SW_QUIET, 'q', "quiet", NULL, "no progress line"},
    {SW_BACKEND, 0, "backend", "local|slurm", "where runs execute (default local)"},
    {SW_PARTITION, 0, "partition", "P", "Slurm partition"},
    {SW_MAXPAR, 0, "max-parallel", "N", "Slurm: array tasks running at once"},
    {SW_TIME, 0, "time", "LIMIT", "Slurm time limit per task (MINUTES, HOURS:MINUTES:SECONDS, ...)"},
    {SW_SBATCH, 0, "sbatch-arg", "ARG", "one more argument for sbatch (repeatable)"},
    {SW_NOWAIT, 0, "no-wait", NULL,
     "Slurm: submit and return; the same command run later collects"},
    {SW_POLL, 0, "poll", "SECONDS", "Slurm: seconds between queue checks (default 10)"},
    {0},
};

int sweep_args_apply(const struct cli_cmd *c, struct sweep_args *x, int id, char *v)
{
    const char *slurm = NULL;
    switch (id) {
    case SW_JOBS:
        x->jobs_given = true;
        return cli_uint_arg(c, "--jobs", v, 1, 1024, &x->o.jobs);
    case SW_RETRY: x->o.retry_failed = true; return 0;
    case SW_QUIET: x->o.quiet = true; return 0;
    case SW_BACKEND: x->backend = v; return 0;
    case SW_PARTITION: x->so.partition = v; slurm = "--partition"; break;
    case SW_MAXPAR:
        slurm = "--max-parallel";
        if (cli_uint_arg(c, slurm, v, 1, 1000000, &x->so.max_parallel))
            return -1;
        break;
    case SW_TIME:
        slurm = "--time";
        if (!time_ok(v)) {
            cli_bad(c, "--time %s: expected a Slurm time limit (MINUTES, "
                       "HOURS:MINUTES:SECONDS, DAYS-HOURS ...)", v);
            return -1;
        }
        x->so.time = v;
        break;
    case SW_SBATCH:
        slurm = "--sbatch-arg";
        x->sbatch = xrealloc(x->sbatch, (x->nsbatch + 1) * sizeof *x->sbatch);
        x->sbatch[x->nsbatch++] = v;
        break;
    case SW_NOWAIT: x->so.no_wait = true; slurm = "--no-wait"; break;
    case SW_POLL:
        slurm = "--poll";
        if (!poll_ok(v, &x->so.poll_s)) {
            cli_bad(c, "--poll %s: expected seconds from 0.1 to 3600", v);
            return -1;
        }
        break;
    default: return 1;
    }
    if (!x->slurm_opt)
        x->slurm_opt = slurm;
    return 0;
}

int sweep_args_backend(const struct sweep_args *x)
{
    const char *b = x->backend ? x->backend : "local";
    if (strcmp(b, "local") && strcmp(b, "slurm")) {
        fprintf(stderr, "chipsim: --backend %s: expected local or slurm\n", b);
        return -1;
    }
    if (!strcmp(b, "local") && x->slurm_opt) {
        fprintf(stderr, "chipsim: %s needs --backend slurm\n", x->slurm_opt);
        return -1;
    }
    if (!strcmp(b, "slurm") && x->jobs_given) {
        fprintf(stderr, "chipsim: --jobs is for the local backend (with Slurm, "
                        "--max-parallel N limits the tasks running at once)\n");
        return -1;
    }
    return 0;
}

enum { O_DB = 1, O_CSV, O_LIST };

static const struct cli_opt sweep_own_opts[] = {
    {O_DB, 0, "db", "FILE", "the results database (default: the sweep file's `db` key)"},
    {O_CSV, 0, "csv", "FILE", "also export every stored run as CSV (checked before runs start)"},
    {O_LIST, 0, "list", NULL, "print the runs' keys, one per line, and run nothing"},
    {0},
};

static const struct cli_optgroup sweep_groups[] = {
    {NULL, sweep_own_opts}, {"how runs execute", sweep_exec_opts}, {NULL, NULL}};

const struct cli_cmd cli_cmd_sweep = {
    .name = "sweep",
    .args = "FILE [--jobs N] [--db FILE] [--csv FILE] [--backend slurm ...]",
    .summary = "run a matrix of simulations into a SQLite database (resumable)",
    .about = "Runs every run of the sweep file FILE (docs/sweeps.md) that its database does\n"
             "not hold yet, on local workers or as a Slurm job array, storing each result as\n"
             "it ends; an interrupted sweep started again runs only what is missing.",
    .groups = sweep_groups,
    .fn = cli_sweep,
};

/* 0, or CLI_HELP / CLI_BAD (message printed). */
static int parse_args(int argc, char **argv, struct sweep_args *x)
{
    struct cli_parser p;
    cli_parser_init(&p, &cli_cmd_sweep, argc, argv);
    char *v;
    int id;
    while ((id = cli_next(&p, &v)) > 0) {
        if (id == O_DB)
            x->db = v;
        else if (id == O_CSV)
            x->csv = v;
        else if (id == O_LIST)
            x->list = true;
        else if (sweep_args_apply(&cli_cmd_sweep, x, id, v))
            id = CLI_BAD;
        if (id < 0)
            break;
    }
    if (id == CLI_END) {
        if (p.npos != 1)
            id = cli_bad(&cli_cmd_sweep, p.npos ? "one sweep file, not %d arguments"
                                                : "which sweep file?%.0d", p.npos);
        else
            x->file = p.pos[0];
    }
    cli_parser_free(&p);
    if (id == CLI_END && sweep_args_backend(x))
        id = CLI_BAD;
    return id;
}

int sweep_args_execute(const struct sweep *sw, struct sweep_args *x, struct sweep_result *res,
                       struct err *e)
{
    if (!x->backend || !strcmp(x->backend, "local"))
        return sweep_execute(sw, &x->o, res, e);
    x->so.sbatch_args = x->sbatch;
    x->so.nsbatch_args = x->nsbatch;
    return sweep_slurm_execute(sw, &x->o, &x->so, res, e);
}

static void summary(const struct sweep *sw, const struct sweep_result *res)
{
    fprintf(stderr, "sweep: %zu runs: %zu stored before, %zu run now, %zu failed", res->total,
            res->done_before, res->ran, res->failed);
    if (res->lost)
        fprintf(stderr, ", %zu lost in Slurm (submitted again next time)", res->lost);
    if (res->queued)
        fprintf(stderr, ", %zu in Slurm's queue (the same command collects them)", res->queued);
    fprintf(stderr, "; results in %s\n", sw->db);
}

int cli_sweep(int argc, char **argv)
{
    struct sweep_args x = {.o = {.jobs = cli_default_jobs(), .label = "sweep"},
                           .so = {.poll_s = 10}};
    int prc = parse_args(argc, argv, &x);
    if (prc) {
        free(x.sbatch);
        return prc == CLI_HELP ? EXIT_OK : EXIT_USAGE;
    }
    struct err e;
    if (x.csv && cli_check_out_file(x.csv, "--csv", &e)) {
        fprintf(stderr, "chipsim sweep: %s\n", e.msg);
        free(x.sbatch);
        return EXIT_USAGE;
    }
    struct sweep sw;
    if (sweep_load(&sw, x.file, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        free(x.sbatch);
        return EXIT_USAGE;
    }
    if (x.db) {
        free(sw.db);
        sw.db = xstrdup(x.db);
    }
    struct sweep_result res;
    int status = EXIT_OK;
    if (x.list) { /* the runs, one key per line, and nothing run */
        for (size_t i = 0; i < sw.nruns; i++)
            printf("%s\n", sw.runs[i].key);
    } else if (sweep_args_execute(&sw, &x, &res, &e) ||
               (x.csv && cli_write_csv(sw.db, x.csv, &e))) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        status = EXIT_SIMFAIL;
    } else {
        summary(&sw, &res);
        if (res.failed || res.lost)
            status = EXIT_SIMFAIL;
    }
    sweep_free(&sw);
    free(x.sbatch);
    return status;
}

/* `chipsim sweep-task MANIFEST INDEX`: not for people (docs/sweeps.md). */
int cli_sweep_task(int argc, char **argv)
{
    struct cli_parser p;
    cli_parser_init(&p, &cli_cmd_sweep_task, argc, argv);
    char *v;
    int id;
    while ((id = cli_next(&p, &v)) > 0)
        ;
    char *end = NULL;
    long index = id == CLI_END && p.npos == 2 ? strtol(p.pos[1], &end, 10) : -1;
    if (id == CLI_END && (p.npos != 2 || !*p.pos[1] || *end))
        id = cli_bad(&cli_cmd_sweep_task, "expected MANIFEST INDEX");
    const char *manifest = id == CLI_END ? p.pos[0] : NULL;
    cli_parser_free(&p);
    if (id)
        return id == CLI_HELP ? EXIT_OK : EXIT_USAGE;
    struct err e;
    int status = sweep_slurm_task(manifest, index, &e);
    if (status < 0) {
        fprintf(stderr, "chipsim sweep-task: %s\n", e.msg);
        return EXIT_USAGE;
    }
    return status;
}

const struct cli_cmd cli_cmd_sweep_task = {
    .name = "sweep-task",
    .args = "MANIFEST INDEX",
    .summary = "one run of a Slurm job array (run by `chipsim sweep --backend slurm`)",
    .about = "Run by each task of the Slurm job array that `chipsim sweep --backend slurm`\n"
             "submits: the INDEX-th run of MANIFEST, stored in the sweep's database.",
    .fn = cli_sweep_task,
    .hidden = true,
};
