/*
 * sweep_slurm.c -- the Slurm backend of `chipsim sweep` (sweep.h,
 * docs/sweeps.md "Running on a Slurm cluster").
 *
 * The runs not yet stored go to a manifest in the results directory
 * DB.slurm/ (which compute nodes must share with this machine) and to one
 * job array; task i runs `chipsim sweep-task MANIFEST i`, which runs run i
 * in-process and renames its outcome into DB.slurm/results/HASH.json (HASH
 * of the run's key), so a result file is whole or absent. This process is
 * the only writer of the database: it stores each result with the same
 * function as the local backend, one transaction per run, and records
 * every task it has dealt with in table slurm_tasks, so no result is
 * stored twice for one task and a task that ended without a result (killed,
 * cancelled, timed out, its node lost) is recorded once with Slurm's state
 * and its log, and its run is submitted again by the next invocation.
 * Jobs not yet fully collected are in table slurm_jobs: an invocation
 * that finds them (after --no-wait, or after this process was stopped)
 * collects what ended and waits for, never resubmits, what is queued.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "slurm.h"
#include "stats/report.h"
#include "sweep_db.h"
#include "sweep_task.h"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS slurm_jobs (job TEXT PRIMARY KEY, manifest TEXT NOT NULL,"
    " tasks INTEGER NOT NULL, submitted TEXT NOT NULL, collected TEXT);"
    "CREATE TABLE IF NOT EXISTS slurm_tasks (job TEXT NOT NULL, task INTEGER NOT NULL,"
    " key TEXT NOT NULL, result TEXT NOT NULL, slurm_state TEXT, slurm_exit TEXT, log TEXT,"
    " recorded TEXT NOT NULL, PRIMARY KEY (job, task))";

/* DONE: stored before this invocation; STORED: by it. */
enum run_state { TODO, DONE, STORED, FLIGHT, LOST };

struct job {
    char id[32];
    char *manifest;
    json_t *runs;            /* the manifest's runs */
    size_t ntasks, left;     /* left: tasks not yet recorded in slurm_tasks */
    unsigned char *marked;
    struct slurm_task *active;
    long nactive;            /* -1: squeue failed, nothing is known */
};

struct run_key;

struct ctx {
    const struct sweep *sw;
    const struct sweep_opts *o;
    const struct sweep_slurm_opts *so;
    struct sweep_result *res;
    sqlite3 *db;
    char dir[PATH_MAX], cwd[PATH_MAX];
    struct job *jobs;
    size_t njobs, jcap;
    enum run_state *state;
    struct run_key *by_key;  /* the runs in key order */
    size_t ended;            /* tasks ended while this process waited */
    double t0, last_warn;
};

static void utc_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

/* ---- the database: jobs and tasks -------------------------------------------------- */

