/*
 * sweep_exec.c -- running the runs of a sweep in worker processes and
 * storing each in the SQLite results database as soon as it ends (sweep.h).
 *
 * Each worker is a fork of this process running `chipsim run` in-process,
 * writing its JSON result and its stderr to files of its own slot in
 * DB.tmp/; it dies with the parent (PR_SET_PDEATHSIG), so a killed sweep
 * leaves no orphans. The parent reads the result and stores one row per run
 * in its own transaction (WAL journal, synchronous = FULL): a run is either
 * entirely stored or not at all, and a stored run is never run again (a
 * failed one only with retry_failed). Table `runs`: the run's key, config
 * file, workload, scheme, chiplets, overrides, status (ok | failed), exit
 * code, error, wall time, finish time, resolved config (JSON), then one
 * column per summary key (nested objects flattened: energy_pj_total),
 * added when first seen.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sweep.h"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS runs ("
    " key TEXT PRIMARY KEY, config_file TEXT NOT NULL, workload TEXT NOT NULL,"
    " scheme TEXT, chiplets INTEGER, overrides TEXT NOT NULL, status TEXT NOT NULL,"
    " exit_code INTEGER NOT NULL, error TEXT, wall_s REAL, finished TEXT, config TEXT)";

#define FIXED_COLS 12

static int db_err(struct err *e, sqlite3 *db, const char *path, const char *what)
{
    return err_set(e, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
}

static int db_open(const char *path, sqlite3 **db, bool create, struct err *e)
{
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, db, flags, NULL) != SQLITE_OK) {
        db_err(e, *db, path, "cannot open the results database");
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    sqlite3_busy_timeout(*db, 10000);
    if (create && sqlite3_exec(*db,
                               "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;", NULL,
                               NULL, NULL) != SQLITE_OK)
        return db_err(e, *db, path, "cannot set up the journal");
    if (create && sqlite3_exec(*db, schema, NULL, NULL, NULL) != SQLITE_OK)
        return db_err(e, *db, path, "cannot create table runs");
    return 0;
}

/* ---- what is stored already ---------------------------------------------- */

struct keyset {
    char **k;
    size_t n, cap;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_done(sqlite3 *db, bool retry_failed, struct keyset *ks, const char *path,
                     struct err *e)
{
    const char *q = retry_failed ? "SELECT key FROM runs WHERE status = 'ok'"
                                 : "SELECT key FROM runs";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
        return db_err(e, db, path, "cannot read table runs");
    while (sqlite3_step(st) == SQLITE_ROW) {
        ks->k = xgrow(ks->k, sizeof *ks->k, &ks->cap, ks->n + 1);
        ks->k[ks->n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    if (ks->n)
        qsort(ks->k, ks->n, sizeof *ks->k, cmp_str);
    return 0;
}

static bool keyset_has(const struct keyset *ks, const char *key)
{
    return ks->n && bsearch(&key, ks->k, ks->n, sizeof *ks->k, cmp_str);
}

static void keyset_free(struct keyset *ks)
{
    for (size_t i = 0; i < ks->n; i++)
        free(ks->k[i]);
    free(ks->k);
}

/* ---- storing a run ---------------------------------------------------------- */

struct col {
    char name[96];
    json_t *val;
};

/* Flatten the summary: {"a": 1, "b": {"c": 2}} -> a = 1, b_c = 2. */
static size_t flatten(json_t *o, const char *prefix, struct col *cols, size_t n, size_t max)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        char name[96];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "_" : "", k);
        if (json_is_object(v)) {
            n = flatten(v, name, cols, n, max);
        } else if (json_is_number(v) && n < max) {
            snprintf(cols[n].name, sizeof cols[n].name, "%s", name);
            cols[n++].val = v;
        }
    }
    return n;
}

static bool has_column(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    bool found = false;
    if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('runs')", -1, &st, NULL) !=
        SQLITE_OK)
        return false;
    while (!found && sqlite3_step(st) == SQLITE_ROW)
        found = !strcmp((const char *)sqlite3_column_text(st, 0), name);
    sqlite3_finalize(st);
    return found;
}

