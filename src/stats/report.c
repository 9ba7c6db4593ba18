/*
 * report.c -- JSON conversion of counters and atomic result files.
 */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static json_t *counters_json(const struct stats *st, const uint64_t *delta)
{
    json_t *o = json_object();
    for (size_t i = 0; i < st->n; i++) {
        uint64_t v = delta ? delta[i] : *st->v[i].ptr;
        if (delta && !v)
            continue;
        json_object_set_new(o, st->v[i].name, json_integer((json_int_t)v));
    }
    return o;
}

json_t *stats_to_json(const struct stats *st)
{
    json_t *o = counters_json(st, NULL);
    if (st->nsecs) {
        json_t *arr = json_array();
        for (size_t k = 0; k < st->nsecs; k++)
            json_array_append_new(arr, json_pack("{s:s, s:o}", "name", st->secs[k].name, "stats",
                                                 counters_json(st, st->secs[k].delta)));
        json_object_set_new(o, "sections", arr);
    }
    return o;
}

/* Write through a temporary file beside path, fsync, rename. */
static int write_atomic(const char *path, int (*put)(FILE *, const void *, size_t),
                        const void *data, size_t n, struct err *e)
{
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        err_set(e, "%s: cannot write: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = put(f, data, n);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        rc = -1;
    if (fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0) {
        err_set(e, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

static int put_json(FILE *f, const void *root, size_t n)
{
    (void)n;
    int rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    return rc == 0 && fputc('\n', f) == EOF ? -1 : rc;
}

static int put_text(FILE *f, const void *data, size_t n)
{
    return fwrite(data, 1, n, f) == n ? 0 : -1;
}

int json_write_atomic(const char *path, json_t *root, struct err *e)
{
    return write_atomic(path, put_json, root, 0, e);
}

int report_write_atomic(const char *path, const char *data, size_t n, struct err *e)
{
    return write_atomic(path, put_text, data, n, e);
}

uint64_t report_peak_rss_kib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss;
}