static int exec_sql(struct ctx *c, const char *sql, struct err *e)
{
    if (sqlite3_exec(c->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return sweep_db_err(e, c->db, c->sw->db, "cannot update the Slurm tables");
    return 0;
}

/* One task dealt with: result is ok, failed (stored in runs) or lost. */
static int mark_task(struct ctx *c, struct job *j, size_t t, const char *result,
                     const struct slurm_task *st, const char *log, struct err *e)
{
    char when[32];
    utc_now(when, sizeof when);
    const char *key = json_string_value(json_object_get(json_array_get(j->runs, t), "key"));
    char *sql = sqlite3_mprintf("INSERT OR REPLACE INTO slurm_tasks VALUES (%Q, %lld, %Q, %Q, %Q,"
                                " %Q, %Q, %Q)",
                                j->id, (long long)t, key, result, st ? st->state : NULL,
                                st ? st->exit_code : NULL, log, when);
    int rc = exec_sql(c, sql, e);
    sqlite3_free(sql);
    if (!rc && !j->marked[t]) {
        j->marked[t] = 1;
        j->left--;
    }
    return rc;
}

static void job_free(struct job *j)
{
    free(j->manifest);
    json_decref(j->runs);
    free(j->marked);
    free(j->active);
}

/* A job of slurm_jobs not yet collected, with the tasks recorded already. */
static void job_load(struct ctx *c, const char *id, const char *manifest, json_t *runs)
{
    c->jobs = xgrow(c->jobs, sizeof *c->jobs, &c->jcap, c->njobs + 1);
    struct job *j = &c->jobs[c->njobs++];
    *j = (struct job){.manifest = xstrdup(manifest), .runs = json_incref(runs),
                      .ntasks = json_array_size(runs)};
    snprintf(j->id, sizeof j->id, "%s", id);
    j->marked = xcalloc(j->ntasks + 1, 1);
    j->left = j->ntasks;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c->db, "SELECT task FROM slurm_tasks WHERE job = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        long t = sqlite3_column_int64(st, 0);
        if (t >= 0 && (size_t)t < j->ntasks && !j->marked[t]) {
            j->marked[t] = 1;
            j->left--;
        }
    }
    sqlite3_finalize(st);
}

/* A job whose manifest is gone (removed by hand) cannot be followed: it
 * is forgotten, and its runs count as missing (a result its tasks still
 * leave is stored all the same, see adopt_orphans). */
static int forget_job(struct ctx *c, const char *id, const char *manifest, const char *why,
                      struct err *e)
{
    char *script = sweep_script_path(manifest);
    unlink(script);
    free(script);
    if (!c->o->quiet)
        fprintf(stderr, "%s: Slurm job %s: %s; forgetting the job\n", c->o->label, id, why);
    char *sql = sqlite3_mprintf("UPDATE slurm_jobs SET collected = 'forgotten' WHERE job = %Q",
                                id);
    int rc = exec_sql(c, sql, e);
    sqlite3_free(sql);
    return rc;
}

static int jobs_load(struct ctx *c, struct err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c->db, "SELECT job, manifest FROM slurm_jobs WHERE collected IS NULL"
                                  " ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
        return sweep_db_err(e, c->db, c->sw->db, "cannot read table slurm_jobs");
    char **gone = NULL;
    size_t ngone = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0);
        const char *path = (const char *)sqlite3_column_text(st, 1);
        struct err me;
        json_t *m = sweep_manifest_load(path, &me);
        if (m) {
            job_load(c, id, path, json_object_get(m, "runs"));
        } else {
            gone = xgrow(gone, sizeof *gone, &cap, ngone + 3);
            gone[ngone++] = xstrdup(id);
            gone[ngone++] = xstrdup(path);
            gone[ngone++] = xstrdup(me.msg);
        }
        json_decref(m);
    }
    sqlite3_finalize(st);
    int rc = 0;
    for (size_t i = 0; i < ngone; i += 3) {
        if (!rc)
            rc = forget_job(c, gone[i], gone[i + 1], gone[i + 2], e);
        for (size_t k = i; k < i + 3; k++)
            free(gone[k]);
    }
    free(gone);
    return rc;
}

/* ---- the runs of this sweep ---------------------------------------------------------- */

struct run_key {
    const char *key;
    size_t run;
};

static int cmp_key(const void *a, const void *b)
{
    return strcmp(((const struct run_key *)a)->key, ((const struct run_key *)b)->key);
}

static void index_runs(struct ctx *c)
{
    c->by_key = xcalloc(c->sw->nruns + 1, sizeof *c->by_key);
    for (size_t i = 0; i < c->sw->nruns; i++)
        c->by_key[i] = (struct run_key){c->sw->runs[i].key, i};
    if (c->sw->nruns)
        qsort(c->by_key, c->sw->nruns, sizeof *c->by_key, cmp_key);
}

/* The index of the sweep's run with this key, or -1 (another sweep's). */
static long find_run(const struct ctx *c, const char *key)
{
    struct run_key k = {key, 0};
    const struct run_key *f =
        key && c->sw->nruns ? bsearch(&k, c->by_key, c->sw->nruns, sizeof k, cmp_key) : NULL;
    return f ? (long)f->run : -1;
}

/* A run stored before this invocation that is in Slurm again (a failure
 * submitted again with --retry-failed) no longer counts as stored before. */
