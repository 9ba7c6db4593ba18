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
        const char *names[32];
        size_t n = 0;
        for (const struct cli_cmd *const *k = cli_commands; *k && n < 32; k++)
            if (!(*k)->hidden)
                names[n++] = (*k)->name;
        const char *best = str_suggest(name, names, n);
        fprintf(stderr, "chipsim: unknown command '%s'", argv[1]);
        if (best)
            fprintf(stderr, " (did you mean '%s'?)", best);
        fprintf(stderr, "\n");
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    return c->fn(argc - 1, argv + 1);
}
