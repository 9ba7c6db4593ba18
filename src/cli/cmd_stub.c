#include "cli/cli.h"
int cli_run(int argc, char **argv) { (void)argc; (void)argv; return 0; }
int cli_list(int argc, char **argv) { (void)argc; (void)argv; return 0; }