static void set_state(struct ctx *c, long idx, enum run_state s)
{
    if (c->state[idx] == DONE && s != DONE)
        c->res->done_before--;
    c->state[idx] = s;
}

/* ---- collecting ------------------------------------------------------------------------ */

static int eta_s(const struct ctx *c, size_t left)
{
    if (!c->ended)
        return 0;
    return (int)((sweep_now_s() - c->t0) / (double)c->ended * (double)left);
}

static size_t in_flight(const struct ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->njobs; i++)
        n += c->jobs[i].left;
    return n;
}

/* Read a task's result file into an outcome; false when it is not this
 * key's (a hash shared by two keys: the file is left alone). */
static bool read_result(const char *path, const char *key, struct sweep_outcome *out)
{
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    *out = (struct sweep_outcome){.status = EXIT_SIMFAIL};
    if (!r) {
        snprintf(out->error, sizeof out->error, "unreadable result: %s", je.text);
        return true;
    }
    const char *k = json_string_value(json_object_get(r, "key"));
    bool mine = k && !strcmp(k, key);
    if (mine) {
        out->status = (int)json_integer_value(json_object_get(r, "status"));
        out->wall_s = json_number_value(json_object_get(r, "wall_s"));
        const char *err = json_string_value(json_object_get(r, "error"));
        snprintf(out->error, sizeof out->error, "%s", err ? err : "");
        json_t *run = json_object_get(r, "run");
        out->result = json_is_object(run) ? json_incref(run) : NULL;
        if (!out->status && !out->result) {
            out->status = EXIT_SIMFAIL;
            snprintf(out->error, sizeof out->error, "unreadable result: no run");
        }
    }
    json_decref(r);
    return mine;
}

/* Store a result file's outcome for run r (of this sweep when idx >= 0). */
static int store_result(struct ctx *c, const struct sweep_run *r, long idx, const char *path,
                        struct sweep_outcome *out, struct err *e)
{
    if (sweep_db_store(c->db, r, out))
        return sweep_db_err(e, c->db, c->sw->db, "cannot store a run");
    unlink(path);
    if (idx < 0 || c->state[idx] == STORED)
        return 0;
    set_state(c, idx, STORED);
    c->res->ran++;
    c->res->failed += out->status != 0;
    sweep_print_stored(c->o, r, out, c->res, eta_s(c, in_flight(c)));
    return 0;
}

static int harvest(struct ctx *c, struct job *j, size_t t, const char *path, struct err *e)
{
    struct sweep_run r;
    int rc = sweep_manifest_run(json_array_get(j->runs, t), &r);
    struct sweep_outcome out;
    if (rc || !read_result(path, r.key, &out)) {
        free(r.overrides);
        return 1; /* not this task's: it is still to come */
    }
    long idx = find_run(c, r.key);
    rc = store_result(c, &r, idx, path, &out, e);
    if (!rc)
        rc = mark_task(c, j, t, out.status ? "failed" : "ok", NULL, NULL, e);
    json_decref(out.result);
    free(r.overrides);
    c->ended++;
    return rc;
}

/* The tail of a task's two logs: chipsim's stderr, then Slurm's output. */
static void lost_log(const struct ctx *c, const struct job *j, size_t t, char *buf, size_t n)
{
    char a[SWEEP_ERROR_MAX / 2], b[SWEEP_ERROR_MAX / 2];
    char *log = sweep_task_file(c->dir, j->id, t, "log"), *out = sweep_task_file(c->dir, j->id, t, "out");
    sweep_log_tail(log, a, sizeof a);
    sweep_log_tail(out, b, sizeof b);
    snprintf(buf, n, "%s%s%s", a, *a && *b ? "\n" : "", b);
    free(log);
    free(out);
}