static int add_columns(sqlite3 *db, const struct col *cols, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (has_column(db, cols[i].name))
            continue;
        char *sql = sqlite3_mprintf("ALTER TABLE runs ADD COLUMN \"%w\" %s", cols[i].name,
                                    json_is_integer(cols[i].val) ? "INTEGER" : "REAL");
        int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
        sqlite3_free(sql);
        if (rc != SQLITE_OK)
            return -1;
    }
    return 0;
}

static const char *override_of(const struct sweep_run *r, const char *prefix)
{
    const char *v = NULL;
    for (size_t i = 0; i < r->noverrides; i++)
        if (!strncmp(r->overrides[i], prefix, strlen(prefix)))
            v = r->overrides[i] + strlen(prefix);
    return v;
}

static void bind_fixed(sqlite3_stmt *st, const struct sweep_run *r, const struct sweep_outcome *o,
                       const char *ovs, const char *cfg, const char *when)
{
    json_t *c = o->result ? json_object_get(o->result, "config") : NULL;
    const char *scheme = override_of(r, "coherence.scheme=");
    json_t *sch = json_object_get(json_object_get(c, "coherence"), "scheme");
    json_t *chp = json_object_get(json_object_get(c, "gpu"), "chiplets");
    const char *chs = override_of(r, "gpu.chiplets=");
    sqlite3_bind_text(st, 1, r->key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->config, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->workload, -1, SQLITE_STATIC);
    if (sch || scheme)
        sqlite3_bind_text(st, 4, sch ? json_string_value(sch) : scheme, -1, SQLITE_TRANSIENT);
    if (chp || chs)
        sqlite3_bind_int64(st, 5, chp ? json_integer_value(chp) : atoll(chs));
    sqlite3_bind_text(st, 6, ovs, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, o->status ? "failed" : "ok", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 8, o->status);
    if (o->status)
        sqlite3_bind_text(st, 9, o->error, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 10, o->wall_s);
    sqlite3_bind_text(st, 11, when, -1, SQLITE_STATIC);
    if (cfg)
        sqlite3_bind_text(st, 12, cfg, -1, SQLITE_STATIC);
}

static char *insert_sql(const struct col *cols, size_t n)
{
    char *sql = sqlite3_mprintf("INSERT OR REPLACE INTO runs (key, config_file, workload, "
                                "scheme, chiplets, overrides, status, exit_code, error, wall_s, "
                                "finished, config");
    for (size_t i = 0; i < n; i++) {
        char *x = sqlite3_mprintf("%z, \"%w\"", sql, cols[i].name);
        sql = x;
    }
    sql = sqlite3_mprintf("%z) VALUES (?", sql);
    for (size_t i = 1; i < FIXED_COLS + n; i++)
        sql = sqlite3_mprintf("%z, ?", sql);
    return sqlite3_mprintf("%z)", sql);
}

