/*
 * slurm.c -- sbatch, squeue, sacct and scontrol run as child processes and
 * their output parsed (slurm.h).
 *
 * Output is read from temporary files rather than pipes, so a command that
 * writes much to both streams cannot block on a full pipe. Accounting
 * (sacct) is optional on a cluster: without it sacct fails ("accounting
 * storage is disabled"), and scontrol still knows a job for MinJobAge
 * seconds (300 by default) after it ended, which is enough for a sweep
 * that polls. A task that neither knows (cancelled while pending, or
 * purged long ago) has no final state; the caller says so.
 */
#include "slurm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- running a command ------------------------------------------------------ */

struct cmd_out {
    int status;          /* exit status; 127 when it could not be started */
    char *out, *err;
};

static char *slurp(FILE *f)
{
    size_t cap = 4096, n = 0, got;
    char *buf = xmalloc(cap);
    rewind(f);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2)
            buf = xrealloc(buf, cap *= 2);
    }
    buf[n] = 0;
    fclose(f);
    return buf;
}

static struct cmd_out run_cmd(char *const *argv)
{
    FILE *out = tmpfile(), *err = tmpfile();
    if (!out || !err)
        BUG("tmpfile: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "r", stdin))
            _exit(127);
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: cannot run: %s", argv[0], strerror(errno));
        _exit(127);
    }
    int ws = 0;
    while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    struct cmd_out r = {pid < 0 ? 127 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws),
                        slurp(out), slurp(err)};
    return r;
}

static void cmd_free(struct cmd_out *r)
{
    free(r->out);
    free(r->err);
}

/* The first line of a command's message, for an error. */
static int cmd_err(struct err *e, const char *what, const struct cmd_out *r)
{
    const char *msg = *r->err ? r->err : r->out;
    int len = (int)strcspn(msg, "\n");
    return err_set(e, "%s failed (exit status %d)%s%.*s", what, r->status, len ? ": " : "", len,
                   msg);
}

/* ---- parsing ------------------------------------------------------------------ */

static void add_task(struct slurm_task **t, size_t *n, size_t *cap, long index, const char *state,
                     size_t slen, const char *exit_code, size_t elen)
{
    *t = xgrow(*t, sizeof **t, cap, *n + 1);
    struct slurm_task *x = &(*t)[(*n)++];
    *x = (struct slurm_task){.index = index};
    snprintf(x->state, sizeof x->state, "%.*s", (int)slen, state);
    snprintf(x->exit_code, sizeof x->exit_code, "%.*s", (int)elen, exit_code);
}

/* A task index that is a whole number: "4" (not "[4-7%2]" nor "N/A"). */
static bool task_index(const char *s, const char *end, long *index)
{
    char *stop;
    if (s >= end || *s < '0' || *s > '9')
        return false;
    *index = strtol(s, &stop, 10);
    return stop == end;
}

size_t slurm_parse_squeue(const char *text, struct slurm_task **t)
{
    size_t n = 0, cap = 0;
    *t = NULL;
    for (const char *line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
        const char *bar = strchr(line, '|'), *eol = line + strcspn(line, "\n");
        long index;
        if (bar && bar < eol && task_index(line, bar, &index))
            add_task(t, &n, &cap, index, bar + 1, (size_t)(eol - bar - 1), "", 0);
    }
    return n;
}

/* Lines "JOB_4|CANCELLED by 0|0:15"; other jobs and pending ranges skipped. */
size_t slurm_parse_sacct(const char *job, const char *text, struct slurm_task **t)
{
    size_t n = 0, cap = 0, jl = strlen(job);
    *t = NULL;
    for (const char *line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
        const char *eol = line + strcspn(line, "\n");
        const char *b1 = memchr(line, '|', (size_t)(eol - line));
        const char *b2 = b1 ? memchr(b1 + 1, '|', (size_t)(eol - b1 - 1)) : NULL;
        long index;
        if (!b2 || strncmp(line, job, jl) || line[jl] != '_' ||
            !task_index(line + jl + 1, b1, &index))
            continue;
        size_t slen = strcspn(b1 + 1, " |");  /* "CANCELLED by 0" -> CANCELLED */
        add_task(t, &n, &cap, index, b1 + 1, slen, b2 + 1, (size_t)(eol - b2 - 1));
    }
    return n;
}

/* The value of " Name=" on one line of `scontrol -o show job`. */
static const char *field(const char *line, const char *eol, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (const char *p = line; p < eol; p++) {
        if ((p == line || p[-1] == ' ') && !strncmp(p, name, nl) && p[nl] == '=') {
            *len = strcspn(p + nl + 1, " \n");
            return p + nl + 1;
        }
    }
    return NULL;
}

