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

#endif
