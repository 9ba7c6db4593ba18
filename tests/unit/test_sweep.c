/*
 * Sweeps: expanding a sweep file into runs (matrices, axes, workload
 * sections, paths relative to the file), errors with file and line, and
 * the results database: failures stored with their error, a sweep killed
 * with SIGKILL part-way and started again ends with exactly the database of
 * an uninterrupted sweep (same rows, no duplicates, intact), and the CSV.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/setup.h"
#include "cli/sweep.h"
#include "cli_util.h"

static const char *tiny(void)
{
    static char p[PATH_MAX];
    cr_assert(realpath("configs/tiny.ini", p));
    return p;
}

static bool has_run(const struct sweep *sw, const char *key)
{
    for (size_t i = 0; i < sw->nruns; i++)
        if (!strcmp(sw->runs[i].key, key))
            return true;
    return false;
}

Test(sweep, matrices_axes_and_workload_sections_expand_in_order)
{
    char *dir = cli_tmpdir();
    char text[2048];
    snprintf(text, sizeof text,
             "[sweep]\nconfigs = %s\nworkloads = square,\n  vecadd\nset = sim.seed=3\n"
             "db = out/r.db\n"
             "[matrix a]\nschemes = viper, hmg\nchiplets = 2, 4\n"
             "[matrix b]\nworkloads = square\nschemes = viper\nchiplets = 2\n"
             "l2.size_kib = 32\n  64\n"
             "[workload square]\nn = 4096\nl3.size_kib = 32\n",
             tiny());
    char *path = cli_write_file(dir, "s.ini", text);
    struct sweep sw;
    struct err e;
    cr_assert_eq(sweep_load(&sw, path, &e), 0, "%s", e.msg);
    /* a: 2 workloads x 2 schemes x 2 counts; b: 2 sizes, none shared with a */
    cr_expect_eq(sw.nruns, 10);
    char key[PATH_MAX + 256];
    snprintf(key, sizeof key,
             "%s square workload.n=4096 l3.size_kib=32 sim.seed=3 coherence.scheme=hmg "
             "gpu.chiplets=4", tiny());
    cr_expect(has_run(&sw, key), "%s", key);
    snprintf(key, sizeof key, "%s vecadd sim.seed=3 coherence.scheme=viper gpu.chiplets=2",
             tiny());
    cr_expect(has_run(&sw, key), "%s", key);
    snprintf(key, sizeof key,
             "%s square workload.n=4096 l3.size_kib=32 sim.seed=3 l2.size_kib=64 "
             "coherence.scheme=viper gpu.chiplets=2",
             tiny());
    cr_expect(has_run(&sw, key), "%s", key);
    cr_expect_str_eq(sw.runs[0].workload, "square");
    cr_expect_eq(sw.runs[0].noverrides, 5);
    char want[PATH_MAX];
    snprintf(want, sizeof want, "%s/out/r.db", dir);
    cr_expect_str_eq(sw.db, want, "db relative to the sweep file");
    sweep_filter(&sw, "gpu.chiplets=4");
    cr_expect_eq(sw.nruns, 4);
    /* what `study --d4 artifact` does: one more override on every run, in its key too */
    sweep_add_override(&sw, "coherence.remote_store=write_back");
    snprintf(key, sizeof key,
             "%s square workload.n=4096 l3.size_kib=32 sim.seed=3 coherence.scheme=hmg "
             "gpu.chiplets=4 coherence.remote_store=write_back", tiny());
    cr_expect(has_run(&sw, key), "%s", key);
    cr_expect_eq(sw.runs[0].noverrides, 6);
    cr_expect_str_eq(sw.runs[0].overrides[5], "coherence.remote_store=write_back");
    cr_expect_null(sw.runs[0].overrides[6]);
    sweep_free(&sw);
    /* what `study --full` reads: the [workload] sections checked, not applied */
    cr_assert_eq(sweep_load_sections(&sw, path, false, &e), 0, "%s", e.msg);
    snprintf(key, sizeof key, "%s square sim.seed=3 coherence.scheme=hmg gpu.chiplets=4",
             tiny());
    cr_expect(has_run(&sw, key), "%s", key);
    sweep_free(&sw);
    free(path);
    free(dir);
}

