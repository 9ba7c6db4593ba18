/*
 * cli_util.h -- run the chipsim binary (path from $CHIPSIM_BIN, default
 * bin/chipsim) as a child process, capturing its output and exit status.
 */
#ifndef CHIPSIM_TEST_CLI_UTIL_H
#define CHIPSIM_TEST_CLI_UTIL_H

#include <jansson.h>

struct cli_result {
    int status;  /* exit status, or 128 + signal */
    char *out;   /* stdout, NUL-terminated */
    char *err;   /* stderr, NUL-terminated */
};

/* argv without the program name, NULL-terminated. */
struct cli_result cli_exec(const char *const *argv);
void cli_result_free(struct cli_result *r);
/* Write text to dir/name; returns the path (caller frees it). */
char *cli_write_file(const char *dir, const char *name, const char *text);
/* A fresh empty temporary directory (caller frees the string). */
char *cli_tmpdir(void);

/* `chipsim run -c configs/tiny.ini EXTRA... --json DIR/NAME`, which must
 * succeed: the path of its JSON file (caller frees) and, when text is not
 * NULL, its stdout (caller frees). extra may be NULL. */
char *cli_run_tiny(const char *dir, const char *name, const char *const *extra, char **text);
/* The same, returning the parsed JSON result (the file removed). */
json_t *cli_run_tiny_json(const char *dir, const char *name, const char *const *extra,
                                 char **text);

#endif
