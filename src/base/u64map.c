/*
 * u64map.c -- see u64map.h.
 */
#include "u64map.h"

#include <stdlib.h>

#define EMPTY UINT64_MAX

static void alloc_slots(struct u64map *m, size_t cap)
{
    m->cap = cap;
    m->slot = xmalloc(cap * sizeof *m->slot);
    for (size_t i = 0; i < cap; i++)
        m->slot[i].key = EMPTY;
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

static size_t find(const struct u64map *m, uint64_t key)
{
    size_t mask = m->cap - 1, i = hash64(key) & mask;
    while (m->slot[i].key != EMPTY && m->slot[i].key != key)
        i = (i + 1) & mask;
    return i;
}

uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
    size_t i = find(m, key);
    return m->slot[i].key == key ? &m->slot[i].val : NULL;
}

static void grow(struct u64map *m)
{
    struct u64map old = *m;
    alloc_slots(m, old.cap * 2);
    for (size_t i = 0; i < old.cap; i++)
        if (old.slot[i].key != EMPTY)
            m->slot[find(m, old.slot[i].key)] = old.slot[i];
    free(old.slot);
}

uint64_t *u64map_put(struct u64map *m, uint64_t key)
{
    if (key == EMPTY)
        BUG("u64map: reserved key");
    size_t i = find(m, key);
    if (m->slot[i].key == key)
        return &m->slot[i].val;
    if ((m->n + 1) * 2 > m->cap) {
        grow(m);
        i = find(m, key);
    }
    m->slot[i] = (struct u64map_slot){key, 0};
    m->n++;
    return &m->slot[i].val;
}

void u64map_del(struct u64map *m, uint64_t key)
{
    size_t mask = m->cap - 1, i = find(m, key);
    if (m->slot[i].key != key)
        return;
    m->n--;
    /* Backward shift: pull later members of the probe run into the hole. */
    for (size_t j = (i + 1) & mask; m->slot[j].key != EMPTY; j = (j + 1) & mask) {
        size_t home = hash64(m->slot[j].key) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slot[i] = m->slot[j];
            i = j;
        }
    }
    m->slot[i].key = EMPTY;
}