static int store(sqlite3 *db, const struct sweep_run *r, const struct sweep_outcome *o)
{
    struct col cols[256];
    json_t *sum = o->result ? json_object_get(o->result, "summary") : NULL;
    size_t n = sum ? flatten(sum, "", cols, 0, 256) : 0;
    json_t *ov = json_array();
    for (size_t i = 0; i < r->noverrides; i++)
        json_array_append_new(ov, json_string(r->overrides[i]));
    char *ovs = json_dumps(ov, JSON_COMPACT);
    json_decref(ov);
    json_t *c = o->result ? json_object_get(o->result, "config") : NULL;
    char *cfg = c ? json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    char when[32];
    time_t t = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    char *sql = insert_sql(cols, n);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = add_columns(db, cols, n) ? SQLITE_ERROR : SQLITE_OK;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        bind_fixed(st, r, o, ovs, cfg, when);
        for (size_t i = 0; i < n; i++) {
            if (json_is_integer(cols[i].val))
                sqlite3_bind_int64(st, FIXED_COLS + 1 + (int)i, json_integer_value(cols[i].val));
            else
                sqlite3_bind_double(st, FIXED_COLS + 1 + (int)i, json_number_value(cols[i].val));
        }
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    rc = sqlite3_exec(db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK
             ? rc
             : SQLITE_ERROR;
    sqlite3_free(sql);
    free(ovs);
    free(cfg);
    return rc == SQLITE_OK ? 0 : -1;
}

/* ---- workers ---------------------------------------------------------------- */

struct slot {
    pid_t pid;
    size_t run;
    double t0;
    char json[4096], log[4096];
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void worker(const struct sweep_run *r, const struct slot *sl, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(EXIT_SIMFAIL);
    if (!freopen("/dev/null", "w", stdout) || !freopen(sl->log, "w", stderr))
        _exit(EXIT_SIMFAIL);
    size_t n = 0, max = 2 * r->noverrides + 12;
    char **argv = xcalloc(max, sizeof *argv);
    const char *fixed[] = {"run", "-q", "-c", r->config, "-w", r->workload, "--json", sl->json};
    for (size_t i = 0; i < 8; i++)
        argv[n++] = (char *)fixed[i];
    for (size_t i = 0; i < r->noverrides; i++) {
        argv[n++] = "-p";
        argv[n++] = r->overrides[i];
    }
    int status = cli_run((int)n, argv);
    fflush(NULL);
    _exit(status);
}

static void start(const struct sweep_run *runs, struct slot *sl, size_t run)
{
    unlink(sl->json);
    fflush(NULL);
    pid_t parent = getpid();
    sl->run = run;
    sl->t0 = now_s();
    sl->pid = fork();
    if (sl->pid == 0)
        worker(&runs[run], sl, parent);
}

/* The last lines of the worker's stderr, as the error of a failed run. */
static void read_error(const struct slot *sl, struct sweep_outcome *o)
{
    FILE *f = fopen(sl->log, "r");
    o->error[0] = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        long from = size > (long)sizeof o->error - 1 ? size - (long)sizeof o->error + 1 : 0;
        fseek(f, from, SEEK_SET);
        size_t n = fread(o->error, 1, sizeof o->error - 1, f);
        o->error[n] = 0;
        fclose(f);
    }
    size_t n = strlen(o->error);
    while (n && (o->error[n - 1] == '\n' || o->error[n - 1] == '\r'))
        o->error[--n] = 0;
    if (!n)
        snprintf(o->error, sizeof o->error, "exit status %d, no message", o->status);
}

static void collect(struct slot *sl, int ws, struct sweep_outcome *o)
{
    *o = (struct sweep_outcome){.wall_s = now_s() - sl->t0};
    o->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    if (!o->status) {
        json_error_t je;
        o->result = json_load_file(sl->json, 0, &je);
        if (!o->result) {
            o->status = EXIT_SIMFAIL;
            snprintf(o->error, sizeof o->error, "unreadable result: %s", je.text);
        }
    } else if (WIFSIGNALED(ws)) {
        snprintf(o->error, sizeof o->error, "killed by signal %d", WTERMSIG(ws));
    } else {
        read_error(sl, o);
    }
    unlink(sl->json);
    unlink(sl->log);
    sl->pid = 0;
}

static void progress(const struct sweep_opts *o, const struct sweep_run *r,
                     const struct sweep_outcome *out, const struct sweep_result *res, double spent,
                     size_t left)
{
    if (o->quiet)
        return;
    int eta = res->ran ? (int)(spent / (double)res->ran * (double)left / o->jobs) : 0;
    char failed[48] = "";
    if (res->failed)
        snprintf(failed, sizeof failed, ", %zu failed", res->failed);
    fprintf(stderr, "%s: %zu/%zu %s %s (%.1f s)%s, ETA %dm%02ds\n", o->label,
            res->done_before + res->ran, res->total, out->status ? "FAILED" : "ok", r->key,
            out->wall_s, failed, eta / 60, eta % 60);
    if (out->status)
        fprintf(stderr, "%s:   %s\n", o->label, out->error);
}

int sweep_pool(const struct sweep_run *runs, const size_t *todo, size_t n, unsigned jobs,
               const char *dir, sweep_done_fn done, void *ctx)
{
    struct slot *slots = xcalloc(jobs, sizeof *slots);
    for (unsigned i = 0; i < jobs; i++) {
        snprintf(slots[i].json, sizeof slots[i].json, "%.4000s/run%u.json", dir, i);
        snprintf(slots[i].log, sizeof slots[i].log, "%.4000s/run%u.log", dir, i);
    }
    size_t next = 0, running = 0;
    int rc = 0;
    while (next < n || running) {
        for (unsigned i = 0; i < jobs && next < n && !rc; i++)
            if (!slots[i].pid) {
                start(runs, &slots[i], todo[next++]);
                running++;
            }
        int ws;
        pid_t pid = wait(&ws);
        if (pid < 0)
            break;
        for (unsigned i = 0; i < jobs; i++) {
            if (slots[i].pid != pid)
                continue;
            struct sweep_outcome out;
            size_t run = slots[i].run;
            collect(&slots[i], ws, &out);
            running--;
            int r = done(ctx, run, &out);
            rc = rc ? rc : r;
            json_decref(out.result);
        }
    }
    free(slots);
    return rc;
}

struct exec_ctx {
    const struct sweep *sw;
    const struct sweep_opts *o;
    sqlite3 *db;
    struct sweep_result *res;
    size_t ntodo;
    double spent;
    struct err *e;
};

static int exec_done(void *p, size_t run, const struct sweep_outcome *out)
{
    struct exec_ctx *x = p;
    int rc = 0;
    if (store(x->db, &x->sw->runs[run], out))
        rc = db_err(x->e, x->db, x->sw->db, "cannot store a run");
    x->res->ran++;
    x->res->failed += out->status != 0;
    x->spent += out->wall_s;
    progress(x->o, &x->sw->runs[run], out, x->res, x->spent, x->ntodo - x->res->ran);
    return rc;
}

static int run_pending(const struct sweep *sw, const struct sweep_opts *o, sqlite3 *db,
                       const size_t *todo, size_t ntodo, struct sweep_result *res, struct err *e)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s.tmp", sw->db);
    if (mkdir(dir, 0777) && errno != EEXIST)
        return err_set(e, "%s: cannot create: %s", dir, strerror(errno));
    struct exec_ctx x = {sw, o, db, res, ntodo, 0, e};
    int rc = sweep_pool(sw->runs, todo, ntodo, o->jobs, dir, exec_done, &x);
    rmdir(dir);
    return rc;
}

