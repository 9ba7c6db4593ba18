/*
 * stats.c -- counter registry, per-kernel sections and the text printer.
 */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

void stats_init(struct stats *st) { *st = (struct stats){0}; }

void stats_free(struct stats *st)
{
    for (size_t i = 0; i < st->n; i++)
        free(st->v[i].name);
    for (size_t i = 0; i < st->nsecs; i++) {
        free(st->secs[i].name);
        free(st->secs[i].delta);
    }
    free(st->v);
    free(st->mark);
    free(st->secs);
    *st = (struct stats){0};
}

void stats_reg(struct stats *st, const char *prefix, const char *name, const uint64_t *ptr,
               const char *help)
{
    char *full = prefix && *prefix ? xasprintf("%s.%s", prefix, name) : xstrdup(name);
    if (stats_find(st, full))
        BUG("statistic '%s' registered twice", full);
    if (st->nsecs)
        BUG("statistic '%s' registered after the first section closed", full);
    size_t cap = st->cap;
    st->v = xgrow(st->v, sizeof *st->v, &st->cap, st->n + 1);
    if (st->cap != cap)
        st->mark = xrealloc(st->mark, st->cap * sizeof *st->mark);
    st->v[st->n] = (struct stat_ent){full, ptr, help};
    st->mark[st->n] = *ptr;
    st->n++;
}

void stats_reg_block(struct stats *st, const char *prefix, const struct stat_desc *desc,
                     const void *base)
{
    for (; desc->name; desc++)
        stats_reg(st, prefix, desc->name, (const uint64_t *)((const char *)base + desc->offset),
                  desc->help);
}

const struct stat_ent *stats_find(const struct stats *st, const char *name)
{
    for (size_t i = 0; i < st->n; i++)
        if (!strcmp(st->v[i].name, name))
            return &st->v[i];
    return NULL;
}

uint64_t stats_get(const struct stats *st, const char *name)
{
    const struct stat_ent *e = stats_find(st, name);
    if (!e)
        BUG("no statistic named '%s'", name);
    return *e->ptr;
}

static bool ends_with_component(const char *name, const char *suffix)
{
    size_t ln = strlen(name), ls = strlen(suffix);
    if (ln < ls || strcmp(name + ln - ls, suffix))
        return false;
    return ln == ls || name[ln - ls - 1] == '.';
}

uint64_t stats_sum(const struct stats *st, const char *suffix)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < st->n; i++)
        if (ends_with_component(st->v[i].name, suffix))
            sum += *st->v[i].ptr;
    return sum;
}

void stats_section_end(struct stats *st, const char *name)
{
    uint64_t *delta = NULL;
    if (st->keep_sections) {
        delta = xmalloc((st->n ? st->n : 1) * sizeof *delta);
        for (size_t i = 0; i < st->n; i++)
            delta[i] = *st->v[i].ptr - st->mark[i];
        st->secs = xgrow(st->secs, sizeof *st->secs, &st->secs_cap, st->nsecs + 1);
        st->secs[st->nsecs++] = (struct stats_section){xstrdup(name), delta};
    }
    for (size_t i = 0; i < st->n; i++)
        st->mark[i] = *st->v[i].ptr;
}

void stats_print_text(const struct stats *st, FILE *out)
{
    size_t w = 0;
    for (size_t i = 0; i < st->n; i++)
        if (strlen(st->v[i].name) > w)
            w = strlen(st->v[i].name);
    for (size_t i = 0; i < st->n; i++)
        fprintf(out, "%-*s %20llu\n", (int)w, st->v[i].name, (unsigned long long)*st->v[i].ptr);
    for (size_t k = 0; k < st->nsecs; k++) {
        fprintf(out, "\n[section %s]\n", st->secs[k].name);
        for (size_t i = 0; i < st->n; i++)
            if (st->secs[k].delta[i])
                fprintf(out, "%-*s %20llu\n", (int)w, st->v[i].name,
                        (unsigned long long)st->secs[k].delta[i]);
    }
}
