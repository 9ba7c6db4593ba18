/*
 * sweep_db.c -- the results database of a sweep (sweep_db.h): table `runs`,
 * one transaction per stored run, the keys stored already, and the CSV
 * export. Table `runs`: the run's key, config file, workload, scheme,
 * chiplets, overrides, status (ok | failed), exit code, error, wall time,
 * finish time, resolved config (JSON), then one column per summary key
 * (nested objects flattened: energy_pj_total), added when first seen. A
 * figure the run did not measure (null in the summary) is stored as NULL and
 * exported as an empty cell.
 *
 * Both backends store through sweep_db_store(), so a row does not tell
 * (and need not tell) whether a local worker or a Slurm task ran it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "sweep_db.h"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS runs ("
    " key TEXT PRIMARY KEY, config_file TEXT NOT NULL, workload TEXT NOT NULL,"
    " scheme TEXT, chiplets INTEGER, overrides TEXT NOT NULL, status TEXT NOT NULL,"
    " exit_code INTEGER NOT NULL, error TEXT, wall_s REAL, finished TEXT, config TEXT)";

#define FIXED_COLS 12

int sweep_db_err(struct err *e, sqlite3 *db, const char *path, const char *what)
{
    return err_set(e, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
}

int sweep_db_open(const char *path, sqlite3 **db, bool create, struct err *e)
{
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, db, flags, NULL) != SQLITE_OK) {
        sweep_db_err(e, *db, path, "cannot open the results database");
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    sqlite3_busy_timeout(*db, 10000);
    if (create && sqlite3_exec(*db,
                               "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;", NULL,
                               NULL, NULL) != SQLITE_OK)
        return sweep_db_err(e, *db, path, "cannot set up the journal");
    if (create && sqlite3_exec(*db, schema, NULL, NULL, NULL) != SQLITE_OK)
        return sweep_db_err(e, *db, path, "cannot create table runs");
    return 0;
}

/* ---- what is stored already ---------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int sweep_db_load_keys(sqlite3 *db, bool ok_only, struct sweep_keyset *ks, const char *path,
                       struct err *e)
{
    const char *q = ok_only ? "SELECT key FROM runs WHERE status = 'ok'"
                                 : "SELECT key FROM runs";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
        return sweep_db_err(e, db, path, "cannot read table runs");
    while (sqlite3_step(st) == SQLITE_ROW) {
        ks->k = xgrow(ks->k, sizeof *ks->k, &ks->cap, ks->n + 1);
        ks->k[ks->n++] = xstrdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    if (ks->n)
        qsort(ks->k, ks->n, sizeof *ks->k, cmp_str);
    return 0;
}

bool sweep_keyset_has(const struct sweep_keyset *ks, const char *key)
{
    return ks->n && bsearch(&key, ks->k, ks->n, sizeof *ks->k, cmp_str);
}

void sweep_keyset_free(struct sweep_keyset *ks)
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

/* Flatten the summary: {"a": 1, "b": {"c": 2}, "d": null} -> a = 1, b_c = 2, d = NULL. */
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
        } else if ((json_is_number(v) || json_is_null(v)) && n < max) {
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

/* A column first seen as null gets no declared type, so that it keeps the
 * integers or reals later runs store in it as they are. */
static const char *col_type(json_t *v)
{
    return json_is_integer(v) ? " INTEGER" : json_is_real(v) ? " REAL" : "";
}

static int add_columns(sqlite3 *db, const struct col *cols, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (has_column(db, cols[i].name))
            continue;
        char *sql = sqlite3_mprintf("ALTER TABLE runs ADD COLUMN \"%w\"%s", cols[i].name,
                                    col_type(cols[i].val));
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

static void bind_fixed(sqlite3_stmt *st, const struct sweep_run *r,
                       const struct sweep_outcome *o, const char *ovs, const char *cfg, const char *when)
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

int sweep_db_store(sqlite3 *db, const struct sweep_run *r, const struct sweep_outcome *o)
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
            int at = FIXED_COLS + 1 + (int)i;
            if (json_is_integer(cols[i].val))
                sqlite3_bind_int64(st, at, json_integer_value(cols[i].val));
            else if (json_is_real(cols[i].val))
                sqlite3_bind_double(st, at, json_real_value(cols[i].val));
            else
                sqlite3_bind_null(st, at);
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

/* ---- what every backend shares -------------------------------------------- */

void sweep_log_tail(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t got = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        long from = size > (long)n - 1 ? size - (long)n + 1 : 0;
        fseek(f, from, SEEK_SET);
        got = fread(buf, 1, n - 1, f);
        fclose(f);
    }
    buf[got] = 0;
    while (got && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
        buf[--got] = 0;
}

int sweep_run_argv(const struct sweep_run *r, const char *json, char **argv)
{
    int n = 0;
    const char *fixed[] = {"run", "-q", "-c", r->config, "-w", r->workload, "--json", json};
    for (size_t i = 0; i < 8; i++)
        argv[n++] = (char *)fixed[i];
    for (size_t i = 0; i < r->noverrides; i++) {
        argv[n++] = "-p";
        argv[n++] = r->overrides[i];
    }
    argv[n] = NULL;
    return n;
}

void sweep_print_stored(const struct sweep_opts *o, const struct sweep_run *r,
                        const struct sweep_outcome *out, const struct sweep_result *res,
                        int eta_s)
{
    if (o->quiet)
        return;
    char failed[48] = "";
    if (res->failed)
        snprintf(failed, sizeof failed, ", %zu failed", res->failed);
    fprintf(stderr, "%s: %zu/%zu %s %s (%.1f s)%s, ETA %dm%02ds\n", o->label,
            res->done_before + res->ran, res->total, out->status ? "FAILED" : "ok", r->key,
            out->wall_s, failed, eta_s / 60, eta_s % 60);
    if (out->status)
        fprintf(stderr, "%s:   %s\n", o->label, out->error);
}

double sweep_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
    if (sweep_db_open(path, &db, false, e)) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT * FROM runs ORDER BY key", -1, &st, NULL) != SQLITE_OK) {
        sweep_db_err(e, db, path, "cannot read table runs");
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