static int record_lost(struct ctx *c, struct job *j, size_t t, const struct slurm_task *fin,
                       size_t nfin, struct err *e)
{
    struct slurm_task st = {.index = (long)t, .state = "UNKNOWN"};
    for (size_t i = 0; i < nfin; i++)
        if (fin[i].index == (long)t)
            st = fin[i];
    char log[SWEEP_ERROR_MAX];
    lost_log(c, j, t, log, sizeof log);
    int rc = mark_task(c, j, t, "lost", &st, log, e);
    const char *key = json_string_value(json_object_get(json_array_get(j->runs, t), "key"));
    long idx = find_run(c, key);
    if (rc || idx < 0 || c->state[idx] == DONE || c->state[idx] == STORED)
        return rc;
    set_state(c, idx, LOST);
    c->res->lost++;
    c->ended++;
    if (c->o->quiet)
        return 0;
    fprintf(stderr, "%s: LOST %s: Slurm task %s_%zu ended %s%s%s%s without a result%s\n",
            c->o->label, key, j->id, t, st.state, *st.exit_code ? " (exit code " : "",
            st.exit_code, *st.exit_code ? ")" : "",
            !strcmp(st.state, "COMPLETED") ? " here (is the results directory shared with the "
                                             "compute nodes?)"
            : !strcmp(st.state, "UNKNOWN") ? " (Slurm has no record of it: cancelled while "
                                             "pending, or purged)"
                                           : "");
    if (*log)
        fprintf(stderr, "%s:   %s\n", c->o->label, log);
    return 0;
}

static bool is_active(const struct job *j, size_t t)
{
    if (j->nactive < 0)
        return true; /* squeue failed: assume nothing ended */
    for (long i = 0; i < j->nactive; i++)
        if (j->active[i].index == (long)t)
            return true;
    return false;
}

/* A job whose every task is recorded: forget its manifest and script, and
 * the logs of the runs that are stored as ok (a failure's log stays). */
static int close_job(struct ctx *c, struct job *j, struct err *e)
{
    char when[32];
    utc_now(when, sizeof when);
    char *sql = sqlite3_mprintf("UPDATE slurm_jobs SET collected = %Q WHERE job = %Q", when,
                                j->id);
    int rc = exec_sql(c, sql, e);
    sqlite3_free(sql);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c->db, "SELECT task FROM slurm_tasks WHERE job = ? AND result = 'ok'",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, j->id, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) {
            size_t t = (size_t)sqlite3_column_int64(st, 0);
            char *log = sweep_task_file(c->dir, j->id, t, "log"), *out = sweep_task_file(c->dir, j->id, t, "out");
            unlink(log);
            unlink(out);
            free(log);
            free(out);
        }
        sqlite3_finalize(st);
    }
    char *script = sweep_script_path(j->manifest);
    unlink(j->manifest);
    unlink(script);
    free(script);
    return 0;
}

/* What became of one job's tasks since the last look. */
static int look_at_job(struct ctx *c, struct job *j, struct err *e)
{
    struct err qe;
    free(j->active);
    j->nactive = slurm_active(j->id, &j->active, &qe); /* before looking for files */
    if (j->nactive < 0 && !c->o->quiet && sweep_now_s() - c->last_warn > 60) {
        fprintf(stderr, "%s: Slurm job %s: %s (trying again)\n", c->o->label, j->id, qe.msg);
        c->last_warn = sweep_now_s();
    }
    size_t *lost = xcalloc(j->ntasks + 1, sizeof *lost), nlost = 0;
    int rc = 0;
    for (size_t t = 0; t < j->ntasks && !rc; t++) {
        if (j->marked[t])
            continue;
        const char *key = json_string_value(json_object_get(json_array_get(j->runs, t), "key"));
        char *path = sweep_result_path(c->dir, key ? key : "");
        int h = access(path, F_OK) ? 1 : harvest(c, j, t, path, e);
        if (h < 0)
            rc = -1;
        else if (h > 0 && !is_active(j, t))
            lost[nlost++] = t;
        else if (h > 0 && find_run(c, key) >= 0)
            set_state(c, find_run(c, key), FLIGHT);
        free(path);
    }
    struct slurm_task *fin = NULL;
    size_t nfin = nlost && !rc ? slurm_final(j->id, &fin) : 0;
    for (size_t i = 0; i < nlost && !rc; i++)
        rc = record_lost(c, j, lost[i], fin, nfin, e);
    free(fin);
    free(lost);
    if (!rc && !j->left)
        rc = close_job(c, j, e);
    return rc;
}

