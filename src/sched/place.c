/*
 * place.c -- page table and placement policies (see place.h).
 */
#include "place.h"

#include <stdlib.h>

const struct cfg_key place_keys[] = {
    {"policy", CFG_ENUM, "first_touch", 0, 0,
     "page placement: first_touch (home = chiplet of the first toucher) or interleave (page i on "
     "chiplet i mod N)", "first_touch|interleave"},
    {"page_b", CFG_INT, "4096", 64, 1 << 30, "placement granularity in bytes (a power of two)",
     NULL},
    CFG_END,
};

void place_init(struct place *p, enum place_policy policy, uint64_t page_b, unsigned nhomes)
{
    *p = (struct place){.policy = policy, .page_shift = ilog2(page_b), .nhomes = nhomes};
    u64map_init(&p->pages, 1024);
}

int place_init_cfg(struct place *p, const struct cfg_sec *sec, unsigned nhomes, struct err *e)
{
    uint64_t page_b = cfg_uint(sec, "page_b");
    if (!is_pow2(page_b))
        return cfg_err(e, sec, "page_b", "not a power of two");
    place_init(p, (enum place_policy)cfg_enum(sec, "policy"), page_b, nhomes);
    return 0;
}

void place_free(struct place *p)
{
    u64map_free(&p->pages);
    *p = (struct place){0};
}

int place_lookup(const struct place *p, addr_t addr)
{
    uint64_t page = addr >> p->page_shift;
    if (p->policy == PLACE_INTERLEAVE)
        return (int)(page % p->nhomes);
    const uint64_t *home = u64map_get(&p->pages, page);
    return home ? (int)*home : -1;
}

unsigned place_home(struct place *p, addr_t addr, unsigned toucher)
{
    uint64_t page = addr >> p->page_shift;
    if (p->policy == PLACE_INTERLEAVE)
        return (unsigned)(page % p->nhomes);
    size_t n = p->pages.n;
    uint64_t *home = u64map_put(&p->pages, page);
    if (p->pages.n != n)
        *home = toucher;
    return (unsigned)*home;
}
