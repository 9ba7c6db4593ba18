/*
 * sweep_args.h -- the options of `chipsim sweep` that choose how runs are
 * executed (workers, or a Slurm job array, and its settings), shared with
 * `chipsim study`.
 */
#ifndef CHIPSIM_SWEEP_ARGS_H
#define CHIPSIM_SWEEP_ARGS_H

#include "cli/opts.h"
#include "sweep.h"

struct sweep_args {
    const char *file, *db, *csv, *backend;
    bool list, jobs_given, slurm_given;
    const char *slurm_opt;       /* the first Slurm-only option, for the error */
    struct sweep_opts o;
    struct sweep_slurm_opts so;
    char **sbatch;               /* --sbatch-arg values */
    size_t nsbatch;
};

/* The options that choose how runs execute, shared by `sweep` and `study`
 * (ids from SW_JOBS up, clear of the commands' own). */
enum { SW_JOBS = 100, SW_RETRY, SW_QUIET, SW_BACKEND, SW_PARTITION, SW_MAXPAR, SW_TIME,
       SW_SBATCH, SW_NOWAIT, SW_POLL };
extern const struct cli_opt sweep_exec_opts[];
struct cli_cmd;
/* Option id with value v: 0 if it was one of sweep_exec_opts, 1 if not, -1
 * (message printed) if its value is bad. */
int sweep_args_apply(const struct cli_cmd *c, struct sweep_args *x, int id, char *v);
/* The backend and the options given for it agree; -1 with a message. */
int sweep_args_backend(const struct sweep_args *x);
/* Run sw's runs not yet stored on the chosen backend. */
int sweep_args_execute(const struct sweep *sw, struct sweep_args *x, struct sweep_result *res,
                       struct err *e);

#endif
