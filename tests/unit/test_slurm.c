/*
 * The Slurm backend without a cluster: the parsers of squeue, sacct and
 * scontrol output (fed what Slurm 22.05 prints), the command line's
 * errors (exit 2, nothing submitted), and `chipsim sweep-task` run by hand
 * on a manifest: the outcome file it leaves, for a run that succeeds and
 * one that fails, and nothing at all for a bad index. The backend against
 * a real Slurm is tests/slurm/run.sh.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/slurm.h"
#include "cli_util.h"

/* ---- parsers --------------------------------------------------------------------- */

Test(slurm, squeue_lines_give_task_and_state)
{
    struct slurm_task *t;
    size_t n = slurm_parse_squeue("2|PENDING\n1|RUNNING\nN/A|RUNNING\n0|COMPLETING", &t);
    cr_assert_eq(n, 3);
    cr_expect_eq(t[0].index, 2);
    cr_expect_str_eq(t[0].state, "PENDING");
    cr_expect_eq(t[1].index, 1);
    cr_expect_str_eq(t[1].state, "RUNNING");
    cr_expect_eq(t[2].index, 0);
    cr_expect_str_eq(t[2].state, "COMPLETING");
    free(t);
}

Test(slurm, sacct_lines_of_this_job_only)
{
    const char *text = "12_3|CANCELLED by 0|0:15\n"
                       "12_[4-7%2]|PENDING|0:0\n"
                       "12_1|COMPLETED|0:0\n"
                       "123_1|FAILED|1:0\n"
                       "12_0|TIMEOUT|0:0\n";
    struct slurm_task *t;
    size_t n = slurm_parse_sacct("12", text, &t);
    cr_assert_eq(n, 3);
    cr_expect_eq(t[0].index, 3);
    cr_expect_str_eq(t[0].state, "CANCELLED");
    cr_expect_str_eq(t[0].exit_code, "0:15");
    cr_expect_eq(t[1].index, 1);
    cr_expect_str_eq(t[1].state, "COMPLETED");
    cr_expect_eq(t[2].index, 0);
    cr_expect_str_eq(t[2].state, "TIMEOUT");
    free(t);
}

Test(slurm, scontrol_lines_give_task_state_and_exit_code)
{
    const char *text =
        "JobId=4 ArrayJobId=1 ArrayTaskId=2 JobName=chipsim-sweep UserId=root(0) "
        "Priority=4294901757 JobState=CANCELLED Reason=None Dependency=(null) "
        "DerivedExitCode=9:0 ExitCode=0:15 RunTime=00:00:02\n"
        "JobId=1 ArrayJobId=1 ArrayTaskId=5-7%2 JobName=chipsim-sweep JobState=PENDING "
        "ExitCode=0:0\n"
        "JobId=3 ArrayJobId=1 ArrayTaskId=1 JobName=chipsim-sweep JobState=NODE_FAIL "
        "Reason=NodeDown ExitCode=0:0\n";
    struct slurm_task *t;
    size_t n = slurm_parse_scontrol(text, &t);
    cr_assert_eq(n, 2);
    cr_expect_eq(t[0].index, 2);
    cr_expect_str_eq(t[0].state, "CANCELLED");
    cr_expect_str_eq(t[0].exit_code, "0:15", "not DerivedExitCode");
    cr_expect_eq(t[1].index, 1);
    cr_expect_str_eq(t[1].state, "NODE_FAIL");
    free(t);
}

/* ---- the command line ------------------------------------------------------------------ */

static char *sweep_file(const char *dir)
{
    static char cfg[PATH_MAX];
    cr_assert(realpath("configs/tiny.ini", cfg));
    char *path = malloc(strlen(dir) + 8);
    sprintf(path, "%s/s.ini", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "[sweep]\nconfigs = %s\nworkloads = square\nsmall = true\n", cfg);
    fclose(f);
    return path;
}

static void expect_usage_error(const char *const *argv, const char *want)
{
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, want), "want '%s' in: %s", want, r.err);
    cli_result_free(&r);
}

Test(slurm, bad_options_exit_2_before_anything_runs)
{
    char *dir = cli_tmpdir();
    char *s = sweep_file(dir), db[PATH_MAX];
    snprintf(db, sizeof db, "%s/r.db", dir);
    expect_usage_error((const char *[]){"sweep", s, "--backend", "pbs", NULL},
                       "--backend pbs: expected local or slurm");
    expect_usage_error((const char *[]){"sweep", s, "--partition", "gpu", NULL},
                       "--partition needs --backend slurm");
    expect_usage_error((const char *[]){"sweep", s, "--no-wait", NULL},
                       "--no-wait needs --backend slurm");
    expect_usage_error((const char *[]){"sweep", s, "--backend", "slurm", "--jobs", "4", NULL},
                       "--jobs is for the local backend");
    expect_usage_error(
        (const char *[]){"sweep", s, "--backend", "slurm", "--max-parallel", "0", NULL},
        "--max-parallel 0: expected a whole number from 1 to");
    expect_usage_error((const char *[]){"sweep", s, "--backend", "slurm", "--time", "2h", NULL},
                       "--time 2h: expected a Slurm time limit");
    expect_usage_error((const char *[]){"sweep", s, "--backend", "slurm", "--poll", "0", NULL},
                       "--poll 0: expected seconds");
    expect_usage_error((const char *[]){"sweep", s, "--backend", NULL},
                       "option '--backend' needs a value");
    cr_expect(access(db, F_OK) != 0, "no database was created");
    free(s);
    free(dir);
}

