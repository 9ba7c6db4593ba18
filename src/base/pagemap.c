/*
 * pagemap.c -- see pagemap.h.
 */
#include "pagemap.h"

#include <stdlib.h>
#include <string.h>

void pagemap_init(struct pagemap *m)
{
    *m = (struct pagemap){0};
    u64map_init(&m->leaves, 16);
}

void pagemap_free(struct pagemap *m)
{
    for (size_t i = 0; i < m->leaves.cap; i++)
        if (m->leaves.slot[i].key != U64MAP_EMPTY)
            free((void *)(uintptr_t)m->leaves.slot[i].val);
    u64map_free(&m->leaves);
    *m = (struct pagemap){0};
}

uint64_t *pagemap_new_leaf(struct pagemap *m, uint64_t key)
{
    uint64_t *leaf = xmalloc(PAGEMAP_LEAF * sizeof *leaf);
    memset(leaf, 0xff, PAGEMAP_LEAF * sizeof *leaf); /* every page PAGEMAP_NONE */
    *u64map_put(&m->leaves, key) = (uint64_t)(uintptr_t)leaf;
    m->memo_key = key;
    m->memo_leaf = leaf;
    return leaf;
}