static int look(struct ctx *c, struct err *e)
{
    int rc = 0;
    for (size_t i = 0; i < c->njobs && !rc; i++)
        if (c->jobs[i].left)
            rc = look_at_job(c, &c->jobs[i], e);
    return rc;
}

/* Result files of this sweep's runs that no job of the database claims
 * (their job was submitted by a process stopped before it recorded it):
 * a result is a result, so it is stored rather than run again. */
static int adopt_orphans(struct ctx *c, struct err *e)
{
    int rc = 0;
    for (size_t i = 0; i < c->sw->nruns && !rc; i++) {
        if (c->state[i] != TODO)
            continue;
        const struct sweep_run *r = &c->sw->runs[i];
        char *path = sweep_result_path(c->dir, r->key);
        struct sweep_outcome out;
        if (!access(path, F_OK) && read_result(path, r->key, &out)) {
            rc = store_result(c, r, (long)i, path, &out, e);
            json_decref(out.result);
        }
        free(path);
    }
    return rc;
}

/* ---- submitting ------------------------------------------------------------------------ */

static char *shell_quote(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = xmalloc(n), *o = q;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = 0;
    return q;
}

static int write_script(const char *path, const char *manifest, struct err *e)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return err_set(e, "cannot find this program's path: %s", strerror(errno));
    self[n] = 0;
    char *bin = shell_quote(self), *man = shell_quote(manifest);
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : err_set(e, "%s: cannot write: %s", path, strerror(errno));
    if (f) {
        fprintf(f, "#!/bin/sh\n# chipsim sweep: array task i runs run i of the manifest\n"
                   "exec %s sweep-task %s \"$SLURM_ARRAY_TASK_ID\"\n", bin, man);
        if (fclose(f))
            rc = err_set(e, "%s: cannot write: %s", path, strerror(errno));
    }
    free(bin);
    free(man);
    return rc;
}

static int write_manifest(const struct ctx *c, const char *path, const size_t *runs, size_t n,
                          json_t **out, struct err *e)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, sweep_manifest_entry(&c->sw->runs[runs[i]]));
    json_t *m = json_pack("{s:i, s:s, s:s, s:o}", "version", 1, "cwd", c->cwd, "dir", c->dir,
                          "runs", arr);
    int rc = json_write_atomic(path, m, e);
    *out = rc ? NULL : json_incref(arr);
    json_decref(m);
    return rc;
}

static int record_job(struct ctx *c, const char *id, const char *manifest, json_t *runs,
                      struct err *e)
{
    char when[32];
    utc_now(when, sizeof when);
    char *sql = sqlite3_mprintf("INSERT INTO slurm_jobs VALUES (%Q, %Q, %lld, %Q, NULL)", id,
                                manifest, (long long)json_array_size(runs), when);
    int rc = exec_sql(c, sql, e);
    sqlite3_free(sql);
    if (!rc)
        job_load(c, id, manifest, runs);
    return rc;
}

