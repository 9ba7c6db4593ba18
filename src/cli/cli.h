/*
 * cli.h -- subcommands. Each takes argv starting at its own name and returns
 * the process exit status (0 ok, 2 bad input, 3 simulation failure).
 */
#ifndef CHIPSIM_CLI_H
#define CHIPSIM_CLI_H

#include "base/base.h"

enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_SIMFAIL = 3 };

int cli_run(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_classify(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_study(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_sweep_task(int argc, char **argv);

/* Shared by the commands that run many simulations. */
unsigned cli_default_jobs(void);                /* the number of online CPUs */
int cli_parse_jobs(const char *arg, unsigned *jobs); /* -1 with a message on stderr */
/* Export a results database as CSV to path, atomically. */
int cli_write_csv(const char *db, const char *path, struct err *e);

#endif
