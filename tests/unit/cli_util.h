/*
 * cli_util.h -- run the chipsim binary (path from $CHIPSIM_BIN, default
 * bin/chipsim) as a child process, capturing its output and exit status.
 */
#ifndef CHIPSIM_TEST_CLI_UTIL_H
#define CHIPSIM_TEST_CLI_UTIL_H

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

#endif
