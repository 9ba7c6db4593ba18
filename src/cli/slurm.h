/*
 * slurm.h -- Slurm's own commands as functions: submit a job array
 * (sbatch), list the tasks of a job still queued or running (squeue), and
 * tell how the finished ones ended (sacct, else scontrol).
 *
 * chipsim talks to Slurm only through its command-line tools, as a user
 * would, so it needs no Slurm library at build time and works with any
 * Slurm whose sbatch, squeue and scontrol are on PATH (SLURM_CONF and the
 * other SLURM_* variables of the environment apply as usual). The parsers
 * are separate from the commands so that tests can feed them real output.
 */
#ifndef CHIPSIM_SLURM_H
#define CHIPSIM_SLURM_H

#include <stddef.h>

#include "base/base.h"

/* One array task: its index, Slurm's state word (PENDING, RUNNING,
 * COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY ...)
 * and, for a finished task, Slurm's exit code "status:signal". */
struct slurm_task {
    long index;
    char state[32];
    char exit_code[16];
};

struct slurm_array {
    const char *script;          /* the batch script, run once per task */
    size_t ntasks;               /* indices 0 .. ntasks-1 */
    unsigned max_parallel;       /* the %N throttle; 0: none */
    const char *name;            /* --job-name */
    const char *output;          /* --output pattern (%A job, %a task) */
    const char *chdir;           /* --chdir */
    const char *partition;       /* NULL: the cluster's default */
    const char *time;            /* NULL: the partition's default */
    char *const *extra;          /* more sbatch arguments, verbatim */
    size_t nextra;
};

/* Submit; the job id (digits) goes to id. -1 with sbatch's message. */
int slurm_submit(const struct slurm_array *a, char *id, size_t n, struct err *e);
/* The tasks of job still in the queue (any state squeue shows: pending,
 * running, completing ...); a job Slurm no longer knows has none. Returns
 * their number, or -1 when squeue failed (the caller knows nothing). */
long slurm_active(const char *job, struct slurm_task **t, struct err *e);
/* How the finished tasks of job ended: from scontrol while the controller
 * still holds the job (MinJobAge seconds after it ended), else from sacct
 * when accounting is on. Returns the number found; a task Slurm has no
 * final record of is missing. */
size_t slurm_final(const char *job, struct slurm_task **t);
/* The cluster's MaxArraySize (the largest task index + 1), 1001 when
 * scontrol does not tell. */
long slurm_max_array_size(void);

/* Parsers of the commands' output, as the functions above call them. */
size_t slurm_parse_squeue(const char *text, struct slurm_task **t);     /* -o '%K|%T' */
size_t slurm_parse_sacct(const char *job, const char *text, struct slurm_task **t);
                                          /* -n -P -X -o JobID,State,ExitCode */
size_t slurm_parse_scontrol(const char *text, struct slurm_task **t);   /* -o show job */

#endif
