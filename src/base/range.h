/*
 * range.h -- byte ranges [lo, hi) and lists of them: what a kernel's
 * work-groups may touch of a data structure (a workload's ranges callback),
 * and what the command processor and CPElide keep per chiplet.
 *
 * Every list here is kept sorted by address with its ranges merged: ranges
 * that overlap or touch become one, and so do ranges less than `join` bytes
 * apart where a list asks for it (a workload whose accesses are checked one
 * cache line at a time joins pieces that could share a line). Two holders:
 *  - struct range_set grows as needed (the command processor, CPElide);
 *  - struct range_list fills a caller's array of at most `max` entries (a
 *    kernel_ranges_fn callback).
 *
 * The one overflow rule: when a range_list would need more than `max`
 * entries, it becomes the single range from the lowest to the highest byte
 * of everything added (later additions widen it). That is a superset of
 * every range added, so a scheme that trusts it never misses data the
 * work-group touched; it is never "unknown" (0), which callbacks return only
 * for what they cannot describe at all.
 */
#ifndef CHIPSIM_RANGE_H
#define CHIPSIM_RANGE_H

#include "base.h"

struct addr_range {
    addr_t lo, hi; /* [lo, hi) */
};

/* ---- a growable set ------------------------------------------------------ */

struct range_set {
    struct addr_range *v; /* sorted, merged, no empty range */
    unsigned n;
    size_t cap;
};

static inline void range_set_clear(struct range_set *s) { s->n = 0; }
void range_set_free(struct range_set *s);
/* Add [lo, hi) (nothing if empty). */
void range_set_add(struct range_set *s, addr_t lo, addr_t hi);
/* d = d u s. */
void range_set_union(struct range_set *d, const struct range_set *s);
/* Some byte lies in both. */
bool range_set_overlap(const struct range_set *a, const struct range_set *b);

/* Building from many ranges in no order: range_set_push() appends without
 * sorting or merging, range_set_norm() then sorts and merges them all (the
 * set is a plain list in between: no other call may see it). */
void range_set_push(struct range_set *s, const struct addr_range *v, unsigned n);
void range_set_norm(struct range_set *s);

/* ---- a list of fixed capacity ----------------------------------------------- */

struct range_list {
    struct addr_range *v; /* the caller's array */
    unsigned n, max;
    addr_t join;          /* ranges less than this many bytes apart merge */
    bool over;            /* overflowed: v[0] spans everything added */
};

void range_list_init(struct range_list *l, struct addr_range *out, unsigned max, addr_t join);
/* Add [lo, hi) (nothing if empty). */
void range_list_add(struct range_list *l, addr_t lo, addr_t hi);
/* Columns [c0, c1) of rows [r0, r1) of a row-major array at base, `pitch`
 * elements of `elem` bytes per row. */
void range_list_rows(struct range_list *l, addr_t base, uint64_t pitch, unsigned elem,
                     uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1);
/* The count a ranges callback returns: 0 only if max is 0; a work-group
 * that touched nothing gets the one empty range [base, base), so that the
 * whole structure is not assumed. */
unsigned range_list_done(struct range_list *l, addr_t base);

#endif
