/*
 * ladm.h -- LADM's LASP (spec ladm.md 6, 7): from the locality table a
 * launch carries (struct sched_locality per buffer, spec 3), the page
 * placement of each buffer at its first launch and the work-group
 * scheduling of each kernel. The place policy `ladm` and the scheduling
 * policy `ladm` (place_policies.c, wgs_policies.c) are built on these; the
 * command processor asks ladm_kernel_loc() for CRB's insertion rule (8).
 *
 * Nodes (L4). The equations split over the top-level nodes: the GPUs, or on
 * one GPU its chiplets. Inside a GPU, the pages of the GPU's share go to its
 * chiplets round-robin a page at a time, and its work-groups in batches of
 * MinTBBatch (Eq. 3.2), so that the chiplet of a page and of the
 * work-groups whose datablocks fill it agree.
 *
 * Granule (Eq. 3.1). Each buffer is cut into granules of g bytes, a whole
 * number of pages, granule q on top-level node q mod N:
 *   no locality (1), with a stride s   g = ceil(s / N) rounded up to pages
 *   no locality, no loop               g = MinTBBatch x datablock rounded up
 *                                      to pages (L5: one page when a
 *                                      datablock is at most a page)
 *   column classes (4, 5)              g = ceil(row width / N) rounded up
 *                                      (no row width known: kernel-wide)
 *   row classes (2, 3), intra-thread,  g = ceil(size / N) rounded up: one
 *   unclassified, unknown (6, 7)       contiguous chunk per node
 *                                      (kernel-wide partitioning)
 * datablock: the bytes a work-group covers per iteration, from the index
 * (ladm_datablock_b; L8's threads x element size where it says nothing);
 * MinTBBatch = max(1, page / datablock) (Eq. 3.2).
 */
#ifndef CHIPSIM_SCHED_LADM_H
#define CHIPSIM_SCHED_LADM_H

#include "sched/launch.h"

/* The buffer a kernel's scheduling follows (spec ladm 7, L11): of those with
 * a known class, the largest in pages, ties to a row class, then to the
 * first; -1 when none has a known class. */
int ladm_decider(const struct sched_launch *l);

/* The class of the buffer the kernel follows; SCHED_LOC_UNKNOWN: none. */
enum sched_loc ladm_kernel_loc(const struct sched_launch *l);

/* Bytes of buffer b that one work-group covers per iteration: the distance
 * between consecutive work-groups' datablocks where the index gives it
 * (sched_locality.block_b), else L8's work-group threads times the element
 * size (4 B where the table has none, or b is NULL). */
uint64_t ladm_datablock_b(const struct sched_launch *l, const struct sched_buf *b);

/* Eq. 3.2: consecutive work-groups that fill one page of b, at least 1. */
uint64_t ladm_min_batch(const struct sched_launch *l, const struct sched_buf *b);

/* Eq. 3.1: the granule of b over `nodes` top-level nodes, in bytes (a
 * positive multiple of the page size). */
uint64_t ladm_granule_b(const struct sched_launch *l, const struct sched_buf *b, unsigned nodes);

/* The top-level nodes of the equations on G GPUs of C chiplets (L4). */
static inline unsigned ladm_nodes(unsigned G, unsigned C)
{
    return G > 1 ? G : C;
}

/* LASP's home of byte `off` of a buffer cut into granules of g bytes
 * (ladm_granule_b over ladm_nodes(G, C) nodes) on G GPUs of C chiplets
 * (global chiplet index): granule q on top-level node q mod N; on several
 * GPUs the page's rank in its GPU's share, in address order, mod C (L4). */
unsigned ladm_home(uint64_t g, uint64_t page_b, uint64_t off, unsigned G, unsigned C);

/* The largest buffer of the launch in pages (the first of equals), any
 * class; -1 without buffers. CODA's batches follow it (spec ladm 2). */
int ladm_largest(const struct sched_launch *l);

/* Table 3.2's work-group scheduling, with L6's fallback. */
enum ladm_sched {
    LADM_ROW_BINDING,   /* rows 2, 4: contiguous rows of work-groups per node */
    LADM_COL_BINDING,   /* rows 3, 5: contiguous columns */
    LADM_ALIGN_AWARE,   /* row 1: batches of granule / datablock work-groups round-robin */
    LADM_KERNEL_WIDE,   /* rows 6, 7, unknown, and a binding with fewer rows (columns) of
                           work-groups than nodes (L6; rows: y and z linearised) */
};

/* The scheduling of launch l over `nodes` top-level nodes, following buffer
 * ladm_decider(l). */
enum ladm_sched ladm_schedule(const struct sched_launch *l, unsigned nodes);

/* Names, as Table 3.2 calls them: a class, a scheduling, and a class's data
 * placement and L2 insertion (spec 6, 8). */
const char *ladm_loc_name(enum sched_loc loc);
const char *ladm_sched_name(enum ladm_sched s);
const char *ladm_place_name(enum sched_loc loc);
const char *ladm_insert_name(enum sched_loc loc);

#endif
