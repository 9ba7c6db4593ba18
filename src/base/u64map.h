/*
 * u64map.h -- an open-addressing hash map from uint64_t keys to uint64_t
 * values (linear probing, backward-shift deletion, kept at most half full).
 * It grows by doubling, so inserting allocates only when the map reaches a
 * size it never had before. The key UINT64_MAX is reserved.
 */
#ifndef CHIPSIM_U64MAP_H
#define CHIPSIM_U64MAP_H

#include "base.h"

struct u64map_slot {
    uint64_t key, val;
};

struct u64map {
    struct u64map_slot *slot;
    size_t cap, n; /* cap is a power of two */
};

void u64map_init(struct u64map *m, size_t initial);
void u64map_free(struct u64map *m);
/* Pointer to the value of key, or NULL. Valid until the next insertion. */
uint64_t *u64map_get(const struct u64map *m, uint64_t key);
/* Pointer to the value of key, inserted with value 0 if absent. */
uint64_t *u64map_put(struct u64map *m, uint64_t key);
void u64map_del(struct u64map *m, uint64_t key);

#endif
