/*
 * cli_util.c -- child-process runner for end-to-end command tests.
 */
#include "cli_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"

static char *slurp(FILE *f)
{
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    rewind(f);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2)
            buf = xrealloc(buf, cap *= 2);
    }
    buf[n] = 0;
    fclose(f);
    return buf;
}

struct cli_result cli_exec(const char *const *argv)
{
    const char *bin = getenv("CHIPSIM_BIN");
    if (!bin)
        bin = "bin/chipsim";
    size_t n = 0;
    while (argv[n])
        n++;
    char **full = xcalloc(n + 2, sizeof *full);
    full[0] = (char *)bin;
    for (size_t i = 0; i < n; i++)
        full[i + 1] = (char *)argv[i];
    FILE *out = tmpfile(), *err = tmpfile();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        execv(bin, full);
        _exit(127);
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    free(full);
    struct cli_result r = {WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws), slurp(out),
                           slurp(err)};
    return r;
}

void cli_result_free(struct cli_result *r)
{
    free(r->out);
    free(r->err);
}

char *cli_tmpdir(void)
{
    char *d = xstrdup("/tmp/chipsim-test-XXXXXX");
    if (!mkdtemp(d))
        BUG("mkdtemp failed");
    return d;
}

char *cli_write_file(const char *dir, const char *name, const char *text)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        BUG("cannot write %s", path);
    return path;
}
