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
    free(st->index);
    free(st->mark);
    free(st->secs);
    *st = (struct stats){0};
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static void index_put(struct stats *st, size_t i)
{
    size_t mask = st->index_cap - 1, k = name_hash(st->v[i].name) & mask;
    while (st->index[k])
        k = (k + 1) & mask;
    st->index[k] = (uint32_t)i + 1;
}

/* Keep the index at most half full: rebuild it twice as large. */
static void index_rebuild(struct stats *st)
{
    free(st->index);
    st->index_cap = st->index_cap ? st->index_cap * 2 : 256;
    st->index = xcalloc(st->index_cap, sizeof *st->index);
    for (size_t i = 0; i < st->n; i++)
        index_put(st, i);
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
    if (st->n * 2 >= st->index_cap)
        index_rebuild(st);
    else
        index_put(st, st->n - 1);
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
    if (!st->index_cap)
        return NULL;
    size_t mask = st->index_cap - 1;
    for (size_t k = name_hash(name) & mask; st->index[k]; k = (k + 1) & mask)
        if (!strcmp(st->v[st->index[k] - 1].name, name))
            return &st->v[st->index[k] - 1];
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
