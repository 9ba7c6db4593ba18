/*
 * cli.h -- subcommands. Each takes argv starting at its own name and returns
 * the process exit status (0 ok, 2 bad input, 3 simulation failure).
 */
#ifndef CHIPSIM_CLI_H
#define CHIPSIM_CLI_H

#include <stdio.h>

#include "base/base.h"

enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_SIMFAIL = 3 };

int cli_run(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_classify(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_study(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_sweep_task(int argc, char **argv);
/* The list of commands (commands.c). */
void cli_usage(FILE *out);

/* Shared by the commands that run many simulations. */
unsigned cli_default_jobs(void);                /* the number of online CPUs */
/* Export a results database as CSV to path, atomically. */
int cli_write_csv(const char *db, const char *path, struct err *e);

/* Files bundled with chipsim (bundled.c). */
#define CLI_PYTHON "/usr/bin/python3" /* Debian's, which has python3-matplotlib */
/* rel found beside the executable's parent directory, else in the current
 * directory (path in out); false if neither exists. */
bool cli_find_bundled(const char *rel, char *out, size_t n);
int cli_mkdirs(const char *dir);                 /* mkdir -p; -1 on failure */
/* Run argv[0] with argv and wait (stdout to /dev/null if quiet); 0 if it
 * exited with status 0. */
int cli_run_program(const char *const *argv, bool quiet);
/* Run the bundled script script_rel with CLI_PYTHON and the NULL-ended args. */
int cli_run_python(const char *script_rel, const char *const *args);
int cli_print_file(const char *path);            /* copy a file to stdout */

#endif