/* ---- sweep-task by hand ---------------------------------------------------------------------- */

/* A manifest of two runs (square, and stream on one chiplet, which fails)
 * with its results directory in dir. */
static char *manifest(const char *dir)
{
    static char cfg[PATH_MAX];
    cr_assert(realpath("configs/tiny.ini", cfg));
    char *path = malloc(strlen(dir) + 16), sub[PATH_MAX];
    sprintf(path, "%s/m.json", dir);
    snprintf(sub, sizeof sub, "%s/results", dir);
    cr_assert_eq(mkdir(sub, 0777), 0);
    snprintf(sub, sizeof sub, "%s/logs", dir);
    cr_assert_eq(mkdir(sub, 0777), 0);
    json_t *m = json_pack(
        "{s:i, s:s, s:s, s:[{s:s, s:s, s:s, s:[s]}, {s:s, s:s, s:s, s:[s, s, s]}]}", "version",
        1, "cwd", dir, "dir", dir, "runs", "key", "k-square", "config", cfg, "workload",
        "square", "overrides", "workload.n=4096", "key", "k-stream", "config", cfg, "workload",
        "stream", "overrides", "workload.footprint_kib=64", "workload.target=remote",
        "gpu.chiplets=1");
    cr_assert_eq(json_dump_file(m, path, 0), 0);
    json_decref(m);
    return path;
}

/* The one result file in dir/results, loaded; NULL when there is none.
 * Temporary files (dot files, *.tmp.*) count as failures of the test. */
static json_t *only_result(const char *dir)
{
    char sub[PATH_MAX], file[PATH_MAX * 2];
    snprintf(sub, sizeof sub, "%s/results", dir);
    DIR *d = opendir(sub);
    cr_assert(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        cr_expect(de->d_name[0] != '.' && !strstr(de->d_name, ".tmp."), "left: %s", de->d_name);
        snprintf(file, sizeof file, "%s/%s", sub, de->d_name);
        n++;
    }
    closedir(d);
    cr_assert_leq(n, 1);
    return n ? json_load_file(file, 0, NULL) : NULL;
}

Test(slurm, sweep_task_leaves_the_outcome_of_its_run)
{
    char *dir = cli_tmpdir();
    char *m = manifest(dir);
    struct cli_result r = cli_exec((const char *[]){"sweep-task", m, "0", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    json_t *res = only_result(dir);
    cr_assert(res);
    cr_expect_str_eq(json_string_value(json_object_get(res, "key")), "k-square");
    cr_expect_eq(json_integer_value(json_object_get(res, "status")), 0);
    json_t *run = json_object_get(res, "run");
    cr_expect_gt(json_integer_value(json_object_get(json_object_get(run, "summary"), "cycles")),
                 0);
    cr_expect_eq(json_integer_value(json_object_get(
                     json_object_get(json_object_get(run, "config"), "workload"), "n")),
                 4096, "the manifest's overrides apply");
    json_decref(res);
    free(m);
    free(dir);
}

Test(slurm, sweep_task_of_a_failing_run_leaves_its_status_and_error)
{
    char *dir = cli_tmpdir();
    char *m = manifest(dir);
    struct cli_result r = cli_exec((const char *[]){"sweep-task", m, "1", NULL});
    cr_expect_eq(r.status, 2, "the task exits with the run's status");
    cli_result_free(&r);
    json_t *res = only_result(dir);
    cr_assert(res);
    cr_expect_eq(json_integer_value(json_object_get(res, "status")), 2);
    const char *err = json_string_value(json_object_get(res, "error"));
    cr_expect(err && strstr(err, "needs at least 2 chiplets"), "%s", err ? err : "(none)");
    cr_expect_null(json_object_get(res, "run"));
    json_decref(res);
    free(m);
    free(dir);
}

Test(slurm, sweep_task_with_a_bad_index_or_manifest_exits_2_and_leaves_nothing)
{
    char *dir = cli_tmpdir();
    char *m = manifest(dir);
    struct cli_result r = cli_exec((const char *[]){"sweep-task", m, "2", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no run 2 (the manifest has 2)"), "%s", r.err);
    cli_result_free(&r);
    r = cli_exec((const char *[]){"sweep-task", m, "x", NULL});
    cr_expect_eq(r.status, 2);
    cli_result_free(&r);
    r = cli_exec((const char *[]){"sweep-task", "/nonexistent/m.json", "0", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "/nonexistent/m.json: cannot read the manifest"), "%s", r.err);
    cli_result_free(&r);
    cr_expect_null(only_result(dir));
    free(m);
    free(dir);
}
