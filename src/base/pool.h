/*
 * pool.h -- fixed-size object pools. Objects are carved from chunks that are
 * allocated when the pool is created (and, if the configured capacity turns
 * out too small, in further whole chunks, counted in `grows`), so getting and
 * putting an object on the hot path is a pointer swap with no malloc.
 * Chunks come from xcalloc_big(): 64-byte aligned, so objects whose size is
 * a multiple of 64 each start on a host cache line, and large ones sit on
 * huge pages.
 */
#ifndef CHIPSIM_POOL_H
#define CHIPSIM_POOL_H

#include "base.h"

struct pool_free {
    struct pool_free *next;
};

struct pool {
    size_t obj_size;
    size_t chunk_objs;
    struct pool_free *free;
    void **chunks;
    size_t nchunks, chunks_cap;
    uint64_t in_use, peak, grows;
};

void pool_init(struct pool *p, size_t obj_size, size_t initial_objs);
void pool_destroy(struct pool *p);
void pool_refill(struct pool *p); /* slow path: adds one chunk */

static inline void *pool_get(struct pool *p)
{
    if (__builtin_expect(!p->free, 0))
        pool_refill(p);
    struct pool_free *f = p->free;
    p->free = f->next;
    __builtin_prefetch(p->free, 1); /* the next get reads and writes it (NULL never faults) */
    if (++p->in_use > p->peak)
        p->peak = p->in_use;
    return f;
}

static inline void pool_put(struct pool *p, void *obj)
{
    struct pool_free *f = obj;
    f->next = p->free;
    p->free = f;
    p->in_use--;
}

#endif
