/*
 * cache_array.c -- the rare slow path of the tag array (cache_array.h).
 */
#include "cache_array.h"

#include <stdlib.h>

/* Renumber a set's stamps 1..ways in the same order (ties keep way order,
 * as victim_way() breaks them) so that its tick can start again low. */
void cache_array_restamp(struct cache *c, size_t set)
{
    uint32_t ways = c->p.ways;
    uint16_t *rank = xmalloc(ways * sizeof *rank), *st = c->stamp + set * ways;
    for (uint32_t w = 0; w < ways; w++) {
        rank[w] = 1;
        for (uint32_t v = 0; v < ways; v++)
            rank[w] += st[v] < st[w] || (st[v] == st[w] && v < w);
    }
    memcpy(st, rank, ways * sizeof *st);
    free(rank);
    c->set_tick[set] = (uint16_t)ways;
}
