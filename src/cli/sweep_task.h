/*
 * sweep_task.h -- what a Slurm array task and the sweep that submitted it
 * agree on: the manifest (the runs of one job array, the submission's
 * working directory and the results directory) and the names of the files
 * a task leaves in the results directory (sweep_task.c).
 *
 *   DIR/batch-STAMP.json      the manifest; DIR/batch-STAMP.sh the job script
 *   DIR/results/HASH.json     a run's outcome (HASH: FNV-1a of the run's key)
 *   DIR/logs/JOB_TASK.log     the task's stderr (chipsim's messages)
 *   DIR/logs/JOB_TASK.out     Slurm's output of the task (its own messages)
 */
#ifndef CHIPSIM_SWEEP_TASK_H
#define CHIPSIM_SWEEP_TASK_H

#include <jansson.h>

#include "sweep.h"

char *sweep_result_path(const char *dir, const char *key);
char *sweep_task_file(const char *dir, const char *job, size_t task, const char *ext);
/* The job script beside a manifest: batch-STAMP.json -> batch-STAMP.sh. */
char *sweep_script_path(const char *manifest);
int sweep_make_dir(const char *path, struct err *e);

/* A manifest entry for a run, and a run read back from one (its strings
 * belong to the JSON: free only r->overrides); -1 when malformed. */
json_t *sweep_manifest_entry(const struct sweep_run *r);
int sweep_manifest_run(json_t *entry, struct sweep_run *r);
/* Load and check a manifest; NULL with "path:line: reason". */
json_t *sweep_manifest_load(const char *path, struct err *e);

#endif
