/*
 * sweep_db.h -- the results database of a sweep, shared by its backends
 * (local workers in sweep_exec.c, Slurm job arrays in sweep_slurm.c).
 *
 * Whatever runs a run, its outcome is stored by the same function, so a
 * row means the same thing whichever backend produced it: one transaction
 * per run, status ok or failed, the exit code and the tail of the run's
 * stderr for a failure, the resolved config and the flattened summary.
 * Only the process that drives the sweep writes the database; runs hand
 * their outcome over as files.
 */
#ifndef CHIPSIM_SWEEP_DB_H
#define CHIPSIM_SWEEP_DB_H

#include <jansson.h>
#include <sqlite3.h>

#include "sweep.h"

#define SWEEP_ERROR_MAX 2048

struct sweep_outcome {
    int status;          /* the run's exit status; 128 + N when killed by signal N */
    double wall_s;
    json_t *result;      /* the run's JSON (config, summary, ...), or NULL */
    char error[SWEEP_ERROR_MAX];
};

/* Open (and with create, create and set up) the database; -1 with a message. */
int sweep_db_open(const char *path, sqlite3 **db, bool create, struct err *e);
/* "path: what: sqlite's message"; returns -1. */
int sweep_db_err(struct err *e, sqlite3 *db, const char *path, const char *what);
/* Store one outcome in its own transaction (replacing a row of the same key). */
int sweep_db_store(sqlite3 *db, const struct sweep_run *r, const struct sweep_outcome *o);

/* The keys stored already: every key, or with ok_only those stored as ok. */
struct sweep_keyset {
    char **k;
    size_t n, cap;
};
int sweep_db_load_keys(sqlite3 *db, bool ok_only, struct sweep_keyset *ks, const char *path,
                       struct err *e);
bool sweep_keyset_has(const struct sweep_keyset *ks, const char *key);
void sweep_keyset_free(struct sweep_keyset *ks);

/* The last bytes of a log file (at most n - 1, trailing newlines dropped)
 * into buf; empty when the file cannot be read. */
void sweep_log_tail(const char *path, char *buf, size_t n);

/* The argument vector of `chipsim run` for one run writing its JSON to
 * json (argv needs 2 * noverrides + 9 slots); returns argc. */
int sweep_run_argv(const struct sweep_run *r, const char *json, char **argv);

/* The progress line of a stored run: "label: done/total ok|FAILED key (wall)
 * [, N failed], ETA", and the error of a failure on the next line. */
void sweep_print_stored(const struct sweep_opts *o, const struct sweep_run *r,
                        const struct sweep_outcome *out, const struct sweep_result *res,
                        int eta_s);

double sweep_now_s(void);

#endif
