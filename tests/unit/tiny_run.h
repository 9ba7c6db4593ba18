/*
 * tiny_run.h -- `chipsim run` in process on the tiny machine: a workload at
 * its small (test) size, with extra command-line arguments, and its JSON
 * result read back (or on a preset). Used by the smoke and must-fire tests.
 */
#ifndef CHIPSIM_TEST_TINY_RUN_H
#define CHIPSIM_TEST_TINY_RUN_H

#include <jansson.h>

#include "workload/wl.h"

/* configs/tiny.ini, workload w with its small parameters, then extra
 * (NULL-terminated: "-c", FILE, "-p", "section.key=value", ...; they come last, so
 * they may override the small size), results in
 * json. *rc is the exit status; the result (caller json_decref()s it), or
 * NULL when the run failed. */
json_t *tiny_run(const struct wl_ops *w, const char *const *extra, const char *json, int *rc);
/* The same on the machine of config (a preset under configs/). */
json_t *preset_run(const char *config, const struct wl_ops *w, const char *const *extra,
                   const char *json, int *rc);
/* Make the temporary result file (path: a mkstemp template) and send the
 * runs' printed output to /dev/null. */
void tiny_begin(char *path);
/* The registered workload of that name (the test fails without one). */
const struct wl_ops *tiny_wl(const char *name);
/* A summary figure of a result. */
long long tiny_summary(const json_t *j, const char *key);

#endif