/* A configs entry A+B stacks B's keys on A's, each path relative to the
 * sweep file: the run resolves with both. */
Test(sweep, stacked_configs_load_in_order)
{
    char *dir = cli_tmpdir();
    char *over = cli_write_file(dir, "over.ini", "[l2]\nsize_kib = 48\n");
    char text[PATH_MAX + 256];
    snprintf(text, sizeof text, "[sweep]\nconfigs = %s+over.ini\nworkloads = vecadd\n", tiny());
    char *path = cli_write_file(dir, "s.ini", text);
    struct sweep sw;
    struct err e;
    cr_assert_eq(sweep_load(&sw, path, &e), 0, "%s", e.msg);
    cr_assert_eq(sw.nruns, 1);
    char want[2 * PATH_MAX + 8], real[PATH_MAX];
    cr_assert(realpath(over, real));
    snprintf(want, sizeof want, "%s+%s", tiny(), real);
    cr_expect_str_eq(sw.runs[0].config, want);
    const char *cfgs[] = {sw.runs[0].config};
    struct run_opts o = {.configs = cfgs, .nconfigs = 1, .workload = "vecadd"};
    struct cfg c;
    cfg_init(&c);
    cr_assert_eq(setup_config(&c, &o, &e), 0, "%s", e.msg);
    cr_expect_eq(cfg_uint(cfg_sec(&c, "l2"), "size_kib"), 48, "over.ini's value, after tiny's");
    cfg_free(&c);
    sweep_free(&sw);
    free(path);
    free(over);
    free(dir);
}

/* What `study --quick` keeps of a study with main and sensitivity matrices:
 * the runs a matrix named main... gives, one given by both kinds included. */
Test(sweep, runs_keep_the_matrices_that_give_them)
{
    char *dir = cli_tmpdir();
    char text[2048];
    snprintf(text, sizeof text,
             "[sweep]\nconfigs = %s\nworkloads = vecadd\nschemes = viper\n"
             "[matrix main-4]\nchiplets = 4\n"
             "[matrix main-2]\nchiplets = 2\n"
             "[matrix l2]\nchiplets = 2, 4\nl2.size_kib = 32, 64\n"
             "[matrix again]\nchiplets = 4\n",
             tiny());
    char *path = cli_write_file(dir, "s.ini", text);
    struct sweep sw;
    struct err e;
    cr_assert_eq(sweep_load(&sw, path, &e), 0, "%s", e.msg);
    /* main-4 and again give the same run: 2 + 4 runs */
    cr_assert_eq(sw.nruns, 6);
    cr_expect_str_eq(sw.runs[0].matrices, "main-4 again");
    cr_expect_str_eq(sw.runs[1].matrices, "main-2");
    cr_expect_str_eq(sw.runs[2].matrices, "l2");
    sweep_keep_matrices(&sw, "main");
    cr_expect_eq(sw.nruns, 2);
    cr_expect_str_eq(sw.runs[1].matrices, "main-2");
    sweep_keep_matrices(&sw, "again");
    cr_expect_eq(sw.nruns, 1);
    sweep_free(&sw);
    /* without [matrix] sections, [sweep] is the one matrix */
    snprintf(text, sizeof text, "[sweep]\nconfigs = %s\nworkloads = vecadd\n", tiny());
    free(path);
    path = cli_write_file(dir, "t.ini", text);
    cr_assert_eq(sweep_load(&sw, path, &e), 0, "%s", e.msg);
    cr_expect_str_eq(sw.runs[0].matrices, "sweep");
    sweep_free(&sw);
    free(path);
    free(dir);
}

static void expect_error(const char *text, const char *want_suffix)
{
    char *dir = cli_tmpdir();
    char *path = cli_write_file(dir, "bad.ini", text);
    struct sweep sw;
    struct err e;
    cr_expect_eq(sweep_load(&sw, path, &e), -1, "accepted: %s", text);
    size_t n = strlen(path);
    cr_expect(!strncmp(e.msg, path, n) && !strcmp(e.msg + n, want_suffix), "got: %s\nwant: %s%s",
              e.msg, path, want_suffix);
    free(path);
    free(dir);
}

