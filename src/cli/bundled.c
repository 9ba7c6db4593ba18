/*
 * bundled.c -- what the commands that produce reports share: finding the
 * files bundled with chipsim (studies/, configs/, tools/) beside the
 * executable's parent directory or in the current one, creating output
 * directories, running the Python report scripts (Debian's python3 with
 * matplotlib) and copying a report to stdout.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

bool cli_find_bundled(const char *rel, char *out, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(out, n, "%.3800s/../%s", exe, rel);
            if (!access(out, R_OK))
                return true;
        }
    }
    snprintf(out, n, "%s", rel);
    return !access(out, R_OK);
}

int cli_mkdirs(const char *dir)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) && access(buf, F_OK))
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) && access(buf, F_OK) ? -1 : 0;
}

int cli_run_program(const char *const *argv, bool quiet)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (quiet && !freopen("/dev/null", "w", stdout))
            _exit(127);
        execv(argv[0], (char **)argv);
        fprintf(stderr, "chipsim: cannot run %s\n", argv[0]);
        _exit(127);
    }
    int ws;
    if (pid < 0 || waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws))
        return -1;
    return WEXITSTATUS(ws) ? -1 : 0;
}

int cli_run_python(const char *script_rel, const char *const *args)
{
    char script[PATH_MAX];
    if (!cli_find_bundled(script_rel, script, sizeof script)) {
        fprintf(stderr, "chipsim: %s not found (beside the executable's directory or in the "
                        "current one)\n", script_rel);
        return -1;
    }
    const char *argv[32] = {CLI_PYTHON, script};
    size_t n = 2;
    for (; args[n - 2] && n < 31; n++)
        argv[n] = args[n - 2];
    argv[n] = NULL;
    if (access(CLI_PYTHON, X_OK)) {
        fprintf(stderr, "chipsim: %s missing (install python3-matplotlib: "
                        "scripts/install-deps.sh)\n", CLI_PYTHON);
        return -1;
    }
    return cli_run_program(argv, false);
}

int cli_print_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    return 0;
}
