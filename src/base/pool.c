/*
 * pool.c -- chunk management for object pools (see pool.h).
 */
#include "pool.h"

#include <stdlib.h>

static void add_chunk(struct pool *p)
{
    char *mem = xcalloc_big(p->chunk_objs, p->obj_size);
    p->chunks = xgrow(p->chunks, sizeof *p->chunks, &p->chunks_cap, p->nchunks + 1);
    p->chunks[p->nchunks++] = mem;
    for (size_t i = p->chunk_objs; i-- > 0;) {
        struct pool_free *f = (struct pool_free *)(mem + i * p->obj_size);
        f->next = p->free;
        p->free = f;
    }
}

void pool_init(struct pool *p, size_t obj_size, size_t initial_objs)
{
    *p = (struct pool){0};
    size_t align = sizeof(void *);
    if (obj_size < sizeof(struct pool_free))
        obj_size = sizeof(struct pool_free);
    p->obj_size = (obj_size + align - 1) / align * align;
    p->chunk_objs = initial_objs ? initial_objs : 1024;
    /* a chunk of a MiB or more is rounded up to whole huge pages */
    size_t huge = (size_t)2 << 20, bytes = p->chunk_objs * p->obj_size;
    if (bytes >= huge / 2)
        p->chunk_objs = (bytes + huge - 1) / huge * huge / p->obj_size;
    add_chunk(p);
}

void pool_refill(struct pool *p)
{
    p->grows++;
    add_chunk(p);
}

void pool_destroy(struct pool *p)
{
    for (size_t i = 0; i < p->nchunks; i++)
        xfree_big(p->chunks[i]);
    free(p->chunks);
    *p = (struct pool){0};
}