Test(sweep, bad_files_name_file_line_and_key)
{
    expect_error("[sweep]\nworkloads = square\nschemes = viper, nope\n",
                 ":3: [sweep] schemes: unknown scheme 'nope' (see chipsim list schemes)");
    expect_error("[sweep]\nworkloads = squar\n",
                 ":2: [sweep] workloads: unknown workload 'squar' (see chipsim list workloads)");
    expect_error("[sweep]\nconfigs = no/such.ini\n",
                 ":2: [sweep] configs: cannot read config file 'no/such.ini'");
    expect_error("[sweep]\nconfigs = /dev/null+no/such.ini\n",
                 ":2: [sweep] configs: cannot read config file 'no/such.ini'");
    expect_error("[sweep]\nconfigs = +\n", ":2: [sweep] configs: '+': no config file");
    expect_error("[sweep]\nworkloads = square\nfrobs = 3\n",
                 ":3: [sweep] frobs: unknown key (configs, workloads, schemes, chiplets, small, "
                 "set, db, or section.key = values for an axis)");
    expect_error("[sweep]\nset = l2.size_kib\n",
                 ":2: [sweep] set: 'l2.size_kib': expected section.key=value");
    expect_error("[sweep]\nchiplets = four\n", ":2: [sweep] chiplets: 'four' is not a chiplet count");
    expect_error("[sweeps]\nx = 1\n",
                 ":2: [sweeps] x: unknown section (expected [sweep], [matrix NAME] or "
                 "[workload NAME])");
    expect_error("[sweep]\nworkloads = square\n", ": [sweep]: no configs given");
    expect_error("oops\n", ":1: malformed line (expected [section] or key = value inside a "
                           "section)");
}

Test(sweep, a_bad_key_of_a_run_is_reported_before_anything_runs)
{
    char *dir = cli_tmpdir();
    char text[1024];
    snprintf(text, sizeof text, "[sweep]\nconfigs = %s\nworkloads = square\nl2.sise_kib = 1\n",
             tiny());
    char *path = cli_write_file(dir, "s.ini", text);
    struct sweep sw;
    struct err e;
    cr_assert_eq(sweep_load(&sw, path, &e), -1);
    cr_expect(strstr(e.msg, "sise_kib"), "%s", e.msg);
    free(path);
    free(dir);
}

/* ---- the database ------------------------------------------------------------ */

/* Every stored row as text, without the columns that differ from run to run
 * (wall time, finish time), in key order. */
static char *dump(const char *db_path)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT * FROM runs ORDER BY key", -1, &st, NULL),
                 SQLITE_OK);
    size_t cap = 1 << 20, n = 0;
    char *out = calloc(cap, 1);
    while (sqlite3_step(st) == SQLITE_ROW)
        for (int i = 0; i < sqlite3_column_count(st); i++) {
            const char *name = sqlite3_column_name(st, i);
            if (!strcmp(name, "wall_s") || !strcmp(name, "finished"))
                continue;
            const char *v = (const char *)sqlite3_column_text(st, i);
            n += (size_t)snprintf(out + n, cap - n, "%s=%s%c", name, v ? v : "NULL",
                                  i + 1 < sqlite3_column_count(st) ? ' ' : '\n');
            cr_assert_lt(n, cap);
        }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

