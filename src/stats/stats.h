/*
 * stats.h -- the statistics registry. Components own their counters as plain
 * uint64_t fields (incrementing one on the hot path is a single add) and
 * register them once under a hierarchical name such as
 * "gpu0.chiplet1.l2.read_miss". The registry reads them when printing.
 *
 * Per-kernel sections: stats_section_end() records the change of every
 * counter since the previous section boundary under a name ("kernel3");
 * the text and JSON reports list those deltas when sections were kept.
 */
#ifndef CHIPSIM_STATS_H
#define CHIPSIM_STATS_H

#include <stdio.h>

#include "base/base.h"

struct stat_ent {
    char *name;
    const uint64_t *ptr;
    const char *help;
};

/* One counter of a component's counter struct, for stats_reg_block(). */
struct stat_desc {
    const char *name;
    size_t offset; /* offsetof(struct X, field); the field is a uint64_t */
    const char *help;
};
#define STAT_DESC(type, field, help) {#field, offsetof(type, field), help}

struct stats_section {
    char *name;
    uint64_t *delta; /* one per registered counter, in registry order */
};

struct stats {
    struct stat_ent *v;
    size_t n, cap;
    uint32_t *index;  /* open-addressing hash of names -> entry + 1 (0 = empty) */
    size_t index_cap;
    uint64_t *mark; /* counter values at the last section boundary */
    struct stats_section *secs;
    size_t nsecs, secs_cap;
    bool keep_sections;
};

void stats_init(struct stats *st);
void stats_free(struct stats *st);

/* Register one counter as "<prefix>.<name>" (prefix may be NULL or ""). */
void stats_reg(struct stats *st, const char *prefix, const char *name, const uint64_t *ptr,
               const char *help);
/* Register every counter of desc[] (terminated by a {NULL} row) found in the struct at base. */
void stats_reg_block(struct stats *st, const char *prefix, const struct stat_desc *desc,
                     const void *base);

const struct stat_ent *stats_find(const struct stats *st, const char *name);
/* Value of an exact name; BUG if not registered. */
uint64_t stats_get(const struct stats *st, const char *name);
/* Sum of every counter whose name ends in ".<suffix>" (or equals suffix). */
uint64_t stats_sum(const struct stats *st, const char *suffix);

/* Close a section: record deltas since the last boundary (if sections are
 * kept) and move the boundary to now. */
void stats_section_end(struct stats *st, const char *name);

void stats_print_text(const struct stats *st, FILE *out);

#endif
