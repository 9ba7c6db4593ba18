/*
 * ladm.c -- LASP's decisions from a launch's locality table (ladm.h).
 */
#include "ladm.h"

#include <stdlib.h>

static bool row_class(enum sched_loc loc)
{
    return loc == SCHED_LOC_ROW_H || loc == SCHED_LOC_ROW_V;
}

static uint64_t buf_pages(const struct sched_launch *l, const struct sched_buf *b)
{
    return div_ceil(b->size, l->page_b);
}

int ladm_decider(const struct sched_launch *l)
{
    int best = -1;
    uint64_t pages = 0;
    for (unsigned i = 0; i < l->nbufs; i++) {
        const struct sched_buf *b = &l->bufs[i];
        if (b->loc.loc == SCHED_LOC_UNKNOWN)
            continue;
        uint64_t pg = buf_pages(l, b);
        if (best < 0 || pg > pages || (pg == pages && row_class(b->loc.loc) &&
                                       !row_class(l->bufs[best].loc.loc)))
            best = (int)i, pages = pg;
    }
    return best;
}

int ladm_largest(const struct sched_launch *l)
{
    int best = -1;
    for (unsigned i = 0; i < l->nbufs; i++)
        if (best < 0 || buf_pages(l, &l->bufs[i]) > buf_pages(l, &l->bufs[best]))
            best = (int)i;
    return best;
}

enum sched_loc ladm_kernel_loc(const struct sched_launch *l)
{
    int d = ladm_decider(l);
    return d < 0 ? SCHED_LOC_UNKNOWN : (enum sched_loc)l->bufs[d].loc.loc;
}

uint64_t ladm_datablock_b(const struct sched_launch *l, const struct sched_buf *b)
{
    if (b && b->loc.block_b > 0)
        return (uint64_t)b->loc.block_b;
    uint64_t threads = (uint64_t)l->block.x * l->block.y * l->block.z;
    return threads * (b && b->loc.elem_b ? b->loc.elem_b : 4);
}

uint64_t ladm_min_batch(const struct sched_launch *l, const struct sched_buf *b)
{
    uint64_t db = ladm_datablock_b(l, b);
    return db < l->page_b ? l->page_b / db : 1;
}

/* ceil(bytes / nodes) rounded up to a whole number of pages, at least one. */
static uint64_t pages_share(const struct sched_launch *l, uint64_t bytes, unsigned nodes)
{
    uint64_t g = div_ceil(div_ceil(bytes, nodes), l->page_b) * l->page_b;
    return g ? g : l->page_b;
}

uint64_t ladm_granule_b(const struct sched_launch *l, const struct sched_buf *b, unsigned nodes)
{
    switch (b->loc.loc) {
    case SCHED_LOC_NL:
        if (b->loc.stride_b)
            return pages_share(l, (uint64_t)llabs(b->loc.stride_b), nodes);
        return pages_share(l, ladm_min_batch(l, b) * ladm_datablock_b(l, b), 1);
    case SCHED_LOC_ROW_V:
    case SCHED_LOC_COL_V:
        if (b->loc.row_b)
            return pages_share(l, (uint64_t)llabs(b->loc.row_b), nodes);
        break;
    default:
        break;
    }
    return pages_share(l, b->size, nodes);
}

enum ladm_sched ladm_schedule(const struct sched_launch *l, unsigned nodes)
{
    int d = ladm_decider(l);
    enum sched_loc loc = d < 0 ? SCHED_LOC_UNKNOWN : (enum sched_loc)l->bufs[d].loc.loc;
    uint64_t rows = (uint64_t)l->grid.y * l->grid.z;
    if (loc == SCHED_LOC_ROW_H || loc == SCHED_LOC_ROW_V)
        return rows >= nodes ? LADM_ROW_BINDING : LADM_KERNEL_WIDE;
    if (loc == SCHED_LOC_COL_H || loc == SCHED_LOC_COL_V)
        return l->grid.x >= nodes ? LADM_COL_BINDING : LADM_KERNEL_WIDE;
    return loc == SCHED_LOC_NL ? LADM_ALIGN_AWARE : LADM_KERNEL_WIDE;
}

unsigned ladm_home(uint64_t g, uint64_t page_b, uint64_t off, unsigned G, unsigned C)
{
    unsigned N = ladm_nodes(G, C);
    uint64_t q = off / g;
    unsigned top = (unsigned)(q % N);
    if (G == 1)
        return top;
    uint64_t rank = (q / N) * (g / page_b) + off % g / page_b;
    return top * C + (unsigned)(rank % C);
}

const char *ladm_sched_name(enum ladm_sched s)
{
    static const char *const name[] = {"row-binding", "column-binding", "align-aware",
                                       "kernel-wide"};
    return name[s];
}

const char *ladm_place_name(enum sched_loc loc)
{
    switch (loc) {
    case SCHED_LOC_NL:
        return "stride-aware";
    case SCHED_LOC_ROW_H:
    case SCHED_LOC_COL_H:
        return "row-based";
    case SCHED_LOC_ROW_V:
    case SCHED_LOC_COL_V:
        return "column-based";
    default:
        return "kernel-wide";
    }
}

const char *ladm_insert_name(enum sched_loc loc)
{
    return loc == SCHED_LOC_ITL ? "RONCE" : "RTWICE";
}

const char *ladm_loc_name(enum sched_loc loc)
{
    static const char *const name[] = {
        [SCHED_LOC_UNKNOWN] = "unknown",
        [SCHED_LOC_NL] = "no-locality",
        [SCHED_LOC_ROW_H] = "row-horizontal",
        [SCHED_LOC_COL_H] = "column-horizontal",
        [SCHED_LOC_ROW_V] = "row-vertical",
        [SCHED_LOC_COL_V] = "column-vertical",
        [SCHED_LOC_ITL] = "intra-thread",
        [SCHED_LOC_UNCL] = "unclassified",
    };
    return loc <= SCHED_LOC_UNCL ? name[loc] : "?";
}
