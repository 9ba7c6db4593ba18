/*
 * commands.c -- the table of subcommands, `chipsim help` and `chipsim
 * version`.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/opts.h"

const struct cli_cmd *const cli_commands[] = {
    &cli_cmd_run,      &cli_cmd_list,    &cli_cmd_classify, &cli_cmd_sweep, &cli_cmd_study,
    &cli_cmd_validate, &cli_cmd_compare, &cli_cmd_version,  &cli_cmd_help,  &cli_cmd_sweep_task,
    NULL,
};

void cli_usage(FILE *out)
{
    fprintf(out, "usage: chipsim COMMAND [options]\n\ncommands:\n");
    for (const struct cli_cmd *const *c = cli_commands; *c; c++)
        if (!(*c)->hidden)
            fprintf(out, "  %-10s %s\n", (*c)->name, (*c)->summary);
    fprintf(out, "\n`chipsim COMMAND --help` describes a command and all its options.\n"
                 "Documentation: README.md and docs/ (docs/config.md for the configuration keys).\n");
}

/* A command without options or arguments: -h/--help, or nothing. */
static int no_args(const struct cli_cmd *c, int argc, char **argv)
{
    struct cli_parser p;
    cli_parser_init(&p, c, argc, argv);
    char *v;
    int id, status = EXIT_OK;
    while ((id = cli_next(&p, &v)) > 0)
        ;
    if (id == CLI_HELP)
        status = -1;
    else if (id == CLI_BAD)
        status = EXIT_USAGE;
    else if (p.npos) {
        cli_bad(c, "unexpected argument '%s'", p.pos[0]);
        status = EXIT_USAGE;
    }
    cli_parser_free(&p);
    return status;
}

static int cmd_version(int argc, char **argv)
{
    int rc = no_args(&cli_cmd_version, argc, argv);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    printf("chipsim %s\n", CHIPSIM_VERSION);
    return EXIT_OK;
}

static int cmd_help(int argc, char **argv)
{
    if (argc == 2 && argv[1][0] != '-') {
        if (cli_find_cmd(argv[1])) {
            cli_print_help(cli_find_cmd(argv[1]), stdout);
            return EXIT_OK;
        }
        fprintf(stderr, "chipsim help: unknown command '%s'\n", argv[1]);
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    int rc = no_args(&cli_cmd_help, argc, argv);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    cli_usage(stdout);
    return EXIT_OK;
}

/* list and compare take only positional arguments. */
static int cmd_list(int argc, char **argv)
{
    int rc = argc == 2 && argv[1][0] == '-' ? no_args(&cli_cmd_list, argc, argv) : 0;
    return rc ? (rc < 0 ? EXIT_OK : rc) : cli_list(argc, argv);
}

static int cmd_compare(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1]) {
            int rc = no_args(&cli_cmd_compare, 2, (char *[]){argv[0], argv[i], NULL});
            return rc < 0 ? EXIT_OK : EXIT_USAGE;
        }
    return cli_compare(argc, argv);
}

const struct cli_cmd cli_cmd_list = {
    .name = "list",
    .args = "params|schemes|workloads",
    .summary = "configuration keys, coherence schemes or workload models",
    .about = "params: every configuration key as section.key = default, with its type, range\n"
             "and meaning; schemes: the coherence schemes; workloads: the workload models\n"
             "and `trace` (Accel-Sim traces).",
    .fn = cmd_list,
};

const struct cli_cmd cli_cmd_compare = {
    .name = "compare",
    .args = "A.json B.json",
    .summary = "two runs' summaries side by side, with ratios B/A",
    .about = "Reads two result files written by `chipsim run --json` and prints their\n"
             "summaries side by side, with the ratio B/A of every figure.",
    .fn = cmd_compare,
};

const struct cli_cmd cli_cmd_version = {
    .name = "version", .args = "", .summary = "print the version", .fn = cmd_version,
};

const struct cli_cmd cli_cmd_help = {
    .name = "help",
    .args = "[COMMAND]",
    .summary = "list the commands, or describe one (same as `chipsim COMMAND --help`)",
    .fn = cmd_help,
};
