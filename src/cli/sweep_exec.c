/*
 * sweep_exec.c -- the local backend: running the runs of a sweep in worker
 * processes and storing each in the results database as soon as it ends
 * (sweep.h, sweep_db.h).
 *
 * Each worker is a fork of this process running `chipsim run` in-process,
 * writing its JSON result and its stderr to files of its own slot in
 * DB.tmp/; it dies with the parent (PR_SET_PDEATHSIG), so a killed sweep
 * leaves no orphans. The parent reads the result and stores one row per run
 * in its own transaction (WAL journal, synchronous = FULL): a run is either
 * entirely stored or not at all, and a stored run is never run again (a
 * failed one only with retry_failed).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sweep_db.h"

struct slot {
    pid_t pid;
    size_t run;
    double t0;
    char json[4096], log[4096];
};

static void worker(const struct sweep_run *r, const struct slot *sl, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(EXIT_SIMFAIL);
    if (!freopen("/dev/null", "w", stdout) || !freopen(sl->log, "w", stderr))
        _exit(EXIT_SIMFAIL);
    char **argv = xcalloc(2 * r->noverrides + 9, sizeof *argv);
    int status = cli_run(sweep_run_argv(r, sl->json, argv), argv);
    fflush(NULL);
    _exit(status);
}

static void start(const struct sweep_run *runs, struct slot *sl, size_t run)
{
    unlink(sl->json);
    fflush(NULL);
    pid_t parent = getpid();
    sl->run = run;
    sl->t0 = sweep_now_s();
    sl->pid = fork();
    if (sl->pid == 0)
        worker(&runs[run], sl, parent);
}

static void collect(struct slot *sl, int ws, struct sweep_outcome *o)
{
    *o = (struct sweep_outcome){.wall_s = sweep_now_s() - sl->t0};
    o->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    if (!o->status) {
        json_error_t je;
        o->result = json_load_file(sl->json, 0, &je);
        if (!o->result) {
            o->status = EXIT_SIMFAIL;
            snprintf(o->error, sizeof o->error, "unreadable result: %s", je.text);
        }
    } else if (WIFSIGNALED(ws)) {
        snprintf(o->error, sizeof o->error, "killed by signal %d", WTERMSIG(ws));
    } else {
        sweep_log_tail(sl->log, o->error, sizeof o->error);
        if (!o->error[0])
            snprintf(o->error, sizeof o->error, "exit status %d, no message", o->status);
    }
    unlink(sl->json);
    unlink(sl->log);
    sl->pid = 0;
}

/* The next worker to end (wait()); on a terminal, meanwhile, a status line
 * once a second, cleared before returning (done() prints whole lines). */
static pid_t wait_any(int *ws, const char *label, const struct slot *slots, unsigned jobs,
                      size_t finished, size_t n)
{
    if (!label || !isatty(2))
        return wait(ws);
    double last = 0;
    pid_t pid;
    while ((pid = waitpid(-1, ws, WNOHANG)) == 0) {
        double now = sweep_now_s();
        if (now - last >= 1) {
            last = now;
            unsigned running = 0;
            double longest = 0;
            for (unsigned i = 0; i < jobs; i++)
                if (slots[i].pid) {
                    running++;
                    if (now - slots[i].t0 > longest)
                        longest = now - slots[i].t0;
                }
            fprintf(stderr, "\r\033[K%s: %zu/%zu finished, %u running (the longest for %.0f s)",
                    label, finished, n, running, longest);
            fflush(stderr);
        }
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    if (last > 0)
        fprintf(stderr, "\r\033[K");
    return pid;
}

int sweep_pool(const struct sweep_run *runs, const size_t *todo, size_t n, unsigned jobs,
               const char *dir, const char *label, sweep_done_fn done, void *ctx)
{
    struct slot *slots = xcalloc(jobs, sizeof *slots);
    for (unsigned i = 0; i < jobs; i++) {
        snprintf(slots[i].json, sizeof slots[i].json, "%.4000s/run%u.json", dir, i);
        snprintf(slots[i].log, sizeof slots[i].log, "%.4000s/run%u.log", dir, i);
    }
    size_t next = 0, running = 0, finished = 0;
    int rc = 0;
    while (next < n || running) {
        for (unsigned i = 0; i < jobs && next < n && !rc; i++)
            if (!slots[i].pid) {
                start(runs, &slots[i], todo[next++]);
                running++;
            }
        int ws;
        pid_t pid = wait_any(&ws, label, slots, jobs, finished, n);
        if (pid < 0)
            break;
        for (unsigned i = 0; i < jobs; i++) {
            if (slots[i].pid != pid)
                continue;
            struct sweep_outcome out;
            size_t run = slots[i].run;
            collect(&slots[i], ws, &out);
            running--;
            finished++;
            int r = done(ctx, run, &out);
            rc = rc ? rc : r;
            json_decref(out.result);
        }
    }
    free(slots);
    return rc;
}

struct exec_ctx {
    const struct sweep *sw;
    const struct sweep_opts *o;
    sqlite3 *db;
    struct sweep_result *res;
    size_t ntodo;
    double spent;
    struct err *e;
};

static int exec_done(void *p, size_t run, const struct sweep_outcome *out)
{
    struct exec_ctx *x = p;
    int rc = 0;
    if (sweep_db_store(x->db, &x->sw->runs[run], out))
        rc = sweep_db_err(x->e, x->db, x->sw->db, "cannot store a run");
    struct sweep_result *res = x->res;
    res->ran++;
    res->failed += out->status != 0;
    x->spent += out->wall_s;
    size_t left = x->ntodo - res->ran;
    int eta = (int)(x->spent / (double)res->ran * (double)left / x->o->jobs);
    sweep_print_stored(x->o, &x->sw->runs[run], out, res, eta);
    return rc;
}

static int run_pending(const struct sweep *sw, const struct sweep_opts *o, sqlite3 *db,
                       const size_t *todo, size_t ntodo, struct sweep_result *res, struct err *e)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s.tmp", sw->db);
    if (mkdir(dir, 0777) && errno != EEXIST)
        return err_set(e, "%s: cannot create: %s", dir, strerror(errno));
    struct exec_ctx x = {sw, o, db, res, ntodo, 0, e};
    int rc = sweep_pool(sw->runs, todo, ntodo, o->jobs, dir, o->quiet ? NULL : o->label,
                        exec_done, &x);
    rmdir(dir);
    return rc;
}

int sweep_execute(const struct sweep *sw, const struct sweep_opts *o, struct sweep_result *res,
                  struct err *e)
{
    *res = (struct sweep_result){.total = sw->nruns};
    sqlite3 *db = NULL;
    struct sweep_keyset done = {0};
    int rc = sweep_db_open(sw->db, &db, true, e);
    if (!rc)
        rc = sweep_db_load_keys(db, o->retry_failed, &done, sw->db, e);
    size_t *todo = xcalloc(sw->nruns + 1, sizeof *todo), ntodo = 0;
    for (size_t i = 0; !rc && i < sw->nruns; i++) {
        if (sweep_keyset_has(&done, sw->runs[i].key))
            res->done_before++;
        else
            todo[ntodo++] = i;
    }
    if (!rc && !o->quiet)
        fprintf(stderr, "%s: %zu runs, %zu stored already, %zu to run on %u workers (%s)\n",
                o->label, res->total, res->done_before, ntodo, o->jobs, sw->db);
    if (!rc)
        rc = run_pending(sw, o, db, todo, ntodo, res, e);
    free(todo);
    sweep_keyset_free(&done);
    sqlite3_close(db);
    return rc;
}
