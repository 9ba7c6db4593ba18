/*
 * cmd_study.c -- `chipsim study cpelide [--quick] [--d4 paper|artifact] [--out DIR]
 * [--jobs N]`:
 * a paper's whole evaluation in one command. The matrix is the bundled sweep
 * file studies/NAME.ini (found beside the executable's ../, else in the
 * current directory); --quick keeps its 4-chiplet slice; --d4 artifact runs
 * every run under the artifact's reading of spec cpelide D4 (the overrides of
 * configs/d4-artifact.ini), in results/NAME-artifact by default. Results go to
 * DIR/results.db (resumable, shared by the quick and the full study),
 * DIR/results.csv, and the summary table and plots that
 * tools/study_report.py makes from the CSV (DIR/summary.txt and PNG plots).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sweep.h"

static void usage(void)
{
    fprintf(stderr, "usage: chipsim study cpelide [--quick] [--d4 paper|artifact] [--out DIR] "
                    "[--jobs N] [--file STUDY.ini]\n");
}

static int report(const char *out, bool quick)
{
    char csv[PATH_MAX + 16];
    snprintf(csv, sizeof csv, "%s/results.csv", out);
    const char *args[] = {"--csv", csv, "--out", out, quick ? "--chiplets" : NULL, "4", NULL};
    return cli_run_python("tools/study_report.py", args);
}

int cli_study(int argc, char **argv)
{
    struct sweep_opts o = {.jobs = cli_default_jobs(), .label = "study"};
    const char *name = NULL, *out = NULL, *file = NULL;
    bool quick = false, artifact = false;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--d4") && more) {
            const char *d4 = argv[++i];
            artifact = !strcmp(d4, "artifact");
            if (!artifact && strcmp(d4, "paper")) {
                fprintf(stderr, "chipsim study: --d4 %s: expected paper or artifact\n", d4);
                usage();
                return EXIT_USAGE;
            }
        }
        else if (!strcmp(argv[i], "--out") && more)
            out = argv[++i];
        else if (!strcmp(argv[i], "--file") && more)
            file = argv[++i];
        else if (!strcmp(argv[i], "--jobs") && more) {
            if (cli_parse_jobs(argv[++i], &o.jobs))
                return EXIT_USAGE;
        } else if (argv[i][0] != '-' && !name)
            name = argv[i];
        else {
            fprintf(stderr, "chipsim study: bad option '%s'\n", argv[i]);
            usage();
            return EXIT_USAGE;
        }
    }
    if (!name || strcmp(name, "cpelide")) {
        fprintf(stderr, "chipsim study: %s (the studies: cpelide)\n",
                name ? "unknown study" : "which study?");
        usage();
        return EXIT_USAGE;
    }
    char path[PATH_MAX], dflt_out[64], buf[PATH_MAX + 32];
    if (!file && !cli_find_bundled("studies/cpelide.ini", path, sizeof path)) {
        fprintf(stderr, "chipsim: studies/cpelide.ini not found\n");
        return EXIT_USAGE;
    }
    snprintf(dflt_out, sizeof dflt_out, "results/%s%s", name, artifact ? "-artifact" : "");
    out = out ? out : dflt_out;
    struct sweep sw;
    struct err e;
    if (sweep_load(&sw, file ? file : path, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        return EXIT_USAGE;
    }
    if (quick)
        sweep_filter(&sw, "gpu.chiplets=4");
    if (artifact) { /* the overrides of configs/d4-artifact.ini */
        sweep_add_override(&sw, "coherence.remote_read_alloc=requester_yes");
        sweep_add_override(&sw, "coherence.remote_store=write_back");
    }
    if (cli_mkdirs(out)) {
        fprintf(stderr, "chipsim: %s: cannot create the output directory\n", out);
        sweep_free(&sw);
        return EXIT_USAGE;
    }
    free(sw.db);
    snprintf(buf, sizeof buf, "%s/results.db", out);
    sw.db = strdup(buf);
    struct sweep_result res;
    int status = EXIT_OK;
    snprintf(buf, sizeof buf, "%s/results.csv", out);
    if (sweep_execute(&sw, &o, &res, &e) || cli_write_csv(sw.db, buf, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        sweep_free(&sw);
        return EXIT_SIMFAIL;
    }
    if (res.failed) {
        fprintf(stderr, "study: %zu runs failed (their errors are in %s, table runs)\n",
                res.failed, sw.db);
        status = EXIT_SIMFAIL;
    }
    sweep_free(&sw);
    if (report(out, quick))
        return EXIT_SIMFAIL;
    snprintf(buf, sizeof buf, "%s/summary.txt", out);
    if (cli_print_file(buf))
        return EXIT_SIMFAIL;
    printf("\nresults: %s/results.csv (one row per run), %s/results.db (SQLite)\n"
           "plots:   %s/*.png\n", out, out, out);
    return status;
}
