/*
 * opts.h -- the subcommands' options, declared once as tables: the same
 * table drives the parser (getopt_long) and the help text (`chipsim CMD
 * -h`), so every option a command accepts is in its help. Errors are
 * printed as "chipsim CMD: ..." with a pointer to --help; the caller
 * returns EXIT_USAGE.
 */
#ifndef CHIPSIM_CLI_OPTS_H
#define CHIPSIM_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One option. A table ends with an entry whose id is 0. */
struct cli_opt {
    int id;            /* > 0, unique within a command; returned by cli_next */
    char shrt;         /* short letter, or 0 */
    const char *lng;   /* long name without "--", or NULL */
    const char *arg;   /* the value's name ("FILE"), or NULL for a flag; "[=FILE]": an
                          optional value, given as --name=FILE (long options only) */
    const char *help;  /* one line (more lines separated by '\n') */
};

/* A titled group of options (a command may share groups with another). */
struct cli_optgroup {
    const char *title; /* NULL: the command's own options */
    const struct cli_opt *opts;
};

struct cli_cmd {
    const char *name;
    const char *args;      /* positional arguments and a short synopsis, after the name */
    const char *summary;   /* one line, for `chipsim help` */
    const char *about;     /* a paragraph for `chipsim NAME --help`, or NULL */
    const struct cli_optgroup *groups; /* ends with {NULL, NULL}; -h/--help is implicit */
    int (*fn)(int argc, char **argv);  /* argv[0] is the command's name */
    bool hidden;           /* run by chipsim itself, not listed */
};

/* Every command (commands.c), ending with NULL. */
extern const struct cli_cmd *const cli_commands[];
extern const struct cli_cmd cli_cmd_run, cli_cmd_list, cli_cmd_classify, cli_cmd_sweep,
    cli_cmd_sweep_task, cli_cmd_study, cli_cmd_validate, cli_cmd_compare, cli_cmd_version,
    cli_cmd_help;
const struct cli_cmd *cli_find_cmd(const char *name);
void cli_print_help(const struct cli_cmd *c, FILE *out);

enum { CLI_END = 0, CLI_HELP = -1, CLI_BAD = -2 };

/* Parses one command line; options may come before or after positional
 * arguments, "--" ends the options. */
struct option;
struct cli_parser {
    const struct cli_cmd *cmd;
    int argc;
    char **argv;
    struct option *lo;          /* getopt_long's table, built from the command's */
    const struct cli_opt **by;  /* lo[i] -> the option it stands for */
    char so[128];               /* getopt's short options */
    char **pos;                 /* positional arguments, in order (after CLI_END) */
    int npos;
};

void cli_parser_init(struct cli_parser *p, const struct cli_cmd *c, int argc, char **argv);
void cli_parser_free(struct cli_parser *p);
/* The next option's id with *val set to its value (NULL for a flag);
 * CLI_END when argv is used up (positional arguments in p->pos); CLI_HELP
 * after printing the help on stdout; CLI_BAD after printing the error. */
int cli_next(struct cli_parser *p, char **val);
/* Print "chipsim CMD: <msg>" and the pointer to --help; returns CLI_BAD. */
int cli_bad(const struct cli_cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A number from lo to hi for option opt; -1 with the message printed. */
int cli_uint_arg(const struct cli_cmd *c, const char *opt, const char *arg, unsigned lo,
                 unsigned hi, unsigned *v);

/* Output paths, checked before any simulation runs and without creating
 * anything: the file can be created (its directory exists and takes new
 * files, and it is not a directory), or the directory exists and takes new
 * files or its deepest existing ancestor does. -1 with a message in e. */
struct err;
int cli_check_out_file(const char *path, const char *opt, struct err *e);
int cli_check_out_dir(const char *dir, const char *opt, struct err *e);

#endif
