/*
 * range.c -- sorted, merged lists of byte ranges (range.h). Both holders
 * share one insertion: a binary search for the first range that the new one
 * reaches, the ranges it reaches folded into it, the rest moved up or down.
 * Two ranges stay apart when at least `reach` bytes lie between them
 * (reach 1: only touching or overlapping ranges merge).
 */
#include <stdlib.h>
#include <string.h>

#include "range.h"

/* [.., hi) ends at least reach bytes before lo. */
static bool apart(addr_t hi, addr_t lo, addr_t reach)
{
    return hi <= lo && lo - hi >= reach;
}

static addr_t reach_of(addr_t join)
{
    return join ? join : 1;
}

/* Fold [lo, hi) into the ranges of v[0..*n) it reaches. False if it reaches
 * none: then nothing changed and it belongs at index *at. */
static bool fold(struct addr_range *v, unsigned *n, addr_t lo, addr_t hi, addr_t reach,
                 unsigned *at)
{
    unsigned a = 0, b = *n;
    while (a < b) {
        unsigned m = a + (b - a) / 2;
        if (apart(v[m].hi, lo, reach))
            a = m + 1;
        else
            b = m;
    }
    unsigned j = a;
    while (j < *n && !apart(hi, v[j].lo, reach))
        j++;
    *at = a;
    if (j == a)
        return false;
    lo = min_u64(lo, v[a].lo);
    hi = max_u64(hi, v[j - 1].hi);
    memmove(&v[a + 1], &v[j], (*n - j) * sizeof *v);
    *n -= j - a - 1;
    v[a] = (struct addr_range){lo, hi};
    return true;
}

static void insert_at(struct addr_range *v, unsigned *n, unsigned at, addr_t lo, addr_t hi)
{
    memmove(&v[at + 1], &v[at], (*n - at) * sizeof *v);
    v[at] = (struct addr_range){lo, hi};
    (*n)++;
}

/* ---- range_set ------------------------------------------------------------ */

void range_set_free(struct range_set *s)
{
    free(s->v);
    *s = (struct range_set){0};
}

void range_set_add(struct range_set *s, addr_t lo, addr_t hi)
{
    unsigned at;
    if (lo >= hi || fold(s->v, &s->n, lo, hi, 1, &at))
        return;
    s->v = xgrow(s->v, sizeof *s->v, &s->cap, (size_t)s->n + 1);
    insert_at(s->v, &s->n, at, lo, hi);
}

void range_set_union(struct range_set *d, const struct range_set *s)
{
    for (unsigned i = 0; i < s->n; i++)
        range_set_add(d, s->v[i].lo, s->v[i].hi);
}

bool range_set_overlap(const struct range_set *a, const struct range_set *b)
{
    unsigned i = 0, j = 0;
    while (i < a->n && j < b->n) {
        if (a->v[i].hi <= b->v[j].lo)
            i++;
        else if (b->v[j].hi <= a->v[i].lo)
            j++;
        else
            return true;
    }
    return false;
}

/* A full list is sorted and merged before it grows, so that it never holds
 * much more than twice the merged set. */
void range_set_push(struct range_set *s, const struct addr_range *v, unsigned n)
{
    if (s->n + (size_t)n > s->cap)
        range_set_norm(s);
    s->v = xgrow(s->v, sizeof *s->v, &s->cap, (size_t)s->n + n);
    memcpy(&s->v[s->n], v, n * sizeof *v);
    s->n += n;
}

static int lo_cmp(const void *a, const void *b)
{
    const struct addr_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void range_set_norm(struct range_set *s)
{
    if (!s->n)
        return;
    qsort(s->v, s->n, sizeof *s->v, lo_cmp);
    unsigned out = 0;
    for (unsigned i = 0; i < s->n; i++) {
        if (s->v[i].lo >= s->v[i].hi)
            continue;
        if (out && s->v[i].lo <= s->v[out - 1].hi)
            s->v[out - 1].hi = max_u64(s->v[out - 1].hi, s->v[i].hi);
        else
            s->v[out++] = s->v[i];
    }
    s->n = out;
}

/* ---- range_list ----------------------------------------------------------- */

void range_list_init(struct range_list *l, struct addr_range *out, unsigned max, addr_t join)
{
    *l = (struct range_list){.v = out, .max = max, .join = join};
}

void range_list_add(struct range_list *l, addr_t lo, addr_t hi)
{
    unsigned at;
    if (lo >= hi || !l->max)
        return;
    if (l->over) {
        l->v[0] = (struct addr_range){min_u64(l->v[0].lo, lo), max_u64(l->v[0].hi, hi)};
        return;
    }
    if (fold(l->v, &l->n, lo, hi, reach_of(l->join), &at))
        return;
    if (l->n < l->max) {
        insert_at(l->v, &l->n, at, lo, hi);
        return;
    }
    l->v[0] = (struct addr_range){min_u64(l->v[0].lo, lo), max_u64(l->v[l->n - 1].hi, hi)};
    l->n = 1;
    l->over = true;
}

void range_list_rows(struct range_list *l, addr_t base, uint64_t pitch, unsigned elem,
                     uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1)
{
    for (uint64_t r = r0; c0 < c1 && r < r1; r++)
        range_list_add(l, base + (r * pitch + c0) * elem, base + (r * pitch + c1) * elem);
}

unsigned range_list_done(struct range_list *l, addr_t base)
{
    if (!l->max)
        return 0;
    if (!l->n)
        l->v[l->n++] = (struct addr_range){base, base};
    return l->n;
}
