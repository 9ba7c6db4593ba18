/*
 * shadow.c -- see shadow.h.
 */
#include "shadow.h"

#include <stdlib.h>
#include <string.h>

void shadow_init(struct shadow *sh)
{
    *sh = (struct shadow){0};
    u64map_init(&sh->pages, 256);
}

void shadow_free(struct shadow *sh)
{
    for (size_t i = 0; i < sh->nblocks; i++)
        free(sh->blocks[i]);
    free(sh->blocks);
    u64map_free(&sh->pages);
    *sh = (struct shadow){0};
}

void shadow_read(const struct shadow *sh, addr_t addr, unsigned words, uint32_t *out)
{
    const uint64_t *idx = u64map_get(&sh->pages, addr / SHADOW_PAGE_B);
    if (!idx) {
        memset(out, 0, words * sizeof *out);
        return;
    }
    memcpy(out, sh->blocks[*idx] + (addr % SHADOW_PAGE_B) / 4, words * sizeof *out);
}

static uint32_t *page_of(struct shadow *sh, addr_t addr)
{
    size_t n = sh->pages.n;
    uint64_t *idx = u64map_put(&sh->pages, addr / SHADOW_PAGE_B);
    if (sh->pages.n != n) {
        sh->blocks = xgrow(sh->blocks, sizeof *sh->blocks, &sh->cap, sh->nblocks + 1);
        sh->blocks[sh->nblocks] = xcalloc(SHADOW_PAGE_WORDS, sizeof **sh->blocks);
        *idx = sh->nblocks++;
    }
    return sh->blocks[*idx];
}

void shadow_write(struct shadow *sh, addr_t line_addr, unsigned words, const uint64_t mask[2],
                  const uint32_t *ver)
{
    uint32_t *w = page_of(sh, line_addr) + (line_addr % SHADOW_PAGE_B) / 4;
    for (unsigned i = 0; i < words; i++)
        if ((mask[i >> 4] >> ((i & 15) * 4)) & 0xf)
            w[i] = ver[i];
}
