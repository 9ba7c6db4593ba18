/*
 * pagemap.h -- a map from page numbers to uint64_t values, for the per-page
 * tables that every memory request consults (page homes, memory's data
 * versions, the checker's words). Addresses cluster (buffers are laid out
 * one after another, a kernel sweeps them), so the map is two levels: leaves
 * of PAGEMAP_LEAF consecutive pages, found by a u64map of leaf numbers with a
 * memo of the last leaf used. Neighbouring pages then share a leaf and host
 * cache lines, where a hash of every page scatters them over a large table.
 * The value PAGEMAP_NONE is reserved (it marks an absent page).
 */
#ifndef CHIPSIM_PAGEMAP_H
#define CHIPSIM_PAGEMAP_H

#include "u64map.h"

#define PAGEMAP_LEAF_BITS 9
#define PAGEMAP_LEAF (1u << PAGEMAP_LEAF_BITS)
#define PAGEMAP_NONE UINT64_MAX

struct pagemap {
    struct u64map leaves;   /* page >> PAGEMAP_LEAF_BITS -> its leaf */
    uint64_t memo_key;      /* the leaf found last (memo_leaf NULL: none) */
    uint64_t *memo_leaf;
    size_t n;               /* pages present */
};

void pagemap_init(struct pagemap *m);
void pagemap_free(struct pagemap *m);
/* Slow path of pagemap_put(): the leaf of key is not there yet. */
uint64_t *pagemap_new_leaf(struct pagemap *m, uint64_t key);

/* The leaf of page, or NULL (the memo is a cache: updating it through a
 * const map changes nothing a caller can see). */
static inline uint64_t *pagemap_leaf(const struct pagemap *m, uint64_t page)
{
    uint64_t key = page >> PAGEMAP_LEAF_BITS;
    if (__builtin_expect(m->memo_leaf && m->memo_key == key, 1))
        return m->memo_leaf;
    const uint64_t *v = u64map_get(&m->leaves, key);
    if (!v)
        return NULL;
    struct pagemap *w = (struct pagemap *)m;
    w->memo_key = key;
    w->memo_leaf = (uint64_t *)(uintptr_t)*v;
    return w->memo_leaf;
}

/* Pointer to the value of page, or NULL if absent. Stays valid until the
 * map is freed. */
static inline uint64_t *pagemap_get(const struct pagemap *m, uint64_t page)
{
    uint64_t *leaf = pagemap_leaf(m, page);
    uint64_t *v = leaf ? &leaf[page & (PAGEMAP_LEAF - 1)] : NULL;
    return v && *v != PAGEMAP_NONE ? v : NULL;
}

/* Pointer to the value of page; an absent page is added with value 0 and
 * *added set (else cleared). */
static inline uint64_t *pagemap_put(struct pagemap *m, uint64_t page, bool *added)
{
    uint64_t *leaf = pagemap_leaf(m, page);
    if (!leaf)
        leaf = pagemap_new_leaf(m, page >> PAGEMAP_LEAF_BITS);
    uint64_t *v = &leaf[page & (PAGEMAP_LEAF - 1)];
    *added = *v == PAGEMAP_NONE;
    if (*added) {
        *v = 0;
        m->n++;
    }
    return v;
}

#endif
