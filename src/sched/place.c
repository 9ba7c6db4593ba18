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
    p->cap = 1024;
    p->keys = xcalloc(p->cap, sizeof *p->keys);
    p->homes = xcalloc(p->cap, sizeof *p->homes);
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
    free(p->keys);
    free(p->homes);
    *p = (struct place){0};
}

static size_t slot(const struct place *p, uint64_t key)
{
    size_t mask = p->cap - 1, k = hash64(key) & mask;
    while (p->keys[k] && p->keys[k] != key)
        k = (k + 1) & mask;
    return k;
}

static void grow(struct place *p)
{
    struct place old = *p;
    p->cap *= 2;
    p->keys = xcalloc(p->cap, sizeof *p->keys);
    p->homes = xcalloc(p->cap, sizeof *p->homes);
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.keys[i])
            continue;
        size_t k = slot(p, old.keys[i]);
        p->keys[k] = old.keys[i];
        p->homes[k] = old.homes[i];
    }
    free(old.keys);
    free(old.homes);
}

int place_lookup(const struct place *p, addr_t addr)
{
    uint64_t page = addr >> p->page_shift;
    if (p->policy == PLACE_INTERLEAVE)
        return (int)(page % p->nhomes);
    size_t k = slot(p, page + 1);
    return p->keys[k] ? p->homes[k] : -1;
}

unsigned place_home(struct place *p, addr_t addr, unsigned toucher)
{
    uint64_t page = addr >> p->page_shift;
    if (p->policy == PLACE_INTERLEAVE)
        return (unsigned)(page % p->nhomes);
    size_t k = slot(p, page + 1);
    if (!p->keys[k]) {
        if ((p->n + 1) * 2 > p->cap) {
            grow(p);
            k = slot(p, page + 1);
        }
        p->keys[k] = page + 1;
        p->homes[k] = (uint16_t)toucher;
        p->n++;
    }
    return p->homes[k];
}