static long query_int(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    long v = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 2000);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static char *query_text(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    char *v = NULL;
    cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static const char *bin(void)
{
    const char *b = getenv("CHIPSIM_BIN");
    return b ? b : "bin/chipsim";
}

static char *sweep_file(const char *dir)
{
    char text[2048];
    snprintf(text, sizeof text,
             "[sweep]\nconfigs = %s\n"
             "[matrix main]\nworkloads = square, vecadd, color\n"
             "schemes = viper, ideal, cpelide, hmg\n"
             "[matrix bad]\nworkloads = stream\nchiplets = 1\nsmall = true\n"
             "set = workload.target=remote\n",
             tiny());
    return cli_write_file(dir, "s.ini", text);
}

#define ROWS 13 /* 3 workloads x 4 schemes, and the run that fails */

Test(sweep, a_failed_run_is_stored_with_its_error_and_the_others_complete)
{
    char *dir = cli_tmpdir();
    char *path = sweep_file(dir), db[PATH_MAX], csv[PATH_MAX];
    snprintf(db, sizeof db, "%s/r.db", dir);
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    const char *argv[] = {"sweep", path, "--db", db, "--jobs", "2", "--csv", csv, NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 3, "a failed run makes the sweep fail: %s", r.err);
    cr_expect(strstr(r.err, "13 runs: 0 stored before, 13 run now, 1 failed"), "%s", r.err);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'"), ROWS - 1);
    char *err = query_text(db, "SELECT error FROM runs WHERE status = 'failed'");
    cr_expect(err && strstr(err, "needs at least 2 chiplets"), "%s", err ? err : "(none)");
    cr_expect_eq(query_int(db, "SELECT exit_code FROM runs WHERE status = 'failed'"), 2);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM runs WHERE scheme = 'hmg' AND "
                               "chiplets = 2 AND cycles > 0 AND stale_reads = 0"),
                 3);
    free(err);
    cli_result_free(&r);
    /* started again: nothing to do, the failure is not retried */
    r = cli_exec(argv);
    cr_expect(strstr(r.err, "13 runs: 13 stored before, 0 run now, 0 failed"), "%s", r.err);
    cr_expect_eq(r.status, 0);
    cli_result_free(&r);
    /* the CSV: a header and one line per run (no field holds a line break) */
    FILE *f = fopen(csv, "r");
    cr_assert(f);
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    cr_expect_eq(lines, 1 + ROWS);
    free(path);
    free(dir);
}

static pid_t spawn_sweep(const char *path, const char *db)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(127);
        execl(bin(), bin(), "sweep", path, "--db", db, "--jobs", "2", (char *)NULL);
        _exit(127);
    }
    return pid;
}

Test(sweep, a_sweep_killed_part_way_resumes_to_the_same_database)
{
    char *dir = cli_tmpdir();
    char *path = sweep_file(dir), ref[PATH_MAX], db[PATH_MAX];
    snprintf(ref, sizeof ref, "%s/ref.db", dir);
    snprintf(db, sizeof db, "%s/killed.db", dir);
    const char *argv[] = {"sweep", path, "--db", ref, "--jobs", "2", NULL};
    struct cli_result r = cli_exec(argv);
    cli_result_free(&r);
    /* kill the sweep once a few runs are stored, then until it is killed
     * with runs stored and runs missing (kill it again if it got too far) */
    long stored = 0;
    pid_t pid = spawn_sweep(path, db);
    for (int tries = 0; tries < 20000; tries++) {
        stored = query_int(db, "SELECT count(*) FROM runs");
        if (stored >= 3)
            break;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    int ws;
    waitpid(pid, &ws, 0);
    cr_expect(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
    stored = query_int(db, "SELECT count(*) FROM runs");
    cr_expect(stored >= 3 && stored < ROWS, "%ld runs stored when killed", stored);
    /* no orphaned worker keeps writing: the count stays */
    struct timespec ts = {0, 300000000};
    nanosleep(&ts, NULL);
    cr_expect_eq(query_int(db, "SELECT count(*) FROM runs"), stored);
    const char *again[] = {"sweep", path, "--db", db, "--jobs", "2", NULL};
    r = cli_exec(again);
    char want[128];
    snprintf(want, sizeof want, "13 runs: %ld stored before, %ld run now", stored, ROWS - stored);
    cr_expect(strstr(r.err, want), "want '%s' in: %s", want, r.err);
    cli_result_free(&r);
    char *a = dump(ref), *b = dump(db);
    cr_expect_str_eq(b, a);
    cr_expect_eq(query_int(db, "SELECT count(*) - count(DISTINCT key) FROM runs"), 0);
    char *ok = query_text(db, "PRAGMA integrity_check");
    cr_expect_str_eq(ok, "ok");
    free(ok);
    free(a);
    free(b);
    free(path);
    free(dir);
}
