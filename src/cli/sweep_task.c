/*
 * sweep_task.c -- `chipsim sweep-task MANIFEST INDEX`: one Slurm array
 * task of a sweep (sweep_task.h, sweep_slurm.c).
 *
 * The task runs its run in-process exactly as a local worker does (same
 * argv, stdout discarded, stderr to a log), then writes its outcome --
 * exit status, wall time, the tail of stderr for a failure, the run's JSON
 * -- to a temporary file and renames it to results/HASH.json. A task
 * killed at any moment (scancel, time limit, node failure) therefore
 * leaves no result at all, only temporary files that the sweep tidies
 * away, and its run counts as missing. The task never opens the database:
 * SQLite over a network file system is not safe, and one writer is simpler.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "stats/report.h"
#include "sweep_db.h"
#include "sweep_task.h"

/* ---- names in the results directory ----------------------------------------- */

static unsigned long long key_hash(const char *key)
{
    unsigned long long h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return h;
}

char *sweep_result_path(const char *dir, const char *key)
{
    return xasprintf("%s/results/%016llx.json", dir, key_hash(key));
}

char *sweep_task_file(const char *dir, const char *job, size_t task, const char *ext)
{
    return xasprintf("%s/logs/%s_%zu.%s", dir, job, task, ext);
}

char *sweep_script_path(const char *manifest)
{
    size_t n = strlen(manifest);
    if (n > 5 && !strcmp(manifest + n - 5, ".json"))
        n -= 5;
    return xasprintf("%.*s.sh", (int)n, manifest);
}

int sweep_make_dir(const char *path, struct err *e)
{
    if (mkdir(path, 0777) && errno != EEXIST)
        return err_set(e, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

/* ---- the manifest --------------------------------------------------------------- */

json_t *sweep_manifest_entry(const struct sweep_run *r)
{
    json_t *ov = json_array();
    for (size_t i = 0; i < r->noverrides; i++)
        json_array_append_new(ov, json_string(r->overrides[i]));
    return json_pack("{s:s, s:s, s:s, s:o}", "key", r->key, "config", r->config, "workload",
                     r->workload, "overrides", ov);
}

int sweep_manifest_run(json_t *o, struct sweep_run *r)
{
    json_t *ov = json_object_get(o, "overrides");
    *r = (struct sweep_run){
        .key = (char *)json_string_value(json_object_get(o, "key")),
        .config = (char *)json_string_value(json_object_get(o, "config")),
        .workload = (char *)json_string_value(json_object_get(o, "workload")),
        .noverrides = json_array_size(ov)};
    r->overrides = xcalloc(r->noverrides + 1, sizeof *r->overrides);
    for (size_t i = 0; i < r->noverrides; i++)
        if (!(r->overrides[i] = (char *)json_string_value(json_array_get(ov, i))))
            return -1;
    return r->key && r->config && r->workload ? 0 : -1;
}

json_t *sweep_manifest_load(const char *path, struct err *e)
{
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je);
    if (!m) {
        if (je.line > 0)
            err_set(e, "%s:%d: cannot read the manifest: %s", path, je.line, je.text);
        else
            err_set(e, "%s: cannot read the manifest: %s", path, je.text);
        return NULL;
    }
    if (!json_is_array(json_object_get(m, "runs")) ||
        !json_is_string(json_object_get(m, "cwd")) ||
        !json_is_string(json_object_get(m, "dir"))) {
        err_set(e, "%s: not a chipsim sweep manifest (runs, cwd, dir)", path);
        json_decref(m);
        return NULL;
    }
    return m;
}

/* ---- the task ------------------------------------------------------------------- */

/* JOB_TASK from Slurm's environment; pid-N when run by hand. */
static void task_tag(char *buf, size_t n)
{
    const char *job = getenv("SLURM_ARRAY_JOB_ID"), *task = getenv("SLURM_ARRAY_TASK_ID");
    if (job && task)
        snprintf(buf, n, "%s_%s", job, task);
    else
        snprintf(buf, n, "pid-%ld", (long)getpid());
}

/* Run r with stderr in log and its JSON in tmp; the outcome as JSON. */
static json_t *run_one(const struct sweep_run *r, const char *tmp, const char *log)
{
    struct sweep_outcome o = {0};
    char **argv = xcalloc(2 * r->noverrides + 9, sizeof *argv);
    double t0 = sweep_now_s();
    o.status = cli_run(sweep_run_argv(r, tmp, argv), argv);
    o.wall_s = sweep_now_s() - t0;
    fflush(NULL);
    free(argv);
    json_t *run = NULL;
    if (!o.status) {
        json_error_t je;
        run = json_load_file(tmp, 0, &je);
        if (!run) {
            o.status = EXIT_SIMFAIL;
            snprintf(o.error, sizeof o.error, "unreadable result: %s", je.text);
        }
    } else {
        sweep_log_tail(log, o.error, sizeof o.error);
        if (!o.error[0])
            snprintf(o.error, sizeof o.error, "exit status %d, no message", o.status);
    }
    unlink(tmp);
    return json_pack("{s:s, s:i, s:f, s:s, s:o*}", "key", r->key, "status", o.status, "wall_s",
                     o.wall_s, "error", o.error, "run", run);
}

static int task_run(json_t *m, const struct sweep_run *r, struct err *e)
{
    const char *dir = json_string_value(json_object_get(m, "dir"));
    const char *cwd = json_string_value(json_object_get(m, "cwd"));
    char tag[64];
    task_tag(tag, sizeof tag);
    if (chdir(cwd))
        return err_set(e, "%s: cannot change to the sweep's directory: %s", cwd, strerror(errno));
    char *log = xasprintf("%s/logs/%s.log", dir, tag), *path = sweep_result_path(dir, r->key);
    char *tmp = xasprintf("%s/results/.%s.%s.run.json", dir, strrchr(path, '/') + 1, tag);
    int rc;
    if (!freopen("/dev/null", "w", stdout) || !freopen(log, "w", stderr)) {
        rc = err_set(e, "%s: cannot write: %s", log, strerror(errno));
    } else {
        json_t *out = run_one(r, tmp, log);
        rc = (int)json_integer_value(json_object_get(out, "status"));
        if (json_write_atomic(path, out, e)) {
            fprintf(stderr, "chipsim sweep-task: %s\n", e->msg);
            rc = EXIT_SIMFAIL;
        }
        json_decref(out);
    }
    free(log);
    free(path);
    free(tmp);
    return rc;
}

int sweep_slurm_task(const char *manifest, long index, struct err *e)
{
    json_t *m = sweep_manifest_load(manifest, e);
    if (!m)
        return -1;
    json_t *runs = json_object_get(m, "runs");
    struct sweep_run r = {0};
    int rc = -1;
    if (index < 0 || (size_t)index >= json_array_size(runs))
        err_set(e, "%s: no run %ld (the manifest has %zu)", manifest, index,
                json_array_size(runs));
    else if (sweep_manifest_run(json_array_get(runs, (size_t)index), &r))
        err_set(e, "%s: run %ld: expected key, config, workload and overrides", manifest, index);
    else
        rc = task_run(m, &r, e);
    free(r.overrides);
    json_decref(m);
    return rc;
}
