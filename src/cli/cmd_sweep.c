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
#include "stats/report.h"
#include "sweep.h"
#include "sweep_args.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: chipsim sweep FILE [--jobs N] [--db FILE] [--csv FILE] [--retry-failed]\n"
            "                          [--list] [-q]\n"
            "       chipsim sweep FILE --backend slurm [--partition P] [--max-parallel N]\n"
            "                          [--time LIMIT] [--sbatch-arg ARG]... [--no-wait]\n"
            "                          [--poll SECONDS] [--db FILE] [--csv FILE]\n"
            "                          [--retry-failed] [-q]\n");
}

unsigned cli_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int cli_parse_jobs(const char *arg, unsigned *jobs)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (*end || n < 1 || n > 1024) {
        fprintf(stderr, "chipsim: --jobs %s: expected a number from 1 to 1024\n", arg);
        return -1;
    }
    *jobs = (unsigned)n;
    return 0;
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

static int parse_uint(const char *opt, const char *arg, unsigned max, unsigned *v)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (*end || end == arg || n < 1 || n > (long)max) {
        fprintf(stderr, "chipsim sweep: %s %s: expected a number from 1 to %u\n", opt, arg, max);
        return -1;
    }
    *v = (unsigned)n;
    return 0;
}

/* A Slurm time limit: minutes, [days-]hours:minutes[:seconds] and the like,
 * or UNLIMITED; sbatch checks the rest. */
static int check_time(const char *arg)
{
    if (*arg && (!strcmp(arg, "UNLIMITED") || !strcmp(arg, "INFINITE") ||
                 strspn(arg, "0123456789:-") == strlen(arg)))
        return 0;
    fprintf(stderr, "chipsim sweep: --time %s: expected a Slurm time limit (MINUTES, "
                    "HOURS:MINUTES:SECONDS, DAYS-HOURS ...)\n", arg);
    return -1;
}

static int parse_poll(const char *arg, double *v)
{
    char *end;
    double s = strtod(arg, &end);
    if (*end || end == arg || !(s >= 0.1 && s <= 3600)) {
        fprintf(stderr, "chipsim sweep: --poll %s: expected seconds from 0.1 to 3600\n", arg);
        return -1;
    }
    *v = s;
    return 0;
}

/* The options that take a value; 1 when a was not one of them. */
static int value_option(struct sweep_args *x, const char *a, char *v)
{
    bool slurm = true;
    int rc = 0;
    if (!strcmp(a, "--jobs")) {
        slurm = false;
        x->jobs_given = true;
        rc = cli_parse_jobs(v, &x->o.jobs);
    } else if (!strcmp(a, "--db")) {
        slurm = false;
        x->db = v;
    } else if (!strcmp(a, "--csv")) {
        slurm = false;
        x->csv = v;
    } else if (!strcmp(a, "--backend")) {
        slurm = false;
        x->backend = v;
    } else if (!strcmp(a, "--partition")) {
        x->so.partition = v;
    } else if (!strcmp(a, "--max-parallel")) {
        rc = parse_uint(a, v, 1000000, &x->so.max_parallel);
    } else if (!strcmp(a, "--time")) {
        rc = check_time(v);
        x->so.time = v;
    } else if (!strcmp(a, "--poll")) {
        rc = parse_poll(v, &x->so.poll_s);
    } else if (!strcmp(a, "--sbatch-arg")) {
        x->sbatch = xrealloc(x->sbatch, (x->nsbatch + 1) * sizeof *x->sbatch);
        x->sbatch[x->nsbatch++] = v;
    } else {
        return 1;
    }
    if (slurm && !x->slurm_opt)
        x->slurm_opt = a;
    return rc;
}

static int flag_option(struct sweep_args *x, const char *a)
{
    if (!strcmp(a, "--list"))
        x->list = true;
    else if (!strcmp(a, "--retry-failed"))
        x->o.retry_failed = true;
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
        x->o.quiet = true;
    else if (!strcmp(a, "--no-wait"))
        x->so.no_wait = true;
    else
        return 1;
    if (!strcmp(a, "--no-wait") && !x->slurm_opt)
        x->slurm_opt = a;
    return 0;
}

int sweep_args_option(struct sweep_args *x, int argc, char **argv, int *i)
{
    int rc = *i + 1 < argc ? value_option(x, argv[*i], argv[*i + 1]) : 1;
    if (rc == 0)
        ++*i;
    if (rc <= 0)
        return rc;
    return flag_option(x, argv[*i]);
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

/* The combinations that make no sense, said before anything is read. */
static int check_args(const struct sweep_args *x)
{
    if (sweep_args_backend(x))
        return -1;
    if (!x->file) {
        usage();
        return -1;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct sweep_args *x)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = sweep_args_option(x, argc, argv, &i);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        if (a[0] != '-' && !x->file) {
            x->file = a;
            continue;
        }
        fprintf(stderr, "chipsim sweep: bad option '%s'%s\n", a,
                i + 1 == argc && a[0] == '-' ? " (missing its value?)" : "");
        usage();
        return -1;
    }
    return check_args(x);
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
    if (parse_args(argc, argv, &x)) {
        free(x.sbatch);
        return EXIT_USAGE;
    }
    struct sweep sw;
    struct err e;
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
    char *end = NULL;
    long index = argc == 3 ? strtol(argv[2], &end, 10) : -1;
    if (argc != 3 || !*argv[2] || *end) {
        fprintf(stderr, "usage: chipsim sweep-task MANIFEST INDEX (run by Slurm array tasks of "
                        "`chipsim sweep --backend slurm`)\n");
        return EXIT_USAGE;
    }
    struct err e;
    int status = sweep_slurm_task(argv[1], index, &e);
    if (status < 0) {
        fprintf(stderr, "chipsim sweep-task: %s\n", e.msg);
        return EXIT_USAGE;
    }
    return status;
}