/* One job array for runs[0..n-1]. */
static int submit_array(struct ctx *c, const size_t *runs, size_t n, unsigned part,
                        struct err *e)
{
    char stamp[64], id[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", gmtime(&now));
    char *manifest = xasprintf("%s/batch-%s-%ld-%u.json", c->dir, stamp, (long)getpid(), part);
    char *script = sweep_script_path(manifest);
    char *output = xasprintf("%s/logs/%%A_%%a.out", c->dir);
    json_t *arr = NULL;
    int rc = write_manifest(c, manifest, runs, n, &arr, e);
    if (!rc)
        rc = write_script(script, manifest, e);
    struct slurm_array a = {.script = script, .ntasks = n, .max_parallel = c->so->max_parallel,
                            .name = "chipsim-sweep", .output = output, .chdir = c->cwd,
                            .partition = c->so->partition, .time = c->so->time,
                            .extra = c->so->sbatch_args, .nextra = c->so->nsbatch_args};
    if (!rc)
        rc = slurm_submit(&a, id, sizeof id, e);
    if (!rc)
        rc = record_job(c, id, manifest, arr, e);
    else {
        unlink(manifest); /* nothing was submitted: leave nothing behind */
        unlink(script);
    }
    if (!rc && !c->o->quiet)
        fprintf(stderr, "%s: submitted %zu run%s as Slurm job %s (array 0-%zu%s%.0u)\n",
                c->o->label, n, n == 1 ? "" : "s", id, n - 1, c->so->max_parallel ? "%" : "",
                c->so->max_parallel);
    json_decref(arr);
    free(manifest);
    free(script);
    free(output);
    return rc;
}

static int submit(struct ctx *c, struct err *e)
{
    size_t *todo = xcalloc(c->sw->nruns + 1, sizeof *todo), n = 0;
    for (size_t i = 0; i < c->sw->nruns; i++)
        if (c->state[i] == TODO || c->state[i] == LOST)
            todo[n++] = i;
    size_t max = n ? (size_t)slurm_max_array_size() : 1;
    int rc = 0;
    for (size_t from = 0; from < n && !rc; from += max)
        rc = submit_array(c, todo + from, n - from < max ? n - from : max,
                          (unsigned)(from / max), e);
    for (size_t i = 0; i < n && !rc; i++)
        set_state(c, (long)todo[i], FLIGHT);
    free(todo);
    return rc;
}

/* ---- waiting ------------------------------------------------------------------------------ */

static void count_queue(const struct ctx *c, size_t *running, size_t *pending)
{
    *running = *pending = 0;
    for (size_t i = 0; i < c->njobs; i++) {
        const struct job *j = &c->jobs[i];
        for (long k = 0; j->left && k < j->nactive; k++) {
            long t = j->active[k].index;
            if (t < 0 || (size_t)t >= j->ntasks || j->marked[t])
                continue;
            if (!strcmp(j->active[k].state, "RUNNING"))
                ++*running;
            else
                ++*pending;
        }
    }
}

/* A progress line when something changed, and at least once a minute. */
static void report_queue(struct ctx *c, char *last, size_t n, double *last_t)
{
    size_t running, pending;
    count_queue(c, &running, &pending);
    char line[256];
    int eta = eta_s(c, in_flight(c));
    snprintf(line, sizeof line, "%s: Slurm: %zu/%zu stored, %zu failed, %zu lost; %zu running, "
                                "%zu pending",
             c->o->label, c->res->done_before + c->res->ran, c->res->total, c->res->failed,
             c->res->lost, running, pending);
    if (c->o->quiet || (!strcmp(line, last) && sweep_now_s() - *last_t < 60))
        return;
    snprintf(last, n, "%s", line);
    *last_t = sweep_now_s();
    if (c->ended)
        fprintf(stderr, "%s; ETA %dm%02ds\n", line, eta / 60, eta % 60);
    else
        fprintf(stderr, "%s\n", line);
}

static int wait_all(struct ctx *c, struct err *e)
{
    char last[256] = "";
    double last_t = 0;
    c->t0 = sweep_now_s();
    c->ended = 0;
    int rc = 0;
    while (!rc && in_flight(c)) {
        struct timespec ts = {(time_t)c->so->poll_s,
                              (long)((c->so->poll_s - (double)(time_t)c->so->poll_s) * 1e9)};
        nanosleep(&ts, NULL);
        rc = look(c, e);
        if (!rc && in_flight(c))
            report_queue(c, last, sizeof last, &last_t);
    }
    return rc;
}

/* ---- the backend ---------------------------------------------------------------------------- */

/* Temporary files of tasks killed while writing (dot files and *.tmp.*),
 * once no job is left that could still be writing them; then the
 * directories, when nothing else is left in them. */
static void tidy(const struct ctx *c)
{
    char *res = xasprintf("%s/results", c->dir), *logs = xasprintf("%s/logs", c->dir);
    DIR *d = opendir(res);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            (de->d_name[0] == '.' || strstr(de->d_name, ".tmp."))) {
            char *p = xasprintf("%s/%s", res, de->d_name);
            unlink(p);
            free(p);
        }
    }
    if (d)
        closedir(d);
    rmdir(res);
    rmdir(logs);
    rmdir(c->dir);
    free(res);
    free(logs);
}

