/*
 * cmd_compare.c -- `chipsim compare A.json B.json`: two runs' summaries side
 * by side, with B / A for every numeric key (nested objects flattened as
 * energy_pj.total), and the configuration keys in which the runs differ.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static json_t *load(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        fprintf(stderr, "chipsim: %s:%d: %s\n", path, je.line, je.text);
        return NULL;
    }
    if (!json_is_object(json_object_get(j, "summary"))) {
        fprintf(stderr, "chipsim: %s: not a chipsim result (no \"summary\" object)\n", path);
        json_decref(j);
        return NULL;
    }
    return j;
}

static void row(const char *name, json_t *a, json_t *b)
{
    double x = json_number_value(a), y = json_number_value(b);
    printf("  %-28s %16.6g %16.6g", name, x, y);
    if (!json_is_number(a) || !json_is_number(b))
        printf("  %10s\n", "(missing)");
    else if (x == 0)
        printf("  %10s\n", y == 0 ? "=" : "-");
    else
        printf("  %10.4f\n", y / x);
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
        if (!json_object_get(a, k) && !json_is_object(v)) {
            char name[128];
            snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", k);
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
    printf("  %-28s %16s %16s  %10s\n", "summary", "A", "B", "B / A");
    rows("", json_object_get(a, "summary"), json_object_get(b, "summary"));
    config_diff(json_object_get(a, "config"), json_object_get(b, "config"));
    printf("\nA = %s\nB = %s\n", argv[1], argv[2]);
    json_decref(a);
    json_decref(b);
    return EXIT_OK;
}
