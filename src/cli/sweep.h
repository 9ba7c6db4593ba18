/*
 * sweep.h -- a matrix of simulations described by a sweep file, expanded into
 * runs, executed by parallel worker processes (or as a Slurm job array) and
 * stored one row per run in a SQLite results database (docs/sweeps.md).
 *
 * A run is a config file, a workload and an ordered list of -p overrides;
 * its key (the three as one string) identifies it in the database, so a
 * sweep that is started again skips every run already stored, and a sweep
 * file that grows only adds runs. The parent process is the only writer of
 * the database: each finished run is one transaction, so a sweep killed at
 * any moment (even with SIGKILL) loses at most the runs still in flight.
 */
#ifndef CHIPSIM_SWEEP_H
#define CHIPSIM_SWEEP_H

#include <stdio.h>

#include "base/base.h"

struct sweep_run {
    char *key;           /* config, workload and overrides, space-separated */
    char *config;        /* the -c file */
    char *workload;
    char **overrides;    /* section.key=value, in order */
    size_t noverrides;
    char *matrices;      /* the names of the [matrix NAME] sections that give it, space-
                            separated ("sweep": [sweep] as the one matrix) */
};

struct sweep {
    char *path;          /* the sweep file */
    char *db;            /* results database ([sweep] db, else FILE with .db) */
    struct sweep_run *runs;
    size_t nruns;
};

/* Read and expand a sweep file; -1 with "file:line: reason" in e. Every
 * run's configuration is resolved once to check keys and values. */
int sweep_load(struct sweep *sw, const char *path, struct err *e);
/* The same; with sections = false the [workload NAME] sections are read
 * but not applied (every workload at its default size and machine). */
int sweep_load_sections(struct sweep *sw, const char *path, bool sections, struct err *e);
/* Only the runs whose overrides include `override` (e.g. gpu.chiplets=4). */
void sweep_filter(struct sweep *sw, const char *override);
/* Keep only the runs that a matrix whose name begins with prefix gives. */
void sweep_keep_matrices(struct sweep *sw, const char *prefix);
/* Append `override` (section.key=value, known to be valid) to every run. */
void sweep_add_override(struct sweep *sw, const char *override);
/* The same for only the runs the space-separated list `names` names: a
 * workload's name names all its runs, WORKLOAD@OVERRIDE those of the workload
 * with that override (lulesh@coherence.scheme=hmg). */
void sweep_add_override_to(struct sweep *sw, const char *override, const char *names);
void sweep_free(struct sweep *sw);
void sweep_run_free(struct sweep_run *r);

struct sweep_opts {
    unsigned jobs;       /* worker processes */
    bool retry_failed;   /* run again the runs stored as failed */
    bool quiet;          /* no per-run lines on stderr */
    const char *label;   /* progress prefix, e.g. "sweep" */
};

struct sweep_result {
    size_t total, done_before, ran, failed;
    size_t lost;         /* Slurm: tasks that ended without a result (run again next time) */
    size_t queued;       /* Slurm: runs left in the queue (--no-wait) */
};

/* Run every run not yet in the database; returns 0, or -1 with a message
 * (database errors). Failed runs are stored with their error. */
int sweep_execute(const struct sweep *sw, const struct sweep_opts *o, struct sweep_result *res,
                  struct err *e);

/* The end of one run (defined in sweep_db.h). */
struct sweep_outcome;

/* Called in the parent as each run ends; nonzero stops new runs from
 * starting (the running ones are still collected). */
typedef int (*sweep_done_fn)(void *ctx, size_t run, const struct sweep_outcome *o);

/* Run runs[todo[0]], ... runs[todo[n - 1]] on `jobs` worker processes (forks
 * running `chipsim run` in-process), with their scratch files in dir (which
 * must exist); with a label, on a terminal, a status line while waiting.
 * Returns the first nonzero value of done, else 0. */
int sweep_pool(const struct sweep_run *runs, const size_t *todo, size_t n, unsigned jobs,
               const char *dir, const char *label, sweep_done_fn done, void *ctx);

/* The Slurm backend (sweep_slurm.c, docs/sweeps.md): the pending runs go
 * to one job array whose tasks run `chipsim sweep-task` and leave their
 * outcome in DB.slurm/; this process stores them as the local backend
 * would. Returns 0, or -1 with a message (database, sbatch, files). */
struct sweep_slurm_opts {
    const char *partition;       /* NULL: the cluster's default */
    const char *time;            /* per-task limit; NULL: the partition's */
    unsigned max_parallel;       /* tasks running at once; 0: no limit */
    bool no_wait;                /* submit (and collect what ended), then return */
    double poll_s;               /* seconds between two looks at the queue */
    char *const *sbatch_args;    /* passed to sbatch verbatim */
    size_t nsbatch_args;
};
int sweep_slurm_execute(const struct sweep *sw, const struct sweep_opts *o,
                        const struct sweep_slurm_opts *so, struct sweep_result *res,
                        struct err *e);
/* One array task: run number `index` of the manifest and leave its
 * outcome in the results directory; returns the run's exit status. */
int sweep_slurm_task(const char *manifest, long index, struct err *e);

/* Write every stored run of the database as CSV (header row, one row per
 * run) to out; -1 on database errors. */
int sweep_export_csv(const char *db, FILE *out, struct err *e);

#endif
