/*
 * tiny_run.c -- see tiny_run.h.
 */
#include "tiny_run.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"

json_t *tiny_run(const struct wl_ops *w, const char *const *extra, const char *json, int *rc)
{
    return preset_run("configs/tiny.ini", w, extra, json, rc);
}

json_t *preset_run(const char *config, const struct wl_ops *w, const char *const *extra,
                   const char *json, int *rc)
{
    const char *argv[80] = {"run", "-q", "-c", config, "-w", w->name, "--json", json};
    int n = 8;
    char ov[16][96];
    int k = 0;
    for (const char *const *o = w->small; o && *o && k < 16; o++, k++) {
        snprintf(ov[k], sizeof ov[k], "workload.%s", *o);
        argv[n++] = "-p";
        argv[n++] = ov[k];
    }
    for (; extra && *extra && n < 76; extra++) /* after the small size: they may override it */
        argv[n++] = *extra;
    argv[n] = NULL;
    *rc = cli_run(n, (char **)argv);
    if (*rc)
        return NULL;
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    cr_assert(j, "%s: %s", w->name, je.text);
    return j;
}

long long tiny_summary(const json_t *j, const char *key)
{
    return json_integer_value(json_object_get(json_object_get(j, "summary"), key));
}

void tiny_begin(char *path)
{
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert(freopen("/dev/null", "w", stdout));
}

const struct wl_ops *tiny_wl(const char *name)
{
    const struct wl_ops *w = wl_find(name);
    cr_assert(w, "no workload %s", name);
    return w;
}
