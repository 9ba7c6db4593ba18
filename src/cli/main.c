/*
 * main.c -- the chipsim command line. Every subcommand returns an exit
 * status; only this file calls exit(). Status 2 means bad user input.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h"))
        name = "help";
    else if (!strcmp(name, "--version"))
        name = "version";
    const struct cli_cmd *c = cli_find_cmd(name);
    if (!c) {
        fprintf(stderr, "chipsim: unknown command '%s'\n", argv[1]);
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    return c->fn(argc - 1, argv + 1);
}
