/*
 * main.c -- the chipsim command line. Every subcommand returns an exit
 * status; only this file calls exit(). Status 2 means bad user input.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: chipsim COMMAND [options]\n"
            "\n"
            "commands:\n"
            "  run [-c FILE.ini]... [-p section.key=value]... [-w NAME | --trace LIST]\n"
            "      [--json FILE]   run a simulation (see `chipsim list params`); --trace runs\n"
            "                      an Accel-Sim trace's DIR/kernelslist.g\n"
            "  list params|schemes|workloads\n"
            "                      configuration keys, coherence schemes, workload models\n"
            "  classify [-c FILE] [-w a,b] [--small] [--study [FILE]] [--jobs N]\n"
            "                      inter-kernel reuse of each workload (viper vs no-sync)\n"
            "  sweep FILE [--jobs N] [--db FILE] [--csv FILE] [--retry-failed] [--list]\n"
            "                      run a matrix of simulations into a SQLite database\n"
            "                      (resumable; see docs/sweeps.md)\n"
            "  sweep FILE --backend slurm [--partition P] [--max-parallel N] [--no-wait] ...\n"
            "                      the same, as a Slurm job array (docs/sweeps.md)\n"
            "  study cpelide [--quick] [--full] [--d4 paper|artifact] [--out DIR] [--jobs N]\n"
            "                      the CPElide evaluation: sweep, summary table and plots\n"
            "  validate [--small] [--case NAME]... [--out DIR] [--jobs N]\n"
            "                      compare kernel cycles and cache counts with Accel-Sim and\n"
            "                      real GPUs (../shared/validation; docs/validation.md)\n"
            "  compare A.json B.json\n"
            "                      two runs' summaries side by side with ratios\n"
            "  version             print the version\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run"))
        return cli_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "list"))
        return cli_list(argc - 1, argv + 1);
    if (!strcmp(cmd, "classify"))
        return cli_classify(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep"))
        return cli_sweep(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep-task")) /* run by Slurm, not listed */
        return cli_sweep_task(argc - 1, argv + 1);
    if (!strcmp(cmd, "study"))
        return cli_study(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return cli_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate"))
        return cli_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("chipsim %s\n", CHIPSIM_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "chipsim: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
