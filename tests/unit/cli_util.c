/*
 * cli_util.c -- child-process runner for end-to-end command tests.
 */
#include "cli_util.h"
#include <criterion/criterion.h>
#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "trace_util.h"

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

/* Every directory cli_tmpdir made in this test process, removed when the
 * process exits, so a test that fails midway leaves nothing behind. */
static char *made[64];
static size_t nmade;

static void rm_made(void)
{
    for (size_t i = 0; i < nmade; i++)
        tu_rmdir(made[i]);
}

char *cli_tmpdir(void)
{
    char *d = xstrdup("/tmp/chipsim-test-XXXXXX");
    if (!mkdtemp(d))
        BUG("mkdtemp failed");
    if (nmade == 0)
        atexit(rm_made);
    if (nmade < sizeof made / sizeof made[0])
        made[nmade++] = xstrdup(d);
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

char *cli_run_tiny(const char *dir, const char *name, const char *const *extra, char **text)
{
    char *json = xasprintf("%s/%s", dir, name);
    const char *argv[32] = {"run", "-c", "configs/tiny.ini", "--json", json};
    size_t n = 5;
    for (; extra && *extra && n < 31; extra++)
        argv[n++] = *extra;
    argv[n] = NULL;
    struct cli_result r = cli_exec(argv);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    if (text)
        *text = xstrdup(r.out);
    cli_result_free(&r);
    return json;
}

json_t *cli_run_tiny_json(const char *dir, const char *name, const char *const *extra,
                          char **text)
{
    char *json = cli_run_tiny(dir, name, extra, text);
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    cr_assert(j, "%s: %s", json, je.text);
    unlink(json);
    free(json);
    return j;
}
