/*
 * cmd_compare.c -- `chipsim compare A.json B.json`: two runs' summaries side
 * by side, with B / A for every numeric key (nested objects flattened as
 * energy_pj.total), and the configuration keys in which the runs differ.
 * Integers print as integers, other numbers with three decimals, ratios with
 * four; a figure the run did not measure (null) prints as n/a, a key one file
 * lacks as (absent).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

static json_t *parse(const char *path, FILE *f)
{
    struct stat sb;
    if (!fstat(fileno(f), &sb) && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "chipsim: %s: cannot read: %s\n", path, strerror(EISDIR));
        return NULL;
    }
    if (!fstat(fileno(f), &sb) && S_ISREG(sb.st_mode) && sb.st_size == 0) {
        fprintf(stderr, "chipsim: %s: empty file (expected the JSON of `chipsim run --json`)\n",
                path);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadf(f, 0, &je);
    if (!j && je.line > 0)
        fprintf(stderr, "chipsim: %s:%d:%d: %s\n", path, je.line, je.column, je.text);
    else if (!j)
        fprintf(stderr, "chipsim: %s: %s\n", path, je.text);
    return j;
}

static json_t *load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "chipsim: %s: cannot open: %s\n", path, strerror(errno));
        return NULL;
    }
    json_t *j = parse(path, f);
    fclose(f);
    if (j && !json_is_object(json_object_get(j, "summary"))) {
        fprintf(stderr, "chipsim: %s: not a chipsim result (no \"summary\" object; expected the "
                        "JSON of `chipsim run --json`)\n",
                path);
        json_decref(j);
        return NULL;
    }
    return j;
}

#define VAL_W 18
#define RATIO_W 10

static void cell(char *buf, size_t n, json_t *v)
{
    if (!v)
        snprintf(buf, n, "(absent)");
    else if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, n, "%.3f", json_real_value(v));
    else if (json_is_null(v))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "(not a number)");
}

static void row(const char *name, json_t *a, json_t *b)
{
    char x[48], y[48], r[32];
    cell(x, sizeof x, a);
    cell(y, sizeof y, b);
    double p = json_number_value(a), q = json_number_value(b);
    if (!json_is_number(a) || !json_is_number(b))
        snprintf(r, sizeof r, "n/a");
    else if (p == 0)
        snprintf(r, sizeof r, "%s", q == 0 ? "=" : "-");
    else
        snprintf(r, sizeof r, "%.4f", q / p);
    printf("  %-28s %*s %*s  %*s\n", name, VAL_W, x, VAL_W, y, RATIO_W, r);
}

static void rows(const char *prefix, json_t *a, json_t *b)
{
    const char *k;
    json_t *v;
    json_object_foreach(a, k, v)
    {
        char name[128];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (json_is_object(v))
            rows(name, v, json_object_get(b, k));
        else
            row(name, v, json_object_get(b, k));
    }
    json_object_foreach(b, k, v) /* keys only B has */
        if (!json_object_get(a, k)) {
            char name[128];
            snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", k);
            if (json_is_object(v))
                rows(name, NULL, v);
            else
                row(name, NULL, v);
        }
}

static void config_diff(json_t *a, json_t *b)
{
    const char *sec, *k;
    json_t *sa, *v;
    int n = 0;
    json_object_foreach(a, sec, sa)
    {
        json_t *sb = json_object_get(b, sec);
        json_object_foreach(sa, k, v)
        {
            json_t *w = json_object_get(sb, k);
            if (w && json_equal(v, w))
                continue;
            char *x = json_dumps(v, JSON_ENCODE_ANY), *y = w ? json_dumps(w, JSON_ENCODE_ANY) : NULL;
            if (!n++)
                printf("\nconfiguration differences:\n");
            printf("  %s.%s: %s -> %s\n", sec, k, x, y ? y : "(absent)");
            free(x);
            free(y);
        }
    }
}

int cli_compare(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: chipsim compare A.json B.json\n");
        return EXIT_USAGE;
    }
    json_t *a = load(argv[1]), *b = a ? load(argv[2]) : NULL;
    if (!a || !b) {
        json_decref(a);
        return EXIT_USAGE;
    }
    printf("  %-28s %*s %*s  %*s\n", "summary", VAL_W, "A", VAL_W, "B", RATIO_W, "B / A");
    rows("", json_object_get(a, "summary"), json_object_get(b, "summary"));
    config_diff(json_object_get(a, "config"), json_object_get(b, "config"));
    printf("\nA = %s\nB = %s\n", argv[1], argv[2]);
    json_decref(a);
    json_decref(b);
    return EXIT_OK;
}
