/*
 * shadow.h -- per-word data versions of memory (the backing store behind the
 * DRAM) for the coherence checker. Versions stand in for data values: a store
 * creates a new version, caches and requests carry versions with the data
 * they hold, and memory keeps the version of its last write. Storage is
 * allocated per 4 KiB page on first write; unwritten memory has version 0.
 */
#ifndef CHIPSIM_SHADOW_H
#define CHIPSIM_SHADOW_H

#include "base/pool.h"
#include "base/pagemap.h"

#define SHADOW_PAGE_B 4096u
#define SHADOW_PAGE_WORDS (SHADOW_PAGE_B / 4)

struct shadow {
    struct pagemap pages; /* page number -> its versions (pointer into blocks) */
    struct pool blocks;  /* one page's versions per object, on huge pages */
};

void shadow_init(struct shadow *sh);
void shadow_free(struct shadow *sh);
/* Versions of the `words` words starting at word-aligned addr (within one page). */
void shadow_read(const struct shadow *sh, addr_t addr, unsigned words, uint32_t *out);
/* Store the versions of the words whose bytes mask (relative to the line at
 * line_addr) touches. */
void shadow_write(struct shadow *sh, addr_t line_addr, unsigned words, const uint64_t mask[2],
                  const uint32_t *ver);

#endif