static int setup(struct ctx *c, struct err *e)
{
    if (!getcwd(c->cwd, sizeof c->cwd))
        return err_set(e, "cannot get the current directory: %s", strerror(errno));
    /* absolute: tasks run elsewhere, and from the submission's directory */
    char *dir = c->sw->db[0] == '/' ? xasprintf("%s.slurm", c->sw->db)
                                    : xasprintf("%s/%s.slurm", c->cwd, c->sw->db);
    bool fits = strlen(dir) < sizeof c->dir;
    if (fits)
        strcpy(c->dir, dir);
    free(dir);
    if (!fits)
        return err_set(e, "%s: path too long", c->sw->db);
    char *res = xasprintf("%s/results", c->dir), *logs = xasprintf("%s/logs", c->dir);
    int rc = sweep_make_dir(c->dir, e);
    if (!rc)
        rc = sweep_make_dir(res, e);
    if (!rc)
        rc = sweep_make_dir(logs, e);
    free(res);
    free(logs);
    if (!rc)
        rc = sweep_db_open(c->sw->db, &c->db, true, e);
    if (!rc && sqlite3_exec(c->db, schema, NULL, NULL, NULL) != SQLITE_OK)
        rc = sweep_db_err(e, c->db, c->sw->db, "cannot create the Slurm tables");
    return rc;
}

static int load_state(struct ctx *c, struct err *e)
{
    struct sweep_keyset done = {0};
    int rc = sweep_db_load_keys(c->db, c->o->retry_failed, &done, c->sw->db, e);
    c->state = xcalloc(c->sw->nruns + 1, sizeof *c->state);
    for (size_t i = 0; !rc && i < c->sw->nruns; i++) {
        c->state[i] = sweep_keyset_has(&done, c->sw->runs[i].key) ? DONE : TODO;
        c->res->done_before += c->state[i] == DONE;
    }
    sweep_keyset_free(&done);
    index_runs(c);
    return rc ? rc : jobs_load(c, e);
}

static size_t count(const struct ctx *c, enum run_state s)
{
    size_t n = 0;
    for (size_t i = 0; i < c->sw->nruns; i++)
        n += c->state[i] == s;
    return n;
}

static int drive(struct ctx *c, struct err *e)
{
    int rc = load_state(c, e);
    if (!rc)
        rc = look(c, e);
    if (!rc)
        rc = adopt_orphans(c, e);
    if (!rc && !c->o->quiet)
        fprintf(stderr, "%s: %zu runs, %zu stored already, %zu collected now, %zu in Slurm's "
                        "queue, %zu to submit (%s)\n",
                c->o->label, c->res->total, c->res->done_before, c->res->ran, count(c, FLIGHT),
                count(c, TODO) + count(c, LOST), c->sw->db);
    if (!rc)
        rc = submit(c, e);
    if (!rc && !c->so->no_wait)
        rc = wait_all(c, e);
    c->res->queued = count(c, FLIGHT);
    if (!in_flight(c))
        tidy(c);
    return rc;
}

int sweep_slurm_execute(const struct sweep *sw, const struct sweep_opts *o,
                        const struct sweep_slurm_opts *so, struct sweep_result *res,
                        struct err *e)
{
    *res = (struct sweep_result){.total = sw->nruns};
    struct ctx c = {.sw = sw, .o = o, .so = so, .res = res};
    int rc = setup(&c, e);
    if (!rc)
        rc = drive(&c, e);
    for (size_t i = 0; i < c.njobs; i++)
        job_free(&c.jobs[i]);
    free(c.jobs);
    free(c.state);
    free(c.by_key);
    sqlite3_close(c.db);
    return rc;
}
