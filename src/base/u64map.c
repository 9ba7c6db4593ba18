/*
 * u64map.c -- see u64map.h.
 */
#include "u64map.h"

#include <stdlib.h>

static void alloc_slots(struct u64map *m, size_t cap)
{
    m->cap = cap;
    m->shift = 64 - ilog2(cap);
    m->slot = xmalloc(cap * sizeof *m->slot);
    for (size_t i = 0; i < cap; i++)
        m->slot[i].key = U64MAP_EMPTY;
}

void u64map_init(struct u64map *m, size_t initial)
{
    size_t cap = 16;
    while (cap < initial * 2)
        cap *= 2;
    m->n = 0;
    alloc_slots(m, cap);
}

void u64map_free(struct u64map *m)
{
    free(m->slot);
    *m = (struct u64map){0};
}

static void grow(struct u64map *m)
{
    struct u64map old = *m;
    alloc_slots(m, old.cap * 2);
    for (size_t i = 0; i < old.cap; i++)
        if (old.slot[i].key != U64MAP_EMPTY)
            m->slot[u64map_find(m, old.slot[i].key)] = old.slot[i];
    free(old.slot);
}

uint64_t *u64map_insert(struct u64map *m, uint64_t key)
{
    if (key == U64MAP_EMPTY)
        BUG("u64map: reserved key");
    if ((m->n + 1) * 2 > m->cap)
        grow(m);
    size_t i = u64map_find(m, key);
    m->slot[i] = (struct u64map_slot){key, 0};
    m->n++;
    return &m->slot[i].val;
}

void u64map_del_at(struct u64map *m, uint64_t *val)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)((char *)val - (char *)m->slot) / sizeof *m->slot;
    m->n--;
    /* Backward shift: pull later members of the probe run into the hole. */
    for (size_t j = (i + 1) & mask; m->slot[j].key != U64MAP_EMPTY; j = (j + 1) & mask) {
        size_t home = u64map_home(m, m->slot[j].key);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slot[i] = m->slot[j];
            i = j;
        }
    }
    m->slot[i].key = U64MAP_EMPTY;
}

void u64map_del(struct u64map *m, uint64_t key)
{
    uint64_t *val = u64map_get(m, key);
    if (val)
        u64map_del_at(m, val);
}
