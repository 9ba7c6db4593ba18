/*
 * place.h -- page placement: which node (chiplet) is the home of each page.
 * The home's L3 slice and HBM hold the page; schemes route by it.
 *
 * Policies: `first_touch` (the chiplet of the first CU that touches a page
 * becomes its home for the rest of the run; spec cpelide.md 2.3, 4 KB pages)
 * and `interleave` (page i lives on node i mod N). The page table is an
 * open-addressing hash map that grows only when a new page is first touched.
 */
#ifndef CHIPSIM_PLACE_H
#define CHIPSIM_PLACE_H

#include "base/u64map.h"
#include "config/cfg.h"

enum place_policy { PLACE_FIRST_TOUCH, PLACE_INTERLEAVE };

struct place {
    enum place_policy policy;
    unsigned page_shift;
    unsigned nhomes;
    struct u64map pages; /* page number -> home (first touch) */
};

extern const struct cfg_key place_keys[];

int place_init_cfg(struct place *p, const struct cfg_sec *sec, unsigned nhomes, struct err *e);
void place_init(struct place *p, enum place_policy policy, uint64_t page_b, unsigned nhomes);
void place_free(struct place *p);

/* Home of addr; `toucher` is the home a first touch by this requester gives. */
unsigned place_home(struct place *p, addr_t addr, unsigned toucher);
/* Home if already placed (or fixed by the policy), else -1. */
int place_lookup(const struct place *p, addr_t addr);

#endif
