/*
 * place_policies.c -- the built-in page placement policies (place.h):
 * first_touch and interleave are rules only; chunk places each buffer a
 * kernel declares at its first launch.
 *
 * chunk (spec dualopt 2.2, MGPUSim's memory distributor; ladm 2 kernel-wide
 * partitioning on one GPU): a buffer of P pages gives each of the G GPUs a
 * contiguous run of floor(P / G) pages in GPU order, and the P mod G pages
 * left over to the last GPU (all P to GPU 0 when P < G). A GPU's run is
 * split over its chiplets the same way (`chunk_chiplets = contiguous`), or
 * page i of the run goes to its chiplet i mod C (`interleave`, spec ladm L4).
 *
 * ladm (spec ladm 6, LASP): each buffer in granules of Eq. 3.1 for its
 * locality class at its first launch (ladm.h), granule q on top-level node
 * q mod N; on several GPUs the pages of a GPU's share go to its chiplets in
 * turn (L4).
 */
#include "ladm.h"
#include "place.h"

/* Part of item j of n split into `parts` runs of floor(n / parts), the rest
 * to the last run (all to part 0 when n < parts); *rel is j's index in its
 * run and *len the run's length. */
static unsigned split_part(uint64_t n, unsigned parts, uint64_t j, uint64_t *rel, uint64_t *len)
{
    uint64_t per = n / parts;
    if (!per) {
        *rel = j;
        *len = n;
        return 0;
    }
    uint64_t k = min_u64(j / per, parts - 1);
    *rel = j - k * per;
    *len = k == parts - 1 ? n - k * per : per;
    return (unsigned)k;
}

/* Pages of buffer b and its first page number. */
static uint64_t buf_pages(const struct place *p, const struct sched_buf *b, uint64_t *first)
{
    *first = b->base >> p->page_shift;
    return ((b->base + b->size - 1) >> p->page_shift) - *first + 1;
}

/* Home of page j of a buffer of n pages. */
static unsigned chunk_home(const struct place *p, uint64_t n, uint64_t j)
{
    uint64_t rel, len, rel2, len2;
    unsigned g = split_part(n, p->t.gpus, j, &rel, &len);
    unsigned c = p->p.chunk_chiplets == PLACE_CHUNK_INTERLEAVE
                     ? (unsigned)(rel % p->t.chiplets)
                     : split_part(len, p->t.chiplets, rel, &rel2, &len2);
    return g * p->t.chiplets + c;
}

static void chunk_first_launch(struct place *p, const struct sched_launch *l, unsigned b)
{
    const struct sched_buf *buf = &l->bufs[b];
    if (!buf->size)
        return;
    uint64_t first, n = buf_pages(p, buf, &first);
    for (uint64_t j = 0; j < n; j++)
        place_set(p, (first + j) << p->page_shift, chunk_home(p, n, j));
}

static void ladm_first_launch(struct place *p, const struct sched_launch *l, unsigned b)
{
    const struct sched_buf *buf = &l->bufs[b];
    if (!buf->size)
        return;
    unsigned G = p->t.gpus, C = p->t.chiplets;
    uint64_t g = ladm_granule_b(l, buf, ladm_nodes(G, C)), first, n = buf_pages(p, buf, &first);
    for (uint64_t j = 0; j < n; j++)
        place_set(p, (first + j) << p->page_shift,
                  ladm_home(g, p->p.page_b, j << p->page_shift, G, C));
}

const struct place_ops place_first_touch = {
    .name = "first_touch",
    .desc = "the chiplet of the first CU that touches a page is its home (spec cpelide 2.3)",
    .rule = PLACE_FIRST_TOUCH,
};

const struct place_ops place_interleave = {
    .name = "interleave",
    .desc = "unit i of interleave_b bytes on chiplet i mod N (spec ladm 2 round-robin)",
    .rule = PLACE_INTERLEAVE,
};

const struct place_ops place_chunk = {
    .name = "chunk",
    .desc = "each declared buffer in contiguous runs of pages per GPU, then per chiplet "
            "(spec dualopt 2.2)",
    .rule = PLACE_FIRST_TOUCH,
    .first_launch = chunk_first_launch,
};

const struct place_ops place_ladm = {
    .name = "ladm",
    .desc = "LASP: each declared buffer at its first launch by its locality class, in granules "
            "of Eq. 3.1 round-robin over the GPUs (one GPU: its chiplets), a GPU's pages over "
            "its chiplets in turn (spec ladm 6, L4)",
    .rule = PLACE_FIRST_TOUCH,
    .first_launch = ladm_first_launch,
};
