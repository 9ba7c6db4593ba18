/*
 * cmd_list.c -- `chipsim list params`: every configuration key of every
 * section with its default, type, range and help.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/setup.h"

int cli_list(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "params")) {
        fprintf(stderr, "usage: chipsim list params\n");
        return EXIT_USAGE;
    }
    struct cfg c;
    cfg_init(&c);
    setup_define_sections(&c);
    cfg_print_params(&c, stdout);
    cfg_free(&c);
    return EXIT_OK;
}