int sweep_execute(const struct sweep *sw, const struct sweep_opts *o, struct sweep_result *res,
                  struct err *e)
{
    *res = (struct sweep_result){.total = sw->nruns};
    sqlite3 *db = NULL;
    struct keyset done = {0};
    int rc = db_open(sw->db, &db, true, e);
    if (!rc)
        rc = load_done(db, o->retry_failed, &done, sw->db, e);
    size_t *todo = xcalloc(sw->nruns + 1, sizeof *todo), ntodo = 0;
    for (size_t i = 0; !rc && i < sw->nruns; i++) {
        if (keyset_has(&done, sw->runs[i].key))
            res->done_before++;
        else
            todo[ntodo++] = i;
    }
    if (!rc && !o->quiet)
        fprintf(stderr, "%s: %zu runs, %zu stored already, %zu to run on %u workers (%s)\n",
                o->label, res->total, res->done_before, ntodo, o->jobs, sw->db);
    if (!rc)
        rc = run_pending(sw, o, db, todo, ntodo, res, e);
    free(todo);
    keyset_free(&done);
    sqlite3_close(db);
    return rc;
}

/* ---- export ------------------------------------------------------------------ */

static void csv_field(FILE *out, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int sweep_export_csv(const char *path, FILE *out, struct err *e)
{
    sqlite3 *db = NULL;
    if (db_open(path, &db, false, e)) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT * FROM runs ORDER BY key", -1, &st, NULL) != SQLITE_OK) {
        db_err(e, db, path, "cannot read table runs");
        sqlite3_close(db);
        return -1;
    }
    int n = sqlite3_column_count(st);
    for (int i = 0, first = 1; i < n; i++) {
        if (!strcmp(sqlite3_column_name(st, i), "config"))
            continue; /* the resolved config stays in the database */
        fputs(first ? "" : ",", out);
        first = 0;
        csv_field(out, sqlite3_column_name(st, i));
    }
    fputc('\n', out);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int i = 0, first = 1; i < n; i++) {
            if (!strcmp(sqlite3_column_name(st, i), "config"))
                continue;
            fputs(first ? "" : ",", out);
            first = 0;
            csv_field(out, (const char *)sqlite3_column_text(st, i));
        }
        fputc('\n', out);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return 0;
}
