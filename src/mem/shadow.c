/*
 * shadow.c -- see shadow.h.
 */
#include "shadow.h"

#include <stdlib.h>
#include <string.h>

void shadow_init(struct shadow *sh)
{
    *sh = (struct shadow){0};
    pagemap_init(&sh->pages);
}

void shadow_free(struct shadow *sh)
{
    if (sh->blocks.nchunks)
        pool_destroy(&sh->blocks);
    pagemap_free(&sh->pages);
    *sh = (struct shadow){0};
}

void shadow_read(const struct shadow *sh, addr_t addr, unsigned words, uint32_t *out)
{
    const uint64_t *blk = pagemap_get(&sh->pages, addr / SHADOW_PAGE_B);
    if (!blk) {
        memset(out, 0, words * sizeof *out);
        return;
    }
    memcpy(out, (const uint32_t *)(uintptr_t)*blk + (addr % SHADOW_PAGE_B) / 4,
           words * sizeof *out);
}

/* Blocks are never given back, so each comes fresh from a zeroed chunk but
 * for the pool's free-list link. */
static uint32_t *page_of(struct shadow *sh, addr_t addr)
{
    bool added;
    uint64_t *blk = pagemap_put(&sh->pages, addr / SHADOW_PAGE_B, &added);
    if (added) {
        if (!sh->blocks.nchunks)
            pool_init(&sh->blocks, SHADOW_PAGE_B, 512);
        uint32_t *b = pool_get(&sh->blocks);
        memset(b, 0, sizeof(struct pool_free));
        *blk = (uint64_t)(uintptr_t)b;
    }
    return (uint32_t *)(uintptr_t)*blk;
}

void shadow_write(struct shadow *sh, addr_t line_addr, unsigned words, const uint64_t mask[2],
                  const uint32_t *ver)
{
    uint32_t *w = page_of(sh, line_addr) + (line_addr % SHADOW_PAGE_B) / 4;
    for (unsigned i = 0; i < words; i++)
        if ((mask[i >> 4] >> ((i & 15) * 4)) & 0xf)
            w[i] = ver[i];
}
