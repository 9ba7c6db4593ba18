/*
 * u64map.h -- an open-addressing hash map from uint64_t keys to uint64_t
 * values (linear probing, backward-shift deletion, kept at most half full).
 * It grows by doubling, so inserting allocates only when the map reaches a
 * size it never had before. The key UINT64_MAX is reserved.
 *
 * Lookups sit on hot paths (event times, page homes, checker pages), so the
 * probe is inline and the hash is one multiplication (Fibonacci hashing: the
 * top bits of key * 2^64/phi), which spreads the arithmetic progressions the
 * simulator produces (clock edges, consecutive pages) evenly. Only inserting
 * a new key and deleting go out of line.
 */
#ifndef CHIPSIM_U64MAP_H
#define CHIPSIM_U64MAP_H

#include "base.h"

struct u64map_slot {
    uint64_t key, val;
};

struct u64map {
    struct u64map_slot *slot;
    size_t cap, n;   /* cap is a power of two */
    unsigned shift;  /* 64 - log2(cap): the hash is the top bits of the product */
};

#define U64MAP_EMPTY UINT64_MAX

void u64map_init(struct u64map *m, size_t initial);
void u64map_free(struct u64map *m);
/* Slow path of u64map_put(): key is absent and the map must grow first;
 * insert it with value 0. */
uint64_t *u64map_insert(struct u64map *m, uint64_t key);
void u64map_del(struct u64map *m, uint64_t key);
/* Delete the entry whose value pointer (from get or put) is val. */
void u64map_del_at(struct u64map *m, uint64_t *val);

static inline size_t u64map_home(const struct u64map *m, uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> m->shift);
}

/* The slot holding key, or the empty slot where it would go. */
static inline size_t u64map_find(const struct u64map *m, uint64_t key)
{
    size_t mask = m->cap - 1, i = u64map_home(m, key);
    while (m->slot[i].key != key && m->slot[i].key != U64MAP_EMPTY)
        i = (i + 1) & mask;
    return i;
}

/* Pointer to the value of key, or NULL. Valid until the next insertion. */
static inline uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
    size_t i = u64map_find(m, key);
    return m->slot[i].key == key && key != U64MAP_EMPTY ? &m->slot[i].val : NULL;
}

/* Pointer to the value of key, inserted with value 0 if absent. */
static inline uint64_t *u64map_put(struct u64map *m, uint64_t key)
{
    size_t i = u64map_find(m, key);
    if (__builtin_expect(m->slot[i].key == key && key != U64MAP_EMPTY, 1))
        return &m->slot[i].val;
    if ((m->n + 1) * 2 > m->cap || key == U64MAP_EMPTY)
        return u64map_insert(m, key); /* grows, or refuses the reserved key */
    m->slot[i] = (struct u64map_slot){key, 0};
    m->n++;
    return &m->slot[i].val;
}

#endif
