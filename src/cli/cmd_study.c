/*
 * cmd_study.c -- `chipsim study cpelide [--quick] [--out DIR] [--jobs N]`:
 * a paper's whole evaluation in one command. The matrix is the bundled sweep
 * file studies/NAME.ini (found beside the executable's ../, else in the
 * current directory); --quick keeps its 4-chiplet slice. Results go to
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

#define STUDY_PYTHON "/usr/bin/python3" /* Debian's, which has python3-matplotlib */

static void usage(void)
{
    fprintf(stderr, "usage: chipsim study cpelide [--quick] [--out DIR] [--jobs N] "
                    "[--file STUDY.ini]\n");
}

/* path, found relative to the executable's parent directory, else to the
 * current directory; false if neither exists. */
static bool find_bundled(const char *rel, char *out, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(out, n, "%.3800s/../%s", exe, rel);
            if (!access(out, R_OK))
                return true;
        }
    }
    snprintf(out, n, "%s", rel);
    return !access(out, R_OK);
}

static int mkdirs(const char *dir)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) && access(buf, F_OK))
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) && access(buf, F_OK) ? -1 : 0;
}

static int report(const char *out, bool quick)
{
    char script[PATH_MAX], csv[PATH_MAX + 16];
    if (!find_bundled("tools/study_report.py", script, sizeof script)) {
        fprintf(stderr, "chipsim: tools/study_report.py not found (beside the executable's "
                        "directory or in the current one)\n");
        return -1;
    }
    snprintf(csv, sizeof csv, "%s/results.csv", out);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        const char *argv[] = {STUDY_PYTHON, script, "--csv", csv, "--out", out,
                              quick ? "--chiplets" : NULL, "4", NULL};
        execv(STUDY_PYTHON, (char **)argv);
        fprintf(stderr, "chipsim: cannot run %s (install python3-matplotlib: "
                        "scripts/install-deps.sh)\n", STUDY_PYTHON);
        _exit(127);
    }
    int ws;
    if (pid < 0 || waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws))
        return -1;
    return 0;
}

static int print_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    return 0;
}

int cli_study(int argc, char **argv)
{
    struct sweep_opts o = {.jobs = cli_default_jobs(), .label = "study"};
    const char *name = NULL, *out = NULL, *file = NULL;
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--quick"))
            quick = true;
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
    if (!file && !find_bundled("studies/cpelide.ini", path, sizeof path)) {
        fprintf(stderr, "chipsim: studies/cpelide.ini not found\n");
        return EXIT_USAGE;
    }
    snprintf(dflt_out, sizeof dflt_out, "results/%s", name);
    out = out ? out : dflt_out;
    struct sweep sw;
    struct err e;
    if (sweep_load(&sw, file ? file : path, &e)) {
        fprintf(stderr, "chipsim: %s\n", e.msg);
        return EXIT_USAGE;
    }
    if (quick)
        sweep_filter(&sw, "gpu.chiplets=4");
    if (mkdirs(out)) {
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
    if (print_file(buf))
        return EXIT_SIMFAIL;
    printf("\nresults: %s/results.csv (one row per run), %s/results.db (SQLite)\n"
           "plots:   %s/*.png\n", out, out, out);
    return status;
}
