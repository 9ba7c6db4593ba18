/*
 * cmd_sweep.c -- `chipsim sweep FILE`: run a sweep file's matrix of
 * simulations on parallel workers into its SQLite database, resuming where
 * an earlier, interrupted invocation stopped (sweep.h, docs/sweeps.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sweep.h"

static void usage(void)
{
    fprintf(stderr, "usage: chipsim sweep FILE [--jobs N] [--db FILE] [--csv FILE] "
                    "[--retry-failed] [--list] [-q]\n");
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
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return err_set(e, "%s: cannot write", path);
    int rc = sweep_export_csv(db, f, e);
    if (fclose(f) && !rc)
        rc = err_set(e, "%s: write failed", path);
    if (!rc && rename(tmp, path))
        rc = err_set(e, "%s: cannot write", path);
    if (rc)
        unlink(tmp);
    return rc;
}

int cli_sweep(int argc, char **argv)
{
    struct sweep_opts o = {.jobs = cli_default_jobs(), .label = "sweep"};
    const char *file = NULL, *db = NULL, *csv = NULL;
    bool list = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--jobs") && more) {
            if (cli_parse_jobs(argv[++i], &o.jobs))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--db") && more) {
            db = argv[++i];
        } else if (!strcmp(a, "--csv") && more) {
            csv = argv[++i];
        } else if (!strcmp(a, "--list")) {
            list = true;
        } else if (!strcmp(a, "--retry-failed")) {
            o.retry_failed = true;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o.quiet = true;
        } else if (a[0] != '-' && !file) {
            file = a;
        } else {
            fprintf(stderr, "chipsim sweep: bad option '%s'\n", a);
            usage();
            return EXIT_USAGE;
        }
    }
    if (!file) {
        usage();
        return EXIT_USAGE;
    }
    struct sweep sw;
    struct err e;
    if (sweep_load(&sw, file, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        return EXIT_USAGE;
    }
    if (db) {
        free(sw.db);
        sw.db = strdup(db);
    }
    if (list) { /* the runs, one key per line, and nothing run */
        for (size_t i = 0; i < sw.nruns; i++)
            printf("%s\n", sw.runs[i].key);
        sweep_free(&sw);
        return EXIT_OK;
    }
    struct sweep_result res;
    int status = EXIT_OK;
    if (sweep_execute(&sw, &o, &res, &e) || (csv && cli_write_csv(sw.db, csv, &e))) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        status = EXIT_SIMFAIL;
    } else {
        fprintf(stderr, "sweep: %zu runs: %zu stored before, %zu run now, %zu failed; results in %s\n",
                res.total, res.done_before, res.ran, res.failed, sw.db);
        if (res.failed)
            status = EXIT_SIMFAIL;
    }
    sweep_free(&sw);
    return status;
}
