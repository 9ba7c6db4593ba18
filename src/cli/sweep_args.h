/*
 * sweep_args.h -- the options of `chipsim sweep` that choose how runs are
 * executed (workers, or a Slurm job array, and its settings), shared with
 * `chipsim study`.
 */
#ifndef CHIPSIM_SWEEP_ARGS_H
#define CHIPSIM_SWEEP_ARGS_H

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

/* argv[*i] as one of sweep's options (advancing *i past its value): 0 if
 * it was one, 1 if not, -1 (message printed) if its value is bad. */
int sweep_args_option(struct sweep_args *x, int argc, char **argv, int *i);
/* The backend and the options given for it agree; -1 with a message. */
int sweep_args_backend(const struct sweep_args *x);
/* Run sw's runs not yet stored on the chosen backend. */
int sweep_args_execute(const struct sweep *sw, struct sweep_args *x, struct sweep_result *res,
                       struct err *e);

#endif