size_t slurm_parse_scontrol(const char *text, struct slurm_task **t)
{
    size_t n = 0, cap = 0;
    *t = NULL;
    for (const char *line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
        const char *eol = line + strcspn(line, "\n");
        size_t il, sl, el = 0;
        const char *id = field(line, eol, "ArrayTaskId", &il);
        const char *st = field(line, eol, "JobState", &sl);
        const char *ex = field(line, eol, "ExitCode", &el);
        long index;
        if (id && st && task_index(id, id + il, &index))
            add_task(t, &n, &cap, index, st, sl, ex ? ex : "", ex ? el : 0);
    }
    return n;
}

/* ---- the commands ---------------------------------------------------------------- */

static char *opt(const char *name, const char *value)
{
    return xasprintf("--%s=%s", name, value);
}

int slurm_submit(const struct slurm_array *a, char *id, size_t n, struct err *e)
{
    char **argv = xcalloc(a->nextra + 16, sizeof *argv);
    size_t k = 0;
    argv[k++] = xstrdup("sbatch");
    argv[k++] = xstrdup("--parsable");
    argv[k++] = opt("job-name", a->name);
    argv[k++] = a->max_parallel ? xasprintf("--array=0-%zu%%%u", a->ntasks - 1, a->max_parallel)
                                : xasprintf("--array=0-%zu", a->ntasks - 1);
    argv[k++] = opt("output", a->output);
    argv[k++] = opt("chdir", a->chdir);
    if (a->partition)
        argv[k++] = opt("partition", a->partition);
    if (a->time)
        argv[k++] = opt("time", a->time);
    for (size_t i = 0; i < a->nextra; i++)
        argv[k++] = xstrdup(a->extra[i]);
    argv[k++] = xstrdup(a->script);
    struct cmd_out r = run_cmd(argv);
    int rc = 0;
    size_t len = strspn(r.out, "0123456789"); /* "123" or "123;cluster" */
    if (r.status || !len || len >= n)
        rc = cmd_err(e, "sbatch", &r);
    else
        snprintf(id, n, "%.*s", (int)len, r.out);
    for (size_t i = 0; i < k; i++)
        free(argv[i]);
    free(argv);
    cmd_free(&r);
    return rc;
}

long slurm_active(const char *job, struct slurm_task **t, struct err *e)
{
    char *argv[] = {"squeue", "-h", "-r", "-j", (char *)job, "-o", "%K|%T", NULL};
    struct cmd_out r = run_cmd(argv);
    long n = 0;
    *t = NULL;
    if (!r.status)
        n = (long)slurm_parse_squeue(r.out, t);
    else if (!strstr(r.err, "Invalid job id")) /* else: ended and purged */
        n = cmd_err(e, "squeue", &r);
    cmd_free(&r);
    return n;
}

/* A state in which a task has not ended yet (squeue's and sacct's words). */
static bool still_active(const char *state)
{
    static const char *const active[] = {"PENDING",   "RUNNING",  "SUSPENDED", "COMPLETING",
                                         "CONFIGURING", "REQUEUED", "RESIZING", "SIGNALING",
                                         "STAGE_OUT", "STOPPED",  NULL};
    for (const char *const *a = active; *a; a++)
        if (!strcmp(state, *a))
            return true;
    return false;
}

static size_t query(char **argv, const char *job, bool sacct, struct slurm_task **t)
{
    struct cmd_out r = run_cmd(argv);
    size_t n = 0;
    *t = NULL;
    if (!r.status)
        n = sacct ? slurm_parse_sacct(job, r.out, t) : slurm_parse_scontrol(r.out, t);
    cmd_free(&r);
    return n;
}

size_t slurm_final(const char *job, struct slurm_task **t)
{
    char *scontrol[] = {"scontrol", "-o", "show", "job", (char *)job, NULL};
    char *sacct[] = {"sacct", "-n", "-P", "-X", "-j", (char *)job, "-o", "JobID,State,ExitCode",
                     NULL};
    struct slurm_task *a, *b;
    size_t na = query(scontrol, job, false, &a), nb = query(sacct, job, true, &b), n = 0, cap = 0;
    *t = NULL;
    /* scontrol while the controller still holds the job, sacct after that
     * (accounting may lag: a state it still calls RUNNING is no answer) */
    for (size_t i = 0; i < na + nb; i++) {
        const struct slurm_task *x = i < na ? &a[i] : &b[i - na];
        bool known = false;
        for (size_t j = 0; j < n && !known; j++)
            known = (*t)[j].index == x->index;
        if (!known && !still_active(x->state))
            add_task(t, &n, &cap, x->index, x->state, strlen(x->state), x->exit_code,
                     strlen(x->exit_code));
    }
    free(a);
    free(b);
    return n;
}

long slurm_max_array_size(void)
{
    char *argv[] = {"scontrol", "show", "config", NULL};
    struct cmd_out r = run_cmd(argv);
    const char *p = r.status ? NULL : strstr(r.out, "MaxArraySize");
    long v = p ? strtol(p + strcspn(p, "=") + 1, NULL, 10) : 0;
    cmd_free(&r);
    return v > 0 ? v : 1001;
}
